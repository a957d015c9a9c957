// Proposer selection. The default is the LLM when one is configured, else the
// built-in proposer with a one-line notice on how to configure an LLM.
#include "swizzleperf/cli/proposer_factory.h"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/proposer/builtin_proposer.h"

namespace swz::cli {

void add_proposer_options(cxxopts::Options& o) {
  o.add_options("Proposer")
      ("proposer", "auto (llm when an LLM is configured, else builtin), builtin or llm", cxxopts::value<std::string>()->default_value("auto"));
  o.add_options("LLM")
      ("base-url", "OpenAI-compatible base URL (default: $OPENAI_BASE_URL, else https://api.openai.com/v1)", cxxopts::value<std::string>()->default_value(""))
      ("api-key-env", "environment variable holding the API key (optional for local servers)", cxxopts::value<std::string>()->default_value("OPENAI_API_KEY"))
      ("model", "model name", cxxopts::value<std::string>()->default_value("gpt-4o"))
      ("temperature", "sampling temperature", cxxopts::value<double>()->default_value("0.2"))
      ("max-tokens", "max completion tokens per call", cxxopts::value<int>()->default_value("4096"))
      ("llm-timeout", "seconds per LLM request", cxxopts::value<int>()->default_value("120"))
      ("context", "hardware context in prompts: aware (default), unaware or overload (the paper's three arms)", cxxopts::value<std::string>()->default_value("aware"))
      ("dump-prompt", "print the next optimize prompt and exit without calling the LLM");
}

namespace {

bool llm_configured(const cxxopts::ParseResult& r) {
  auto set = [](const char* v) { return v && *v; };
  return !r["base-url"].as<std::string>().empty() || set(std::getenv("OPENAI_BASE_URL")) ||
         set(std::getenv(r["api-key-env"].as<std::string>().c_str()));
}

}  // namespace

nlohmann::json proposer_config_json(const cxxopts::ParseResult& r) {
  return {{"base_url", r["base-url"].as<std::string>()}, {"api_key_env", r["api-key-env"].as<std::string>()},
          {"model", r["model"].as<std::string>()}, {"temperature", r["temperature"].as<double>()},
          {"max_tokens", r["max-tokens"].as<int>()}, {"context", r["context"].as<std::string>()}};
}

Result<std::unique_ptr<Proposer>> make_proposer(const std::string& which, const cxxopts::ParseResult& r) {
  std::string w = which;
  if (w == "auto") {
    if (llm_configured(r)) {
      w = "llm";
    } else {
      spdlog::info("swizzleperf: using the built-in proposer (no LLM configured: set OPENAI_BASE_URL or OPENAI_API_KEY, or pass --base-url, to use one)");
      w = "builtin";
    }
  }
  if (w == "builtin") return std::unique_ptr<Proposer>(std::make_unique<BuiltinProposer>());
  if (w == "llm") return make_error("the llm proposer is not built into this version yet; use --proposer builtin");
  return make_error("unknown proposer '" + which + "': use auto, builtin or llm");
}

int dump_next_prompt(Proposer& proposer, const OptimizeOptions&, const cxxopts::ParseResult&) {
  return report_error("--dump-prompt needs the llm proposer (current: " + proposer.name() + ")");
}

}  // namespace swz::cli
