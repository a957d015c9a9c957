#include "swizzleperf/tune/tune_search.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

namespace swz {

std::string to_string(TuneStrategy s) {
  switch (s) {
    case TuneStrategy::guided: return "guided";
    case TuneStrategy::exhaustive: return "exhaustive";
    case TuneStrategy::random: return "random";
  }
  return "guided";
}

std::optional<TuneStrategy> tune_strategy_from_string(const std::string& s) {
  if (s == "guided") return TuneStrategy::guided;
  if (s == "exhaustive") return TuneStrategy::exhaustive;
  if (s == "random") return TuneStrategy::random;
  return std::nullopt;
}

TuneSearchSpace make_tune_search_space(const TuneSpace& space, std::vector<TunePoint> points, int orders, int own_order,
                                       int screen_order) {
  TuneSearchSpace s;
  s.points = std::move(points);
  for (const auto& t : space.tunables) s.values.push_back(t.values);
  s.orders = std::max(1, orders);
  s.own_order = std::clamp(own_order, 0, s.orders - 1);
  s.screen_order = std::clamp(screen_order, 0, s.orders - 1);
  for (std::size_t i = 0; i < s.points.size(); ++i) s.index.emplace(s.points[i], i);
  if (const auto it = s.index.find(space.own_point()); it != s.index.end()) s.own_point = it->second;
  return s;
}

const TuneOutcome* best_tune_outcome(const std::vector<TuneOutcome>& outcomes) {
  const TuneOutcome* best = nullptr;
  for (const auto& o : outcomes)
    if (o.ms && (!best || *o.ms < *best->ms)) best = &o;
  return best;
}

namespace {

// splitmix64: a fixed, portable mixing function (std's distributions differ between
// standard libraries, and a resumed run must draw the same numbers).
std::uint64_t search_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr double kFailedMs = std::numeric_limits<double>::infinity();
constexpr int kGuidedTopPoints = 3;  // stage 2: every order on this many of the best points
constexpr int kGuidedTopTrials = 3;  // stage 3: neighbours of this many of the best trials

// What the outcomes say, indexed by (point index, order).
struct SearchLedger {
  const TuneSearchSpace& space;
  std::set<std::pair<std::size_t, int>> tried;
  std::vector<std::pair<double, std::pair<std::size_t, int>>> timed;  // (ms, trial), measured ones
  std::vector<double> point_best;                                     // per point: its best ms (inf: none)
  int counted = 0;

  SearchLedger(const TuneSearchSpace& s, const std::vector<TuneOutcome>& outcomes)
      : space(s), point_best(s.points.size(), kFailedMs) {
    for (const auto& o : outcomes) {
      if (o.counted) ++counted;
      const auto it = s.index.find(o.trial.point);
      if (it == s.index.end() || o.trial.order < 0 || o.trial.order >= s.orders) continue;
      const auto key = std::make_pair(it->second, o.trial.order);
      if (!tried.insert(key).second) continue;  // a repeat outcome: the first one stands
      if (!o.ms) continue;
      timed.push_back({*o.ms, key});
      point_best[it->second] = std::min(point_best[it->second], *o.ms);
    }
    std::sort(timed.begin(), timed.end());  // fastest first; ties: lower point index, then order
  }

  bool has(std::size_t p, int o) const { return tried.count({p, o}) > 0; }
  bool exhausted() const { return tried.size() >= space.trials(); }
  TuneTrial trial(std::size_t p, int o) const { return {space.points[p], o}; }

  // Points with a time, fastest first (ties: enumeration order).
  std::vector<std::size_t> ranked_points() const {
    std::vector<std::size_t> out;
    for (std::size_t p = 0; p < point_best.size(); ++p)
      if (point_best[p] < kFailedMs) out.push_back(p);
    std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return point_best[a] < point_best[b]; });
    return out;
  }

  std::optional<TuneTrial> first_untried_order(std::size_t p) const {
    for (int o = 0; o < space.orders; ++o)
      if (!has(p, o)) return trial(p, o);
    return std::nullopt;
  }
};

std::optional<TuneTrial> next_exhaustive(const SearchLedger& l) {
  for (std::size_t p = 0; p < l.space.points.size(); ++p)
    if (auto t = l.first_untried_order(p)) return t;
  return std::nullopt;
}

// A seeded draw per call (from the seed and how many outcomes there are), a few re-draws
// past tried trials, then the first untried one after the last draw.
std::optional<TuneTrial> next_random(const SearchLedger& l, std::size_t outcomes, std::uint64_t seed) {
  const std::uint64_t n = l.space.trials();
  if (n == 0) return std::nullopt;
  std::uint64_t r = 0;
  for (std::uint64_t a = 0; a < 64; ++a) {
    r = search_mix(search_mix(seed) ^ (static_cast<std::uint64_t>(outcomes) * 64 + a)) % n;
    const auto p = static_cast<std::size_t>(r / l.space.orders);
    const int o = static_cast<int>(r % l.space.orders);
    if (!l.has(p, o)) return l.trial(p, o);
  }
  for (std::uint64_t k = 1; k <= n; ++k) {
    const std::uint64_t i = (r + k) % n;
    const auto p = static_cast<std::size_t>(i / l.space.orders);
    const int o = static_cast<int>(i % l.space.orders);
    if (!l.has(p, o)) return l.trial(p, o);
  }
  return std::nullopt;
}

