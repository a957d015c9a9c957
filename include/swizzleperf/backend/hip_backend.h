// HIP backend: hipcc for AMD GPUs, rocprofv3 for the L2 counters
// (TCC_HIT_sum, TCC_MISS_sum). Compile-checked on Debian's hipcc (gfx940) and
// parser-tested on fixtures; it has never run on AMD hardware (docs/amd.md).
#pragma once

#include "swizzleperf/backend/backend.h"

namespace swz {

class HipBackend final : public Backend {
 public:
  using Backend::Backend;
  std::string name() const override { return "hip"; }
  Status preflight(bool need_profiler) override;
  Result<HardwareProfile> query_device(const fs::path& work_dir) override;
  Result<BuildResult> build(const BuildRequest& request) override;
  Result<Metrics> profile(const ProfileRequest& request) override;
  // Every kernel's registers (VGPRs + AGPRs), static LDS and scratch, from the code
  // objects in the program's offload bundles, read with llvm-readelf --notes.
  Result<std::vector<KernelResources>> resource_usage(const fs::path& exe) override;
  // llvm-readelf: beside a ROCm hipcc (../llvm/bin), on PATH, or Debian's
  // /usr/lib/llvm-N/bin (the newest N); empty when none is found.
  std::string readelf_path() const;

  std::vector<std::string> build_argv(const BuildRequest& request, const std::string& compiler) const;
  std::vector<std::string> profile_argv(const ProfileRequest& request, const std::string& rocprof,
                                        const fs::path& out_dir) const;
  std::string compiler_path() const;
  std::string profiler_path() const;
  static constexpr const char* kDefaultArch = "gfx942";
  // A program that calls the CUDA runtime (a `.cu` written with cuda* names) cannot build
  // here: the Error names its first use and the hipify route.
  Status accepts_source(const fs::path& source, std::string_view text) const override;
};

}  // namespace swz
