// Tests of loop/build_pool: dedupe by content, prefetch then get, a failed
// prefetched build reported once, the gate, bounded concurrency, serial mode.
// The real CUDA backend builds through the shared ScriptedRunner at the process seam
// (it records how many compilers run at once); its compiler handler writes the -o
// file and fails on "BROKEN".
#include "swizzleperf/loop/build_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "support/fixtures.h"
#include "support/scripted_runner.h"
#include "swizzleperf/backend/cuda_backend.h"

namespace swz {
namespace {

// The compiler double: reads the source (argv's last), fails on "BROKEN", else writes
// "binary of <source text>" to the -o file. It sleeps `delay` first, so builds that
// run at the same time overlap and show in the runner's max_concurrent().
ProcessResult compile(const ProcessSpec& spec, std::chrono::milliseconds delay) {
  std::this_thread::sleep_for(delay);
  const auto& argv = spec.argv;
  const std::string source = argv.back();
  const auto o = std::find(argv.begin(), argv.end(), "-o");
  std::ifstream in(source);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find("BROKEN") != std::string::npos) return test::exited(1, "", source + ":1: error: BROKEN\n");
  std::ofstream(*(o + 1)) << "binary of " << text;
  return test::exited(0);
}

class BuildPoolTest : public ::testing::Test {
 protected:
  BuildPoolTest() {
    tools.compiler = "nvcc-double";
    runner.on("nvcc-double", [this](const ProcessSpec& s) { return compile(s, delay); });
    backend = std::make_unique<CudaBackend>(runner, tools);
  }
  BuildSpec spec(const std::string& text) { return {text, 2, "sm_90"}; }
  fs::path src(const std::string& name, const std::string& text) {
    test::write_text(tmp / (name + ".hip"), text);
    return tmp / (name + ".hip");
  }
  test::ScriptedRunner runner;
  std::chrono::milliseconds delay{0};  // each compile's sleep (set before any build starts)
  ToolOptions tools;
  std::unique_ptr<CudaBackend> backend;
  test::TempDir tmp;
};

TEST_F(BuildPoolTest, KeyDependsOnSourceDiesAndArch) {
  BuildPool pool(*backend, tmp / "cache", 4);
  EXPECT_EQ(pool.key(spec("a")), pool.key(spec("a")));
  EXPECT_NE(pool.key(spec("a")), pool.key(spec("b")));
  EXPECT_NE(pool.key(spec("a")), pool.key({"a", 8, "sm_90"}));
  EXPECT_NE(pool.key(spec("a")), pool.key({"a", 2, "sm_100"}));
}

// Two tuning points of one region are two builds: the defines are in the key and reach
// the compiler, prefetched or not.
TEST_F(BuildPoolTest, TwoPointsOfOneRegionAreTwoBuildsWithTheirDefines) {
  BuildPool pool(*backend, tmp / "cache", 4);
  BuildSpec p64 = spec("kernel T"), p128 = spec("kernel T");
  p64.defines = {{"BLOCK_M", 64}};
  p128.defines = {{"BLOCK_M", 128}};
  EXPECT_NE(pool.key(p64), pool.key(p128));
  EXPECT_NE(pool.key(p64), pool.key(spec("kernel T")));
  EXPECT_EQ(pool.key(p64), pool.key(BuildSpec{"kernel T", 2, "sm_90", ".hip", {{"BLOCK_M", 64}}}));
  pool.prefetch(p64);
  pool.prefetch(p128);
  auto a = pool.get(p64, src("t64", "kernel T"), tmp / "t64.exe");
  auto b = pool.get(p128, src("t128", "kernel T"), tmp / "t128.exe");
  ASSERT_TRUE(a.build && b.build);
  EXPECT_TRUE(a.prefetched && b.prefetched);
  EXPECT_EQ(pool.started(), 2);
  auto c = pool.get(p64, src("t64b", "kernel T"), tmp / "t64b.exe");  // in the foreground
  ASSERT_TRUE(c.build);
  EXPECT_FALSE(c.prefetched);
  int with64 = 0, with128 = 0;
  for (const auto& call : runner.calls()) {
    with64 += std::count(call.argv.begin(), call.argv.end(), "-DBLOCK_M=64") > 0;
    with128 += std::count(call.argv.begin(), call.argv.end(), "-DBLOCK_M=128") > 0;
  }
  EXPECT_EQ(with64, 2);
  EXPECT_EQ(with128, 1);
}

TEST_F(BuildPoolTest, PrefetchIsDedupedAndGetTakesItOnce) {
  BuildPool pool(*backend, tmp / "cache", 4);
  for (int i = 0; i < 3; ++i) pool.prefetch(spec("kernel A"));
  auto got = pool.get(spec("kernel A"), src("a", "kernel A"), tmp / "a.exe");
  ASSERT_TRUE(got.build) << got.build.error().message;
  EXPECT_TRUE(got.build->ok);
  EXPECT_TRUE(got.prefetched);
  EXPECT_EQ(pool.started(), 1);
  EXPECT_EQ(runner.calls().size(), 1u);
  EXPECT_EQ(test::read_text(tmp / "a.exe"), "binary of kernel A");
  // Handed out once: asking again builds in the foreground.
  auto again = pool.get(spec("kernel A"), src("a2", "kernel A"), tmp / "a2.exe");
  EXPECT_FALSE(again.prefetched);
  EXPECT_EQ(runner.calls().size(), 2u);
  EXPECT_TRUE(fs::exists(tmp / "a2.exe"));
}

TEST_F(BuildPoolTest, GetWithoutPrefetchBuildsNow) {
  BuildPool pool(*backend, tmp / "cache", 4);
  auto got = pool.get(spec("kernel B"), src("b", "kernel B"), tmp / "b.exe");
  ASSERT_TRUE(got.build);
  EXPECT_TRUE(got.build->ok);
  EXPECT_FALSE(got.prefetched);
  EXPECT_EQ(pool.started(), 0);
  EXPECT_EQ(test::read_text(tmp / "b.exe"), "binary of kernel B");
}

TEST_F(BuildPoolTest, AFailedPrefetchIsReportedByTheOneGetThatAsks) {
  BuildPool pool(*backend, tmp / "cache", 4);
  pool.prefetch(spec("BROKEN kernel"));
  auto got = pool.get(spec("BROKEN kernel"), src("c", "BROKEN kernel"), tmp / "c.exe");
  ASSERT_TRUE(got.build);
  EXPECT_TRUE(got.prefetched);
  EXPECT_FALSE(got.build->ok);
  EXPECT_NE(got.build->failure.find("BROKEN"), std::string::npos) << got.build->failure;
  EXPECT_FALSE(fs::exists(tmp / "c.exe"));
  EXPECT_EQ(runner.calls().size(), 1u);
}

TEST_F(BuildPoolTest, AClosedGateMeansNoBackgroundCompile) {
  BuildPool pool(*backend, tmp / "cache", 4);
  std::atomic<int> gate_calls{0};
  pool.prefetch(spec("kernel D"), [&] {
    ++gate_calls;
    return false;
  });
  auto got = pool.get(spec("kernel D"), src("d", "kernel D"), tmp / "d.exe");
  EXPECT_EQ(gate_calls.load(), 1);
  EXPECT_FALSE(got.prefetched);
  EXPECT_EQ(runner.calls().size(), 1u);  // the foreground build only
  ASSERT_TRUE(got.build);
  EXPECT_TRUE(got.build->ok);
}

TEST_F(BuildPoolTest, BackgroundBuildsAreBoundedByJobsMinusOne) {
  delay = std::chrono::milliseconds(60);
  {
    BuildPool pool(*backend, tmp / "cache", 3);
    for (int i = 0; i < 6; ++i) pool.prefetch(spec("kernel " + std::to_string(i)));
    for (int i = 0; i < 6; ++i) {
      auto got = pool.get(spec("kernel " + std::to_string(i)), src("k" + std::to_string(i), "kernel " + std::to_string(i)),
                          tmp / ("k" + std::to_string(i) + ".exe"));
      EXPECT_TRUE(got.prefetched) << i;
      ASSERT_TRUE(got.build);
      EXPECT_TRUE(got.build->ok);
    }
    EXPECT_EQ(pool.started(), 6);
    EXPECT_TRUE(fs::exists(tmp / "cache"));
  }
  EXPECT_EQ(runner.max_concurrent(), 2);
  EXPECT_FALSE(fs::exists(tmp / "cache"));  // removed with the pool
}

TEST_F(BuildPoolTest, OneJobIsTheSerialLoop) {
  BuildPool pool(*backend, tmp / "cache", 1);
  pool.prefetch(spec("kernel E"));
  EXPECT_EQ(pool.started(), 0);
  EXPECT_EQ(runner.calls().size(), 0u);
  auto got = pool.get(spec("kernel E"), src("e", "kernel E"), tmp / "e.exe");
  EXPECT_FALSE(got.prefetched);
  EXPECT_EQ(runner.calls().size(), 1u);
}

TEST(BuildPoolDefaults, DefaultJobsIsBetweenOneAndFour) {
  const int j = BuildPool::default_jobs();
  EXPECT_GE(j, 1);
  EXPECT_LE(j, 4);
}

}  // namespace
}  // namespace swz
