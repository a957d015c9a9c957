// The judge's records (core/judge_record): written as history.json has them, read
// back to the same JSON (the per-round data of a tournament's candidates is kept once,
// in its members, and rebuilt on reading), and read leniently.
#include "swizzleperf/core/judge_record.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

// A two-round sustained tournament: the baseline and one candidate.
Tournament judge_record_sample() {
  Tournament t;
  t.regime = Regime::sustained;
  t.members = {{"baseline", {2.0, 2.1}, {1500, -1}, {100, 101}, 4, 0, ""},
               {"grouped_m(G=8)", {1.6, 1.7}, {1600, 1610}, {80, 81}, 0, 2, ""}};
  t.order = {{0, 1}, {1, 0}};
  t.rounds = 2;
  t.runs = 4;
  t.seconds = 3.5;
  t.warm_seconds = 1.25;
  t.served = true;
  t.stop = "2 rounds, the most asked (--max-rounds)";
  t.leader = 0;
  SpeedComparison c;
  c.label = "grouped_m(G=8)";
  fill_series(c, t, 0);
  c.ratio = {1.25, 1.2, 1.3, 0.95, 0.5, 2, false};
  c.energy = PairedRatio{0.8, 0.79, 0.81, 0.95, 0.5, 2, false};
  c.baseline_reasons = 4;
  c.clock_reasons = 4;
  c.left_after = 1;
  c.left_because = "significantly slower than the baseline";
  t.candidates.push_back(c);
  return t;
}

TEST(JudgeRecord, ATournamentReadsBackToTheSameJsonAndItsCandidatesSeries) {
  const Tournament t = judge_record_sample();
  const nlohmann::json j = t;
  EXPECT_FALSE(j["candidates"][0].contains("baseline_ms")) << "the series are written once, in members";
  EXPECT_EQ(j["members"][0]["mhz"][1], nullptr) << "an unknown clock is null";
  const Tournament back = j.get<Tournament>();
  EXPECT_EQ(nlohmann::json(back), j);
  ASSERT_EQ(back.candidates.size(), 1u);
  const SpeedComparison& c = back.candidates[0];
  EXPECT_EQ(c.regime, Regime::sustained);
  EXPECT_EQ(c.candidate_ms, (std::vector<double>{1.6, 1.7}));
  EXPECT_EQ(c.baseline_mhz, (std::vector<double>{1500, -1}));
  EXPECT_TRUE(c.served);
  EXPECT_EQ(c.left_after, 1);
  ASSERT_TRUE(c.energy.has_value());
  EXPECT_EQ(c.energy->estimate, 0.8);
  EXPECT_EQ(back.leader, 0);
}

TEST(JudgeRecord, ARecheckKeepsEachRegimeAndNamesTheUntrustedOne) {
  SpeedComparison burst;
  burst.regime = Regime::burst;
  burst.ratio = {1.1, 1.05, 1.15, 0.95, 0.97, 6, true};
  burst.baseline_ms = {1, 1, 1, 1, 1, 1};
  burst.candidate_ms = {0.9, 0.9, 0.9, 0.9, 0.9, 0.9};
  SpeedComparison sustained = burst;
  sustained.regime = Regime::sustained;
  sustained.trusted = false;
  sustained.untrusted = "the rounds disagree";
  const Recheck r{1.08, "", {burst, sustained}, "sustained: the rounds disagree"};
  const nlohmann::json j = r;
  EXPECT_EQ(j["speedup"], 1.1) << "the first regime's numbers at the top";
  EXPECT_TRUE(j["regimes"].contains("burst") && j["regimes"].contains("sustained"));
  EXPECT_EQ(j["untrusted"], "sustained: the rounds disagree");
  const Recheck back = j.get<Recheck>();
  ASSERT_EQ(back.regimes.size(), 2u);
  EXPECT_EQ(back.regimes[1].regime, Regime::sustained);
  EXPECT_FALSE(back.regimes[1].trusted);
  EXPECT_EQ(back.one_shot_speedup, 1.08);
  EXPECT_EQ(nlohmann::json(back), j);
  // A re-check that failed before measuring: its one-shot speedup and why.
  const nlohmann::json failed = {{"one_shot_speedup", 0.99}, {"error", "burst: the candidate crashed"}};
  const Recheck f = failed.get<Recheck>();
  EXPECT_EQ(f.first(), nullptr);
  EXPECT_EQ(nlohmann::json(f), failed);
}

