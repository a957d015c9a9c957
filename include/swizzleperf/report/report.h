// Reports made from a run's history: the terminal table, report.md, and the
// machine-readable summary printed by --json. Nothing here measures anything.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/loop/run_summary.h"

namespace swz {

std::string render_summary_table(const OptimizeSummary& s);
std::string render_report_markdown(const OptimizeSummary& s);
nlohmann::json summary_json(const OptimizeSummary& s);
// "1.052x [1.031, 1.070] burst, significant", "0.998x (one-shot burst, not re-checked)"
// or "n/a"; with --regime both, each regime's interval (the attempt is significant only
// when both are).
std::string speed_text(const Attempt& a);
// The run's speed verdict under its objective: "no significant speedup",
// "faster: 1.052x [1.031, 1.070] (burst); sustained 1.04x [...]", "slower: 0.93x
// [0.91, 0.95]" (l2: the best is significantly slower), "no significant speed
// difference", "speed not re-checked", energy's "less energy per run: x0.91 [...]",
// or "". A re-check that could not be trusted adds "; no winner named: <why>".
std::string speed_verdict(const RunHistory& h);

// One regime's re-check of an attempt, from its Recheck (core/judge_record.h); a
// comparison made without regime options (unnamed) shows its speedup and interval only.
struct RegimeView {
  Regime regime = Regime::unnamed;
  std::string name() const { return regime_label(regime); }  // burst | sustained | "" (unnamed)
  double speedup = 0, low = 0, high = 0;
  bool significant = false;              // the interval excludes 1.0
  bool trusted = true;
  std::string untrusted;
  std::string clock_note;                // burst: a clock gap judged the order's own
  std::optional<double> baseline_mhz, candidate_mhz;  // median SM clocks
  int discarded = 0;
  std::optional<double> energy_ratio, energy_low, energy_high;
  bool energy_significant = false;
};
// Every regime the attempt was re-checked in, in the order measured (empty: not re-checked).
std::vector<RegimeView> regime_views(const Attempt& a);
// "sustained 1.219x [1.210, 1.230], significant, SM clock 1545 -> 1590 MHz, energy x0.93 [0.92, 0.94]".
std::string regime_text(const RegimeView& v);
// {"burst": {...}, "sustained": {...}}: each regime's numbers for --json, gate and results files.
nlohmann::json regimes_json(const Attempt& a);
// Per-stage wall-time medians over a run's attempts (duplicates excluded):
// {"attempts": N, "attempt_wall_s_median": s, "stage_seconds_median": {stage: s}}.
// summary_json carries it as "timing"; report.md shows it.
nlohmann::json stage_medians(const RunHistory& h);

}  // namespace swz
