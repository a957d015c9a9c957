// Tests of loop/build_pool: dedupe by content, prefetch then get, a failed
// prefetched build reported once, the gate, bounded concurrency, serial mode.
// The real CUDA backend builds through a compiler double at the process seam that
// records how many compilers run at once, writes the -o file, and fails on "BROKEN".
#include "swizzleperf/loop/build_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

#include "support/fixtures.h"
#include "swizzleperf/backend/cuda_backend.h"

namespace swz {
namespace {

class CompilerDouble final : public ProcessRunner {
 public:
  std::chrono::milliseconds delay{0};
  std::atomic<int> calls{0}, running{0}, max_running{0};
  ProcessResult run(const ProcessSpec& spec) override {
    ++calls;
    const int now = ++running;
    int seen = max_running.load();
    while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(delay);
    ProcessResult r;
    r.started = true;
    const auto& argv = spec.argv;
    const std::string source = argv.back();
    const auto o = std::find(argv.begin(), argv.end(), "-o");
    std::ifstream in(source);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("BROKEN") != std::string::npos) {
      r.exit_code = 1;
      r.err = source + ":1: error: BROKEN\n";
    } else {
      r.exit_code = 0;
      std::ofstream(*(o + 1)) << "binary of " << text;
    }
    --running;
    return r;
  }
};

class BuildPoolTest : public ::testing::Test {
 protected:
  BuildPoolTest() {
    tools.compiler = "nvcc-double";
    backend = std::make_unique<CudaBackend>(runner, tools);
  }
  BuildSpec spec(const std::string& text) { return {text, 2, "sm_90"}; }
  fs::path src(const std::string& name, const std::string& text) {
    test::write_text(tmp / (name + ".hip"), text);
    return tmp / (name + ".hip");
  }
  CompilerDouble runner;
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

TEST_F(BuildPoolTest, PrefetchIsDedupedAndGetTakesItOnce) {
  BuildPool pool(*backend, tmp / "cache", 4);
  for (int i = 0; i < 3; ++i) pool.prefetch(spec("kernel A"));
  auto got = pool.get(spec("kernel A"), src("a", "kernel A"), tmp / "a.exe");
  ASSERT_TRUE(got.build) << got.build.error().message;
  EXPECT_TRUE(got.build->ok);
  EXPECT_TRUE(got.prefetched);
  EXPECT_EQ(pool.started(), 1);
  EXPECT_EQ(runner.calls.load(), 1);
  EXPECT_EQ(test::read_text(tmp / "a.exe"), "binary of kernel A");
  // Handed out once: asking again builds in the foreground.
  auto again = pool.get(spec("kernel A"), src("a2", "kernel A"), tmp / "a2.exe");
  EXPECT_FALSE(again.prefetched);
  EXPECT_EQ(runner.calls.load(), 2);
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
  EXPECT_EQ(runner.calls.load(), 1);
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
  EXPECT_EQ(runner.calls.load(), 1);  // the foreground build only
  ASSERT_TRUE(got.build);
  EXPECT_TRUE(got.build->ok);
}

TEST_F(BuildPoolTest, BackgroundBuildsAreBoundedByJobsMinusOne) {
  runner.delay = std::chrono::milliseconds(60);
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
  EXPECT_EQ(runner.max_running.load(), 2);
  EXPECT_FALSE(fs::exists(tmp / "cache"));  // removed with the pool
}

TEST_F(BuildPoolTest, OneJobIsTheSerialLoop) {
  BuildPool pool(*backend, tmp / "cache", 1);
  pool.prefetch(spec("kernel E"));
  EXPECT_EQ(pool.started(), 0);
  EXPECT_EQ(runner.calls.load(), 0);
  auto got = pool.get(spec("kernel E"), src("e", "kernel E"), tmp / "e.exe");
  EXPECT_FALSE(got.prefetched);
  EXPECT_EQ(runner.calls.load(), 1);
}

TEST(BuildPoolDefaults, DefaultJobsIsBetweenOneAndFour) {
  const int j = BuildPool::default_jobs();
  EXPECT_GE(j, 1);
  EXPECT_LE(j, 4);
}

}  // namespace
}  // namespace swz
