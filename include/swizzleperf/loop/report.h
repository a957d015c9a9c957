// Reports made from a run's history: the terminal table, report.md, and the
// machine-readable summary printed by --json. Nothing here measures anything.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "swizzleperf/loop/optimizer.h"

namespace swz {

std::string render_summary_table(const OptimizeSummary& s);
std::string render_report_markdown(const OptimizeSummary& s);
nlohmann::json summary_json(const OptimizeSummary& s);
// Per-stage wall-time medians over a run's attempts (duplicates excluded):
// {"attempts": N, "attempt_wall_s_median": s, "stage_seconds_median": {stage: s}}.
// summary_json carries it as "timing"; report.md shows it.
nlohmann::json stage_medians(const RunHistory& h);

}  // namespace swz
