// Compare two results files kernel by kernel (`swizzleperf compare OLD NEW`):
// L2 hit rate and time deltas of the best kernels, judged against thresholds.
// A regression: NEW's best is slower than OLD's by more than max_slowdown
// (best_ms; the speedups when a side has no times), its L2 hit rate fell by
// more than max_l2_drop points, or OLD had a validated kernel and NEW has none.
// Kernels present in only one file are listed and never a regression.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/util/junit.h"
#include "swizzleperf/report/results.h"

namespace swz {

struct CompareThresholds {
  double max_slowdown = 0.03;  // fraction: 0.03 = 3 % slower is still fine
  double max_l2_drop = 1.0;    // percentage points
};

enum class CompareVerdict { ok, regression, only_old, only_new };

struct KernelComparison {
  std::string kernel;
  std::optional<KernelResult> old_result, new_result;
  CompareVerdict verdict = CompareVerdict::ok;
  std::vector<std::string> reasons;    // why it regressed (or a note when ok)
  std::optional<double> l2_delta;      // new best - old best, points
  std::optional<double> slowdown;      // new/old - 1 on the time basis; > 0 is slower
  std::string time_basis;              // "best_ms" or "speedup"
};

struct Comparison {
  std::string old_source, new_source, old_device, new_device;
  CompareThresholds thresholds;
  std::vector<KernelComparison> kernels;  // OLD's order, then kernels only in NEW
  int regressions() const;
  int in_both() const;  // kernels present in OLD and NEW (what was compared)
};

Comparison compare_results(const ResultSet& old_set, const ResultSet& new_set, const CompareThresholds& t);

// A Markdown report for a pull-request comment: headline, table, notes.
std::string render_compare_markdown(const Comparison& c);
// One testcase per kernel compared; kernels in only one file are not cases.
JUnitSuite compare_junit(const Comparison& c);

}  // namespace swz
