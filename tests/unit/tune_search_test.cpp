// TuneSearch: the next (point, order) trial of a tune run, on synthetic landscapes
// (tests/support/tune_landscape: a made-up time per point and order, with interactions
// between the tile and the order, failures and ties). Exhaustive visits every trial once;
// random respects its budget and never repeats; guided gets within 2 % of the exhaustive
// optimum with at most 35 % of the evaluations; every strategy is deterministic, so a
// resumed run continues the same sequence.
#include "swizzleperf/tune/tune_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "support/tune_landscape.h"

namespace swz {
namespace {

using test::make_tune_landscape;
using test::run_tune_search;
using test::TuneLandscape;

// Three shapes of space, 100-300 trials each (points x orders).
const std::vector<std::vector<std::int64_t>> kTuneTileBlock = {{32, 64, 128, 256}, {32, 64, 128, 256}, {16, 32, 64}};  // 48 points
const std::vector<std::vector<std::int64_t>> kTuneCube = {{64, 128, 256}, {64, 128, 256}, {32, 64, 128}, {2, 3, 4}};  // 81 points
const std::vector<std::vector<std::int64_t>> kTuneWide = {{16, 32, 64, 128, 256, 512}, {32, 64, 128, 256}, {2, 4}};    // 48 points

TuneSearchSettings search_with(TuneStrategy s, int budget, std::uint64_t seed = 1) {
  TuneSearchSettings t;
  t.strategy = s;
  t.budget = budget;
  t.seed = seed;
  return t;
}

std::set<TuneTrial> distinct_trials(const std::vector<TuneOutcome>& outcomes) {
  std::set<TuneTrial> out;
  for (const auto& o : outcomes) out.insert(o.trial);
  return out;
}

TEST(TuneSearch, StrategyNamesRoundTrip) {
  for (auto s : {TuneStrategy::guided, TuneStrategy::exhaustive, TuneStrategy::random})
    EXPECT_EQ(tune_strategy_from_string(to_string(s)), s);
  EXPECT_EQ(tune_strategy_from_string("bayesian"), std::nullopt);
}

TEST(TuneSearch, ExhaustiveVisitsEveryTrialOnceAndRetriesNoFailure) {
  TuneLandscape l = make_tune_landscape(kTuneTileBlock, 5, 7);
  l.fail_one_in = 9;
  l.max_volume = 128 * 128 * 64;
  const auto outcomes = run_tune_search(l, search_with(TuneStrategy::exhaustive, 100000));
  const std::uint64_t trials = 48 * 5;
  EXPECT_EQ(outcomes.size(), trials) << "the baseline and every other trial, each once";
  EXPECT_EQ(distinct_trials(outcomes).size(), trials);
  int failed = 0;
  for (const auto& o : outcomes) failed += o.ms ? 0 : 1;
  EXPECT_GT(failed, 20) << "the landscape has failures, and the search went on past them";
}

TEST(TuneSearch, RandomRespectsTheBudgetNeverRepeatsAndFollowsItsSeed) {
  TuneLandscape l = make_tune_landscape(kTuneCube, 4, 3);
  l.fail_one_in = 7;
  const auto a = run_tune_search(l, search_with(TuneStrategy::random, 50, 11));
  EXPECT_EQ(a.size(), 51u) << "50 counted evaluations and the uncounted baseline";
  EXPECT_EQ(distinct_trials(a).size(), a.size());
  const auto again = run_tune_search(l, search_with(TuneStrategy::random, 50, 11));
  const auto other = run_tune_search(l, search_with(TuneStrategy::random, 50, 12));
  std::vector<TuneTrial> ta, tb, tc;
  for (const auto& o : a) ta.push_back(o.trial);
  for (const auto& o : again) tb.push_back(o.trial);
  for (const auto& o : other) tc.push_back(o.trial);
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta, tc);
  // A budget past the space: every trial once, then nothing.
  const auto all = run_tune_search(l, search_with(TuneStrategy::random, 100000, 5));
  EXPECT_EQ(all.size(), 81u * 4u);
  EXPECT_EQ(distinct_trials(all).size(), all.size());
}

// The quality bar on 600 landscapes (three shapes, 3 or 5 orders, 100 draws each): with 35 %
// of the trials as the budget, at least 99 % of the runs end within 2 % of the exhaustive
// optimum and none further than 10 %. (The misses are landscapes whose best tile at the
// best order is poor at the screening order and far from the screened best.)
TEST(TuneSearch, GuidedGetsWithinTwoPercentOfTheOptimumOnAThirdOfTheTrials) {
  int runs = 0, misses = 0;
  double worst = 1;
  std::string report;
  for (const auto* shape : {&kTuneTileBlock, &kTuneCube, &kTuneWide})
    for (int orders : {3, 5}) {
      for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        TuneLandscape l = make_tune_landscape(*shape, orders, seed * 31 + static_cast<std::uint64_t>(orders));
        l.fail_one_in = 13;
        l.max_volume = 256 * 256 * 64;
        const auto optimum = test::tune_landscape_optimum(l);
        ASSERT_TRUE(optimum);
        std::uint64_t points = enumerate_points(l.space, {}).points.size();
        const int budget = static_cast<int>(std::floor(0.35 * static_cast<double>(points * static_cast<std::uint64_t>(orders))));
        const auto outcomes = run_tune_search(l, search_with(TuneStrategy::guided, budget));
        ASSERT_LE(outcomes.size(), static_cast<std::size_t>(budget) + 1);
        EXPECT_EQ(distinct_trials(outcomes).size(), outcomes.size()) << "never a trial twice";
        const TuneOutcome* best = best_tune_outcome(outcomes);
        ASSERT_NE(best, nullptr);
        ++runs;
        worst = std::max(worst, *best->ms / *optimum);
        if (*best->ms > *optimum * 1.02) {
          ++misses;
          report += "seed " + std::to_string(seed) + " orders " + std::to_string(orders) + " points " + std::to_string(points) +
                    ": " + std::to_string(*best->ms) + " vs " + std::to_string(*optimum) + "\n";
        }
      }
    }
  EXPECT_EQ(runs, 600);
  EXPECT_LE(misses, runs / 100) << misses << " of " << runs << " landscapes missed:\n" << report;
  EXPECT_LT(worst, 1.10);
}