TEST(JudgeRecord, AnUnnamedRegimeIsOneComparisonWithoutClocks) {
  const nlohmann::json old = {{"speedup", 1.2}, {"ci_low", 1.1}, {"ci_high", 1.3}, {"rounds", 6},
                              {"one_shot_speedup", 1.15}, {"baseline_mhz", {1500}}};
  const Recheck r = old.get<Recheck>();
  ASSERT_EQ(r.regimes.size(), 1u);
  EXPECT_EQ(r.regimes[0].regime, Regime::unnamed);
  EXPECT_EQ(r.regimes[0].ratio.n, 6);
  EXPECT_TRUE(r.regimes[0].baseline_mhz.empty()) << "clocks belong to a named regime";
}

TEST(JudgeRecord, WrongTypesAndHugeNumbersReadAsDefaults) {
  const nlohmann::json odd = {{"regime", 7},          {"speedup", "fast"}, {"rounds", 1e300},
                              {"runs", -1e300},       {"served", "yes"},   {"baseline_ms", {1.0, nullptr, "x"}},
                              {"left_after_round", 3.5}};
  const SpeedComparison c = odd.get<SpeedComparison>();
  EXPECT_EQ(c.regime, Regime::unnamed);
  EXPECT_EQ(c.ratio.estimate, 1.0);
  EXPECT_EQ(c.ratio.n, 0);
  EXPECT_EQ(c.runs, 0);
  EXPECT_FALSE(c.served);
  EXPECT_EQ(c.baseline_ms, (std::vector<double>{1.0, -1.0, -1.0}));
  EXPECT_EQ(c.left_after, 0);
  // A tournament whose candidate has no member (a hand-edited file) reads without series.
  const nlohmann::json t = {{"regime", "burst"}, {"members", nlohmann::json::array()},
                            {"candidates", {{{"speedup", 1.1}}}}, {"leader", 1e300}, {"order", {{0, "a"}, 5}}};
  const Tournament back = t.get<Tournament>();
  ASSERT_EQ(back.candidates.size(), 1u);
  EXPECT_TRUE(back.candidates[0].candidate_ms.empty());
  EXPECT_EQ(back.leader, -1);
  EXPECT_EQ(back.order, (std::vector<std::vector<int>>{{0, -1}, {}}));
}

TEST(JudgeRecord, TheRunsRecordAndRegimeNames) {
  JudgeRecord none;
  none.why_none = "no validated candidate came within 3 % of the baseline in its one-shot timing";
  const nlohmann::json j = none;
  EXPECT_EQ(j, (nlohmann::json{{"finalists", nlohmann::json::array()}, {"tournaments", nlohmann::json::array()},
                               {"why_none", none.why_none}}));
  EXPECT_EQ(nlohmann::json(j.get<JudgeRecord>()), j);
  JudgeRecord ran;
  ran.finalists = {{3, "die_rr", 1.02}};
  ran.tournaments = {judge_record_sample()};
  ran.seconds = 4.5;
  const nlohmann::json r = ran;
  EXPECT_EQ(nlohmann::json(r.get<JudgeRecord>()), r);
  EXPECT_EQ(regime_label(Regime::unnamed), "");
  EXPECT_EQ(regime_label(Regime::burst), "burst");
  EXPECT_EQ(regime_of_label("sustained"), Regime::sustained);
  EXPECT_EQ(regime_of_label("both"), Regime::unnamed) << "a comparison is in one regime";
}

}  // namespace
}  // namespace swz
