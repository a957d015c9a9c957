// A run directory named on the command line: its real cause when it is not one.
#include "swizzleperf/cli/run_dir_arg.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace swz::cli {
namespace {

const std::string kGive = ": give the directory an optimize run wrote (runs/<kernel>-<time>, holding history.json)";

TEST(RunDirArg, MissingAFileNoHistoryAndARun) {
  test::TempDir tmp;
  auto missing = check_run_dir_arg(tmp / "runs" / "x", "--run");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "--run " + (tmp / "runs" / "x").string() + " does not exist" + kGive);
  test::write_text(tmp / "empty.cu", "");
  auto file = check_run_dir_arg(tmp / "empty.cu", "--resume");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().message, "--resume " + (tmp / "empty.cu").string() + " is a file, not a run directory" + kGive);
  auto dir = check_run_dir_arg(tmp.path(), "--resume");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().message, "--resume " + tmp.path().string() + " is not a run directory (it holds no history.json)" + kGive);
  test::write_text(tmp / "history.json", "{}");
  EXPECT_TRUE(check_run_dir_arg(tmp.path(), "--resume"));
}

}  // namespace
}  // namespace swz::cli
