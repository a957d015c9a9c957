// ChatServer over cpp-httplib; see chat_server.h for the contract.
#include "support/chat_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <httplib.h>

namespace swz::test {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

bool RecordedRequest::has_header(const std::string& name) const { return headers.count(name) > 0; }

std::string RecordedRequest::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

nlohmann::json RecordedRequest::json() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

nlohmann::json completion_body(const std::string& content, const std::string& finish_reason,
                               int prompt_tokens, int completion_tokens) {
  return {{"id", "chatcmpl-test"},
          {"object", "chat.completion"},
          {"created", 1700000000},
          {"model", "test-model"},
          {"choices",
           {{{"index", 0},
             {"message", {{"role", "assistant"}, {"content", content}, {"refusal", nullptr}}},
             {"finish_reason", finish_reason}}}},
          {"usage",
           {{"prompt_tokens", prompt_tokens},
            {"completion_tokens", completion_tokens},
            {"total_tokens", prompt_tokens + completion_tokens}}}};
}

struct ChatServer::Impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mutex;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::deque<ScriptedReply> script;
  std::vector<RecordedRequest> requests;

  void handle(const httplib::Request& req, httplib::Response& res) {
    RecordedRequest rec;
    rec.method = req.method;
    rec.path = req.path;
    rec.body = req.body;
    for (const auto& [name, value] : req.headers) rec.headers.emplace(lower(name), value);

    ScriptedReply reply;
    bool scripted = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      requests.push_back(std::move(rec));
      if (!script.empty()) {
        reply = std::move(script.front());
        script.pop_front();
        scripted = true;
      }
    }
    if (!scripted) {
      res.status = 418;
      res.set_content(R"({"error":{"message":"chat_server: no scripted reply left"}})", "application/json");
      return;
    }
    if (reply.delay.count() > 0) {
      auto delay = std::min(reply.delay, std::chrono::milliseconds(30000));
      std::unique_lock<std::mutex> lock(mutex);
      stop_cv.wait_for(lock, delay, [this] { return stopping; });
    }
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name, value);
    res.set_content(reply.body, "application/json");
  }
};

ChatServer::ChatServer() : impl_(std::make_unique<Impl>()) {
  Impl* impl = impl_.get();
  impl->server.Post(".*", [impl](const httplib::Request& req, httplib::Response& res) {
    impl->handle(req, res);
  });
  impl->server.set_keep_alive_max_count(1);
  impl->port = impl->server.bind_to_any_port("127.0.0.1");
  if (impl->port <= 0) throw std::runtime_error("chat_server: cannot bind a loopback port");
  // bind_to_any_port already listens, so clients can connect before the thread runs.
  impl->thread = std::thread([impl] { impl->server.listen_after_bind(); });
  // stop() is a no-op until the listen loop runs, so a server destroyed at once
  // would never end: wait for the loop (bounded) before handing the server out.
  for (int i = 0; i < 5000 && !impl->server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

ChatServer::~ChatServer() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int ChatServer::port() const { return impl_->port; }

std::string ChatServer::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v1";
}

void ChatServer::push(ScriptedReply reply) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->script.push_back(std::move(reply));
}

void ChatServer::push_completion(const std::string& content, const std::string& finish_reason,
                                 int prompt_tokens, int completion_tokens) {
  push(ScriptedReply{200, {}, completion_body(content, finish_reason, prompt_tokens, completion_tokens).dump()});
}

void ChatServer::push_error(int status, const std::string& message,
                            std::vector<std::pair<std::string, std::string>> headers) {
  nlohmann::json body{{"error", {{"message", message}, {"type", "test_error"}, {"param", nullptr}, {"code", nullptr}}}};
  push(ScriptedReply{status, std::move(headers), body.dump()});
}

std::vector<RecordedRequest> ChatServer::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->requests;
}

std::size_t ChatServer::pending() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->script.size();
}

int unused_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("unused_port: socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("unused_port: bind failed");
  }
  int port = ntohs(addr.sin_port);
  ::close(fd);  // never listened on: a connection to it is refused
  return port;
}

}  // namespace swz::test
