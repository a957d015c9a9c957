// TuneReport: a tune run's history read as points x orders. The best per value and per
// order, the space's table with failures marked by status, the totals, and the --json form.
#include "swizzleperf/report/tune_report.h"

#include <gtest/gtest.h>

#include "support/builders.h"

namespace swz {
namespace {

using test::AttemptBuilder;

// BM x BN x ST, the program's own 128 x 128 x 3: 2 * 2 * 2 points.
const char* kTuneReportProgram =
    "#ifndef BM\n#define BM 128  // swizzleperf:tunable 64 128\n#endif\n"
    "#ifndef BN\n#define BN 128  // swizzleperf:tunable 64 128\n#endif\n"
    "#ifndef ST\n#define ST 3  // swizzleperf:tunable 2 3\n#endif\n";

TuneSpace tune_report_space() {
  auto s = parse_tune_space(kTuneReportProgram, RegionLanguage::cpp, "k.cu");
  EXPECT_TRUE(s.ok()) << (s ? "" : s.error().message);
  return s ? *s : TuneSpace{};
}

// The baseline (own point, identity, 2 ms); then grouped at the own point (1.6 ms), both
// orders at 64 x 128 x 2 (2.5 ms, 1.25 ms: the fastest, judged significant), a build failure,
// a duplicate and a launch failure.
RunHistory tune_report_history() {
  Attempt base = AttemptBuilder(0).label("identity (original region)").region("IDENTITY").ms(2.0).wall(10);
  std::vector<Attempt> attempts = {
      AttemptBuilder(1).proposer("tune").label("grouped_m(G=8) @ BM=128 BN=128 ST=3").family("grouped_m", 8).region("G8").ms(1.6).wall(5),
      AttemptBuilder(2).proposer("tune").label("identity @ BM=64 BN=128 ST=2").region("IDENTITY").defines({{"BM", 64}, {"ST", 2}})
          .ms(2.5).wall(6),
      AttemptBuilder(3).proposer("tune").label("grouped_m(G=8) @ BM=64 BN=128 ST=2").family("grouped_m", 8).region("G8")
          .defines({{"BM", 64}, {"BN", 128}, {"ST", 2}}).ms(1.25).wall(7),
      AttemptBuilder(4).proposer("tune").label("identity @ BM=128 BN=64 ST=2").region("IDENTITY").defines({{"BN", 64}, {"ST", 2}})
          .status(AttemptStatus::build_failed, "ptxas: too much shared data").wall(3),
      AttemptBuilder(5).proposer("tune").label("grouped_m(G=8) @ BM=64 BN=128 ST=2").region("G8")
          .defines({{"BM", 64}, {"ST", 2}}).status(AttemptStatus::duplicate).wall(0.5),
      AttemptBuilder(6).proposer("tune").label("grouped_m(G=8) @ BM=128 BN=64 ST=2").region("G8").defines({{"BN", 64}, {"ST", 2}})
          .status(AttemptStatus::run_failed, "launch failed").wall(4),
  };
  attempts[2].significant = true;
  attempts[2].speedup = 1.58;
  attempts[2].speedup_ci_low = 1.55;
  attempts[2].speedup_ci_high = 1.61;
  RunHistory h = test::history_with(base, attempts, "gemm_tc");
  h.config.objective = Objective::time;
  return h;
}

const TuneValueBest& tr_value_best(const TuneReport& r, const std::string& name, std::int64_t value) {
  for (const auto& v : r.per_value)
    if (v.name == name && v.value == value) return v;
  static const TuneValueBest none;
  ADD_FAILURE() << "no row for " << name << "=" << value;
  return none;
}

TEST(TuneReport, CountsEvaluationsFailuresAndTime) {
  const TuneReport r = make_tune_report(tune_report_history(), tune_report_space());
  EXPECT_EQ(r.kernel, "gemm_tc");
  EXPECT_EQ(r.names, (std::vector<std::string>{"BM", "BN", "ST"}));
  EXPECT_EQ(r.space_size, 8u);
  EXPECT_EQ(r.evaluations, 5);  // the duplicate ran nothing; the baseline is apart
  EXPECT_EQ(r.failed, 2);
  EXPECT_EQ(r.duplicates, 1);
  EXPECT_EQ(r.failures, (std::map<std::string, int>{{"build_failed", 1}, {"run_failed", 1}}));
  EXPECT_DOUBLE_EQ(r.seconds, 10 + 5 + 6 + 7 + 3 + 0.5 + 4);
  ASSERT_TRUE(r.baseline_ms);
  EXPECT_DOUBLE_EQ(*r.baseline_ms, 2.0);
}

TEST(TuneReport, TheSpaceIsOneRowPerPointAndOneColumnPerOrder) {
  const TuneReport r = make_tune_report(tune_report_history(), tune_report_space());
  // The baseline's order is the attempts' name for its region; labels lose their " @ point".
  EXPECT_EQ(r.orders, (std::vector<std::string>{"identity", "grouped_m(G=8)"}));
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].tile, "64x128x2");
  EXPECT_EQ(r.rows[1].tile, "128x64x2");
  EXPECT_EQ(r.rows[2].tile, "128x128x3");
  EXPECT_TRUE(r.rows[2].own);
  EXPECT_FALSE(r.rows[0].own);
  // Own point: the baseline under identity, grouped beside it.
  ASSERT_TRUE(r.rows[2].cells[0] && r.rows[2].cells[1]);
  EXPECT_EQ(r.rows[2].cells[0]->iteration, 0);
  EXPECT_DOUBLE_EQ(*r.rows[2].cells[0]->vs_baseline, 1.0);
  EXPECT_DOUBLE_EQ(*r.rows[2].cells[1]->ms, 1.6);
  EXPECT_DOUBLE_EQ(*r.rows[2].cells[1]->vs_baseline, 2.0 / 1.6);
  // The duplicate did not replace attempt 3's time.
  ASSERT_TRUE(r.rows[0].cells[1]);
  EXPECT_EQ(r.rows[0].cells[1]->iteration, 3);
  // Failures keep their status and no time.
  ASSERT_TRUE(r.rows[1].cells[0] && r.rows[1].cells[1]);
  EXPECT_EQ(r.rows[1].cells[0]->status, AttemptStatus::build_failed);
  EXPECT_EQ(r.rows[1].cells[1]->status, AttemptStatus::run_failed);
  EXPECT_FALSE(r.rows[1].cells[0]->ms);
}

