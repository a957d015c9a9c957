// Tests of CudaBackend's command lines through a scripted ProcessRunner: the
// Nsight Compute invocation (what is measured and how the GPU is held steady)
// and the nvcc one. No tool runs.
#include "swizzleperf/backend/cuda_backend.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "swizzleperf/backend/ncu_parser.h"
#include "support/fixtures.h"
#include "support/scripted_runner.h"

namespace swz {
namespace {

using test::value_after;

using test::ScriptedRunner;

// Every process exits 0 printing a real H100 ncu table (one gemm launch).
void answer_with_gemm_csv(ScriptedRunner& runner) {
  runner.otherwise(test::exited(0, test::read_text(test::fixture_path("ncu/gemm_h100_details.csv"))));
}

ToolOptions fake_cuda_tools() {
  ToolOptions t;
  t.compiler = "fake-nvcc";
  t.profiler = "fake-ncu";
  return t;
}

std::string joined_default_metrics() {
  std::string s;
  for (const auto& m : ncu_default_metrics()) s += (s.empty() ? "" : ",") + m;
  return s;
}

TEST(CudaBackend, ProfileArgvShape) {
  ScriptedRunner runner;
  CudaBackend cuda(runner, fake_cuda_tools());
  ProfileRequest req{"/runs/r/baseline/kernel", {"profile", "--size", "256,256,64"}, "gemm_kernel", "/runs/r/baseline"};
  const auto argv = cuda.profile_argv(req, "ncu");
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "ncu");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--csv"), argv.end());
  EXPECT_EQ(value_after(argv, "--print-units"), "base");
  EXPECT_EQ(value_after(argv, "--cache-control"), "all");
  EXPECT_EQ(value_after(argv, "--clock-control"), "base");
  EXPECT_EQ(value_after(argv, "--metrics"), joined_default_metrics());
  EXPECT_EQ(value_after(argv, "--kernel-name"), "regex:gemm_kernel");
  // The program and its arguments come last, after every ncu option.
  const std::vector<std::string> tail(argv.end() - 4, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"/runs/r/baseline/kernel", "profile", "--size", "256,256,64"}));
}

TEST(CudaBackend, ProfileArgvWithoutRegexHasNoKernelFilter) {
  ScriptedRunner runner;
  CudaBackend cuda(runner, fake_cuda_tools());
  const auto argv = cuda.profile_argv({"/x/kernel", {"profile"}, "", "/x"}, "ncu");
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--kernel-name"), argv.end());
  EXPECT_EQ(argv.back(), "profile");
}

TEST(CudaBackend, ProfileArgvCollectsTheRequestedWindowOfLaunches) {
  ScriptedRunner runner;
  CudaBackend cuda(runner, fake_cuda_tools());
  ProfileRequest req{"/x/kernel", {"profile"}, "sw_kernel", "/x", profile_window(255, 24)};
  const auto argv = cuda.profile_argv(req, "ncu");
  EXPECT_EQ(value_after(argv, "--launch-skip"), "115");
  EXPECT_EQ(value_after(argv, "--launch-count"), "24");
  EXPECT_EQ(argv.back(), "profile");
  // No window: no launch selection at all.
  const auto all = cuda.profile_argv({"/x/kernel", {"profile"}, "sw_kernel", "/x"}, "ncu");
  EXPECT_EQ(std::find(all.begin(), all.end(), "--launch-skip"), all.end());
  EXPECT_EQ(std::find(all.begin(), all.end(), "--launch-count"), all.end());
}

TEST(CudaBackend, AWindowedProfileSaysWhichLaunchesItAggregated) {
  test::TempDir tmp;
  ScriptedRunner runner;
  answer_with_gemm_csv(runner);
  CudaBackend cuda(runner, fake_cuda_tools());
  auto m = cuda.profile({"/x/kernel", {"profile"}, "gemm_kernel", tmp / "w", {7, 1, 15}});
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->launches, 1);
  EXPECT_EQ(m->launch_skip, 7);
  EXPECT_EQ(m->launches_total, 15);
  auto whole = cuda.profile({"/x/kernel", {"profile"}, "gemm_kernel", tmp / "all"});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->launches_total, 0);
}

