// CUDA backend. ncu runs with --cache-control all (caches flushed before each
// replay: a cold, repeatable hit rate) and base clocks; its durations are kept
// for reference only — speed comes from the program's own event timing.
#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/util/file_io.h"

#include <fmt/format.h>

#include "swizzleperf/backend/cuobjdump_parser.h"
#include "swizzleperf/backend/ncu_parser.h"

namespace swz {


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

Result<std::vector<KernelResources>> CudaBackend::resource_usage(const fs::path& exe) {
  const std::string nvcc = find_executable(compiler_path());
  std::string cuobjdump;
  if (!nvcc.empty() && fs::exists(fs::path(nvcc).parent_path() / "cuobjdump"))
    cuobjdump = (fs::path(nvcc).parent_path() / "cuobjdump").string();
  else
    cuobjdump = find_executable("cuobjdump");
  if (cuobjdump.empty()) return make_error("cuobjdump not found (beside nvcc or on PATH)");
  ProcessSpec spec;
  spec.argv = {cuobjdump, "--dump-resource-usage", exe.string()};
  spec.timeout = std::chrono::seconds(60);
  const auto r = runner_.run(spec);
  if (!r.success()) return make_error("cuobjdump --dump-resource-usage failed: " + r.describe() + ": " + tail_lines(r.err + r.out, 1));
  auto report = parse_cuobjdump_resources(r.out);
  if (report.empty()) return make_error("cuobjdump printed no function's resource usage for " + exe.string());
  return report;
}

std::vector<std::string> CudaBackend::build_argv(const BuildRequest& req, const std::string& compiler) const {
  const auto support = support_dir();
  std::string arch = !req.arch.empty() ? req.arch : (!tools_.arch.empty() ? tools_.arch : "native");
  std::string opt = "-O3";
  if (req.info_only) {  // PTX only (no ptxas, no GPU needed to pick an arch): sm_90 -> compute_90
    arch = arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : "compute_90";
    opt = "-O0";
  }
  std::vector<std::string> argv = {compiler, "-x", "cu", "-std=c++17", opt, "-arch=" + arch,
                                   "-I" + (support / "hip_on_cuda").string(), "-I" + support.string(),
                                   "-DSWZ_NUM_DIES=" + std::to_string(req.num_dies)};
  for (const auto& [name, value] : req.defines) argv.push_back("-D" + name + "=" + std::to_string(value));
  argv.insert(argv.end(), tools_.extra_flags.begin(), tools_.extra_flags.end());
  argv.insert(argv.end(), {"-o", req.output.string(), req.source.string()});
  return argv;
}

Result<BuildResult> CudaBackend::build(const BuildRequest& req) {
  return run_compiler(build_argv(req, compiler_path()), "nvcc");
}

Result<HardwareProfile> CudaBackend::query_device(const fs::path& work_dir) {
  return query_with_program(work_dir, "NVIDIA");
}

std::vector<std::string> CudaBackend::profile_argv(const ProfileRequest& req, const std::string& ncu) const {
  std::string metrics;
  for (const auto& m : ncu_default_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> argv = {ncu, "--csv", "--print-units", "base", "--cache-control", "all",
                                   "--clock-control", "base", "--target-processes", "all",
                                   "--metrics", metrics};
  if (!req.kernel_regex.empty()) argv.insert(argv.end(), {"--kernel-name", "regex:" + req.kernel_regex});
  // Both count only the launches that match the kernel filter.
  if (req.window.count > 0)
    argv.insert(argv.end(), {"--launch-skip", std::to_string(req.window.skip), "--launch-count",
                             std::to_string(req.window.count)});
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
  if (r.interrupted) return interrupted_error();
  if (r.timed_out) return make_error("ncu " + r.describe());
  auto parsed = parse_ncu_csv(r.out + "\n" + r.err);
  if (!parsed) return parsed.error();
  if (!r.success()) return make_error("ncu " + r.describe() + ": " + tail_lines(r.out + r.err, 1));
  if (req.window.count > 0) {
    parsed.value().launch_skip = req.window.skip;
    parsed.value().launches_total = req.window.total;
  }
  return parsed;
}

}  // namespace swz