TEST(TuneSearch, GuidedBeatsARandomSampleOfTheSameBudget) {
  double guided_gap = 0, random_gap = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    TuneLandscape l = make_tune_landscape(kTuneTileBlock, 5, seed);
    const double optimum = *test::tune_landscape_optimum(l);
    guided_gap += *best_tune_outcome(run_tune_search(l, search_with(TuneStrategy::guided, 60)))->ms / optimum - 1;
    random_gap += *best_tune_outcome(run_tune_search(l, search_with(TuneStrategy::random, 60, seed)))->ms / optimum - 1;
  }
  EXPECT_LT(guided_gap, random_gap);
}

TEST(TuneSearch, GuidedIsDeterministicAndAResumeContinuesTheSameSequence) {
  TuneLandscape l = make_tune_landscape(kTuneCube, 5, 42);
  l.fail_one_in = 11;
  const auto whole = run_tune_search(l, search_with(TuneStrategy::guided, 70));
  EXPECT_EQ(whole.size(), 71u);
  const auto points = enumerate_points(l.space, {}).points;
  const TuneSearchSpace s = make_tune_search_space(l.space, points, l.orders, 0, 1);
  // Cut after 30 outcomes (a Ctrl-C), then continue from the recorded outcomes alone.
  std::vector<TuneOutcome> resumed(whole.begin(), whole.begin() + 30);
  while (auto t = next_tune_trial(s, resumed, search_with(TuneStrategy::guided, 70)))
    resumed.push_back({*t, l.ms(t->point, t->order), true});
  ASSERT_EQ(resumed.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(resumed[i].trial, whole[i].trial) << "at " << i;
  // A budget that grows on a resume goes on from where the smaller one stopped.
  std::vector<TuneOutcome> grown = run_tune_search(l, search_with(TuneStrategy::guided, 40));
  while (auto t = next_tune_trial(s, grown, search_with(TuneStrategy::guided, 70)))
    grown.push_back({*t, l.ms(t->point, t->order), true});
  EXPECT_EQ(grown.size(), 71u);
  EXPECT_EQ(distinct_trials(grown).size(), grown.size());
}

TEST(TuneSearch, GuidedScreensAtTheScreenOrderFirstThenTheBestPointsAtEveryOrder) {
  TuneLandscape l = make_tune_landscape(kTuneTileBlock, 4, 5);
  const auto outcomes = run_tune_search(l, search_with(TuneStrategy::guided, 60));
  // Screening: a third of the budget (20 of the 48 points, a seeded sample with the own point first), at order 1.
  for (std::size_t i = 1; i <= 20; ++i) EXPECT_EQ(outcomes[i].trial.order, 1) << "at " << i;
  EXPECT_EQ(outcomes[1].trial.point, l.space.own_point());
  // Then the best screened point at its other orders.
  TuneOutcome best_screened = outcomes[1];
  for (std::size_t i = 1; i <= 20; ++i)
    if (outcomes[i].ms && (!best_screened.ms || *outcomes[i].ms < *best_screened.ms)) best_screened = outcomes[i];
  std::set<int> orders_of_best;
  for (std::size_t i = 21; i < outcomes.size() && orders_of_best.size() < 3; ++i)
    if (outcomes[i].trial.point == best_screened.trial.point) orders_of_best.insert(outcomes[i].trial.order);
  EXPECT_EQ(orders_of_best.size(), 3u - (best_screened.trial.point == l.space.own_point() ? 1u : 0u));
  EXPECT_EQ(outcomes[21].trial.point, best_screened.trial.point);
}

TEST(TuneSearch, StopsAtTheBudgetAndOnAnEmptySpace) {
  TuneLandscape l = make_tune_landscape(kTuneTileBlock, 3, 9);
  for (auto s : {TuneStrategy::guided, TuneStrategy::exhaustive, TuneStrategy::random})
    EXPECT_EQ(run_tune_search(l, search_with(s, 10)).size(), 11u) << to_string(s);
  const TuneSearchSpace empty = make_tune_search_space(l.space, {}, 3, 0, 1);
  EXPECT_EQ(next_tune_trial(empty, {}, search_with(TuneStrategy::guided, 10)), std::nullopt);
  // Outcomes of points outside the space count against the budget and are otherwise ignored.
  const TuneSearchSpace s = make_tune_search_space(l.space, enumerate_points(l.space, {}).points, 3, 0, 1);
  std::vector<TuneOutcome> foreign(5, TuneOutcome{{{1, 2, 3}, 0}, 1.0, true});
  EXPECT_EQ(next_tune_trial(s, foreign, search_with(TuneStrategy::exhaustive, 5)), std::nullopt);
  ASSERT_TRUE(next_tune_trial(s, foreign, search_with(TuneStrategy::exhaustive, 6)));
}

TEST(TuneSearch, TiesAndFailuresPickTheFirstBestAndFailuresAreNotBest) {
  std::vector<TuneOutcome> o = {{{{1}, 0}, std::nullopt, true}, {{{2}, 0}, 2.0, true}, {{{3}, 1}, 2.0, true}};
  ASSERT_NE(best_tune_outcome(o), nullptr);
  EXPECT_EQ(best_tune_outcome(o)->trial.point, TunePoint{2});
  EXPECT_EQ(best_tune_outcome({{{{1}, 0}, std::nullopt, true}}), nullptr);
}

}  // namespace
}  // namespace swz
