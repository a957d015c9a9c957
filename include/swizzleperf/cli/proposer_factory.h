// Choosing and configuring the proposer from command-line options:
// builtin, llm, or auto (llm when a base URL or key is configured).
#pragma once

#include <memory>

#include <cxxopts.hpp>
#include <nlohmann/json.hpp>

#include "swizzleperf/loop/optimizer.h"
#include "swizzleperf/proposer/proposer.h"

namespace swz::cli {

void add_proposer_options(cxxopts::Options& o);
Result<std::unique_ptr<Proposer>> make_proposer(const std::string& which, const cxxopts::ParseResult& r);
// The LLM settings as recorded in the history (never the key itself).
nlohmann::json proposer_config_json(const cxxopts::ParseResult& r);
// --dump-prompt: print the next prompt and call nothing.
int dump_next_prompt(Proposer& proposer, const OptimizeOptions& opt, const cxxopts::ParseResult& r);

}  // namespace swz::cli
