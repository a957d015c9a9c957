// LlmProposer; see llm_proposer.h for the contract.
#include "swizzleperf/proposer/llm_proposer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "swizzleperf/core/history.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMemoryAnalysisFormat = "swizzleperf-memory-analysis";

std::optional<std::string> read_cached_analysis(const ProposalContext& context) {
  if (context.run_dir.empty()) return std::nullopt;
  auto text = read_file(context.run_dir / kMemoryAnalysisFile);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != kMemoryAnalysisFormat)
    return std::nullopt;
  // A cache from another kernel (or an edited one) would mislead every prompt.
  if (j.value("kernel_hash", "") != content_hash(context.kernel.text())) return std::nullopt;
  if (!j.contains("analysis") || !j["analysis"].is_string() || j["analysis"].get<std::string>().empty())
    return std::nullopt;
  return j["analysis"].get<std::string>();
}

void save_text(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (auto st = write_file_atomic(path, text); !st)
    spdlog::warn("could not save {}: {}", path.string(), st.error().message);
}

}  // namespace

struct LlmProposer::CallLog {
  std::string prompts;                                 // every message sent, in order
  nlohmann::json calls = nlohmann::json::array();      // one entry per chat call
  nlohmann::json summary = nlohmann::json::array();    // usage and latency per call, for meta
  ChatUsage usage;
  double latency_s = 0;
  bool analysis_cached = false;
  std::string server_model;
};

std::string normalize_region(std::string_view region) { return collapse_spaces(region); }

LlmProposer::LlmProposer(LlmOptions options, ContextMode mode, fs::path prompts_dir,
                         ChatClient::SleepFn sleep)
    : mode_(mode), prompts_dir_(std::move(prompts_dir)), client_(std::move(options), std::move(sleep)) {
  auto b = PromptBuilder::load(prompts_dir_, mode_);
  if (b) builder_.emplace(std::move(*b));
  else load_error_ = b.error().message;
}

Result<ChatReply> LlmProposer::chat(const std::string& purpose, const std::string& system,
                                    const std::string& user, bool structured, CallLog& log,
                                    ChatFailure* failure) {
  ChatRequest request;
  request.messages = {{"system", system}, {"user", user}};
  if (structured) request.json_schema = builder_->reply_schema();

  const std::size_t n = log.calls.size() + 1;
  log.prompts += fmt::format("===== call {}: {} ({}) =====\n", n, purpose,
                             structured ? "response_format: json_schema, strict" : "no response_format");
  log.prompts += "----- system -----\n" + system + "\n----- user -----\n" + user + "\n\n";

  ChatFailure local;
  ChatFailure& fail = failure ? *failure : local;
  auto reply = client_.complete(request, &fail);

  nlohmann::json call{{"purpose", purpose},
                      {"request",
                       {{"model", client_.options().model},
                        {"temperature", client_.options().temperature},
                        {"max_tokens", client_.options().max_tokens},
                        {"response_format", structured ? nlohmann::json("json_schema") : nlohmann::json()}}}};
  nlohmann::json summary{{"purpose", purpose}};
  if (reply) {
    call["content"] = reply->content;
    call["finish_reason"] = reply->finish_reason;
    call["refusal"] = reply->refusal ? nlohmann::json(*reply->refusal) : nlohmann::json();
    call["usage"] = reply->usage;
    call["latency_s"] = reply->latency_s;
    call["total_s"] = reply->total_s;
    call["attempts"] = reply->attempts;
    call["response"] = reply->raw;
    summary["usage"] = reply->usage;
    summary["latency_s"] = reply->latency_s;
    summary["attempts"] = reply->attempts;
    log.usage.prompt_tokens += reply->usage.prompt_tokens;
    log.usage.completion_tokens += reply->usage.completion_tokens;
    log.usage.total_tokens += reply->usage.total_tokens;
    log.latency_s += reply->latency_s;
    if (!reply->model.empty()) log.server_model = reply->model;
  } else {
    call["error"] = reply.error().message;
    call["http_status"] = fail.http_status;
    call["attempts"] = fail.attempts;
    call["total_s"] = fail.total_s;
    summary["error"] = reply.error().message;
    summary["attempts"] = fail.attempts;
  }
  log.calls.push_back(std::move(call));
  log.summary.push_back(std::move(summary));
  return reply;
}

