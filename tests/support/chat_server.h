// ChatServer: a scripted OpenAI-compatible server for tests, on 127.0.0.1 at a
// free port, serving from a background thread. Each POST to
// /v1/chat/completions takes the next scripted reply (status, headers, body,
// optional delay) and is recorded (path, headers, body) for assertions. With
// the script empty it answers 418, which no client retries, so a test that
// scripted too little fails fast instead of hanging. Delays end early when the
// server stops; the destructor stops and joins. httplib stays out of this
// header so only chat_server.cpp needs its build flags.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace swz::test {

struct ScriptedReply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds delay{0};  // before answering (capped at 30 s)
};

struct RecordedRequest {
  std::string method;
  std::string path;
  std::multimap<std::string, std::string> headers;  // names lower-cased
  std::string body;

  bool has_header(const std::string& name) const;  // name lower-case
  std::string header(const std::string& name) const;
  nlohmann::json json() const;  // body parsed; null when it is not JSON
};

class ChatServer {
 public:
  ChatServer();
  ~ChatServer();
  ChatServer(const ChatServer&) = delete;
  ChatServer& operator=(const ChatServer&) = delete;

  int port() const;
  std::string base_url() const;  // "http://127.0.0.1:PORT/v1"

  void push(ScriptedReply reply);
  // A 200 chat completion with `content` as choices[0].message.content.
  void push_completion(const std::string& content, const std::string& finish_reason = "stop",
                       int prompt_tokens = 100, int completion_tokens = 50);
  // An OpenAI-style error body {"error": {"message": ...}}.
  void push_error(int status, const std::string& message,
                  std::vector<std::pair<std::string, std::string>> headers = {});

  std::vector<RecordedRequest> requests() const;
  std::size_t pending() const;  // scripted replies not yet served

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A chat completion body as OpenAI sends it.
nlohmann::json completion_body(const std::string& content, const std::string& finish_reason = "stop",
                               int prompt_tokens = 100, int completion_tokens = 50);

// A loopback port with nothing listening (bound, then released).
int unused_port();

}  // namespace swz::test
