// `swizzleperf build`: compile a kernel as the loop would (useful in CI jobs).
#include <filesystem>

#include "swizzleperf/backend/backend_factory.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/util/file_io.h"

namespace swz::cli {

int cmd_build(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf build", "Compile a kernel program as the optimize loop would, without running it.");
  o.positional_help("KERNEL.hip|.cu");
  o.add_options()("kernel", "kernel file", cxxopts::value<std::string>())
      ("o,output", "output executable", cxxopts::value<std::string>()->default_value(""))
      ("dies", "value of SWZ_NUM_DIES (default: from --arch's table entry, else 1)", cxxopts::value<int>()->default_value("0"))
      ("h,help", "show this help");
  add_setting_options(o, kBuild, "");
  o.parse_positional({"kernel"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "build", {"", "Backend"}, r)) return *done;
  if (!r.count("kernel")) return report_error("build needs a kernel file: swizzleperf build KERNEL.hip -o OUT");
  auto k = KernelSource::load(r["kernel"].as<std::string>());
  if (!k) return report_error(k.error().message);
  if (auto st = check_no_todo(*k); !st) return report_error(st.error().message);
  if (auto st = check_region_in(k->region(), k->language()); !st) return report_error(k->path().string() + ": " + st.error().message);
  std::string out = r["output"].as<std::string>();
  if (out.empty()) out = k->name();
  if (std::error_code ec; std::filesystem::is_directory(out, ec))
    return report_error("-o " + out + " is a directory: give the path of the program to write (e.g. " +
                        (std::filesystem::path(out) / k->name()).string() + ")");
  // A directory the compiler cannot write into: the system's reason in one line, not the
  // linker's own lines after the compile.
  if (auto st = check_can_write(out); !st)
    return report_error(st.error().message + " (give -o a path in a writable directory)");
  RunConfig settings;
  if (const auto e = read_settings(r, kBuild, settings); !e.empty()) return report_error(e);
  auto resolved = backend_for_kernel(settings.backend, k->path());
  if (!resolved) return report_error(resolved.error().message);
  std::string which = *resolved;
  RealProcessRunner runner;
  if (which == "auto") {
    // Building needs no GPU: prefer the toolchain that is installed.
    RunConfig as_cuda = settings;
    as_cuda.backend = "cuda";
    CudaBackend probe_cuda(runner, tool_options_for(r, as_cuda));
    which = probe_cuda.preflight(false) ? "cuda" : "hip";
  }
  settings.backend = which;
  ToolOptions tools = tool_options_for(r, settings);
  auto backend = make_backend(which, runner, tools);
  if (!backend) return report_error(backend.error().message);
  if (auto st = (*backend)->preflight(false); !st) return report_error(st.error().message);
  // No --arch: the GPU here, if the backend's vendor has one (nvcc's -arch=native); else
  // an assumed machine, said in the closing line (nvcc's -arch=native without a GPU warns
  // and builds for an old default with one die).
  std::string arch = tools.arch, assumed;
  if (arch.empty()) {
    if (which == "hip") {
      arch = HipBackend::kDefaultArch;
      assumed = std::string("no --arch: built for ") + arch + ", an AMD MI300X";
    } else if (!nvidia_gpu_present()) {
      arch = "sm_90";
      assumed = "no --arch and no NVIDIA GPU here: built for sm_90, an NVIDIA H100";
    }
  }
  int dies = r["dies"].as<int>();
  if (dies <= 0) {
    auto hw = arch.empty() ? Result<HardwareProfile>(make_error("")) : profile_from_arch(arch);
    dies = hw ? hw->num_dies : 1;
  }
  auto built = (*backend)->build({k->path(), out, dies, arch});
  if (!built) return report_error(built.error().message);
  // The compiler's diagnostics, except when it could not write its output: the one line says so.
  if (!built->could_not_write) std::fputs(built->log.c_str(), stderr);
  if (!built->ok) return report_error(k->path().string() + " does not build: " + built->failure);
  std::printf("built %s (%s, SWZ_NUM_DIES=%d)%s\n", out.c_str(), (*backend)->name().c_str(), dies,
              assumed.empty() ? "" : ("; " + assumed + " (pass --arch for another)").c_str());
  return kExitOk;
}

}  // namespace swz::cli
