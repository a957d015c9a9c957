// PythonForkServer (contract: backend/python_fork_server.h). The server's side of the
// protocol is kernels/support/swz_forkserver.py.
#include "swizzleperf/backend/python_fork_server.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <system_error>

#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/process.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

// At most `max` bytes of `path` (truncated set when there were more); the file is removed.
std::string take_capped(const fs::path& path, std::size_t max, bool& truncated) {
  std::string text;
  std::ifstream in(path, std::ios::binary);
  if (in) {
    text.resize(max);
    in.read(text.data(), static_cast<std::streamsize>(max));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (in.peek() != std::char_traits<char>::eof()) truncated = true;
  }
  std::error_code ec;
  fs::remove(path, ec);
  return text;
}

}  // namespace

PythonForkServer::PythonForkServer(ProcessRunner& runner, std::string python, fs::path script,
                                   std::vector<std::string> modules, std::chrono::seconds start_timeout)
    : runner_(runner),
      python_(std::move(python)),
      script_(std::move(script)),
      modules_(std::move(modules)),
      start_timeout_(start_timeout) {}

PythonForkServer::~PythonForkServer() {
  session_.reset();  // closes the server's stdin: it exits
  if (!scratch_.empty()) {
    std::error_code ec;
    fs::remove_all(scratch_, ec);
  }
}

void PythonForkServer::disable(std::string why) {
  disabled_ = true;
  why_disabled_ = std::move(why);
  session_.reset();
  spdlog::info("Python fork server off ({}): each Triton run starts its own Python, about 4 s more per run",
               why_disabled_);
}

bool PythonForkServer::ensure_started() {
  if (disabled_) return false;
  if (session_ && session_->alive()) return true;
  session_.reset();
  if (scratch_.empty() && (scratch_ = make_temp_dir("swizzleperf-fork")).empty()) {
    disable("cannot make a temporary directory");
    return false;
  }
  ProcessSpec spec;
  spec.argv = {python_, script_.string()};
  spec.argv.insert(spec.argv.end(), modules_.begin(), modules_.end());
  spec.max_capture_bytes = 1 << 16;
  auto s = runner_.start(spec);
  if (!s) {
    disable(s.error().message);
    return false;
  }
  session_ = std::move(*s);
  ++started_;
  auto ready = session_->request("", start_timeout_);
  if (!ready) {
    if (interrupt_requested()) {  // not the server's fault: try again next time
      session_.reset();
      return false;
    }
    disable("it did not start: " + ready.error().message);
    return false;
  }
  auto j = nlohmann::json::parse(*ready, nullptr, false);
  if (!j.is_object() || !j.value("ready", false)) {
    disable(j.is_object() && j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>()
                                                                           : "it answered: " + ready->substr(0, 200));
    return false;
  }
  return true;
}

std::optional<ProcessResult> PythonForkServer::run(const ProcessSpec& spec) {
  if (spec.argv.empty() || !spec.cwd.empty() || !spec.env.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  if (!ensure_started()) return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string stem = "run" + std::to_string(++runs_);
  const fs::path out = scratch_ / (stem + ".out"), err = scratch_ / (stem + ".err");
  nlohmann::json req = {{"argv", spec.argv}, {"out", out.string()}, {"err", err.string()}};
  auto answer = session_->request(req.dump(), spec.timeout);
  ProcessResult r;
  r.started = true;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!answer) {
    // The session killed the group (server and child); the next run starts a new server.
    session_.reset();
    if (interrupt_requested()) {
      r.interrupted = true;
    } else if (r.seconds + 0.05 >= std::chrono::duration<double>(spec.timeout).count()) {
      r.timed_out = true;
    } else {  // the server itself died: this run is not the program's failure
      spdlog::warn("the Python fork server stopped ({}); this run starts its own process", answer.error().message);
      std::error_code ec;
      fs::remove(out, ec);
      fs::remove(err, ec);
      return std::nullopt;
    }
  } else {
    auto j = nlohmann::json::parse(*answer, nullptr, false);
    if (j.is_object() && j.contains("exit") && j["exit"].is_number_integer()) {
      r.exit_code = j["exit"].get<int>();
    } else if (j.is_object() && j.contains("signal") && j["signal"].is_number_integer()) {
      r.term_signal = j["signal"].get<int>();
    } else {
      spdlog::warn("the Python fork server answered {:.200}; this run starts its own process", *answer);
      session_.reset();
      return std::nullopt;
    }
  }
  r.out = take_capped(out, spec.max_capture_bytes, r.truncated);
  r.err = take_capped(err, spec.max_capture_bytes, r.truncated);
  return r;
}

}  // namespace swz