TEST(ProfileWindow, TheMiddleLaunchesOfALongRunEveryLaunchOtherwise) {
  const LaunchWindow w = profile_window(255, 24);
  EXPECT_EQ(w.skip, 115);  // launches 116..139 of 255: 115 before, 116 after
  EXPECT_EQ(w.count, 24);
  EXPECT_EQ(w.total, 255);
  EXPECT_EQ(profile_window(60, 24).skip, 18);
  EXPECT_EQ(profile_window(25, 24).skip, 0);
  EXPECT_EQ(profile_window(25, 24).count, 24);
  // Within the limit, total unknown, or no limit: every launch (count 0).
  EXPECT_EQ(profile_window(24, 24).count, 0);
  EXPECT_EQ(profile_window(1, 24).count, 0);
  EXPECT_EQ(profile_window(0, 24).count, 0);
  EXPECT_EQ(profile_window(-1, 24).count, 0);
  EXPECT_EQ(profile_window(255, 0).count, 0);
}

TEST(CudaBackend, ProfileRunsNcuAndParsesItsCsv) {
  test::TempDir tmp;
  ScriptedRunner runner;
  answer_with_gemm_csv(runner);
  CudaBackend cuda(runner, fake_cuda_tools());
  auto m = cuda.profile({"/x/kernel", {"profile"}, "gemm_kernel", tmp / "baseline"});
  ASSERT_TRUE(m.ok()) << m.error().message;
  const auto calls = runner.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].argv, cuda.profile_argv({"/x/kernel", {"profile"}, "gemm_kernel", tmp / "baseline"}, "fake-ncu"));
  EXPECT_EQ(m->launches, 1);
  ASSERT_TRUE(m->l2_hit_pct);
  EXPECT_NEAR(*m->l2_hit_pct, 43.72, 1e-3);
  EXPECT_TRUE(fs::exists(tmp / "baseline" / "ncu.csv"));
}

TEST(CudaBackend, BuildArgvShape) {
  ScriptedRunner runner;
  CudaBackend cuda(runner, fake_cuda_tools());
  const auto argv = cuda.build_argv({"kernels/gemm.hip", "out/gemm", 2, "sm_90"}, "nvcc");
  const auto has = [&](const std::string& a) { return std::find(argv.begin(), argv.end(), a) != argv.end(); };
  EXPECT_EQ(argv.front(), "nvcc");
  EXPECT_EQ(value_after(argv, "-x"), "cu");
  EXPECT_TRUE(has("-arch=sm_90"));
  EXPECT_TRUE(has("-I" + (support_dir() / "hip_on_cuda").string()));
  EXPECT_TRUE(has("-I" + support_dir().string()));
  EXPECT_TRUE(has("-DSWZ_NUM_DIES=2"));
  EXPECT_EQ(argv[argv.size() - 3], "-o");
  EXPECT_EQ(argv[argv.size() - 2], "out/gemm");
  EXPECT_EQ(argv.back(), "kernels/gemm.hip");
  // A tuning point's parameters become defines.
  BuildRequest point{"kernels/gemm.hip", "out/gemm", 2, "sm_90"};
  point.defines = {{"BLOCK_M", 64}, {"NUM_WARPS", 8}};
  const auto tuned = cuda.build_argv(point, "nvcc");
  EXPECT_EQ(tuned.size(), argv.size() + 2);
  EXPECT_NE(std::find(tuned.begin(), tuned.end(), "-DBLOCK_M=64"), tuned.end());
  EXPECT_NE(std::find(tuned.begin(), tuned.end(), "-DNUM_WARPS=8"), tuned.end());
}

}  // namespace
}  // namespace swz
