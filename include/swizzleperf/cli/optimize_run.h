// What `optimize` and `tune` share: opening the run their options ask for, and running the
// Optimizer with a proposer to its summary. Each command keeps its own options, its own
// proposer and what it does without a GPU.
#pragma once

#include <functional>
#include <string>

#include <cxxopts.hpp>
#include <nlohmann/json.hpp>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/run_config.h"
#include "swizzleperf/loop/run_state.h"
#include "swizzleperf/loop/run_summary.h"
#include "swizzleperf/proposer/proposer.h"
#include "swizzleperf/util/process.h"

namespace swz::cli {

// --resume DIR: the recorded run, with what the resume rules allow of `asked`; else a new
// run of the positional kernel in --run-dir (default runs/<stem>-<UTC time>). `command`
// names the command in the message for a missing kernel; a tune run is resumed by tune only,
// and tune resumes nothing else.
Result<RunState> open_run_from(const cxxopts::ParseResult& r, const RunConfig& asked, const std::string& command);

// Before any GPU time: the backend's tools are there, and it takes the kernel's source.
Status backend_ready_for(Backend& backend, const RunState& run);

// A command's own end of a run, after the summary table: its closing lines and reports, and
// its own keys in `json`, the --json summary (report/report's summary_json) printed after it.
// An error is the run's (one error line, exit 1).
using RunClosing = std::function<Status(const OptimizeSummary&, nlohmann::json& json)>;

// The Optimizer over `backend` with `proposer` (asked first whether it can propose), with
// console progress and the run's reports; then the summary table (stdout, or stderr with
// --json and the JSON summary on stdout), then `after`. The exit code.
int run_optimizer(const cxxopts::ParseResult& r, RunState run, Backend& backend, ProcessRunner& runner, Proposer& proposer,
                  const RunClosing& after = {});

}  // namespace swz::cli
