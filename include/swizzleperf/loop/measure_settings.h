// What a measurement takes from a run's settings, copied in one place: the optimize
// loop (Optimizer::measure_setup) and sweep both build their MeasureSetup and their
// tools' limits here, so a setting the table (core/run_config) says a command takes
// reaches that command's measurement, and none is copied by hand per command.
#pragma once

#include <string>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/run_config.h"
#include "swizzleperf/loop/attempt_pipeline.h"

namespace swz {

// The settings part of a MeasureSetup: size, reps, warm-up, the judge's rounds and
// budget, the regimes and their rules, the objective (its screening regime) and the
// host compiler. The caller adds what is not a setting: the hardware, the program and
// its language, the profile window, the baseline's dir and the predictor.
MeasureSetup measure_setup_from(const RunConfig& c);

// Does the run profile every screened candidate? c.profile resolved: each -> yes,
// winner -> no, auto -> yes when `proposer` (Proposer::name()) is "llm", the objective is
// l2 (both read every candidate's profile) or the command is gate (its report shows its
// one candidate's L2), else no.
bool profile_each(const RunConfig& c, const std::string& proposer);

// `tools` (the machine's compiler and profiler paths, not settings) with c's arch,
// timeouts and profile window.
ToolOptions tool_options_with(const RunConfig& c, ToolOptions tools);

}  // namespace swz
