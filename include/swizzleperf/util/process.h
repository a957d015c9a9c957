// Process: run a program from an argv vector (never a shell string) with a
// timeout that kills its whole process group, capturing stdout and stderr.
// ProcessRunner is the seam to the outside world: RealProcessRunner forks;
// tests substitute their own runner.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "swizzleperf/util/result.h"

namespace swz {

struct ProcessSpec {
  std::vector<std::string> argv;                         // argv[0] is looked up on PATH
  std::filesystem::path cwd;                             // empty: inherit
  std::vector<std::pair<std::string, std::string>> env;  // added to / overriding the environment
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  std::size_t max_capture_bytes = 64u << 20;            // beyond this output is dropped (noted)
};

struct ProcessResult {
  bool started = false;      // false: the program could not be executed (see err)
  int exit_code = -1;        // valid when exited normally
  int term_signal = 0;       // non-zero when killed by a signal
  bool timed_out = false;    // killed by us after the timeout
  bool interrupted = false;  // killed by us because the user pressed Ctrl-C
  bool truncated = false;    // output beyond spec.max_capture_bytes was dropped: out/err are incomplete
  std::string out;
  std::string err;
  double seconds = 0;

  // Ran and exited by itself with this code (not killed, not timed out).
  bool exited_with(int code) const { return started && !timed_out && term_signal == 0 && exit_code == code; }
  bool success() const { return exited_with(0); }
  // "exit code 1", "killed by signal 11 (Segmentation fault)", "timed out after 30 s", ...
  std::string describe() const;
};

class ProcessSession;  // core/process_session.h

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
  // A long-lived child spoken to line by line (core/process_session.h). Default: an
  // Error (this runner holds no sessions), and callers fall back to run().
  virtual Result<std::unique_ptr<ProcessSession>> start(const ProcessSpec& spec);
};

class RealProcessRunner final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override;
  Result<std::unique_ptr<ProcessSession>> start(const ProcessSpec& spec) override;
};

// The child's environment: the parent's with spec.env added or overriding, as the
// "KEY=VALUE" strings execve takes (built in the parent: a vforked child must not allocate).
struct ChildEnv {
  explicit ChildEnv(const ProcessSpec& spec);
  char* const* envp() const { return ptrs_.data(); }
 private:
  std::vector<std::string> strings_;
  std::vector<char*> ptrs_;
};

// In a freshly forked or vforked child: its own process group, default signal handlers, the
// given fds as stdin (none when negative), stdout and stderr, spec's cwd, then execvpe with
// `envp`. On failure the errno goes to exec_fd (close-on-exec: the parent reads nothing on
// success) and the child exits 127. Only async-signal-safe calls, no allocation: run() calls
// it after vfork. Shared by run() and start_session().
[[noreturn]] void exec_child(const ProcessSpec& spec, char* const* argv, char* const* envp, int in_fd, int out_fd,
                             int err_fd, int exec_fd);

// The command line as it would be typed, for logs only (quoted where needed).
std::string format_argv(const std::vector<std::string>& argv);

// Full path of an executable found on PATH (or the path itself if it contains '/'
// and is executable); empty when not found.
std::filesystem::path find_executable(const std::string& name);

// Ctrl-C: install once in main. Running children are killed (their process group)
// and interrupt_requested() turns true so loops can stop at a clean point.
void install_interrupt_handler();
bool interrupt_requested();
void clear_interrupt_for_tests();

// Last `max_lines` lines of text, for log excerpts in history and errors.
std::string tail_lines(const std::string& text, int max_lines);

}  // namespace swz
