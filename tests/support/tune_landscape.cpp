#include "support/tune_landscape.h"

#include <cmath>

namespace swz::test {
namespace {

std::uint64_t landscape_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A number in [0, 1) from the landscape's seed and a counter.
double landscape_unit(std::uint64_t seed, std::uint64_t k) {
  return static_cast<double>(landscape_mix(seed * 1000003ULL + k) >> 11) / 9007199254740992.0;
}

}  // namespace

std::optional<double> TuneLandscape::ms(const TunePoint& point, int order) const {
  std::uint64_t h = seed;
  for (auto v : point) h = landscape_mix(h ^ static_cast<std::uint64_t>(v));
  h = landscape_mix(h ^ static_cast<std::uint64_t>(order));
  if (fail_one_in > 0 && h % static_cast<std::uint64_t>(fail_one_in) == 0) return std::nullopt;
  if (max_volume > 0 && point.size() >= 3 && point[0] * point[1] * point[2] > max_volume) return std::nullopt;
  double base = 1.0;
  for (std::size_t d = 0; d < point.size(); ++d) {
    const double x = std::log2(static_cast<double>(point[d])) - optimum[d];
    base *= 1.0 + curvature[d] * x * x;
  }
  const double area = point.size() >= 2 ? std::log2(static_cast<double>(point[0] * point[1])) : 0.0;
  const double a = area - preferred[static_cast<std::size_t>(order)];
  const double factor = 1.0 - gain[static_cast<std::size_t>(order)] * std::exp(-a * a / 6.0);
  return std::round(base * factor * 1000.0) / 1000.0;  // ties: microsecond steps
}

TuneLandscape make_tune_landscape(const std::vector<std::vector<std::int64_t>>& values, int orders, std::uint64_t seed,
                                  const TunePoint& own) {
  TuneLandscape l;
  l.orders = orders;
  l.seed = seed;
  std::uint64_t k = 0;
  for (std::size_t d = 0; d < values.size(); ++d) {
    Tunable t;
    t.name = "T" + std::to_string(d);
    t.values = values[d];
    t.value = own.size() > d ? own[d] : values[d].front();
    t.line = static_cast<int>(d) + 1;
    l.space.tunables.push_back(t);
    const double lo = std::log2(static_cast<double>(values[d].front()));
    const double hi = std::log2(static_cast<double>(values[d].back()));
    l.optimum.push_back(lo + (hi - lo) * landscape_unit(seed, k++));
    l.curvature.push_back(0.02 + 0.10 * landscape_unit(seed, k++));
  }
  double lo_area = 0, hi_area = 0;
  if (values.size() >= 2) {
    lo_area = std::log2(static_cast<double>(values[0].front() * values[1].front()));
    hi_area = std::log2(static_cast<double>(values[0].back() * values[1].back()));
  }
  for (int o = 0; o < orders; ++o) {
    l.gain.push_back(o == 0 ? 0.0 : 0.05 + 0.35 * landscape_unit(seed, k++));
    l.preferred.push_back(lo_area + (hi_area - lo_area) * landscape_unit(seed, k++));
  }
  return l;
}

std::vector<TuneOutcome> run_tune_search(const TuneLandscape& l, const TuneSearchSettings& settings) {
  const auto points = enumerate_points(l.space, {}).points;
  const TuneSearchSpace s = make_tune_search_space(l.space, points, l.orders, 0, 1);
  std::vector<TuneOutcome> outcomes;
  const TunePoint own = l.space.own_point();
  outcomes.push_back({{own, 0}, l.ms(own, 0), false});
  const std::uint64_t guard = s.trials() + 2;
  for (std::uint64_t i = 0; i < guard; ++i) {
    const auto t = next_tune_trial(s, outcomes, settings);
    if (!t) break;
    outcomes.push_back({*t, l.ms(t->point, t->order), true});
  }
  return outcomes;
}

std::optional<double> tune_landscape_optimum(const TuneLandscape& l) {
  std::optional<double> best;
  for (const auto& p : enumerate_points(l.space, {}).points)
    for (int o = 0; o < l.orders; ++o)
      if (const auto m = l.ms(p, o); m && (!best || *m < *best)) best = m;
  return best;
}

}  // namespace swz::test
