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
  o.add_options("LLM")("dump-prompt", "print the next optimize prompt and exit without calling the LLM");
}

namespace {

bool llm_configured(const LlmSettings& llm) {
  auto set = [](const char* v) { return v && *v; };
  return !llm.base_url.empty() || set(std::getenv("OPENAI_BASE_URL")) || set(std::getenv(llm.api_key_env.c_str()));
}

}  // namespace

LlmOptions llm_options_of(const LlmSettings& llm) {
  LlmOptions o;
  o.base_url = llm.base_url;
  o.api_key_env = llm.api_key_env;
  o.model = llm.model;
  o.temperature = llm.temperature;
  o.max_tokens = llm.max_tokens;
  o.timeout_s = llm.timeout_s;
  return o;
}

Result<std::unique_ptr<Proposer>> make_proposer(const RunConfig& c) {
  if (c.locality_model != "on" && c.locality_model != "off")
    return make_error("--locality-model '" + c.locality_model.substr(0, 40) + "': use on or off");
  std::string w = c.proposer;
  if (w == "auto") {
    if (llm_configured(c.llm)) {
      w = "llm";
    } else {
      spdlog::info("swizzleperf: using the built-in proposer (no LLM configured: set OPENAI_BASE_URL or OPENAI_API_KEY, or pass --base-url, to use one)");
      w = "builtin";
    }
  }
  if (w == "builtin") return std::unique_ptr<Proposer>(std::make_unique<BuiltinProposer>());
  if (w == "llm") {
    auto p = make_llm_proposer(llm_options_of(c.llm), c.llm.context, prompts_dir());
    if (!p) return p.error();
    return std::unique_ptr<Proposer>(std::move(p.value()));
  }
  return make_error("unknown proposer '" + w + "': use auto, builtin or llm");
}

int dump_next_prompt(Proposer& proposer, const RunState& run, const std::string& arch, bool json) {
  auto* llm = dynamic_cast<LlmProposer*>(&proposer);
  if (!llm) return report_error("--dump-prompt needs the llm proposer (current: " + proposer.name() + "); add --proposer llm");
  const RunHistory& history = run.history;
  HardwareProfile hw;
  TileGrid grid;
  if (run.resumed) {
    hw = history.hardware.value_or(HardwareProfile{});
    grid = history.program_info.grid;
  } else {
    // No run yet: the hardware from --arch's table entry (default sm_90), no history.
    auto p = profile_from_arch(arch.empty() ? "sm_90" : arch);
    if (!p) return report_error(p.error().message);
    hw = p.value();
  }
  if (grid.m == 0 && run.kernel.default_grid()) grid = *run.kernel.default_grid();
  ProposalContext ctx{run.kernel, grid, hw, history, {}, run.run_dir, history.next_iteration()};
  auto text = llm->render_prompt(ctx);
  if (!text) return report_error(text.error().message);
  if (json) {
    const nlohmann::json j = {{"ok", true},         {"kind", "prompt"},      {"kernel", run.kernel.path().string()},
                              {"arch", hw.arch},     {"iteration", ctx.iteration}, {"prompt", *text}};
    std::puts(j.dump(2).c_str());
  } else {
    std::fputs(text->c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace swz::cli
