// Tests of the reports made from a hand-built run summary: the --json summary,
// the terminal table and report.md.
#include "swizzleperf/report/report.h"

#include <gtest/gtest.h>

#include "support/builders.h"

namespace swz {
namespace {

Attempt measured(int iteration, const std::string& label, AttemptStatus st, std::optional<double> l2,
                 std::optional<double> ms, std::optional<double> speedup) {
  test::AttemptBuilder b(iteration);
  b.label(label).status(st).region("// region of " + label + "\n").speedup(speedup);
  if (l2) b.metrics(test::metrics_with(*l2, 4096, 1024, 1000.0 * iteration + 7));
  if (ms) b.ms(*ms);
  return b;
}

OptimizeSummary sample() {
  OptimizeSummary s;
  s.run_dir = "/runs/gemm";
  s.best_kernel = "/runs/gemm/best.hip";
  auto& h = s.history;
  h.kernel_path = "/k/gemm.hip";
  h.kernel_name = "gemm";
  h.state = "completed";
  h.hardware = HardwareProfile{};
  h.hardware->name = "Test GPU";
  h.stopped_because = "iteration budget reached";
  h.baseline = measured(0, "identity (original region)", AttemptStatus::ok, 50.0, 2.0, 1.0);
  h.attempts.push_back(measured(1, "die_rr", AttemptStatus::ok, 70.0, 1.6, 1.25));
  Attempt bad = measured(2, "bad|idea", AttemptStatus::rejected_mapping, std::nullopt, std::nullopt, std::nullopt);
  bad.reason = "NOT a bijection\non grid 7x5";
  h.attempts.push_back(bad);
  h.attempts.push_back(measured(3, "grouped_m(G=8)", AttemptStatus::ok, 65.0, 1.5, 2.0 / 1.5));
  return s;
}

TEST(SummaryJson, BaselineBestAndCounts) {
  const auto s = sample();
  const auto j = summary_json(s);
  EXPECT_EQ(j["kernel"], "/k/gemm.hip");
  EXPECT_EQ(j["run_dir"], "/runs/gemm");
  EXPECT_EQ(j["state"], "completed");
  EXPECT_EQ(j["improved"], true);
  EXPECT_EQ(j["attempts"], 3);
  EXPECT_EQ(j["validated"], 2);
  EXPECT_EQ(j["device"], "Test GPU");
  EXPECT_EQ(j["stopped_because"], "iteration budget reached");
  EXPECT_EQ(j["baseline"]["iteration"], 0);
  EXPECT_EQ(j["baseline"]["l2_hit_pct"], 50.0);
  EXPECT_EQ(j["baseline"]["median_ms"], 2.0);
  EXPECT_EQ(j["baseline"]["dram_bytes"], 5120.0);
  EXPECT_EQ(j["baseline"]["status"], "ok");
  // Best = highest L2 hit (70 over 65), not the fastest.
  EXPECT_EQ(j["best"]["iteration"], 1);
  EXPECT_EQ(j["best"]["label"], "die_rr");
  EXPECT_EQ(j["best"]["l2_hit_pct"], 70.0);
  EXPECT_EQ(j["best"]["speedup"], 1.25);
  EXPECT_EQ(j["best"]["fabric_sectors"], 1007.0);
  EXPECT_EQ(j["best"]["region"], "// region of die_rr\n");
  EXPECT_EQ(j["best_kernel"], "/runs/gemm/best.hip");
  EXPECT_FALSE(j["best"].contains("reason"));
}

TEST(SummaryJson, NothingValidated) {
  auto s = sample();
  s.history.attempts.erase(s.history.attempts.begin());
  s.history.attempts.pop_back();
  s.history.config = RunConfig{};
  s.history.stopped_because.clear();
  s.best_kernel.clear();
  const auto j = summary_json(s);
  EXPECT_EQ(j["improved"], false);
  EXPECT_EQ(j["validated"], 0);
  EXPECT_EQ(j["attempts"], 1);
  EXPECT_FALSE(j.contains("best"));
  EXPECT_FALSE(j.contains("best_kernel"));
  EXPECT_FALSE(j.contains("stopped_because"));
  EXPECT_TRUE(j.contains("baseline"));
}

TEST(SummaryJson, NotImprovedWhenBestIsNoBetter) {
  auto s = sample();
  s.history.attempts = {measured(1, "same", AttemptStatus::ok, 50.0, 2.1, 0.95)};
  const auto j = summary_json(s);
  EXPECT_EQ(j["improved"], false);
  EXPECT_EQ(j["best"]["label"], "same");
}

TEST(SummaryTable, BaselineAndBestRows) {
  const std::string t = render_summary_table(sample());
  EXPECT_NE(t.find("L2 hit %"), std::string::npos) << t;
  EXPECT_NE(t.find("baseline"), std::string::npos) << t;
  EXPECT_NE(t.find("50.00"), std::string::npos) << t;
  EXPECT_NE(t.find("70.00"), std::string::npos) << t;
  EXPECT_NE(t.find("1.6000"), std::string::npos) << t;
  EXPECT_NE(t.find("best: iteration 1 (die_rr), L2 hit +20.00 points, speedup 1.250x"), std::string::npos) << t;
  EXPECT_NE(t.find("best kernel: /runs/gemm/best.hip"), std::string::npos) << t;
  EXPECT_NE(t.find("improved: run completed (3 attempts); history: /runs/gemm/history.json"), std::string::npos) << t;
  // The best row names its pattern; the failed attempt is not in the table.
  EXPECT_EQ(t.find("bad|idea"), std::string::npos) << t;
}

TEST(SummaryTable, NothingValidatedAndInterrupted) {
  auto s = sample();
  s.history.attempts.resize(0);
  s.end = RunEnd::interrupted;
  const std::string t = render_summary_table(s);
  EXPECT_NE(t.find("no attempt validated"), std::string::npos) << t;
  EXPECT_NE(t.find("not improved: interrupted — continue with --resume /runs/gemm (0 attempts)"), std::string::npos) << t;
  EXPECT_EQ(t.find("best kernel:"), std::string::npos) << t;
}

TEST(SummaryTable, MissingMetricsShowNa) {
  auto s = sample();
  s.history.baseline->metrics.reset();
  const std::string t = render_summary_table(s);
  EXPECT_NE(t.find("n/a"), std::string::npos) << t;
  EXPECT_NE(t.find("L2 hit +0.00 points"), std::string::npos) << t;
}

TEST(ReportMarkdown, EveryAttemptAndTheBestRegion) {
  const std::string md = render_report_markdown(sample());
  EXPECT_EQ(md.rfind("# swizzleperf run: gemm\n", 0), 0u) << md;
  EXPECT_NE(md.find("- device: Test GPU"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0 | identity (original region) | ok | 50.00 | 2.0000 | 1.000 |  |  |  | n/a |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | die_rr | ok | 70.00 | 1.6000 | 1.250 |  |  |  | n/a | 1007 |"), std::string::npos) << md;
  // The reason's '|' and newline are flattened so the table stays intact.
  EXPECT_NE(md.find("| rejected_mapping | n/a | n/a | n/a |  |  |  | n/a | n/a | n/a | NOT a bijection on grid 7x5 |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Best: iteration 1 — die_rr\n\nspeedup 1.250x (one-shot, not re-checked)\n\n\n```cpp\n// region of die_rr\n```"), std::string::npos) << md;
}

// ---- objectives: the speed verdict in every report ------------------------------------

void judge(Attempt& a, double speedup, double low, double high) {
  a.speedup = speedup;
  a.speedup_ci_low = low;
  a.speedup_ci_high = high;
  a.significant = low > 1.0 || high < 1.0;
}

TEST(ObjectiveReports, TimeWithNothingSignificantSaysSoAndNamesTheBestL2) {
  auto s = sample();
  s.history.config.objective = Objective::time;
  judge(s.history.attempts[0], 1.01, 0.99, 1.03);  // die_rr, best L2
  const auto j = summary_json(s);
  EXPECT_EQ(j["objective"], "time");
  EXPECT_EQ(j["verdict"], "no significant speedup");
  EXPECT_FALSE(j.contains("best"));
  EXPECT_EQ(j["improved"], false);
  EXPECT_EQ(j["best_l2"]["label"], "die_rr");
  EXPECT_EQ(j["best_l2"]["significant"], false);
  EXPECT_EQ(j["best_l2"]["speedup_ci_low"], 0.99);
  EXPECT_EQ(j["best_kernel"], "/runs/gemm/best.hip");  // holds the original kernel
  const std::string t = render_summary_table(s);
  EXPECT_NE(t.find("objective: time"), std::string::npos) << t;
  EXPECT_NE(t.find("no significant speedup"), std::string::npos) << t;
  EXPECT_NE(t.find("best L2 candidate: iteration 1 (die_rr), L2 hit +20.00 points, speedup 1.010x [0.990, 1.030], not significant"),
            std::string::npos) << t;
  EXPECT_NE(t.find("(the original)"), std::string::npos) << t;
  const std::string md = render_report_markdown(s);
  EXPECT_NE(md.find("- objective: time\n- verdict: no significant speedup"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | die_rr | ok | 70.00 | 1.6000 | 1.010 |  | [0.990, 1.030] | no |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Best: the original kernel (no significant speedup)"), std::string::npos) << md;
}

// A Triton program's run writes best.py; its summary once said best.hip.
TEST(ObjectiveReports, ATritonRunsSummaryNamesBestPy) {
  for (const bool written : {true, false}) {
    auto s = sample();
    s.history.kernel_path = "/k/matmul.py";
    s.best_kernel = written ? "/runs/matmul/best.py" : "";
    s.history.config.objective = Objective::time;
    judge(s.history.attempts[0], 1.01, 0.99, 1.03);
    const std::string t = render_summary_table(s);
    EXPECT_NE(t.find("best.py is the original kernel"), std::string::npos) << t;
    EXPECT_EQ(t.find("best.hip"), std::string::npos) << t;
  }
}

TEST(ObjectiveReports, TimeNamesTheSignificantlyFasterOne) {
  auto s = sample();
  s.history.config.objective = Objective::time;
  judge(s.history.attempts[0], 0.93, 0.91, 0.95);  // die_rr: best L2 but slower
  judge(s.history.attempts[2], 1.052, 1.031, 1.070);
  const auto j = summary_json(s);
  EXPECT_EQ(j["best"]["label"], "grouped_m(G=8)");
  EXPECT_EQ(j["best"]["significant"], true);
  EXPECT_EQ(j["best"]["speedup_ci_low"], 1.031);
  EXPECT_EQ(j["verdict"], "faster: 1.052x [1.031, 1.070]");
  EXPECT_EQ(j["improved"], true);
  const std::string t = render_summary_table(s);
  EXPECT_NE(t.find("best: iteration 3 (grouped_m(G=8)), L2 hit +15.00 points, speedup 1.052x [1.031, 1.070], significant"),
            std::string::npos) << t;
  EXPECT_NE(t.find("best L2"), std::string::npos) << t;  // its row is still in the table
}

TEST(ObjectiveReports, L2NamesTheBestL2ButSaysItIsSlower) {
  auto s = sample();
  s.history.config.objective = Objective::l2;
  judge(s.history.attempts[0], 0.93, 0.91, 0.95);
  const auto j = summary_json(s);
  EXPECT_EQ(j["best"]["label"], "die_rr");
  EXPECT_EQ(j["verdict"], "slower: 0.93x [0.91, 0.95]");
  const std::string t = render_summary_table(s);
  EXPECT_NE(t.find("slower: 0.93x [0.91, 0.95]"), std::string::npos) << t;
  const std::string md = render_report_markdown(s);
  EXPECT_NE(md.find("- verdict: slower: 0.93x [0.91, 0.95]"), std::string::npos) << md;
}

TEST(ObjectiveReports, NotReCheckedIsNullInJson) {
  const auto j = summary_json(sample());
  EXPECT_TRUE(j["best"]["significant"].is_null());
  EXPECT_TRUE(j["best"]["speedup_ci_low"].is_null());
  EXPECT_EQ(j["verdict"], "speed not re-checked");
  EXPECT_EQ(j["objective"], "l2");  // a history without the key: the ranking it was made with
}


TEST(StageMedians, PerStageAndPerAttemptMediansSkipDuplicates) {
  auto s = sample();
  auto& at = s.history.attempts;
  at[0].stage_seconds = {{"build", 5.0}, {"verify", 1.0}, {"compare", 0.5}};
  at[0].wall_seconds = 8.0;
  at[1].stage_seconds = {{"check", 0.25}};
  at[1].wall_seconds = 0.5;
  at[2].stage_seconds = {{"build", 3.0}, {"verify", 2.0}, {"compare", 0.25}, {"time", 1.0}};
  at[2].wall_seconds = 7.0;
  Attempt dup = measured(4, "dup", AttemptStatus::duplicate, std::nullopt, std::nullopt, std::nullopt);
  dup.stage_seconds = {{"check", 100.0}};
  dup.wall_seconds = 100.0;
  at.push_back(dup);
  const auto t = stage_medians(s.history);
  EXPECT_EQ(t["attempts"], 3);
  EXPECT_DOUBLE_EQ(t["attempt_wall_s_median"].get<double>(), 7.0);
  EXPECT_DOUBLE_EQ(t["stage_seconds_median"]["build"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(t["stage_seconds_median"]["compare"].get<double>(), 0.375);
  EXPECT_DOUBLE_EQ(t["stage_seconds_median"]["check"].get<double>(), 0.25);  // the duplicate's 100 s is out
  EXPECT_DOUBLE_EQ(t["stage_seconds_median"]["time"].get<double>(), 1.0);
  EXPECT_EQ(summary_json(s)["timing"], t);
  const std::string md = render_report_markdown(s);
  EXPECT_NE(md.find("## Wall time per attempt (median over 3 attempts, duplicates excluded)\n\n- attempt: 7.00 s\n"
                    "- build: 4.00 s\n- check: 0.25 s\n- compare: 0.38 s\n"),
            std::string::npos)
      << md;
  EXPECT_FALSE(stage_medians(RunHistory{}).contains("attempt_wall_s_median"));
}

}  // namespace
}  // namespace swz
