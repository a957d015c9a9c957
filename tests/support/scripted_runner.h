// ScriptedRunner: the one ProcessRunner double of the test suite (like ninja's
// FakeCommandRunner). Each rule says which processes it answers (by program name
// or by a predicate on the spec) and how (a fixed result or a handler that may
// read the spec's files and write outputs). Rules are tried in the order added;
// a process no rule answers is "not started", as an absent program would be.
// Every spec is recorded (thread-safe: the build pool runs processes from
// background threads), so a test can state what was run, and how often.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "swizzleperf/util/process.h"

namespace swz::test {

// A process that ran and exited with `code`.
ProcessResult exited(int code, std::string out = "", std::string err = "");
// A process that could not be started (err says why).
ProcessResult not_started(std::string err = "No such file or directory");
// argv[0]'s file name: "/usr/bin/nvcc" -> "nvcc".
std::string program_name(const ProcessSpec& spec);

class ScriptedRunner final : public ProcessRunner {
 public:
  using Handler = std::function<ProcessResult(const ProcessSpec&)>;
  using Predicate = std::function<bool(const ProcessSpec&)>;

  // Processes whose program_name() is `program`.
  ScriptedRunner& on(std::string program, Handler handler);
  ScriptedRunner& on(std::string program, ProcessResult answer);
  // Processes the predicate accepts.
  ScriptedRunner& on_match(Predicate when, Handler handler);
  // Every process no earlier rule answered.
  ScriptedRunner& otherwise(Handler handler);
  ScriptedRunner& otherwise(ProcessResult answer);

  ProcessResult run(const ProcessSpec& spec) override;

  // Every spec run so far, in order.
  std::vector<ProcessSpec> calls() const;
  // How many processes of this program ran.
  int count(const std::string& program) const;
  // The most processes that were running at once (handlers that sleep show overlap).
  int max_concurrent() const { return max_running_; }

 private:
  struct Rule {
    Predicate when;
    Handler answer;
  };
  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  std::vector<ProcessSpec> calls_;
  std::atomic<int> running_{0};
  std::atomic<int> max_running_{0};
};

}  // namespace swz::test
