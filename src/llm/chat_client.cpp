// ChatClient over libcurl; see chat_client.h for the contract.
#include "swizzleperf/llm/chat_client.h"
#include "swizzleperf/util/text.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>

#include <spdlog/spdlog.h>

#include "swizzleperf/util/process.h"

namespace swz {

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Errors are one line; a server may send pages of HTML or a stack trace.
constexpr std::size_t kErrorChars = 300;

void ensure_curl_global_init() {
  // curl_global_init is not thread-safe and must run once per process.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Past kMaxReplyBytes the transfer stops (curl sees a short write): a reply that
// large is no swizzle, and it must not fill memory.
size_t write_body(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * count > kMaxReplyBytes) return 0;
  body->append(data, size * count);
  return size * count;
}

size_t write_header(char* data, size_t size, size_t count, void* user) {
  std::string line(data, size * count);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    static_cast<Headers*>(user)->emplace_back(to_lower(trim(line.substr(0, colon))),
                                               trim(line.substr(colon + 1)));
  } else if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (e.g. after a redirect or 100-continue): earlier headers are stale.
    static_cast<Headers*>(user)->clear();
  }
  return size * count;
}

// Lets Ctrl-C end a transfer that could otherwise wait for the whole timeout.
int on_progress(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return interrupt_requested() ? 1 : 0;
}

struct HttpExchange {
  CURLcode curl_code = CURLE_OK;
  std::string curl_error;
  long status = 0;
  std::string body;
  Headers headers;
  double seconds = 0;
};

HttpExchange post_json(const std::string& url, const std::string& body, const std::string& key,
                       int timeout_s) {
  ensure_curl_global_init();
  HttpExchange ex;
  CURL* curl = curl_easy_init();
  if (!curl) {
    ex.curl_code = CURLE_FAILED_INIT;
    ex.curl_error = "curl_easy_init failed";
    return ex;
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_slist* hdrs = nullptr;
  hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
  hdrs = curl_slist_append(hdrs, "Accept: application/json");
  // Without this curl may wait a second for a 100-continue some servers never send.
  hdrs = curl_slist_append(hdrs, "Expect:");
  if (!key.empty()) {
    std::string auth = "Authorization: Bearer " + key;
    hdrs = curl_slist_append(hdrs, auth.c_str());
    std::fill(auth.begin(), auth.end(), '\0');
  }
  const long timeout_ms = std::max(1, timeout_s) * 1000L;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "swizzleperf");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads + timeouts: no SIGALRM
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 30000L));
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &ex.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, write_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &ex.headers);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);

  auto t0 = std::chrono::steady_clock::now();
  ex.curl_code = curl_easy_perform(curl);
  ex.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (ex.curl_code != CURLE_OK) {
    ex.curl_error = errbuf[0] ? errbuf : curl_easy_strerror(ex.curl_code);
  } else {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &ex.status);
  }
  curl_slist_free_all(hdrs);
  curl_easy_cleanup(curl);
  return ex;
}

