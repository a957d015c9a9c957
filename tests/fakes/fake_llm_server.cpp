// fake_llm_server: a standalone OpenAI-compatible chat server on 127.0.0.1 that
// injects seeded faults, for the fault soak in bench/reliability.py (the tests
// use tests/support/chat_server in-process instead). Only POSIX sockets, the
// C++ standard library and nlohmann/json; one connection at a time, each answered
// with `Connection: close`.
//
//   fake_llm_server --port-file FILE [--rate P] [--seed N] [--faults k1,k2,...]
//                   [--log FILE] [--delay-ms N] [--lifetime-s N]
//
// Every POST .../chat/completions gets, with probability P (default 0), one fault
// drawn uniformly from --faults (default: all of them):
//   http401 http429 http500   that status with an OpenAI error body (429 and 500 carry
//                             retry-after-ms: 20)
//   timeout                   nothing for --delay-ms (default 3000) ms, then close
//   reset                     the request is read, the connection is reset (RST)
//   malformed                 200, content that is not JSON     } only on requests with
//   truncated                 200, content cut in half,         } response_format (a
//                             finish_reason "length"            } free-text call takes any prose)
//   cut_body                  200 whose body stops short of its Content-Length
// otherwise a completion whose content is a valid reply (reasoning, critique,
// rationale, code) with a grouped swizzle whose group size changes per request.
// --log gets one line per request: "N KIND" (KIND "ok" when no fault). The
// server exits after --lifetime-s seconds (default 600), whatever happens.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

const std::vector<std::string> kAllFaults = {"http401", "http429", "http500", "timeout",
                                             "reset",   "malformed", "truncated", "cut_body"};

int usage(const std::string& why) {
  std::fprintf(stderr, "fake_llm_server: error: %s\nusage: fake_llm_server --port-file FILE [--rate P] [--seed N] "
               "[--faults k1,k2] [--log FILE] [--delay-ms N] [--lifetime-s N]\n", why.c_str());
  return 2;
}

void send_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::send(fd, s.data() + done, s.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Reads one request (headers + Content-Length body), 5 s at most. Empty on failure.
std::string read_request(int fd, std::string& path) {
  std::string data;
  char buf[8192];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::size_t need = std::string::npos;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    data.append(buf, static_cast<std::size_t>(n));
    if (need == std::string::npos) {
      const auto end = data.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      std::string head = data.substr(0, end);
      for (auto& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::size_t len = 0;
      if (auto cl = head.find("content-length:"); cl != std::string::npos) len = std::strtoul(head.c_str() + cl + 15, nullptr, 10);
      need = end + 4 + len;
      const auto sp = data.find(' ');
      path = sp == std::string::npos ? "" : data.substr(sp + 1, data.find(' ', sp + 1) - sp - 1);
    }
    if (data.size() >= need) return data;
  }
  return "";
}

std::string response(int status, const std::string& body, const std::string& extra_headers = "",
                     std::size_t claimed_length = 0) {
  const char* reason = status == 200 ? "OK" : status == 401 ? "Unauthorized" : status == 404 ? "Not Found"
                       : status == 429 ? "Too Many Requests" : "Internal Server Error";
  std::ostringstream o;
  o << "HTTP/1.1 " << status << " " << reason << "\r\nContent-Type: application/json\r\nConnection: close\r\n"
    << extra_headers << "Content-Length: " << (claimed_length ? claimed_length : body.size()) << "\r\n\r\n" << body;
  return o.str();
}

std::string completion(const std::string& content, const std::string& finish) {
  return nlohmann::json{{"id", "chatcmpl-fake"}, {"object", "chat.completion"}, {"model", "fake-llm"},
                        {"choices", {{{"index", 0}, {"finish_reason", finish},
                                      {"message", {{"role", "assistant"}, {"content", content}}}}}},
                        {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 50}, {"total_tokens", 150}}}}
      .dump();
}

std::string valid_reply(unsigned k) {
  const unsigned g = 2 + k % 13;
  const std::string code =
      "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
      "  if (grid.m * grid.n != num_pids) return pid;\n"
      "  const unsigned G = " + std::to_string(g) + "u, width = G * grid.n, first = (pid / width) * G;\n"
      "  const unsigned gs = grid.m - first < G ? grid.m - first : G;\n"
      "  return (first + (pid % width) % gs) * grid.n + (pid % width) / gs;  // v" + std::to_string(k) + "\n}\n";
  return nlohmann::json{{"reasoning", "tiles in one row share a panel of A; group rows"},
                        {"critique", nlohmann::json::array()},
                        {"rationale", "grouped order, G = " + std::to_string(g)},
                        {"code", code}}
      .dump();
}