Result<std::string> LlmProposer::memory_analysis(const ProposalContext& context, CallLog& log) {
  if (auto cached = read_cached_analysis(context)) {
    log.analysis_cached = true;
    return *cached;
  }
  auto system = builder_->system_prompt();
  if (!system) return Error{system.error().message, true};
  auto prompt = builder_->memory_analysis_prompt(context.kernel, context.grid);
  if (!prompt) return Error{prompt.error().message, true};
  auto reply = chat("memory analysis", *system, *prompt, false, log);
  if (!reply) return reply.error();
  if (reply->refusal) return make_error("the model refused: " + *reply->refusal);
  if (reply->finish_reason == "content_filter")
    return make_error("the reply was blocked by the server's content filter");
  std::string analysis = reply->content;
  if (analysis.find_first_not_of(" \t\r\n") == std::string::npos)
    return make_error("the model's reply was empty");
  // A truncated analysis still helps; the optimize prompt says nothing depends on its end.
  if (reply->finish_reason == "length")
    spdlog::warn("memory analysis was cut at --max-tokens; using what arrived");

  if (!context.run_dir.empty()) {
    nlohmann::json j{{"format", kMemoryAnalysisFormat},
                     {"kernel_name", context.kernel.name()},
                     {"kernel_hash", content_hash(context.kernel.text())},
                     {"model", client_.options().model},
                     {"server_model", reply->model},
                     {"analysis", analysis},
                     {"usage", reply->usage},
                     {"latency_s", reply->latency_s},
                     {"created_at", now_iso8601()}};
    save_text(context.run_dir / kMemoryAnalysisFile, j.dump(2) + "\n");
  }
  return analysis;
}

Result<ParsedReply> LlmProposer::optimize_call(const ProposalContext& context,
                                               const std::string& analysis,
                                               const std::string& retry_note, CallLog& log) {
  auto system = builder_->system_prompt();
  if (!system) return Error{system.error().message, true};
  OptimizeExtras extras{structured_disabled_, retry_note};
  auto prompt = builder_->optimize_prompt(context, analysis, extras);
  if (!prompt) return Error{prompt.error().message, true};

  ChatFailure failure;
  auto reply = chat("optimize", *system, *prompt, !structured_disabled_, log, &failure);
  if (!reply && failure.response_format_rejected && !structured_disabled_) {
    // Many local servers lack structured output; ask for the JSON in words instead,
    // for this and every later call.
    structured_disabled_ = true;
    spdlog::warn("the LLM server rejected response_format; asking for JSON in the prompt from now on");
    extras.schema_in_prompt = true;
    prompt = builder_->optimize_prompt(context, analysis, extras);
    if (!prompt) return Error{prompt.error().message, true};
    reply = chat("optimize (schema in prompt)", *system, *prompt, false, log);
  }
  if (!reply) return reply.error();

  auto parsed = parse_reply(*reply, structured_disabled_, context.kernel.language());
  if (!parsed) {
    log.calls.back()["parse_error"] = parsed.error().message;
    return make_error("LLM reply: " + parsed.error().message);
  }
  log.calls.back()["extracted_from"] = parsed->extracted_from;
  return parsed;
}

Status LlmProposer::check_ready() {
  if (!load_error_.empty()) return Error{load_error_, true};
  return client_.check_endpoint();
}

