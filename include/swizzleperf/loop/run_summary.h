// OptimizeSummary: what one optimize run hands back to its caller and to its
// observers when it ends. Reports (report/) are made from it; nothing here measures.
#pragma once

#include <filesystem>
#include <string>

#include "swizzleperf/core/history.h"

namespace swz {

// How a run's last session ended.
enum class RunEnd {
  completed,    // the iteration budget was spent
  exhausted,    // the proposer had nothing new to propose
  interrupted,  // Ctrl-C: resume continues it
};

struct OptimizeSummary {
  RunHistory history;
  std::filesystem::path run_dir;
  std::filesystem::path best_kernel;  // best.hip; under --objective time with no significant
                                      // speedup it holds the original kernel; empty when none written
  RunEnd end = RunEnd::completed;
  bool interrupted() const { return end == RunEnd::interrupted; }
  bool improved() const;              // best beats the baseline's L2 hit rate or time
  // Why the run judged no candidate at all ("" when it judged at least one): every
  // proposal failed (e.g. the LLM stopped answering) or the proposer had nothing to
  // propose. Such a run measured nothing it was asked to: optimize and suite exit 2.
  std::string unmeasured() const;
};

}  // namespace swz
