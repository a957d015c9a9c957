// LlmProposer: asks a model over an OpenAI-compatible API for the next swizzle
// region. Per kernel, one memory-analysis call, cached in the run directory so a
// resumed run does not pay for it again; per attempt, one optimize call with
// structured output (or, when the server refuses response_format, the schema
// described in the prompt and a lenient parse, remembered for later calls).
// Every prompt and reply is saved in the attempt directory; the API key is never
// written anywhere. A reply that repeats an earlier attempt gets one retry
// asking for something new, then is an Error.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "swizzleperf/util/result.h"
#include "swizzleperf/llm/chat_client.h"
#include "swizzleperf/llm/reply_parser.h"
#include "swizzleperf/proposer/prompt_builder.h"
#include "swizzleperf/proposer/proposer.h"

namespace swz {

inline constexpr const char* kMemoryAnalysisFile = "memory_analysis.json";

class LlmProposer final : public Proposer {
 public:
  // Templates are read from prompts_dir now; a missing one makes every propose()
  // a fatal Error (use make_llm_proposer to hear about it at once).
  LlmProposer(LlmOptions options, ContextMode mode, std::filesystem::path prompts_dir,
              ChatClient::SleepFn sleep = {});

  std::string name() const override { return "llm"; }
  Result<Proposal> propose(const ProposalContext& context) override;
  // The endpoint answers one short chat request (ChatClient::check_endpoint).
  Status check_ready() override;

  // What the next propose() would send, as text, without any network call
  // (for --dump-prompt). The memory analysis comes from the run directory's
  // cache when present; otherwise its prompt is shown instead of its answer.
  Result<std::string> render_prompt(const ProposalContext& context);

  ContextMode mode() const { return mode_; }
  const LlmOptions& options() const { return client_.options(); }
  // True once the server refused response_format in this run.
  bool structured_output_disabled() const { return structured_disabled_; }

  nlohmann::json failure_meta() const override { return failure_meta_; }

 private:
  nlohmann::json failure_meta_ = nlohmann::json::object();  // the last failed propose()'s calls
  struct CallLog;
  Result<std::string> memory_analysis(const ProposalContext& context, CallLog& log);
  Result<ParsedReply> optimize_call(const ProposalContext& context, const std::string& analysis,
                                    const std::string& retry_note, CallLog& log);
  Result<ChatReply> chat(const std::string& purpose, const std::string& system,
                         const std::string& user, bool structured, CallLog& log,
                         ChatFailure* failure = nullptr);

  ContextMode mode_;
  std::filesystem::path prompts_dir_;
  std::optional<PromptBuilder> builder_;
  std::string load_error_;
  ChatClient client_;
  bool structured_disabled_ = false;
};

// From CLI-level values: the context mode by name ("aware" | "unaware" |
// "overload"); the templates are loaded now, so a bad mode or a missing prompt
// file is an Error before any GPU or network time is spent.
Result<std::unique_ptr<LlmProposer>> make_llm_proposer(const LlmOptions& options,
                                                       const std::string& context_mode,
                                                       const std::filesystem::path& prompts_dir);

// Whitespace-insensitive identity of two regions (runs of whitespace count as one).
std::string normalize_region(std::string_view region);

}  // namespace swz
