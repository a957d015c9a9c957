// Which screened candidates go to the speed judge (contract: loop/finalists.h).
#include "swizzleperf/loop/finalists.h"

#include <algorithm>

namespace swz {

namespace {

// The L2 hit rate the L2-best rule ranks by: measured where the candidate was profiled,
// else the locality model's prediction (--profile winner profiles no candidate before
// the judge), else none (-1: the rule skips it).
double l2_of(const Attempt& a) {
  if (a.metrics && a.metrics->l2_hit_pct) return *a.metrics->l2_hit_pct;
  if (a.predicted) return a.predicted->l2_hit_pct;
  return -1;
}

}  // namespace

std::vector<std::size_t> select_finalists(const RunHistory& h, int count) {
  std::vector<std::size_t> pool;
  for (std::size_t i = 0; i < h.attempts.size(); ++i)
    if (h.attempts[i].validated() && h.attempts[i].speedup) pool.push_back(i);
  if (h.config.recheck_every_candidate) return pool;
  const Objective objective = h.objective();
  const auto& at = h.attempts;
  if (objective == Objective::energy) {
    std::vector<std::size_t> out;
    for (std::size_t i : pool)
      if (at[i].energy_ratio && *at[i].energy_ratio <= 1.0 + kFinalistSlack) out.push_back(i);
    std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return *at[a].energy_ratio < *at[b].energy_ratio; });
    if (out.size() > static_cast<std::size_t>(count)) out.resize(count);
    return out;
  }
  // The L2-best among all validated candidates (ties: the faster).
  std::size_t l2_best = pool.empty() ? 0 : pool.front();
  for (std::size_t i : pool)
    if (l2_of(at[i]) > l2_of(at[l2_best]) || (l2_of(at[i]) == l2_of(at[l2_best]) && *at[i].speedup > *at[l2_best].speedup))
      l2_best = i;
  std::vector<std::size_t> fast;
  for (std::size_t i : pool)
    if (*at[i].speedup >= 1.0 - kFinalistSlack) fast.push_back(i);
  std::stable_sort(fast.begin(), fast.end(), [&](std::size_t a, std::size_t b) { return *at[a].speedup > *at[b].speedup; });
  std::vector<std::size_t> out(fast.begin(), fast.begin() + std::min<std::size_t>(fast.size(), count > 1 ? count - 1 : count));
  const bool l2_goes = !pool.empty() && l2_of(at[l2_best]) >= 0 && (count > 1 || objective == Objective::l2) &&
                       (objective == Objective::l2 || *at[l2_best].speedup >= 1.0 - kFinalistSlack);
  if (l2_goes && std::find(out.begin(), out.end(), l2_best) == out.end()) {
    if (out.size() >= static_cast<std::size_t>(count)) out.pop_back();
    out.push_back(l2_best);
  }
  for (std::size_t i : fast) {
    if (out.size() >= static_cast<std::size_t>(count)) break;
    if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return *at[a].speedup > *at[b].speedup; });
  return out;
}

void clear_verdict(Attempt& a, const Attempt* baseline) {
  a.speedup_ci_low.reset();
  a.speedup_ci_high.reset();
  a.significant.reset();
  a.energy_ratio.reset();
  a.energy_ci_low.reset();
  a.energy_ci_high.reset();
  a.energy_significant.reset();
  if (baseline) set_one_shot(a, *baseline);
  a.recheck.reset();
}

}  // namespace swz
