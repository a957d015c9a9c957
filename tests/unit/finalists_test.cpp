// Tests of loop/finalists: which screened candidates the speed judge re-times, and how a
// resumed run undoes an earlier verdict before judging again.
#include "swizzleperf/loop/finalists.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

Timing timed_at(double ms, std::optional<double> mj = std::nullopt) {
  Timing t;
  t.median_ms = t.min_ms = t.max_ms = ms;
  t.regime = "burst";
  t.energy_mj_per_run = mj;
  return t;
}

// A validated candidate screened at `speedup` (one-shot, against a 1 ms baseline) with L2 hit `l2`.
Attempt screened_candidate(int iteration, double speedup, double l2) {
  Attempt a;
  a.iteration = iteration;
  a.label = "order " + std::to_string(iteration);
  a.timing = timed_at(1.0 / speedup);
  a.speedup = speedup;
  Metrics m;
  m.l2_hit_pct = l2;
  a.metrics = m;
  return a;
}

RunHistory screened(const std::vector<std::pair<double, double>>& speedup_l2) {
  RunHistory h;
  h.config.objective = Objective::time;
  int it = 0;
  for (const auto& [s, l2] : speedup_l2) h.attempts.push_back(screened_candidate(++it, s, l2));
  return h;
}

TEST(Finalists, TheFastestScreenedAndTheL2BestWithinTheSlack) {
  // 1.30 and 1.25 the fastest; 1.01 the best L2; 0.90 beyond the 3 % slack even though its L2 is high.
  RunHistory h = screened({{1.30, 80}, {1.01, 95}, {1.25, 70}, {1.20, 60}, {0.90, 99}});
  h.attempts[4].metrics->l2_hit_pct = 90;  // below the 1.01's 95: not the L2-best
  const auto f = select_finalists(h, 3);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], 0u);  // by screened speed, best first
  EXPECT_EQ(f[1], 2u);
  EXPECT_EQ(f[2], 1u);  // the L2-best took the third place from 1.20
  // One finalist under time: the fastest alone, not the L2-best.
  EXPECT_EQ(select_finalists(h, 1), (std::vector<std::size_t>{0}));
}

// --profile winner: no candidate was profiled before the judge. The L2-best rule reads the
// locality model's prediction where there is one and passes a candidate without one by.
TEST(Finalists, WithoutProfilesTheL2BestIsThePredictedOneAndWithoutPredictionsNone) {
  RunHistory h = screened({{1.30, 0}, {1.01, 0}, {1.25, 0}, {1.20, 0}});
  for (auto& a : h.attempts) a.metrics.reset();
  const auto fastest_three = select_finalists(h, 3);
  EXPECT_EQ(fastest_three, (std::vector<std::size_t>{0, 2, 3})) << "no L2 anywhere: by screened time alone";
  PredictionSummary high;
  high.l2_hit_pct = 88;
  PredictionSummary low;
  low.l2_hit_pct = 40;
  h.attempts[1].predicted = high;
  h.attempts[3].predicted = low;
  EXPECT_EQ(select_finalists(h, 3), (std::vector<std::size_t>{0, 2, 1})) << "the predicted L2-best took 1.20's place";
  // A measured L2 outranks no measurement: the profiled 1.20 at 95 % is the L2-best.
  h.attempts[3].metrics = Metrics{};
  h.attempts[3].metrics->l2_hit_pct = 95;
  EXPECT_EQ(select_finalists(h, 3), (std::vector<std::size_t>{0, 2, 3}));
}

TEST(Finalists, NoneWhenEveryCandidateScreenedSlowerThanTheSlackAndGateTakesItsOneRegardless) {
  RunHistory h = screened({{0.95, 60}, {0.80, 70}});
  EXPECT_TRUE(select_finalists(h, 3).empty());
  h.attempts[1].status = AttemptStatus::validation_failed;
  h.config.recheck_every_candidate = true;  // gate
  EXPECT_EQ(select_finalists(h, 3), (std::vector<std::size_t>{0}));
  // Under l2 the L2-best goes even when it screened slower: its verdict is what the report states.
  RunHistory l = screened({{0.95, 60}, {0.80, 70}});
  l.config.objective = Objective::l2;
  EXPECT_EQ(select_finalists(l, 3), (std::vector<std::size_t>{1}));
}

TEST(Finalists, AnUndoneVerdictLeavesTheScreeningsNumbers) {
  Attempt baseline;
  baseline.timing = timed_at(1.0, 200.0);
  Attempt a = screened_candidate(1, 1.25, 80);
  a.timing->energy_mj_per_run = 150.0;
  a.speedup = 1.31;  // the judge's estimate
  a.speedup_ci_low = 1.30;
  a.speedup_ci_high = 1.32;
  a.significant = true;
  a.energy_ratio = 0.70;
  a.energy_significant = true;
  a.recheck = Recheck{1.25, "", {SpeedComparison{}}, ""};
  clear_verdict(a, &baseline);
  EXPECT_DOUBLE_EQ(*a.speedup, 1.25);
  EXPECT_EQ(a.speedup_regime, Regime::burst);
  EXPECT_DOUBLE_EQ(*a.energy_ratio, 0.75);
  EXPECT_FALSE(a.significant || a.speedup_ci_low || a.speedup_ci_high || a.energy_significant);
  EXPECT_FALSE(a.recheck.has_value());
}

}  // namespace
}  // namespace swz
