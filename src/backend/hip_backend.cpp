// HIP backend. rocprofv3 writes PREFIX_counter_collection.csv somewhere under
// the output dir (versions differ in nesting), so the file is searched for.
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/util/csv.h"
#include "swizzleperf/util/file_io.h"

#include <fmt/format.h>

#include "swizzleperf/core/cuda_scan.h"

#include <fstream>
#include <sstream>

#include "swizzleperf/backend/amdgpu_code_object_parser.h"
#include "swizzleperf/backend/rocprof_parser.h"

namespace swz {

std::string HipBackend::compiler_path() const { return tool_or_default(tools_.compiler, "hipcc", "/opt/rocm/bin/hipcc"); }
std::string HipBackend::profiler_path() const { return tool_or_default(tools_.profiler, "rocprofv3", "/opt/rocm/bin/rocprofv3"); }

Status HipBackend::preflight(bool need_profiler) {
  if (find_executable(compiler_path()).empty())
    return make_error("hipcc not found (looked on PATH and in /opt/rocm/bin): install ROCm (Debian: apt-get install hipcc) or pass --hipcc PATH");
  if (need_profiler && find_executable(profiler_path()).empty())
    return make_error("rocprofv3 not found (looked on PATH and in /opt/rocm/bin): the hip backend needs ROCm's rocprofiler-sdk on a machine with an AMD GPU, or pass --rocprof PATH");
  return ok_status();
}

std::vector<std::string> HipBackend::build_argv(const BuildRequest& req, const std::string& compiler) const {
  const auto support = support_dir();
  std::vector<std::string> argv = {compiler, "-std=c++17", req.info_only ? "-O0" : "-O3"};
  std::string arch = !req.arch.empty() ? req.arch : tools_.arch;
  if (!arch.empty()) argv.push_back("--offload-arch=" + arch);
  argv.insert(argv.end(), {"-I" + support.string(), "-DSWZ_NUM_DIES=" + std::to_string(req.num_dies)});
  for (const auto& [name, value] : req.defines) argv.push_back("-D" + name + "=" + std::to_string(value));
  argv.insert(argv.end(), tools_.extra_flags.begin(), tools_.extra_flags.end());
  argv.insert(argv.end(), {"-o", req.output.string(), req.source.string()});
  return argv;
}

Status HipBackend::accepts_source(const fs::path& source, std::string_view text) const {
  const SourceUse use = first_cuda_runtime_use(text);
  if (use.line == 0) return ok_status();
  return make_error(fmt::format("{}:{} uses the CUDA runtime ({}), which the hip backend cannot build: convert the program with "
                     "hipify-perl (hipify-perl {} > {}.hip) or write it with HIP names, which build on NVIDIA too",
                     source.string(), use.line, use.text, source.filename().string(), source.stem().string()));
}

Result<BuildResult> HipBackend::build(const BuildRequest& req) {
  // A CUDA program (CUDA as written, docs/kernel-contract.md §5) builds with nvcc only:
  // say so before hipcc fails on a missing cuda_runtime.h or an unknown cudaMalloc.
  if (auto text = read_file(req.source)) {
    if (auto st = accepts_source(req.source.filename(), *text); !st) {
      BuildResult b;
      b.argv = build_argv(req, compiler_path());
      b.failure = st.error().message;
      return b;
    }
  }
  return run_compiler(build_argv(req, compiler_path()), "hipcc");
}

std::string HipBackend::readelf_path() const {
  const std::string hipcc = find_executable(compiler_path()).string();
  if (!hipcc.empty()) {
    std::error_code ec;
    const fs::path rocm = fs::canonical(hipcc, ec).parent_path().parent_path() / "llvm" / "bin" / "llvm-readelf";
    if (!ec && !find_executable(rocm.string()).empty()) return rocm.string();
  }
  if (const auto on_path = find_executable("llvm-readelf"); !on_path.empty()) return on_path.string();
  // Debian's hipcc uses the versioned LLVM in /usr/lib/llvm-N, whose tools are not on PATH.
  std::string best;
  int best_version = -1;
  std::error_code ec;
  for (fs::directory_iterator it("/usr/lib", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("llvm-", 0) != 0) continue;
    const auto version = parse_whole_number(name.substr(5), 0, 1000);
    const fs::path tool = it->path() / "bin" / "llvm-readelf";
    if (version && *version > best_version && !find_executable(tool.string()).empty()) {
      best_version = static_cast<int>(*version);
      best = tool.string();
    }
  }
  return best;
}

Result<std::vector<KernelResources>> HipBackend::resource_usage(const fs::path& exe) {
  const std::string readelf = readelf_path();
  if (readelf.empty()) return make_error("llvm-readelf not found (beside hipcc's LLVM, on PATH or in /usr/lib/llvm-*/bin)");
  std::error_code ec;
  const auto bytes = fs::file_size(exe, ec);
  if (ec) return make_error("cannot read " + exe.string() + ": " + ec.message());
  if (bytes > (2ull << 30)) return make_error(fmt::format("{} is {} bytes: the code objects of a program over 2 GiB are not read", exe.string(), bytes));
  auto file = read_file(exe);
  if (!file) return file.error();
  auto objects = amdgcn_code_objects(*file);
  if (!objects) return make_error(exe.string() + ": " + objects.error().message);
  std::vector<KernelResources> report;
  for (std::size_t k = 0; k < objects->size(); ++k) {
    const auto& co = (*objects)[k];
    // The code object beside the program, read and removed: llvm-readelf takes a file.
    const fs::path path = exe.string() + fmt::format(".amdgcn-{}.co", k);
    if (auto st = write_file_atomic(path, file->substr(co.offset, co.size)); !st) return st.error();
    ProcessSpec spec;
    spec.argv = {readelf, "--notes", path.string()};
    spec.timeout = std::chrono::seconds(60);
    const auto r = runner_.run(spec);
    fs::remove(path, ec);
    if (!r.success()) return make_error("llvm-readelf --notes failed on " + co.triple + ": " + r.describe() + ": " + tail_lines(r.err + r.out, 1));
    auto kernels = parse_amdgpu_metadata_notes(r.out);
    report.insert(report.end(), kernels.begin(), kernels.end());
  }
  if (report.empty()) return make_error("llvm-readelf printed no kernel's metadata for " + exe.string());
  return report;
}

Result<HardwareProfile> HipBackend::query_device(const fs::path& work_dir) {
  // Without --arch, hipcc asks rocm_agent_enumerator for the installed GPU.
  return query_with_program(work_dir, "AMD");
}

std::vector<std::string> HipBackend::profile_argv(const ProfileRequest& req, const std::string& rocprof,
                                                  const fs::path& out_dir) const {
  std::vector<std::string> argv = {rocprof, "--pmc", "TCC_HIT_sum", "TCC_MISS_sum"};
  if (!req.kernel_regex.empty()) argv.insert(argv.end(), {"--kernel-include-regex", req.kernel_regex});
  argv.insert(argv.end(), {"--output-format", "csv", "-d", out_dir.string(), "-o", "swz", "--"});
  argv.push_back(req.exe.string());
  argv.insert(argv.end(), req.args.begin(), req.args.end());
  return argv;
}

Result<Metrics> HipBackend::profile(const ProfileRequest& req) {
  const auto rocprof = profiler_path();
  const auto out_dir = req.out_dir / "rocprof";
  std::error_code ec;
  fs::remove_all(out_dir, ec);  // a resumed attempt must not read an earlier run's CSV
  fs::create_directories(out_dir, ec);
  ProcessSpec spec{profile_argv(req, rocprof, out_dir), {}, {}, tools_.profile_timeout};
  auto r = runner_.run(spec);
  (void)write_file_atomic(req.out_dir / "rocprof.log", format_argv(spec.argv) + "\n" + r.out + r.err);
  if (!r.started) return make_error("cannot run rocprofv3 (" + rocprof + "): " + tail_lines(r.err, 1) + "; pass --rocprof PATH");
  if (r.interrupted) return interrupted_error();
  if (!r.success()) return make_error("rocprofv3 " + r.describe() + ": " + tail_lines(r.out + r.err, 1));
  for (auto it = fs::recursive_directory_iterator(out_dir, ec); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename().string().ends_with("counter_collection.csv"))
    {
      auto csv = read_file(it->path());
      if (!csv) return csv.error();
      return parse_rocprof_counters(*csv, req.kernel_regex);
    }
  }
  return make_error("rocprofv3 wrote no counter_collection.csv under " + out_dir.string());
}

}  // namespace swz
