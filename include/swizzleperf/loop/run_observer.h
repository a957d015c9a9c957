// RunObserver: how anything outside the engine learns what a run did, like
// ninja's Status: the optimizer calls it at each recorded attempt and at the end;
// reports (report/run_reports.h) and the console progress lines implement it. The
// engine includes no view; the CLI wires the ones it wants.
#pragma once

#include "swizzleperf/core/history.h"
#include "swizzleperf/loop/run_summary.h"
#include "swizzleperf/util/result.h"

namespace swz {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // The baseline was measured (or found recorded, on resume).
  virtual Status on_baseline(const RunHistory& history) {
    (void)history;
    return ok_status();
  }
  // An attempt was recorded and the history saved; `attempt` is its last entry.
  // An Error (e.g. a report that could not be written) stops the run: the user must see it.
  virtual Status on_attempt(const RunHistory& history, const Attempt& attempt) = 0;
  // The speed judge named its verdicts (the finalists' attempts now carry them) and the
  // history is saved.
  virtual Status on_judged(const RunHistory& history) {
    (void)history;
    return ok_status();
  }
  // The run ended (completed, exhausted or interrupted) and its history is saved.
  virtual Status on_finish(const OptimizeSummary& summary) = 0;
};

}  // namespace swz