TEST(TuneReport, BestPerParameterValueAndPerOrder) {
  const TuneReport r = make_tune_report(tune_report_history(), tune_report_space());
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->iteration, 3);
  EXPECT_EQ(r.best->point, (TunePoint{64, 128, 2}));
  EXPECT_EQ(r.best->order, "grouped_m(G=8)");

  const auto& bm64 = tr_value_best(r, "BM", 64);
  ASSERT_TRUE(bm64.best);
  EXPECT_DOUBLE_EQ(bm64.best->ms, 1.25);
  EXPECT_EQ(bm64.evaluated, 2);
  const auto& bm128 = tr_value_best(r, "BM", 128);
  ASSERT_TRUE(bm128.best);
  EXPECT_DOUBLE_EQ(bm128.best->ms, 1.6);  // the baseline (2.0) and two failures beside it
  EXPECT_EQ(bm128.evaluated, 4);
  EXPECT_EQ(bm128.failed, 2);
  const auto& bn64 = tr_value_best(r, "BN", 64);
  EXPECT_FALSE(bn64.best);  // tried twice, failed twice
  EXPECT_EQ(bn64.failed, 2);
  ASSERT_TRUE(tr_value_best(r, "ST", 3).best);
  EXPECT_DOUBLE_EQ(tr_value_best(r, "ST", 3).best->ms, 1.6);

  ASSERT_EQ(r.per_order.size(), 2u);
  EXPECT_DOUBLE_EQ(r.per_order[0].best->ms, 2.0);  // identity: the baseline beats 64 x 128 x 2
  EXPECT_EQ(r.per_order[0].evaluated, 3);
  EXPECT_EQ(r.per_order[0].failed, 1);
  EXPECT_DOUBLE_EQ(r.per_order[1].best->ms, 1.25);

  ASSERT_TRUE(r.winner);
  EXPECT_EQ(r.winner->screened.iteration, 3);
  EXPECT_TRUE(r.winner->significant);
  EXPECT_DOUBLE_EQ(*r.winner->ci_low, 1.55);
}

TEST(TuneReport, NoWinnerWhenNothingWasSignificant) {
  RunHistory h = tune_report_history();
  h.attempts[2].significant = false;
  const TuneReport r = make_tune_report(h, tune_report_space());
  EXPECT_FALSE(r.winner);
  ASSERT_TRUE(r.best);  // the screening still names the fastest
  EXPECT_NE(render_tune_markdown(r).find("Judged winner: none"), std::string::npos);
}

