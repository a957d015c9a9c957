// Choosing and configuring the proposer from a run's settings: builtin, llm, or
// auto (llm when a base URL or key is configured).
#pragma once

#include <memory>

#include <cxxopts.hpp>

#include "swizzleperf/core/run_config.h"
#include "swizzleperf/loop/run_state.h"
#include "swizzleperf/proposer/proposer.h"

namespace swz::cli {

void add_proposer_options(cxxopts::Options& o);
// The Proposer and LLM groups into c (proposer, base URL, key variable, model, ...).
void read_proposer_settings(const cxxopts::ParseResult& r, RunConfig& c);
// The proposer c names, configured from c (a resumed run keeps its recorded LLM settings).
Result<std::unique_ptr<Proposer>> make_proposer(const RunConfig& c);
// --dump-prompt: print the next prompt of the run and call nothing. arch: --arch
// (the hardware of a run not started yet; default sm_90). json: one JSON object on
// stdout instead ({"ok", "kind": "prompt", "kernel", "arch", "iteration", "prompt"}).
int dump_next_prompt(Proposer& proposer, const RunState& run, const std::string& arch, bool json);

}  // namespace swz::cli
