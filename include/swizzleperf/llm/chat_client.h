// ChatClient: one chat completion against an OpenAI-compatible server (OpenAI,
// vLLM, Ollama, llama.cpp's server) over libcurl. Transient failures (408, 409,
// 429, 5xx, connection errors, timeouts) are retried a bounded number of times
// with jittered exponential backoff, honouring the server's retry-after hints up
// to a cap. A refused key (401/403) is a fatal Error naming the environment
// variable to set. The key itself is held only in memory: it never appears in a
// returned value, an error message or a log line.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/util/result.h"

namespace swz {

struct LlmOptions {
  std::string base_url;                       // empty: $OPENAI_BASE_URL, else the OpenAI API
  std::string api_key_env = "OPENAI_API_KEY"; // the variable holding the key (may be unset)
  std::string model = "gpt-4o";
  double temperature = 0.2;
  int max_tokens = 4096;                      // sent as max_completion_tokens
  int timeout_s = 120;                        // per HTTP attempt
  int max_retries = 4;                        // retries after the first attempt
  double backoff_base_s = 0.5;
  double backoff_cap_s = 8;
  double retry_after_cap_s = 120;             // longest server-requested wait honoured
};

inline constexpr const char* kDefaultLlmBaseUrl = "https://api.openai.com/v1";
// The most bytes of one reply body read; a larger one is refused with one line.
inline constexpr std::size_t kMaxReplyBytes = 8u << 20;

// The option, else $OPENAI_BASE_URL, else kDefaultLlmBaseUrl; trailing '/' removed.
std::string resolve_base_url(const LlmOptions& options);

struct ChatMessage {
  std::string role;  // system | user | assistant
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  // When set, sent as response_format {type: json_schema, json_schema: {name, schema, strict}}.
  std::optional<nlohmann::json> json_schema;
  std::string schema_name = "swizzle_proposal";
};

struct ChatUsage {
  long prompt_tokens = 0;
  long completion_tokens = 0;
  long total_tokens = 0;
};

void to_json(nlohmann::json& j, const ChatUsage& u);

struct ChatReply {
  std::string content;                 // choices[0].message.content ("" when null)
  std::string finish_reason;           // stop | length | content_filter | ...
  std::optional<std::string> refusal;  // choices[0].message.refusal when the model refused
  ChatUsage usage;
  std::string model;                   // as reported by the server
  double latency_s = 0;                // the successful HTTP exchange
  double total_s = 0;                  // including retries and backoff
  int attempts = 0;                    // HTTP exchanges made
  nlohmann::json raw;                  // the whole response body
};

// Why a request failed, for callers that adapt (e.g. drop response_format).
struct ChatFailure {
  int http_status = 0;              // 0: no HTTP response (connection error, timeout)
  std::string server_message;       // error.message from the body, key redacted
  bool response_format_rejected = false;  // a 400 that names response_format / json_schema
  int attempts = 0;
  double total_s = 0;
};

class ChatClient {
 public:
  using SleepFn = std::function<void(double seconds)>;

  // The key is read from $options.api_key_env now; an unset or empty variable
  // means no Authorization header (local servers need none).
  explicit ChatClient(LlmOptions options, SleepFn sleep = {});

  // Error::fatal for 401/403 (and 404: wrong base URL or model). `failure`,
  // when given, is filled on every Error.
  Result<ChatReply> complete(const ChatRequest& request, ChatFailure* failure = nullptr);

  // One short chat request, no retries, at most 30 s: does the endpoint answer with a
  // well-formed completion? Run once before a run spends GPU time, so a closed port,
  // a server that answers 501 or garbage, a wrong model or key stop the run at once
  // with one line instead of failing every attempt.
  Status check_endpoint() const;

  // The JSON body complete() would send (no key in it), for saving and tests.
  nlohmann::json request_body(const ChatRequest& request) const;

  const LlmOptions& options() const { return options_; }
  const std::string& base_url() const { return base_url_; }
  bool has_key() const { return !key_.empty(); }
  // True once the server refused max_completion_tokens and max_tokens is sent instead.
  bool uses_legacy_max_tokens() const { return legacy_max_tokens_; }
  // True once the server refused the temperature (reasoning models) and none is sent.
  bool omits_temperature() const { return omit_temperature_; }

 private:
  LlmOptions options_;
  std::string base_url_;
  std::string key_;
  SleepFn sleep_;
  bool legacy_max_tokens_ = false;
  bool omit_temperature_ = false;

  std::string redact(std::string text) const;
};

// Backoff before retry number `retry` (0-based): min(cap, base * 2^retry), scaled
// by a jitter factor in [0.75, 1]; `unit_random` in [0, 1) picks it.
double backoff_seconds(int retry, double base_s, double cap_s, double unit_random);

// The wait a server asked for in its headers (names lower-case): retry-after-ms,
// else retry-after as seconds or an HTTP date. nullopt when absent or unparsable.
std::optional<double> retry_after_seconds(const std::vector<std::pair<std::string, std::string>>& headers);

}  // namespace swz
