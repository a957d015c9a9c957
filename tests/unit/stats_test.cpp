// Tests for the paired-ratio interval (core/stats): its coverage under no
// effect, its power on a planted 5 % shift, the direction of a slowdown, and
// the small-sample rule (fewer than 6 rounds can never be significant at 95 %).
#include "swizzleperf/util/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace swz {
namespace {

// Round medians of a GPU timing: a drifting machine (shared by both members of a
// pair), per-round lognormal noise, and now and then an outlier round.
struct Rounds {
  std::vector<double> a, b;
};
Rounds simulate(unsigned seed, int n, double true_speedup, double noise_sd, double outlier_p = 0.05) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, noise_sd), drift(0.0, 0.02);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Rounds r;
  for (int i = 0; i < n; ++i) {
    const double machine = 1.0 + drift(rng);  // the same for both members of pair i
    auto outlier = [&] { return u(rng) < outlier_p ? 1.0 + 0.2 * u(rng) : 1.0; };
    r.a.push_back(2.0 * machine * std::exp(noise(rng)) * outlier());
    r.b.push_back(2.0 / true_speedup * machine * std::exp(noise(rng)) * outlier());
  }
  return r;
}

TEST(Stats, MedianAndBinomial) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({}), 0);
  EXPECT_NEAR(binomial_half_cdf(6, 0), 1.0 / 64, 1e-12);
  EXPECT_NEAR(binomial_half_cdf(10, 1), 11.0 / 1024, 1e-12);
  EXPECT_DOUBLE_EQ(binomial_half_cdf(5, 5), 1.0);
  EXPECT_EQ(min_pairs_for(0.95), 6);
  EXPECT_EQ(min_pairs_for(0.99), 8);
}

TEST(Stats, IdenticalDistributionsAreRarelySignificant) {
  // Many seeds, two noise levels, 6 and 10 rounds: the false positive rate must
  // stay at or below the nominal 5 % (the exact coverage is 96.9 % and 97.9 %).
  for (int n : {6, 10}) {
    for (double sd : {0.005, 0.03}) {
      int significant = 0;
      const int trials = 4000;
      for (int s = 0; s < trials; ++s) {
        auto r = simulate(1000 + s, n, 1.0, sd);
        auto iv = paired_ratio_interval(r.a, r.b);
        ASSERT_TRUE(iv.ok());
        significant += iv->significant;
      }
      const double fpr = static_cast<double>(significant) / trials;
      EXPECT_LE(fpr, 0.05) << "n=" << n << " sd=" << sd;
      EXPECT_GT(fpr, 0.005) << "a test that never fires is not a test (n=" << n << ")";
    }
  }
}

TEST(Stats, PlantedFivePercentSpeedupWithSmallNoiseIsSignificant) {
  int significant = 0, covered = 0;
  const int trials = 1000;
  for (int s = 0; s < trials; ++s) {
    auto r = simulate(77 + s, 6, 1.05, 0.005, 0.0);
    auto iv = paired_ratio_interval(r.a, r.b);
    ASSERT_TRUE(iv.ok());
    significant += iv->significant && iv->low > 1.0;
    covered += iv->low <= 1.05 && 1.05 <= iv->high;
    EXPECT_GE(iv->estimate, iv->low);
    EXPECT_LE(iv->estimate, iv->high);
  }
  EXPECT_GE(significant, trials * 95 / 100);
  // The interval is a confidence interval for the true ratio, not just a verdict.
  EXPECT_GE(covered, trials * 90 / 100);
}

TEST(Stats, PlantedSlowdownGivesAnIntervalBelowOne) {
  auto r = simulate(5, 6, 0.93, 0.005, 0.0);
  auto iv = paired_ratio_interval(r.a, r.b);
  ASSERT_TRUE(iv.ok());
  EXPECT_TRUE(iv->significant);
  EXPECT_LT(iv->high, 1.0);
  EXPECT_NEAR(iv->estimate, 0.93, 0.02);
  EXPECT_NE(format_ratio(*iv).find("x ["), std::string::npos);
}

TEST(Stats, OneOutlierRoundCostsSixRoundsTheirVerdictButNotTen) {
  // The price of a distribution-free interval with few rounds: at 6 rounds it is
  // [min, max], so one round flipped by an outlier (here +20 % on the candidate) leaves a
  // real 5 % gain unproven; at 10 rounds the interval is [r_(2), r_(9)] and survives it.
  std::vector<double> a(10, 2.0), b(10, 2.0 / 1.05);
  for (int i = 0; i < 10; ++i) a[i] *= 1.0 + 0.001 * i;  // small drift
  b[3] *= 1.2;
  auto six = paired_ratio_interval({a.begin(), a.begin() + 6}, {b.begin(), b.begin() + 6});
  auto ten = paired_ratio_interval(a, b);
  ASSERT_TRUE(six.ok() && ten.ok());
  EXPECT_FALSE(six->significant);
  EXPECT_TRUE(ten->significant);
  EXPECT_GT(ten->low, 1.0);
}

TEST(Stats, FiveRoundsCanNeverBeSignificantAtNinetyFivePercent) {
  // All five rounds agree on a 20 % gain, yet 2/32 = 6.25 % > 5 %: say so instead.
  auto iv = paired_ratio_interval({1.2, 1.2, 1.2, 1.2, 1.2}, {1, 1, 1, 1, 1});
  ASSERT_TRUE(iv.ok());
  EXPECT_FALSE(iv->significant);
  EXPECT_NEAR(iv->confidence, 0.9375, 1e-12);
  EXPECT_NEAR(iv->estimate, 1.2, 1e-12);
}

TEST(Stats, LargerSamplesNarrowTheInterval) {
  std::vector<double> a, b;
  for (int i = 0; i < 20; ++i) {
    a.push_back(1.0 + 0.01 * i);  // ratios 1.00 .. 1.19 in steps of 0.01
    b.push_back(1.0);
  }
  auto iv = paired_ratio_interval(a, b);
  ASSERT_TRUE(iv.ok());
  // n = 20: k = 6 (P(X <= 5) = 0.0207), so [r_(6), r_(15)] = [1.05, 1.14], coverage 95.9 %.
  EXPECT_NEAR(iv->low, 1.05, 1e-12);
  EXPECT_NEAR(iv->high, 1.14, 1e-12);
  EXPECT_GE(iv->confidence, 0.95);
  EXPECT_TRUE(iv->significant);
}

TEST(Stats, IdenticalRoundsAreNotSignificantAndBadInputIsAnError) {
  auto same = paired_ratio_interval({1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->significant);
  EXPECT_DOUBLE_EQ(same->estimate, 1.0);
  EXPECT_FALSE(paired_ratio_interval({1, 2}, {1}).ok());
  EXPECT_FALSE(paired_ratio_interval({}, {}).ok());
  EXPECT_FALSE(paired_ratio_interval({1, 0}, {1, 1}).ok());
  EXPECT_FALSE(paired_ratio_interval({1, NAN}, {1, 1}).ok());
}

}  // namespace
}  // namespace swz
