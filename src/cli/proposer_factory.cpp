// Proposer selection. The default is the LLM when one is configured, else the
// built-in proposer with a one-line notice on how to configure an LLM.
#include "swizzleperf/cli/proposer_factory.h"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/backend/backend.h"
#include "swizzleperf/proposer/builtin_proposer.h"
#include "swizzleperf/proposer/llm_proposer.h"

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
  if (w == "llm") {
    LlmOptions o;
    o.base_url = r["base-url"].as<std::string>();
    o.api_key_env = r["api-key-env"].as<std::string>();
    o.model = r["model"].as<std::string>();
    o.temperature = r["temperature"].as<double>();
    o.max_tokens = r["max-tokens"].as<int>();
    o.timeout_s = r["llm-timeout"].as<int>();
    auto p = make_llm_proposer(o, r["context"].as<std::string>(), prompts_dir());
    if (!p) return p.error();
    return std::unique_ptr<Proposer>(std::move(p.value()));
  }
  return make_error("unknown proposer '" + which + "': use auto, builtin or llm");
}

int dump_next_prompt(Proposer& proposer, const OptimizeOptions& opt, const cxxopts::ParseResult& r) {
  auto* llm = dynamic_cast<LlmProposer*>(&proposer);
  if (!llm) return report_error("--dump-prompt needs the llm proposer (current: " + proposer.name() + "); add --proposer llm");
  auto kernel = KernelSource::load(opt.kernel);
  if (!kernel) return report_error(kernel.error().message);
  RunHistory history;
  HardwareProfile hw;
  TileGrid grid;
  if (opt.resume) {
    auto h = load_history(opt.run_dir / "history.json");
    if (!h) return report_error(h.error().message);
    history = std::move(h.value());
    hw = history.hardware.get<HardwareProfile>();
    const auto& info = history.config.value("program_info", nlohmann::json::object());
    if (info.contains("grid")) grid = {info["grid"].value("m", 1u), info["grid"].value("n", 1u)};
  } else {
    // No run yet: the hardware from --arch's table entry (default sm_90), no history.
    const std::string arch = r["arch"].as<std::string>();
    auto p = profile_from_arch(arch.empty() ? "sm_90" : arch);
    if (!p) return report_error(p.error().message);
    hw = p.value();
    history.original_region = kernel->region();
    // The prompt states the run's objective: the one this run would have.
    history.config["objective"] = to_string(opt.objective);
  }
  if (grid.m == 0 && kernel->default_grid()) grid = *kernel->default_grid();
  ProposalContext ctx{*kernel, grid, hw, history, {}, opt.run_dir, history.next_iteration()};
  auto text = llm->render_prompt(ctx);
  if (!text) return report_error(text.error().message);
  std::fputs(text->c_str(), stdout);
  return kExitOk;
}

}  // namespace swz::cli
