// report.html: one self-contained page per run dir and per suite dir, for a
// person to read. Inline SVG and CSS only: no script, no network (a
// Content-Security-Policy forbids both), readable in any browser or CI
// artifact viewer. A run's page: the progression plot (L2 hit rate and speedup
// per attempt, best-so-far lines, failed attempts marked with their status), the
// swizzle maps (identity beside best, tiles coloured by die under the run's
// dispatch model, execution order as a gradient or numbers), the attempts table
// and the best region. A suite's page: bars per kernel (baseline vs best L2 hit
// rate, speedup) and the table. Every string from the history (labels, reasons,
// region code: LLM output) is escaped. Written atomically by the optimizer
// after each attempt and at the end, and by write_suite_summary.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/history.h"
#include "swizzleperf/report/suite.h"

namespace swz {

std::string render_run_html(const RunHistory& history);
std::string render_suite_html(const std::vector<SuiteRow>& rows, const nlohmann::json& meta);

}  // namespace swz
