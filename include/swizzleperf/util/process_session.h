// ProcessSession: a long-lived child that answers request lines on its stdin with
// response lines on its stdout, e.g. a kernel program's `serve` mode, which sets up
// its inputs once and then times itself on each request. The rules of
// ProcessRunner::run hold: argv vector, the child in its own process group, every
// wait bounded by a timeout, the whole group killed on a timeout, on Ctrl-C and when
// the session ends (after closing stdin and a short grace period for a clean exit).
// After any failure the session is dead and every later request fails at once.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "swizzleperf/util/process.h"
#include "swizzleperf/util/result.h"

namespace swz {

class ProcessSession {
 public:
  virtual ~ProcessSession() = default;
  // Writes `line` and a newline (nothing when `line` is empty: then it only reads) and
  // returns the child's next stdout line. Error, one line: the child exited (how, and
  // the last line of its stderr), timed out, or the user pressed Ctrl-C.
  virtual Result<std::string> request(const std::string& line, std::chrono::milliseconds timeout) = 0;
  virtual bool alive() const = 0;
};

// The real one: fork + execvp like RealProcessRunner::run. spec.timeout is not used
// (each request has its own); spec.max_capture_bytes bounds one response line.
// Error when the program cannot be started.
Result<std::unique_ptr<ProcessSession>> start_session(const ProcessSpec& spec);

}  // namespace swz
