// The optimize loop's report observers: what they write, and that a write that
// fails is an Error (the run stops and says so) rather than a silent loss.
#include "swizzleperf/report/run_reports.h"

#include <gtest/gtest.h>

#include "support/builders.h"
#include "support/fixtures.h"

namespace swz {
namespace {

namespace fs = std::filesystem;

OptimizeSummary summary_of(const fs::path& run_dir) {
  OptimizeSummary s;
  s.run_dir = run_dir;
  s.history.kernel_name = "gemm";
  s.history.baseline = test::AttemptBuilder(0).label("identity").l2(50).ms(2.0).build();
  s.history.attempts.push_back(test::AttemptBuilder(1).label("die_rr").l2(70).ms(1.5).build());
  return s;
}

TEST(RunReportWriter, WritesTheHtmlPerAttemptAndBothReportsAtTheEnd) {
  test::TempDir dir;
  const auto s = summary_of(dir.path());
  RunReportWriter w(dir.path());
  ASSERT_TRUE(w.on_attempt(s.history, s.history.attempts.back()));
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  EXPECT_FALSE(fs::exists(dir / "report.md"));
  ASSERT_TRUE(w.on_finish(s));
  EXPECT_NE(test::read_text(dir / "report.md").find("die_rr"), std::string::npos);
}

TEST(RunReportWriter, AnUnwritableRunDirIsAnError) {
  test::TempDir dir;
  const auto s = summary_of(dir / "missing" / "deeper");
  RunReportWriter w(dir / "missing" / "deeper");
  EXPECT_FALSE(w.on_attempt(s.history, s.history.attempts.back()));
  EXPECT_FALSE(w.on_finish(s));
}

TEST(ConsoleProgress, NeverFails) {
  test::TempDir dir;
  const auto s = summary_of(dir.path());
  ConsoleProgress p;
  EXPECT_TRUE(p.on_baseline(s.history));
  EXPECT_TRUE(p.on_attempt(s.history, s.history.attempts.back()));
  EXPECT_TRUE(p.on_finish(s));
}

}  // namespace
}  // namespace swz