// The points guided screens: all of them when they fit in a third of the budget (the rest climbs), else the
// program's own point and a seeded sample (fixed by the seed and the budget alone).
std::vector<std::size_t> screening_points(const SearchLedger& l, const TuneSearchSettings& settings,
                                          std::optional<std::size_t> own) {
  const std::size_t n = l.space.points.size();
  const std::size_t want = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, settings.budget / 3)));
  std::vector<std::size_t> out;
  if (want == n) {
    for (std::size_t p = 0; p < n; ++p) out.push_back(p);
    return out;
  }
  std::set<std::size_t> chosen;
  if (own) {
    chosen.insert(*own);
    out.push_back(*own);
  }
  for (std::uint64_t i = 0; out.size() < want && i < static_cast<std::uint64_t>(want) * 64; ++i) {
    const auto p = static_cast<std::size_t>(search_mix(search_mix(settings.seed ^ 0x5c4ee2ULL) + i) % n);
    if (chosen.insert(p).second) out.push_back(p);
  }
  for (std::size_t p = 0; out.size() < want && p < n; ++p)
    if (chosen.insert(p).second) out.push_back(p);
  return out;
}

// The points one parameter one step away from `point` in its value list (in the space).
std::vector<std::size_t> point_neighbours(const TuneSearchSpace& s, const TunePoint& point) {
  std::vector<std::size_t> out;
  for (std::size_t d = 0; d < point.size() && d < s.values.size(); ++d) {
    const auto& vals = s.values[d];
    const auto at = std::find(vals.begin(), vals.end(), point[d]);
    if (at == vals.end()) continue;
    const auto i = static_cast<std::size_t>(at - vals.begin());
    for (const std::size_t j : {i + 1, i - 1}) {  // i - 1 wraps to a huge value at 0: skipped
      if (j >= vals.size()) continue;
      TunePoint n = point;
      n[d] = vals[j];
      if (const auto it = s.index.find(n); it != s.index.end()) out.push_back(it->second);
    }
  }
  return out;
}

std::optional<TuneTrial> next_guided(const SearchLedger& l, const TuneSearchSettings& settings) {
  const TuneSearchSpace& s = l.space;
  const std::optional<std::size_t> own = s.own_point;
  const auto ranked = l.ranked_points();
  // 1. Screening at one good order.
  const auto screen = screening_points(l, settings, own);
  for (std::size_t p : screen)
    if (!l.has(p, s.screen_order)) return l.trial(p, s.screen_order);
  // 2. Every order on the best few points at the screening order (ranked there, so that a
  // climb at another order does not start a new round of every order).
  int screened_best = 0;
  for (const auto& [ms, key] : l.timed) {
    (void)ms;
    if (key.second != s.screen_order) continue;
    if (auto t = l.first_untried_order(key.first)) return t;
    if (++screened_best >= kGuidedTopPoints) break;
  }
  // 3. Hill-climb: the neighbours of the best trials at the trial's own order; then each
  // order's own climb from its best point (the best tile differs between orders: a grouped
  // order favours larger tiles, which the overall best trials alone can miss); then the
  // best trials' neighbours at the best orders (the orders of the best trials).
  for (std::size_t r = 0; r < l.timed.size() && r < static_cast<std::size_t>(kGuidedTopTrials); ++r) {
    const auto [p, o] = l.timed[r].second;
    for (std::size_t n : point_neighbours(s, s.points[p]))
      if (!l.has(n, o)) return l.trial(n, o);
  }
  std::vector<bool> climbed(static_cast<std::size_t>(s.orders), false);
  std::vector<int> best_orders;
  for (const auto& [ms, key] : l.timed) {
    (void)ms;
    const auto [p, o] = key;
    if (climbed[static_cast<std::size_t>(o)]) continue;
    climbed[static_cast<std::size_t>(o)] = true;
    if (best_orders.size() < 2) best_orders.push_back(o);
    for (std::size_t n : point_neighbours(s, s.points[p]))
      if (!l.has(n, o)) return l.trial(n, o);
  }
  for (std::size_t r = 0; r < l.timed.size() && r < static_cast<std::size_t>(kGuidedTopTrials); ++r)
    for (std::size_t n : point_neighbours(s, s.points[l.timed[r].second.first]))
      for (int order : best_orders)
        if (!l.has(n, order)) return l.trial(n, order);
  // 4. What is left: every order on the ranked points, best first; unscreened points at
  // the screening order; then everything.
  for (std::size_t p : ranked)
    if (auto t = l.first_untried_order(p)) return t;
  for (std::size_t p = 0; p < s.points.size(); ++p)
    if (!l.has(p, s.screen_order)) return l.trial(p, s.screen_order);
  return next_exhaustive(l);
}

}  // namespace

std::optional<TuneTrial> next_tune_trial(const TuneSearchSpace& space, const std::vector<TuneOutcome>& outcomes,
                                         const TuneSearchSettings& settings) {
  const SearchLedger ledger(space, outcomes);
  if (ledger.counted >= settings.budget || ledger.exhausted() || space.points.empty()) return std::nullopt;
  switch (settings.strategy) {
    case TuneStrategy::exhaustive: return next_exhaustive(ledger);
    case TuneStrategy::random: return next_random(ledger, outcomes.size(), settings.seed);
    case TuneStrategy::guided: return next_guided(ledger, settings);
  }
  return std::nullopt;
}

}  // namespace swz
