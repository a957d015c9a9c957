// Statistics for "is B faster than A?" from interleaved timing rounds.
//
// Contract: a[i] and b[i] are the baseline's and the candidate's median times of
// round i, measured back to back (A B A B ...), so drift of the machine (clocks,
// temperature, other tenants) hits both members of a pair alike. The quantity is
// the paired ratio r_i = a[i] / b[i] (> 1: the candidate is faster).
//
// Method: the distribution-free confidence interval for the median of the r_i,
// obtained by inverting the sign test: with the ratios sorted, [r_(k), r_(n+1-k)]
// covers the median ratio with probability 1 - 2 * P(Binomial(n, 1/2) <= k - 1),
// whatever the noise distribution (only independence between rounds is assumed;
// no normality, no symmetry, outliers cannot widen or shift it beyond their rank).
// k is the largest rank whose coverage is still >= the asked level. The point
// estimate is the median of the r_i (always inside the interval).
// Why not a t-interval: GPU timing noise is skewed and has outlier rounds. Why not
// a bootstrap: with 5 or 6 rounds a percentile bootstrap of the median is the
// [min, max] interval with a coverage it does not state (93.75 % at n = 5).
// Consequence: n rounds can give a 95 % interval only when 2 / 2^n <= 0.05, i.e.
// n >= 6 (at n = 6 the interval is [min, max] with 96.9 % coverage, so a
// "significant" verdict needs all six rounds to agree). With fewer rounds the
// result says so (`confidence` below the level) and is never significant.
// significant = the interval excludes 1.0 (and the achieved confidence >= level).
#pragma once

#include <string>
#include <vector>

#include "swizzleperf/util/result.h"

namespace swz {

struct PairedRatio {
  double estimate = 1.0;    // median of a[i] / b[i]
  double low = 1.0;         // interval bounds on the median ratio
  double high = 1.0;
  double level = 0.95;      // the confidence asked for
  double confidence = 0.0;  // the interval's exact coverage (>= level when n is large enough)
  int n = 0;                // pairs used
  bool significant = false; // the interval excludes 1.0 and confidence >= level
};

// Median of values (mean of the two middle ones for an even count); 0 for none.
double median_of(std::vector<double> values);

// P(X <= k) for X ~ Binomial(n, 1/2).
double binomial_half_cdf(int n, int k);

// Fewest pairs for which the sign-test interval can reach `level` (6 for 0.95).
int min_pairs_for(double level);

// The interval above. Errors (one line) when the sizes differ, a list is empty,
// or a time is not a positive finite number.
Result<PairedRatio> paired_ratio_interval(const std::vector<double>& a, const std::vector<double>& b,
                                          double level = 0.95);

// "1.052x [1.031, 1.070]" (3 decimals) for reports.
std::string format_ratio(const PairedRatio& r);

}  // namespace swz
