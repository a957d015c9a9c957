// PythonForkServer: runs Python programs as children of one warm Python process.
//
// Why: a Triton program's process spends about 3.8 s importing torch and triton before it
// does anything (H200, bench/triton_cost.py); a candidate's evaluate run then works for about
// one second. The server (kernels/support/swz_forkserver.py) imports the heavy modules once,
// never touching the GPU, and forks one child per run: each run is still a process of its own
// (its own CUDA context, its own crash), started from the warm state.
//
// Contract: run() gives the same ProcessResult a plain run of spec.argv would (exit code or
// signal, stdout, stderr bounded by spec.max_capture_bytes, the time it took). A timeout or
// Ctrl-C kills the server's process group (server and child, ProcessSession's rule); the next
// run starts a new server. Only plain runs go through it: a spec with its own cwd or
// environment runs as a process of its own (nullopt). When the server cannot start or its
// modules do not import, run() says nullopt from then on (disabled(), with why) and the caller
// runs its own process: slower, never wrong. A runner that holds no sessions (the tests'
// fakes) disables it the same way. One run at a time (a mutex).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/util/process.h"
#include "swizzleperf/util/process_session.h"

namespace swz {

class PythonForkServer {
 public:
  // `python` runs `script` (swz_forkserver.py) with `modules` to import before serving;
  // `start_timeout` bounds the imports.
  PythonForkServer(ProcessRunner& runner, std::string python, std::filesystem::path script,
                   std::vector<std::string> modules, std::chrono::seconds start_timeout);
  ~PythonForkServer();
  PythonForkServer(const PythonForkServer&) = delete;
  PythonForkServer& operator=(const PythonForkServer&) = delete;

  // spec.argv[0] is a Python program (a launcher) the server's interpreter can run.
  std::optional<ProcessResult> run(const ProcessSpec& spec);
  bool disabled() const { return disabled_; }
  const std::string& why_disabled() const { return why_disabled_; }
  int servers_started() const { return started_; }

 private:
  bool ensure_started();  // false: disabled
  void disable(std::string why);

  ProcessRunner& runner_;
  std::string python_;
  std::filesystem::path script_;
  std::vector<std::string> modules_;
  std::chrono::seconds start_timeout_;
  std::unique_ptr<ProcessSession> session_;
  std::filesystem::path scratch_;  // the children's stdout/stderr files
  bool disabled_ = false;
  std::string why_disabled_;
  int started_ = 0;
  unsigned long long runs_ = 0;
  std::mutex mu_;
};

}  // namespace swz
