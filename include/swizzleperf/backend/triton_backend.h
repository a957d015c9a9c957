// Triton backend: Python kernel programs (kernels/triton/*.py) run by the Python the
// user names (--python, default python3), with torch + triton installed there. There
// is no compiler: "build" checks the program's syntax, writes a self-contained
// launcher and runs its `info` mode, which imports torch and triton (a missing module
// is a failed build with Python's own line); Triton compiles on the program's first
// launch, which the harness (kernels/support/swz_triton.py) makes a warm-up outside
// every measurement. The device query is a Python program too
// (kernels/support/swz_device_query.py), so no CUDA toolkit is needed. Profiles come from
// the vendor's profiler over the Python process: Nsight Compute on NVIDIA, rocprofv3 on
// AMD (that path never ran: no AMD GPU was at hand), skipping the warm-up launches.
#pragma once

#include <memory>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/backend/python_fork_server.h"

namespace swz {

class TritonBackend final : public Backend {
 public:
  // tools.compiler: the Python interpreter; tools.profiler: ncu, or rocprofv3 on AMD.
  TritonBackend(ProcessRunner& runner, ToolOptions tools);
  ~TritonBackend() override;
  std::string name() const override { return "triton"; }
  Status preflight(bool need_profiler) override;
  Result<HardwareProfile> query_device(const fs::path& work_dir) override;
  Result<BuildResult> build(const BuildRequest& request) override;
  // Python programs only (.py); a C++ program is told to use cuda or hip.
  Status accepts_source(const fs::path& source, std::string_view text) const override;
  Result<Metrics> profile(const ProfileRequest& request) override;
  // A launcher's run goes through the Python fork server (backend/python_fork_server.h):
  // torch and triton imported once per run of swizzleperf, not once per program run; the
  // same result as a process of its own, which it falls back to.
  ProgramRun run_program(const fs::path& exe, const std::vector<std::string>& args,
                         std::chrono::seconds timeout) override;

  // "" when the interpreter imports torch and triton; else one line naming what it lacks
  // ("python3 cannot import triton (ModuleNotFoundError: No module named 'triton')").
  std::string missing_modules();
  // The interpreter: --python, else python3 on PATH (an absolute path, for the launcher's #! line).
  std::string python_path() const;
  // The launcher `build` writes at the output path: "#!PYTHON" and a few lines that set
  // SWZ_NUM_DIES, put kernels/support on sys.path and run `program_text` as __main__ under
  // `program_path`'s name (registered with linecache, so Triton can read its functions'
  // source). It holds the whole program, so it can be moved like a binary.
  static std::string launcher_text(const std::string& python, const fs::path& support, const fs::path& program_path,
                                   const std::string& program_text, int num_dies);
  // The profile window over the program's launches: its warm-up run's launches skipped first.
  static LaunchWindow window_after_warmup(const LaunchWindow& window);

 private:
  bool amd_ = false;                 // /dev/kfd present: ROCm's Triton, rocprofv3
  std::unique_ptr<Backend> vendor_;  // CudaBackend / HipBackend: the profiler
  std::unique_ptr<PythonForkServer> fork_;  // made on the first program run
};

}  // namespace swz
