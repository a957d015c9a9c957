// CUDA backend: .hip programs built by nvcc through the project's HIP-to-CUDA
// mapping header (kernels/support/hip_on_cuda), profiled by Nsight Compute.
#pragma once

#include "swizzleperf/backend/backend.h"

namespace swz {

class CudaBackend final : public Backend {
 public:
  using Backend::Backend;
  std::string name() const override { return "cuda"; }
  Status preflight(bool need_profiler) override;
  Result<HardwareProfile> query_device(const fs::path& work_dir) override;
  Result<BuildResult> build(const BuildRequest& request) override;
  Result<Metrics> profile(const ProfileRequest& request) override;
  // `cuobjdump --dump-resource-usage EXE` (cuobjdump beside nvcc, else on PATH).
  Result<std::vector<KernelResources>> resource_usage(const fs::path& exe) override;

  std::vector<std::string> build_argv(const BuildRequest& request, const std::string& compiler) const;
  std::vector<std::string> profile_argv(const ProfileRequest& request, const std::string& ncu) const;
  std::string compiler_path() const;
  std::string profiler_path() const;
};

}  // namespace swz
