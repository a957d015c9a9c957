// The machine modelled when --arch is not given: the GPU present, then the files, then the
// compilers present, else the paper's MI300X, each with its reason in one line.
#include "swizzleperf/cli/default_arch.h"

#include <gtest/gtest.h>

namespace swz::cli {
namespace {

MachineFacts machine_with(bool nvcc, bool hipcc, bool nvidia_gpu = false, bool amd_gpu = false) {
  MachineFacts f;
  f.nvcc = nvcc;
  f.hipcc = hipcc;
  f.nvidia_gpu = nvidia_gpu;
  f.amd_gpu = amd_gpu;
  return f;
}

TEST(DefaultArch, ACudaFileIsModelledAsAnH100WhateverCompilersArePresent) {
  for (bool nvcc : {false, true})
    for (bool hipcc : {false, true}) {
      const auto c = default_arch({"k/blur_swz.cu"}, machine_with(nvcc, hipcc));
      EXPECT_EQ(c.arch, "sm_90");
      EXPECT_EQ(c.why, "blur_swz.cu is a CUDA file");
    }
  EXPECT_EQ(default_arch({"a.cu", "b.cu"}, machine_with(false, true)).why, "the 2 kernels are CUDA files");
}

TEST(DefaultArch, AHipFileFollowsTheCompilerPresent) {
  auto nv = default_arch({"gemm.hip"}, machine_with(true, false));
  EXPECT_EQ(nv.arch, "sm_90");
  EXPECT_EQ(nv.why, "nvcc is present and hipcc is not");
  auto amd = default_arch({"gemm.hip"}, machine_with(false, true));
  EXPECT_EQ(amd.arch, "gfx942");
  EXPECT_EQ(amd.why, "gemm.hip is a HIP file and hipcc is present, nvcc is not");
  // Both or neither: today's default, the paper's MI300X, saying why.
  auto both = default_arch({"gemm.hip"}, machine_with(true, true));
  EXPECT_EQ(both.arch, "gfx942");
  EXPECT_EQ(both.why, "no GPU is here and both nvcc and hipcc are present (the paper's machine)");
  EXPECT_EQ(default_arch({"gemm.hip"}, machine_with(false, false)).why,
            "no GPU is here and neither nvcc nor hipcc is present (the paper's machine)");
  // A mix of files: the compilers decide.
  EXPECT_EQ(default_arch({"a.cu", "b.hip"}, machine_with(true, false)).arch, "sm_90");
  EXPECT_EQ(default_arch({"a.cu", "b.hip"}, machine_with(true, true)).arch, "gfx942");
  // A Triton program with only hipcc: nothing says NVIDIA.
  EXPECT_EQ(default_arch({"matmul.py"}, machine_with(false, true)).why, "no GPU is here and only hipcc is present (the paper's machine)");
}

TEST(DefaultArch, TheGpuPresentComesFirst) {
  EXPECT_EQ(default_arch({"gemm.hip"}, machine_with(false, true, true)).arch, "sm_90");
  EXPECT_EQ(default_arch({"gemm.hip"}, machine_with(false, true, true)).why, "an NVIDIA GPU is present");
  EXPECT_EQ(default_arch({"blur.cu"}, machine_with(true, false, false, true)).arch, "gfx942");
}

TEST(DefaultArch, TheModelLineSaysTheChoiceAndWhyOnlyWhenChosen) {
  auto hw = profile_from_arch("sm_90");
  ASSERT_TRUE(hw);
  EXPECT_EQ(model_line(*hw, nullptr), "model: sm_90, 2 die(s), dispatch round_robin [assumed]");
  const auto c = default_arch({"blur_swz.cu"}, machine_with(true, true));
  EXPECT_EQ(model_line(*hw, &c), "model: sm_90, 2 die(s), dispatch round_robin [assumed]; no --arch: an NVIDIA H100, because "
                                 "blur_swz.cu is a CUDA file (pass --arch to model another)");
}

}  // namespace
}  // namespace swz::cli
