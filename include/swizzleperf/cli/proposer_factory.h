// Choosing and configuring the proposer from a run's settings: builtin, llm, or
// auto (llm when a base URL or key is configured).
#pragma once

#include <memory>

#include <cxxopts.hpp>

#include "swizzleperf/core/run_config.h"
#include "swizzleperf/llm/chat_client.h"
#include "swizzleperf/loop/run_state.h"
#include "swizzleperf/proposer/proposer.h"

namespace swz::cli {

// --dump-prompt (the LLM group's one option that is not a setting: the proposer's and
// the LLM's settings are rows of core/run_config's table, declared by add_setting_options).
void add_proposer_options(cxxopts::Options& o);
// The proposer c names, configured from c (a resumed run keeps its recorded LLM settings).
Result<std::unique_ptr<Proposer>> make_proposer(const RunConfig& c);
// The chat client's options from the run's LLM settings (the proposer's and `template --llm`'s).
LlmOptions llm_options_of(const LlmSettings& llm);
// --dump-prompt: print the next prompt of the run and call nothing. arch: --arch
// (the hardware of a run not started yet; default sm_90). json: one JSON object on
// stdout instead ({"ok", "kind": "prompt", "kernel", "arch", "iteration", "prompt"}).
int dump_next_prompt(Proposer& proposer, const RunState& run, const std::string& arch, bool json);

}  // namespace swz::cli
