// The arch modelled or built for when --arch is not given (default_arch.h).
#include "swizzleperf/cli/default_arch.h"

#include <fmt/format.h>

#include <algorithm>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/util/process.h"

namespace swz::cli {

namespace fs = std::filesystem;

MachineFacts machine_facts(const std::string& nvcc, const std::string& hipcc) {
  RealProcessRunner runner;  // never run: the backends only say where their compiler is
  ToolOptions cuda_tools, hip_tools;
  cuda_tools.compiler = nvcc;
  hip_tools.compiler = hipcc;
  MachineFacts f;
  f.nvidia_gpu = nvidia_gpu_present();
  f.amd_gpu = amd_gpu_present();
  f.nvcc = !find_executable(CudaBackend(runner, cuda_tools).compiler_path()).empty();
  f.hipcc = !find_executable(HipBackend(runner, hip_tools).compiler_path()).empty();
  return f;
}

namespace {

bool all_with_extension(const std::vector<fs::path>& kernels, const char* ext) {
  return !kernels.empty() && std::all_of(kernels.begin(), kernels.end(), [&](const fs::path& k) { return k.extension() == ext; });
}

// "gemm.cu is a CUDA file" / "the 3 kernels are CUDA files".
std::string files_are(const std::vector<fs::path>& kernels, const char* what) {
  if (kernels.size() == 1) return kernels.front().filename().string() + " is a " + what + " file";
  return fmt::format("the {} kernels are {} files", kernels.size(), what);
}

}  // namespace

ArchChoice default_arch(const std::vector<fs::path>& kernels, const MachineFacts& f) {
  const ArchChoice h100{"sm_90", "an NVIDIA H100", ""}, mi300x{"gfx942", "an AMD MI300X", ""};
  auto with = [](ArchChoice c, std::string why) {
    c.why = std::move(why);
    return c;
  };
  if (f.nvidia_gpu) return with(h100, "an NVIDIA GPU is present");
  if (f.amd_gpu) return with(mi300x, "an AMD GPU is present");
  if (all_with_extension(kernels, ".cu")) return with(h100, files_are(kernels, "CUDA"));
  if (f.nvcc && !f.hipcc) return with(h100, "nvcc is present and hipcc is not");
  if (f.hipcc && !f.nvcc && all_with_extension(kernels, ".hip"))
    return with(mi300x, files_are(kernels, "HIP") + " and hipcc is present, nvcc is not");
  const std::string tools = f.nvcc && f.hipcc ? "both nvcc and hipcc are present"
                            : f.hipcc          ? "only hipcc is present"
                                               : "neither nvcc nor hipcc is present";
  return with(mi300x, "no GPU is here and " + tools + " (the paper's machine)");
}

std::string model_line(const HardwareProfile& hw, const ArchChoice* choice) {
  std::string line = fmt::format("model: {}, {} die(s), dispatch {} [{}]", hw.arch, hw.num_dies, hw.dispatch.kind, hw.dispatch.source);
  if (choice) line += fmt::format("; no --arch: {}, because {} (pass --arch to model another)", choice->machine, choice->why);
  return line;
}

}  // namespace swz::cli