Result<Proposal> LlmProposer::propose(const ProposalContext& context) {
  if (!builder_) return Error{load_error_, true};
  CallLog log;
  auto save = [&](const Result<Proposal>& outcome) {
    if (context.attempt_dir.empty()) return;
    nlohmann::json j{{"model", client_.options().model},
                     {"context", to_string(mode_)},
                     {"structured_output", !structured_disabled_},
                     {"memory_analysis_cached", log.analysis_cached},
                     {"calls", log.calls}};
    if (outcome) j["outcome"] = {{"label", outcome->label}, {"region", outcome->region}};
    else j["error"] = outcome.error().message;
    save_text(context.attempt_dir / "prompt.txt", log.prompts);
    save_text(context.attempt_dir / "reply.json", j.dump(2) + "\n");
  };
  failure_meta_ = nlohmann::json::object();
  auto fail = [&](Error e) -> Result<Proposal> {
    failure_meta_ = {{"calls", log.summary}};
    Result<Proposal> r(std::move(e));
    save(r);
    return r;
  };

  auto analysis = memory_analysis(context, log);
  if (!analysis) return fail(Error{"memory analysis: " + analysis.error().message, analysis.error().fatal});

  const std::string original = !context.history.original_region.empty()
                                   ? context.history.original_region
                                   : context.kernel.region();
  auto repeated = [&](const std::string& code) -> std::optional<std::string> {
    const std::string n = normalize_region(code);
    if (n == normalize_region(original)) return std::string("the original region");
    for (const Attempt& a : context.history.attempts)
      if (!a.region.empty() && normalize_region(a.region) == n)
        return fmt::format("iteration {}{}", a.iteration, a.label.empty() ? "" : " (" + a.label + ")");
    return std::nullopt;
  };

  std::string retry_note;
  bool retried = false;
  while (true) {
    auto parsed = optimize_call(context, *analysis, retry_note, log);
    if (!parsed) return fail(parsed.error());
    if (auto same = repeated(parsed->code)) {
      if (retried) return fail(make_error("repeated an earlier attempt: " + *same));
      retried = true;
      spdlog::info("LLM proposal repeats {}; asking once for a different mapping", *same);
      retry_note = "# Note\nYour previous answer repeated " + *same +
                   ", which has already been tried. Propose a mapping that differs from the "
                   "original region and from every earlier attempt.";
      continue;
    }
    Proposal p;
    p.region = parsed->code;
    p.label = fmt::format("llm-{}", context.iteration);
    p.reasoning = parsed->reasoning;
    p.critique = parsed->critique;
    p.rationale = parsed->rationale;
    p.meta = {{"model", client_.options().model},
              {"server_model", log.server_model},
              {"context", to_string(mode_)},
              {"structured_output", !structured_disabled_},
              {"extracted_from", parsed->extracted_from},
              {"memory_analysis_cached", log.analysis_cached},
              {"retried_for_repeat", retried},
              {"calls", log.summary},
              {"usage", log.usage},
              {"latency_s", log.latency_s}};
    Result<Proposal> r(std::move(p));
    save(r);
    return r;
  }
}

Result<std::string> LlmProposer::render_prompt(const ProposalContext& context) {
  if (!builder_) return Error{load_error_, true};
  auto system = builder_->system_prompt();
  if (!system) return system;
  std::string out;
  auto analysis = read_cached_analysis(context);
  if (!analysis) {
    auto mem = builder_->memory_analysis_prompt(context.kernel, context.grid);
    if (!mem) return mem;
    out += "===== call 1: memory analysis (no response_format) =====\n----- system -----\n" +
           *system + "\n----- user -----\n" + *mem + "\n\n";
    analysis = "(the answer to the memory-analysis call above; not available without a network call)";
  }
  auto prompt = builder_->optimize_prompt(context, *analysis, OptimizeExtras{structured_disabled_, ""});
  if (!prompt) return prompt;
  out += fmt::format("===== call {}: optimize ({}) =====\n", out.empty() ? 1 : 2,
                     structured_disabled_ ? "no response_format: schema in the prompt"
                                          : "response_format: json_schema \"swizzle_proposal\", strict");
  out += "----- system -----\n" + *system + "\n----- user -----\n" + *prompt + "\n";
  if (!structured_disabled_) out += "----- response_format schema -----\n" + builder_->reply_schema().dump(2) + "\n";
  return out;
}

Result<std::unique_ptr<LlmProposer>> make_llm_proposer(const LlmOptions& options,
                                                       const std::string& context_mode,
                                                       const fs::path& prompts_dir) {
  auto mode = parse_context_mode(context_mode);
  if (!mode) return mode.error();
  auto probe = load_prompt_templates(prompts_dir);
  if (!probe) return probe.error();
  return std::make_unique<LlmProposer>(options, *mode, prompts_dir);
}

}  // namespace swz
