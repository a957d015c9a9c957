// Backend: the one interface to a GPU vendor's toolchain — query the device,
// build a kernel program, run it in one of its modes, profile it. cuda (nvcc +
// Nsight Compute) and hip (hipcc + rocprofv3) implement it; every external
// program goes through the ProcessRunner seam, so tests can substitute tools.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/backend/kernel_resources.h"
#include "swizzleperf/core/metrics.h"
#include "swizzleperf/util/process.h"
#include "swizzleperf/util/result.h"

namespace swz {

namespace fs = std::filesystem;

struct ToolOptions {
  std::string compiler;         // nvcc / hipcc path; empty: look up on PATH
  std::string profiler;         // ncu / rocprofv3 path; empty: look up on PATH
  std::string arch;             // sm_90 / gfx942; empty: from the device query
  std::vector<std::string> extra_flags;
  std::chrono::seconds build_timeout{300};
  std::chrono::seconds run_timeout{120};
  std::chrono::seconds profile_timeout{300};
  // Most kernel launches one profile collects (0: every launch). A program with more
  // launches per run is profiled over a window in the middle of its launch sequence
  // (profile_window); ncu's cost is per launch (~0.15 s), so a 255-launch run costs
  // ~40 s in full. Baseline and candidates get the same window: like for like.
  int profile_launches = 24;
};

// Which launches of a run a profile collects: launches [skip, skip + count) of total.
// count 0: every launch (total unknown (0), or within the limit).
struct LaunchWindow {
  int skip = 0;
  int count = 0;
  int total = 0;
};

// The middle `max_launches` of `total` launches (the middle of a wavefront or time loop
// carries most of its sectors; its first launches are the least typical); every launch
// when total is unknown (<= 0), within the limit, or max_launches is 0.
LaunchWindow profile_window(int total, int max_launches);

struct BuildRequest {
  fs::path source;
  fs::path output;
  int num_dies = 1;             // becomes -DSWZ_NUM_DIES=N
  std::string arch;             // overrides ToolOptions::arch
  // The program will only run modes that touch no GPU (`info`, for `check`): the
  // backend may skip device code generation and optimisation (nvcc: PTX for the
  // arch's virtual architecture at -O0, no ptxas; hipcc: -O0).
  bool info_only = false;
  // A tuning point's template parameters (tune/tune_space): C++ builds pass -DNAME=V (the
  // program's #ifndef guard lets it win); a Triton build rewrites the declaring lines of the
  // program text it runs. Empty: the program as written.
  std::map<std::string, std::int64_t> defines = {};
};

struct BuildResult {
  bool ok = false;
  std::vector<std::string> argv;
  std::string log;              // compiler stdout + stderr
  std::string failure;          // one line when !ok
  bool could_not_write = false; // !ok because the compiler could not write its files (no space, a
                                // read-only file system): the machine's fault, said in `failure`
  double seconds = 0;
};

struct ProgramRun {
  ProcessResult process;
  nlohmann::json json;          // the program's last stdout line, parsed (null if none)
  std::vector<std::string> argv;
  // "MODE mode: exit code 3: <the program's last output line>": why a run failed, one line.
  std::string failure(const std::string& mode) const;
};

struct ProfileRequest {
  fs::path exe;
  std::vector<std::string> args;  // program arguments, e.g. {"profile"}
  std::string kernel_regex;       // which kernels to profile
  fs::path out_dir;               // raw profiler output is kept here
  LaunchWindow window;            // which launches (default: every launch)
};

class Backend {
 public:
  Backend(ProcessRunner& runner, ToolOptions tools) : runner_(runner), tools_(std::move(tools)) {}
  virtual ~Backend() = default;

  virtual std::string name() const = 0;  // "cuda" | "hip"
  // Are the compiler (and, if asked, the profiler) there? One-line error saying
  // what is missing and how to point at it.
  virtual Status preflight(bool need_profiler) = 0;
  // Builds and runs kernels/support/device_query.hip in work_dir.
  virtual Result<HardwareProfile> query_device(const fs::path& work_dir) = 0;
  // Error only when the compiler cannot be run at all; a compile error is a
  // BuildResult with ok == false.
  virtual Result<BuildResult> build(const BuildRequest& request) = 0;
  // Whether this backend can build a program with this source at all: an Error naming
  // why not (the hip backend: a program that calls the CUDA runtime). build() answers
  // such a source with a failed build; the run commands ask first, before a run dir is
  // made, so the message names the user's file. Default: every source.
  virtual Status accepts_source(const fs::path& /*source*/, std::string_view /*text*/) const { return ok_status(); }
  virtual Result<Metrics> profile(const ProfileRequest& request) = 0;
  // The compiler's own resource report of a built program's kernels (registers, static
  // shared memory), read back from the executable. Default: an Error saying this backend
  // does not read one (the caller falls back to what the program declares).
  virtual Result<std::vector<KernelResources>> resource_usage(const fs::path& exe);
  // Runs the program with args; its last stdout line is parsed as JSON. Virtual so a
  // test's fake backend can answer for programs it never built.
  virtual ProgramRun run_program(const fs::path& exe, const std::vector<std::string>& args,
                         std::chrono::seconds timeout);

  const ToolOptions& tools() const { return tools_; }
  ProcessRunner& runner() { return runner_; }

 protected:
  // Runs a compiler argv; `tool` ("nvcc", "hipcc") names it in messages and in the
  // option that points at it (--nvcc, --hipcc).
  Result<BuildResult> run_compiler(std::vector<std::string> argv, const std::string& tool);
  // Builds and runs kernels/support/device_query.hip with this backend and turns its
  // JSON into a profile; `vendor` ("NVIDIA", "AMD") words the no-GPU error.
  Result<HardwareProfile> query_with_program(const fs::path& work_dir, const std::string& vendor);

  ProcessRunner& runner_;
  ToolOptions tools_;
};

// An AMD GPU is present (/dev/kfd, the ROCm kernel driver's node): how `auto` and the
// triton backend choose between the NVIDIA and the AMD toolchain.
bool amd_gpu_present();
// An NVIDIA GPU is present (/dev/nvidia0, or nvidia-smi on PATH): how `auto` looks for one.
bool nvidia_gpu_present();

// The configured path, else `name` if it is on PATH, else `fallback` if that
// exists, else `name` (so the error names what was looked for).
std::string tool_or_default(const std::string& configured, const char* name, const char* fallback);

// The last line of `out` that parses as a JSON object (null when none): what a program's
// mode reports.
nlohmann::json last_json_line(const std::string& out);

// Where kernels/support lives: $SWIZZLEPERF_SUPPORT_DIR, then next to the
// executable (../kernels/support, ../share/swizzleperf/support), then the source tree.
fs::path support_dir();
// Where prompts/ lives, found the same way.
fs::path prompts_dir();

}  // namespace swz
