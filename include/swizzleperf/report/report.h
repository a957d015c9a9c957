// Reports made from a run's history: the terminal table, report.md, and the
// machine-readable summary printed by --json. Nothing here measures anything.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "swizzleperf/loop/run_summary.h"

namespace swz {

std::string render_summary_table(const OptimizeSummary& s);
std::string render_report_markdown(const OptimizeSummary& s);
nlohmann::json summary_json(const OptimizeSummary& s);
// "1.052x [1.031, 1.070], significant", "0.998x (one-shot, not re-checked)" or "n/a".
std::string speed_text(const Attempt& a);
// The run's speed verdict under its objective: "no significant speedup",
// "faster: 1.052x [1.031, 1.070]", "slower: 0.93x [0.91, 0.95]" (l2: the best is
// significantly slower), "no significant speed difference", "speed not re-checked", or "".
std::string speed_verdict(const RunHistory& h);
// Per-stage wall-time medians over a run's attempts (duplicates excluded):
// {"attempts": N, "attempt_wall_s_median": s, "stage_seconds_median": {stage: s}}.
// summary_json carries it as "timing"; report.md shows it.
nlohmann::json stage_medians(const RunHistory& h);

}  // namespace swz
