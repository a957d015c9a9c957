// The optimize loop's observers (loop/run_observer.h) that the CLI wires in:
//   RunReportWriter  report.html after every attempt (a run can be watched in a
//                    browser), report.md and report.html at the end;
//   ConsoleProgress  one log line per attempt ("[3/10] grouped_m(g=8): L2 hit ..."), one
//                    per finalist when the speed judge is done.
// A report that cannot be written is an Error: the run stops and says so.
#pragma once

#include "swizzleperf/loop/run_observer.h"

namespace swz {

class RunReportWriter final : public RunObserver {
 public:
  explicit RunReportWriter(std::filesystem::path run_dir) : run_dir_(std::move(run_dir)) {}
  Status on_attempt(const RunHistory& history, const Attempt& attempt) override;
  Status on_finish(const OptimizeSummary& summary) override;

 private:
  std::filesystem::path run_dir_;
};

class ConsoleProgress final : public RunObserver {
 public:
  Status on_baseline(const RunHistory& history) override;
  Status on_attempt(const RunHistory& history, const Attempt& attempt) override;
  Status on_judged(const RunHistory& history) override;  // one line per finalist's verdict
  Status on_finish(const OptimizeSummary& summary) override;
};

}  // namespace swz