bool retryable_curl_error(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

bool retryable_status(long status) {
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

// The human part of an error body, whichever server shape it has:
// OpenAI {"error":{"message"}}, vLLM {"message"}, FastAPI {"detail"}, or text.
std::string server_error_message(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    if (j.contains("error")) {
      const auto& e = j["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string())
        return one_line(e["message"].get<std::string>(), kErrorChars);
      if (e.is_string()) return one_line(e.get<std::string>(), kErrorChars);
    }
    if (j.contains("message") && j["message"].is_string())
      return one_line(j["message"].get<std::string>(), kErrorChars);
    if (j.contains("detail"))
      return one_line(j["detail"].is_string() ? j["detail"].get<std::string>() : j["detail"].dump(), kErrorChars);
  }
  return one_line(body, kErrorChars);
}

void default_sleep(double seconds) {
  // Sliced so Ctrl-C ends a long server-requested wait promptly.
  using clock = std::chrono::steady_clock;
  const auto end = clock::now() + std::chrono::duration_cast<clock::duration>(
                                      std::chrono::duration<double>(std::max(0.0, seconds)));
  while (clock::now() < end && !interrupt_requested()) {
    clock::duration left = end - clock::now();
    std::this_thread::sleep_for(std::min<clock::duration>(left, std::chrono::milliseconds(100)));
  }
}

double unit_random() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

// Content may be a string, null, or (some servers) an array of text parts.
std::string message_content(const nlohmann::json& message) {
  if (!message.contains("content")) return {};
  const auto& c = message["content"];
  if (c.is_string()) return c.get<std::string>();
  if (c.is_array()) {
    std::string out;
    for (const auto& part : c)
      if (part.is_object() && part.contains("text") && part["text"].is_string())
        out += part["text"].get<std::string>();
    return out;
  }
  return {};
}

// A token count from the server's reply (untrusted): a whole number from 0 to
// 2^53, else 0. A float such as 1e300 is never converted to long (undefined
// behaviour), and a negative or fractional count is no count.
long number_or_zero(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return 0;
  const auto& v = j[key];
  constexpr double kMax = 9007199254740992.0;  // 2^53
  if (v.is_number_unsigned()) {
    const auto x = v.get<unsigned long long>();
    return x <= static_cast<unsigned long long>(kMax) ? static_cast<long>(x) : 0;
  }
  if (v.is_number_integer()) {
    const auto x = v.get<long long>();
    return x >= 0 && x <= static_cast<long long>(kMax) ? static_cast<long>(x) : 0;
  }
  if (v.is_number_float()) {
    const double x = v.get<double>();
    return x >= 0 && x <= kMax && x == std::floor(x) ? static_cast<long>(x) : 0;
  }
  return 0;
}

}  // namespace

void to_json(nlohmann::json& j, const ChatUsage& u) {
  j = nlohmann::json{{"prompt_tokens", u.prompt_tokens},
                     {"completion_tokens", u.completion_tokens},
                     {"total_tokens", u.total_tokens}};
}

std::string resolve_base_url(const LlmOptions& options) {
  std::string url = options.base_url;
  if (url.empty()) {
    const char* env = std::getenv("OPENAI_BASE_URL");
    if (env && *env) url = env;
  }
  if (url.empty()) url = kDefaultLlmBaseUrl;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

double backoff_seconds(int retry, double base_s, double cap_s, double unit_random_value) {
  double d = base_s * std::pow(2.0, std::max(0, retry));
  d = std::min(d, cap_s);
  // Jitter spreads clients that failed together so they do not retry together.
  double jitter = 1.0 - 0.25 * std::clamp(unit_random_value, 0.0, 1.0);
  return std::max(0.0, d * jitter);
}

std::optional<double> retry_after_seconds(const Headers& headers) {
  for (const auto& [name, value] : headers) {
    if (name != "retry-after-ms") continue;
    char* end = nullptr;
    double ms = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && ms >= 0 && std::isfinite(ms)) return ms / 1000.0;
  }
  for (const auto& [name, value] : headers) {
    if (name != "retry-after") continue;
    char* end = nullptr;
    double s = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && trim(end).empty()) {
      if (s >= 0 && std::isfinite(s)) return s;
      continue;
    }
    time_t when = curl_getdate(value.c_str(), nullptr);
    if (when != -1) return std::max(0.0, std::difftime(when, std::time(nullptr)));
  }
  return std::nullopt;
}

ChatClient::ChatClient(LlmOptions options, SleepFn sleep)
    : options_(std::move(options)), base_url_(resolve_base_url(options_)),
      sleep_(sleep ? std::move(sleep) : SleepFn(default_sleep)) {
  if (!options_.api_key_env.empty()) {
    const char* k = std::getenv(options_.api_key_env.c_str());
    if (k) key_ = trim(k);
  }
}

std::string ChatClient::redact(std::string text) const {
  if (key_.empty()) return text;
  for (auto pos = text.find(key_); pos != std::string::npos; pos = text.find(key_, pos))
    text.replace(pos, key_.size(), "[redacted]");
  return text;
}

