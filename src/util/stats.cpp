// Sign-test interval for the median paired ratio; see the header for why.
#include "swizzleperf/util/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace swz {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double binomial_half_cdf(int n, int k) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  // Sum C(n, i) / 2^n in log space: exact enough for any n we time (<= thousands).
  double sum = 0.0;
  for (int i = 0; i <= k; ++i)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return std::min(sum, 1.0);
}

int min_pairs_for(double level) {
  for (int n = 1; n < 64; ++n)
    if (1.0 - 2.0 * binomial_half_cdf(n, 0) >= level) return n;
  return 64;
}

Result<PairedRatio> paired_ratio_interval(const std::vector<double>& a, const std::vector<double>& b, double level) {
  if (a.size() != b.size())
    return make_error(fmt::format("paired timing needs as many baseline as candidate rounds ({} vs {})", a.size(), b.size()));
  if (a.empty()) return make_error("paired timing needs at least one round");
  if (!(level > 0.0 && level < 1.0)) return make_error(fmt::format("confidence level {} is not in (0, 1)", level));
  std::vector<double> r;
  r.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(std::isfinite(a[i]) && std::isfinite(b[i]) && a[i] > 0 && b[i] > 0))
      return make_error(fmt::format("round {} has a time that is not a positive number ({} vs {})", i + 1, a[i], b[i]));
    r.push_back(a[i] / b[i]);
  }
  std::sort(r.begin(), r.end());
  PairedRatio out;
  out.n = static_cast<int>(r.size());
  out.level = level;
  out.estimate = median_of(r);
  // Largest k with coverage 1 - 2 P(X <= k-1) >= level; k = 1 ([min, max]) when none reaches it.
  int k = 1;
  for (int cand = 1; 2 * cand <= out.n; ++cand) {
    if (1.0 - 2.0 * binomial_half_cdf(out.n, cand - 1) >= level) k = cand;
    else break;
  }
  out.confidence = 1.0 - 2.0 * binomial_half_cdf(out.n, k - 1);
  out.low = r[k - 1];
  out.high = r[out.n - k];
  out.significant = out.confidence >= level && (out.low > 1.0 || out.high < 1.0);
  return out;
}

std::string format_ratio(const PairedRatio& r) {
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]", r.estimate, r.low, r.high);
}

}  // namespace swz
