#include "swizzleperf/loop/run_summary.h"

#include <fmt/format.h>

#include "swizzleperf/util/text.h"

namespace swz {

std::string OptimizeSummary::unmeasured() const {
  if (interrupted()) return "";
  int failed = 0;
  std::string last;
  for (const auto& a : history.attempts) {
    if (a.status != AttemptStatus::proposal_failed) return "";
    ++failed;
    last = a.reason;
  }
  if (failed == 0) return "no candidate was tried: the proposer had nothing to propose for this kernel's grid";
  return fmt::format("no candidate was tried: all {} proposal(s) failed (last: {})", failed, one_line(last, 200));
}

bool OptimizeSummary::improved() const {
  const Attempt* best = history.best();
  if (!best || !history.baseline) return false;
  // Under time (energy), best() exists only for a significant speedup (saving): that is the improvement.
  if (history.objective() != Objective::l2) return true;
  const auto& base = *history.baseline;
  const bool l2 = best->metrics && best->metrics->l2_hit_pct && base.metrics && base.metrics->l2_hit_pct &&
                  *best->metrics->l2_hit_pct > *base.metrics->l2_hit_pct + 0.01;
  const bool time = best->speedup && *best->speedup > 1.0;
  return l2 || time;
}

}  // namespace swz