nlohmann::json ChatClient::request_body(const ChatRequest& request) const {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : request.messages)
    messages.push_back({{"role", m.role}, {"content", m.content}});
  nlohmann::json body{{"model", options_.model}, {"messages", messages}};
  if (!omit_temperature_) body["temperature"] = options_.temperature;
  body[legacy_max_tokens_ ? "max_tokens" : "max_completion_tokens"] = options_.max_tokens;
  if (request.json_schema) {
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema", {{"name", request.schema_name}, {"schema", *request.json_schema}, {"strict", true}}}};
  }
  return body;
}

Status ChatClient::check_endpoint() const {
  LlmOptions o = options_;
  o.base_url = base_url_;
  o.max_retries = 0;
  o.max_tokens = 16;
  o.timeout_s = std::min(o.timeout_s, 30);
  ChatClient probe(o, sleep_);
  ChatRequest ping;
  ping.messages = {{"user", "Reply with the word ok."}};
  auto reply = probe.complete(ping);
  if (reply) return ok_status();
  return Error{"the LLM endpoint " + base_url_ + " does not answer a chat request (" + reply.error().message +
                   "): start the server, or fix --base-url, --model or the key variable (checked once, before the run)",
               reply.error().fatal};
}

Result<ChatReply> ChatClient::complete(const ChatRequest& request, ChatFailure* failure) {
  const std::string url = base_url_ + "/chat/completions";
  const auto started = std::chrono::steady_clock::now();
  int attempts = 0;
  int retries = 0;
  ChatFailure local;
  ChatFailure& fail = failure ? *failure : local;
  fail = ChatFailure{};

  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  auto give_up = [&](std::string message, bool fatal = false) -> Result<ChatReply> {
    fail.attempts = attempts;
    fail.total_s = elapsed();
    return Error{redact(one_line(std::move(message), 600)), fatal};
  };
  // Sleeps before the next retry; false when the retries are spent or the user interrupted.
  auto wait_for_retry = [&](std::optional<double> server_wait, const std::string& why) {
    if (retries >= options_.max_retries) return false;
    double wait = server_wait ? std::min(*server_wait, options_.retry_after_cap_s)
                              : backoff_seconds(retries, options_.backoff_base_s,
                                                options_.backoff_cap_s, unit_random());
    ++retries;
    spdlog::warn("LLM request: {}; retry {}/{} in {:.1f} s", redact(why), retries,
                 options_.max_retries, wait);
    sleep_(wait);
    return !interrupt_requested();
  };

  while (true) {
    const std::string body = request_body(request).dump();
    HttpExchange ex = post_json(url, body, key_, options_.timeout_s);
    ++attempts;

    if (ex.curl_code == CURLE_ABORTED_BY_CALLBACK || interrupt_requested())
      return give_up("LLM request interrupted", true);
    if (ex.curl_code == CURLE_WRITE_ERROR)
      return give_up("the LLM server's reply from " + url + " is over " + std::to_string(kMaxReplyBytes >> 20) +
                     " MiB; refused (a proposal is a few KB: check --base-url)");
    if (ex.curl_code != CURLE_OK) {
      std::string why = ex.curl_code == CURLE_OPERATION_TIMEDOUT
                            ? "no reply within " + std::to_string(options_.timeout_s) + " s"
                            : one_line(ex.curl_error, kErrorChars);
      if (retryable_curl_error(ex.curl_code) && wait_for_retry(std::nullopt, why)) continue;
      if (interrupt_requested()) return give_up("LLM request interrupted", true);
      return give_up("LLM request to " + url + " failed after " + std::to_string(attempts) +
                     " attempt(s): " + why);
    }

    fail.http_status = static_cast<int>(ex.status);
    // Whatever the server echoes goes into files and messages; the key must not.
    ex.body = redact(std::move(ex.body));
    if (ex.status >= 200 && ex.status < 300) {
      auto j = nlohmann::json::parse(ex.body, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        return give_up("malformed response from the LLM server: body is not a JSON object");
      if (j.contains("error") && !j.contains("choices")) {
        fail.server_message = redact(server_error_message(ex.body));
        return give_up("LLM server returned an error: " + fail.server_message);
      }
      if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() ||
          !j["choices"][0].is_object())
        return give_up("malformed response from the LLM server: no choices[0]");
      const auto& choice = j["choices"][0];
      ChatReply reply;
      if (choice.contains("message") && choice["message"].is_object()) {
        const auto& msg = choice["message"];
        reply.content = message_content(msg);
        if (msg.contains("refusal") && msg["refusal"].is_string() &&
            !msg["refusal"].get<std::string>().empty())
          reply.refusal = msg["refusal"].get<std::string>();
      } else {
        return give_up("malformed response from the LLM server: choices[0] has no message");
      }
      if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
        reply.finish_reason = choice["finish_reason"].get<std::string>();
      if (j.contains("usage") && j["usage"].is_object()) {
        const auto& u = j["usage"];
        reply.usage.prompt_tokens = number_or_zero(u, "prompt_tokens");
        reply.usage.completion_tokens = number_or_zero(u, "completion_tokens");
        reply.usage.total_tokens = number_or_zero(u, "total_tokens");
        if (reply.usage.total_tokens == 0)
          reply.usage.total_tokens = reply.usage.prompt_tokens + reply.usage.completion_tokens;
      }
      if (j.contains("model") && j["model"].is_string()) reply.model = j["model"].get<std::string>();
      reply.latency_s = ex.seconds;
      reply.attempts = attempts;
      reply.total_s = elapsed();
      reply.raw = std::move(j);
      return reply;
    }

    fail.server_message = redact(server_error_message(ex.body));
    const std::string status = "HTTP " + std::to_string(ex.status);
    if (ex.status == 401 || ex.status == 403) {
      std::string hint =
          key_.empty() ? "no key was sent: set $" + options_.api_key_env + " to your API key"
                       : "set $" + options_.api_key_env + " to a valid API key";
      if (options_.api_key_env.empty()) hint = "pass --api-key-env NAME with the key in $NAME";
      return give_up("LLM server refused the request (" + status + "): " + hint +
                         (fail.server_message.empty() ? "" : " (server: " + fail.server_message + ")"),
                     true);
    }
    if (ex.status == 400) {
      const std::string text = to_lower(ex.body);
      if (request.json_schema &&
          (text.find("response_format") != std::string::npos ||
           text.find("json_schema") != std::string::npos)) {
        fail.response_format_rejected = true;
        return give_up("LLM server rejected structured output (" + status +
                       "): " + fail.server_message);
      }
      if (!omit_temperature_ && text.find("temperature") != std::string::npos) {
        // Reasoning models accept only their default temperature. Once, then remembered.
        omit_temperature_ = true;
        spdlog::info("LLM server does not accept temperature {}; sending none", options_.temperature);
        continue;
      }
      if (!legacy_max_tokens_ && text.find("max_completion_tokens") != std::string::npos) {
        // An older server: it knows only max_tokens. Once, then remembered.
        legacy_max_tokens_ = true;
        spdlog::info("LLM server does not accept max_completion_tokens; sending max_tokens");
        continue;
      }
    }
    if (ex.status == 404)
      return give_up("LLM endpoint or model not found (" + status + ") at " + url +
                         ": check --base-url and --model (" + options_.model + ")" +
                         (fail.server_message.empty() ? "" : "; server: " + fail.server_message),
                     true);
    if (retryable_status(ex.status)) {
      if (wait_for_retry(retry_after_seconds(ex.headers), status + " " + fail.server_message))
        continue;
      if (interrupt_requested()) return give_up("LLM request interrupted", true);
      return give_up("LLM request failed after " + std::to_string(attempts) + " attempt(s): " +
                     status + (fail.server_message.empty() ? "" : ": " + fail.server_message));
    }
    return give_up("LLM request rejected (" + status + ")" +
                   (fail.server_message.empty() ? "" : ": " + fail.server_message));
  }
}

}  // namespace swz
