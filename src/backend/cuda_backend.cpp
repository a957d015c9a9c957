// CUDA backend. ncu runs with --cache-control all (caches flushed before each
// replay: a cold, repeatable hit rate) and base clocks; its durations are kept
// for reference only — speed comes from the program's own event timing.
#include "swizzleperf/backend/cuda_backend.h"

#include <fmt/format.h>

#include "swizzleperf/backend/ncu_parser.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/probe/probe_runner.h"
#include "swizzleperf/probe/topology.h"

namespace swz {

namespace {

std::string tool_or_default(const std::string& configured, const char* name, const char* fallback) {
  if (!configured.empty()) return configured;
  if (!find_executable(name).empty()) return name;
  if (!find_executable(fallback).empty()) return fallback;
  return name;
}

}  // namespace

std::string CudaBackend::compiler_path() const {
  return tool_or_default(tools_.compiler, "nvcc", "/usr/local/cuda/bin/nvcc");
}

std::string CudaBackend::profiler_path() const {
  return tool_or_default(tools_.profiler, "ncu", "/usr/local/cuda/bin/ncu");
}

Status CudaBackend::preflight(bool need_profiler) {
  if (find_executable(compiler_path()).empty())
    return make_error("nvcc not found (looked on PATH and in /usr/local/cuda/bin): install the CUDA toolkit or pass --nvcc PATH");
  if (need_profiler && find_executable(profiler_path()).empty())
    return make_error("ncu (Nsight Compute) not found (looked on PATH and in /usr/local/cuda/bin): install it or pass --ncu PATH");
  return ok_status();
}

std::vector<std::string> CudaBackend::build_argv(const BuildRequest& req, const std::string& compiler) const {
  const auto support = support_dir();
  std::string arch = !req.arch.empty() ? req.arch : (!tools_.arch.empty() ? tools_.arch : "native");
  std::vector<std::string> argv = {compiler, "-x", "cu", "-std=c++17", "-O3", "-arch=" + arch,
                                   "-I" + (support / "hip_on_cuda").string(), "-I" + support.string(),
                                   "-DSWZ_NUM_DIES=" + std::to_string(req.num_dies)};
  argv.insert(argv.end(), tools_.extra_flags.begin(), tools_.extra_flags.end());
  argv.insert(argv.end(), {"-o", req.output.string(), req.source.string()});
  return argv;
}

Result<BuildResult> CudaBackend::build(const BuildRequest& req) {
  BuildResult b;
  const auto compiler = compiler_path();
  b.argv = build_argv(req, compiler);
  ProcessSpec spec{b.argv, {}, {}, tools_.build_timeout};
  auto r = runner_.run(spec);
  b.seconds = r.seconds;
  b.log = r.out + r.err;
  if (!r.started) return make_error("cannot run nvcc (" + compiler + "): " + tail_lines(r.err, 1) + "; pass --nvcc PATH");
  if (r.interrupted) return make_error("interrupted");
  b.ok = r.success();
  if (!b.ok) b.failure = "nvcc " + r.describe() + ": " + tail_lines(b.log, 1);
  return b;
}

Result<HardwareProfile> CudaBackend::query_device(const fs::path& work_dir) {
  BuildRequest req{support_dir() / "device_query.hip", work_dir / "device_query", 1, {}};
  auto built = build(req);
  if (!built) return built.error();
  if (!built->ok) return make_error("cannot build the device query program: " + built->failure);
  auto run = run_program(req.output, {}, tools_.run_timeout);
  if (!run.process.success() || run.json.is_null())
    return make_error("no NVIDIA GPU answered the device query (" + run.process.describe() + ": " +
                      tail_lines(run.process.err + run.process.out, 1) + ")");
  auto profile = profile_from_device_query(run.json);
  if (!profile) return profile.error();
  if (!tools_.arch.empty()) profile->arch = tools_.arch;
  // A probe measured on this very device (same name, driver, SM count) replaces the
  // arch table's assumed dispatch model.
  if (auto probe = probe::load_cached_probe(*profile)) probe::apply_probe(*profile, *probe);
  return profile;
}

std::vector<std::string> CudaBackend::profile_argv(const ProfileRequest& req, const std::string& ncu) const {
  std::string metrics;
  for (const auto& m : ncu_default_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> argv = {ncu, "--csv", "--print-units", "base", "--cache-control", "all",
                                   "--clock-control", "base", "--target-processes", "all",
                                   "--metrics", metrics};
  if (!req.kernel_regex.empty()) argv.insert(argv.end(), {"--kernel-name", "regex:" + req.kernel_regex});
  argv.push_back(req.exe.string());
  argv.insert(argv.end(), req.args.begin(), req.args.end());
  return argv;
}

Result<Metrics> CudaBackend::profile(const ProfileRequest& req) {
  const auto ncu = profiler_path();
  ProcessSpec spec{profile_argv(req, ncu), {}, {}, tools_.profile_timeout};
  auto r = runner_.run(spec);
  std::error_code ec;
  fs::create_directories(req.out_dir, ec);
  (void)write_file_atomic(req.out_dir / "ncu.csv", r.out);
  (void)write_file_atomic(req.out_dir / "ncu.log", format_argv(spec.argv) + "\n" + r.err);
  if (!r.started) return make_error("cannot run ncu (" + ncu + "): " + tail_lines(r.err, 1) + "; pass --ncu PATH");
  if (r.interrupted) return make_error("interrupted");
  if (r.timed_out) return make_error("ncu " + r.describe());
  auto parsed = parse_ncu_csv(r.out + "\n" + r.err);
  if (!parsed) return parsed.error();
  if (!r.success()) return make_error("ncu " + r.describe() + ": " + tail_lines(r.out + r.err, 1));
  return parsed;
}

}  // namespace swz