TEST(TuneReport, MarkdownShowsTheTableWithFailuresAndTheFastestInBold) {
  const std::string md = render_tune_markdown(make_tune_report(tune_report_history(), tune_report_space()));
  EXPECT_NE(md.find("| BM x BN x ST | identity | grouped_m(G=8) |\n|---|---|---|\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 64x128x2 | 2.500 (0.80x) | **1.250 (1.60x)** |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 128x64x2 | build_failed | run_failed |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 128x128x3 (own) | 2.000 (1.00x) | 1.600 (1.25x) |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("Evaluations: 5 of a space of 8 points (2 failed: 1 build_failed, 1 run_failed; 1 duplicates not run), 35.5 s"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| BN | 64 | - | - | - | 2 | 2 |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("re-checked 1.58x [1.550, 1.610], significant"), std::string::npos) << md;
}

TEST(TuneReport, JsonCarriesPointsByName) {
  const auto j = tune_report_json(make_tune_report(tune_report_history(), tune_report_space()));
  EXPECT_EQ(j["tunables"], nlohmann::json({"BM", "BN", "ST"}));
  EXPECT_EQ(j["own_point"], nlohmann::json({{"BM", 128}, {"BN", 128}, {"ST", 3}}));
  EXPECT_EQ(j["best"]["point"], nlohmann::json({{"BM", 64}, {"BN", 128}, {"ST", 2}}));
  EXPECT_EQ(j["best"]["order"], "grouped_m(G=8)");
  EXPECT_EQ(j["evaluations"], 5);
  EXPECT_EQ(j["failures"]["build_failed"], 1);
  ASSERT_EQ(j["space"].size(), 3u);
  EXPECT_EQ(j["space"][1]["cells"]["identity"]["status"], "build_failed");
  EXPECT_TRUE(j["space"][1]["cells"]["identity"]["ms"].is_null());
  EXPECT_TRUE(j["winner"]["significant"].get<bool>());
}

TEST(TuneReport, ThePrunedCountAndTheStopReasonWhereKnown) {
  RunHistory h = tune_report_history();
  const TuneReport plain = make_tune_report(h, tune_report_space());
  EXPECT_FALSE(plain.pruned);
  EXPECT_EQ(plain.stopped, "");
  const std::string plain_md = render_tune_markdown(plain);
  EXPECT_EQ(plain_md.find("Pruned"), std::string::npos) << plain_md;
  EXPECT_EQ(plain_md.find("Stopped"), std::string::npos) << plain_md;
  EXPECT_TRUE(tune_report_json(plain)["pruned"].is_null());

  h.stopped_because = "the tune budget of 6 evaluations is spent";
  TuneEnumeration e;
  e.excluded = 3;
  e.first_exclusion = "BM=128 BN=128 ST=3: 96 KiB of shared memory | over 48 KiB";
  const TuneReport r = make_tune_report(h, tune_report_space(), &e);
  ASSERT_TRUE(r.pruned);
  EXPECT_EQ(*r.pruned, 3u);
  EXPECT_EQ(r.stopped, "the tune budget of 6 evaluations is spent");
  const std::string md = render_tune_markdown(r);
  EXPECT_NE(md.find("- Pruned before any build: 3 of the 8 points (first: BM=128 BN=128 ST=3: 96 KiB of shared memory \\| "
                    "over 48 KiB).\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("- Stopped: the tune budget of 6 evaluations is spent.\n"), std::string::npos) << md;
  const auto j = tune_report_json(r);
  EXPECT_EQ(j["pruned"], 3);
  EXPECT_EQ(j["first_pruned"], e.first_exclusion);
  EXPECT_EQ(j["stopped_because"], "the tune budget of 6 evaluations is spent");
}

TEST(TuneReport, AProgramWithoutTheBaselinesRegionAmongItsAttemptsKeepsTheBaselinesLabel) {
  RunHistory h = tune_report_history();
  h.baseline->region = "SOMETHING ELSE";
  const TuneReport r = make_tune_report(h, tune_report_space());
  EXPECT_EQ(r.orders, (std::vector<std::string>{"identity (original region)", "grouped_m(G=8)", "identity"}));
}

}  // namespace
}  // namespace swz