std::string error_body(const std::string& msg) { return nlohmann::json{{"error", {{"message", msg}}}}.dump(); }

}  // namespace

int main(int argc, char** argv) {
  std::string port_file, log_file, faults_arg;
  double rate = 0;
  unsigned long seed = 1, delay_ms = 3000, lifetime_s = 600;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage("option " + a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--port-file") port_file = v;
    else if (a == "--log") log_file = v;
    else if (a == "--faults") faults_arg = v;
    else if (a == "--rate") rate = std::strtod(v.c_str(), nullptr);
    else if (a == "--seed") seed = std::strtoul(v.c_str(), nullptr, 10);
    else if (a == "--delay-ms") delay_ms = std::strtoul(v.c_str(), nullptr, 10);
    else if (a == "--lifetime-s") lifetime_s = std::strtoul(v.c_str(), nullptr, 10);
    else return usage("unknown option " + a);
  }
  if (port_file.empty()) return usage("--port-file is required");
  std::vector<std::string> faults;
  if (faults_arg.empty()) faults = kAllFaults;
  else {
    std::stringstream ss(faults_arg);
    for (std::string k; std::getline(ss, k, ',');) {
      bool known = false;
      for (const auto& f : kAllFaults) known = known || f == k;
      if (!known) return usage("unknown fault '" + k + "'");
      faults.push_back(k);
    }
  }

  int srv = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(srv, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(srv, 16) != 0)
    return usage(std::string("cannot listen on 127.0.0.1: ") + std::strerror(errno));
  socklen_t len = sizeof addr;
  ::getsockname(srv, reinterpret_cast<sockaddr*>(&addr), &len);
  {
    std::ofstream pf(port_file + ".tmp");
    pf << ntohs(addr.sin_port) << "\n";
  }
  std::rename((port_file + ".tmp").c_str(), port_file.c_str());

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto end_at = std::chrono::steady_clock::now() + std::chrono::seconds(lifetime_s);
  unsigned n = 0;
  while (std::chrono::steady_clock::now() < end_at) {
    pollfd p{srv, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    int fd = ::accept(srv, nullptr, nullptr);
    if (fd < 0) continue;
    std::string path;
    const std::string req = read_request(fd, path);
    if (req.empty()) { ::close(fd); continue; }
    if (path.find("/chat/completions") == std::string::npos) {
      send_all(fd, response(404, error_body("not found: " + path)));
      ::close(fd);
      continue;
    }
    ++n;
    std::string kind = "ok";
    if (unit(rng) < rate) {
      // Bad content is a fault only where JSON was asked for (response_format): a
      // free-text call (the memory analysis) takes any prose, so it gets transport
      // faults only.
      std::vector<std::string> apt;
      const bool structured = req.find("\"response_format\"") != std::string::npos;
      for (const auto& f : faults)
        if (structured || (f != "malformed" && f != "truncated")) apt.push_back(f);
      if (!apt.empty()) kind = apt[static_cast<std::size_t>(unit(rng) * apt.size()) % apt.size()];
      else (void)unit(rng);
    }
    if (!log_file.empty()) {
      std::ofstream lf(log_file, std::ios::app);
      lf << n << " " << kind << "\n";
    }
    const std::string good = completion(valid_reply(n), "stop");
    if (kind == "ok") send_all(fd, response(200, good));
    else if (kind == "http401") send_all(fd, response(401, error_body("Incorrect API key provided (injected)")));
    else if (kind == "http429") send_all(fd, response(429, error_body("Rate limit reached (injected)"), "retry-after-ms: 20\r\n"));
    else if (kind == "http500") send_all(fd, response(500, error_body("The server had an error (injected)"), "retry-after-ms: 20\r\n"));
    else if (kind == "timeout") std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    else if (kind == "reset") {
      linger l{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    } else if (kind == "malformed") send_all(fd, response(200, completion("Sure! Here is my idea {not json at all", "stop")));
    else if (kind == "truncated") {
      const std::string content = valid_reply(n);
      send_all(fd, response(200, completion(content.substr(0, content.size() / 2), "length")));
    } else if (kind == "cut_body") send_all(fd, response(200, good.substr(0, good.size() / 2), "", good.size()));
    ::close(fd);
  }
  ::close(srv);
  return 0;
}
