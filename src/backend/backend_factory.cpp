#include "swizzleperf/backend/backend_factory.h"

#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/backend/triton_backend.h"
#include "swizzleperf/core/kernel_source.h"

namespace swz {

Result<std::unique_ptr<Backend>> make_backend(const std::string& which, ProcessRunner& runner,
                                              const ToolOptions& tools) {
  if (which == "cuda") return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(runner, tools));
  if (which == "hip") return std::unique_ptr<Backend>(std::make_unique<HipBackend>(runner, tools));
  if (which == "triton") return std::unique_ptr<Backend>(std::make_unique<TritonBackend>(runner, tools));
  if (which != "auto")
    return make_error("unknown backend '" + which + "': use auto, cuda, hip or triton");
  const bool amd_gpu = amd_gpu_present();
  const bool nvidia_gpu = nvidia_gpu_present();
  HipBackend hip(runner, tools);
  CudaBackend cuda(runner, tools);
  if (amd_gpu && !find_executable(hip.profiler_path()).empty())
    return std::unique_ptr<Backend>(std::make_unique<HipBackend>(runner, tools));
  if (nvidia_gpu && !find_executable(cuda.profiler_path()).empty())
    return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(runner, tools));
  return make_error(std::string("no GPU backend found: looked for an AMD GPU (/dev/kfd: ") +
                    (amd_gpu ? "present" : "absent") + ") with rocprofv3, and an NVIDIA GPU (/dev/nvidia0 or nvidia-smi: " +
                    (nvidia_gpu ? "present" : "absent") + ") with ncu; pass --backend cuda|hip to choose one");
}

Result<std::string> backend_for_kernel(const std::string& which, const std::filesystem::path& kernel) {
  const bool py = language_of(kernel) == RegionLanguage::python;
  if (py && (which == "cuda" || which == "hip"))
    return make_error(kernel.string() + " is a Triton program: it runs on --backend triton (or auto), not " + which);
  if (!py && which == "triton")
    return make_error(kernel.string() + " is a C++ program: the triton backend runs Triton programs (.py); use --backend cuda, hip or auto");
  return py && which == "auto" ? std::string("triton") : which;
}

}  // namespace swz
