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

}  // namespace swz
