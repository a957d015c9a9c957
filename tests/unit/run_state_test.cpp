// Opening a run: what is refused before anything is written or measured.
#include "swizzleperf/loop/run_state.h"

#include <gtest/gtest.h>

#include "support/fake_backend.h"
#include "support/fixtures.h"
#include "swizzleperf/util/hash.h"

namespace swz {
namespace {

namespace fs = std::filesystem;

class RunStateTest : public ::testing::Test {
 protected:
  void SetUp() override { test::write_text(kernel, test::fake_kernel_source()); }
  // A recorded run of `kernel` in run_dir with one ok attempt of `region`.
  void record(const std::string& region) {
    auto s = open_new_run(RunConfig{}, kernel, run_dir);
    ASSERT_TRUE(s) << s.error().message;
    RunHistory h = s->history;
    Attempt a;
    a.iteration = 1;
    a.label = "x";
    a.region = region;
    h.attempts.push_back(a);
    fs::create_directories(run_dir);
    ASSERT_TRUE(save_history(run_dir / "history.json", h));
  }
  test::TempDir dir;
  fs::path kernel = dir / "k.hip";
  fs::path run_dir = dir / "run";
};

TEST_F(RunStateTest, ANewRunValidatesTheKernelsRegionAndWritesNothing) {
  auto s = open_new_run(RunConfig{}, kernel, run_dir);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_FALSE(s->resumed);
  EXPECT_EQ(s->history.kernel_hash, content_hash(test::read_text(kernel)));
  EXPECT_FALSE(fs::exists(run_dir));
  test::write_text(kernel, "// swizzleperf:begin\nSWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, SwizzleGrid g) "
                           "{ system(\"id\"); return pid; }\n// swizzleperf:end\n");
  auto bad = open_new_run(RunConfig{}, kernel, run_dir);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("swizzle region rejected"), std::string::npos) << bad.error().message;
}

TEST_F(RunStateTest, ARunDirHoldingARunIsNeverReused) {
  record(test::fake_region("map=reverse"));
  auto s = open_new_run(RunConfig{}, kernel, run_dir);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("already holds a run: use --resume"), std::string::npos);
}

TEST_F(RunStateTest, ResumeNeedsAHistoryTheSameKernelAndValidRegions) {
  auto none = open_resumed_run(run_dir, {}, RunConfig{}, {});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("nothing to resume"), std::string::npos);
  record(test::fake_region("map=reverse"));
  auto ok = open_resumed_run(run_dir, {}, RunConfig{}, {});
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(ok->resumed);
  EXPECT_EQ(ok->valid_regions.count(1), 1u) << "the ok attempt's region, validated once, carried";
  test::write_text(kernel, test::read_text(kernel) + "// edited\n");
  auto changed = open_resumed_run(run_dir, {}, RunConfig{}, {});
  ASSERT_FALSE(changed);
  EXPECT_NE(changed.error().message.find("changed since run"), std::string::npos);
}

TEST_F(RunStateTest, AHistoryWhoseOkRegionIsRejectedIsRefused) {
  record("SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, SwizzleGrid g) { system(\"id\"); return pid; }\n");
  auto s = open_resumed_run(run_dir, {}, RunConfig{}, {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("is recorded as ok but its region is rejected"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace swz
