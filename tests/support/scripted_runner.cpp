#include "support/scripted_runner.h"

#include <filesystem>

namespace swz::test {

ProcessResult exited(int code, std::string out, std::string err) {
  ProcessResult r;
  r.started = true;
  r.exit_code = code;
  r.out = std::move(out);
  r.err = std::move(err);
  return r;
}

ProcessResult not_started(std::string err) {
  ProcessResult r;
  r.started = false;
  r.err = std::move(err);
  return r;
}

std::string program_name(const ProcessSpec& spec) {
  return spec.argv.empty() ? std::string() : std::filesystem::path(spec.argv.front()).filename().string();
}

ScriptedRunner& ScriptedRunner::on(std::string program, Handler handler) {
  return on_match([program = std::move(program)](const ProcessSpec& s) { return program_name(s) == program; },
                  std::move(handler));
}

ScriptedRunner& ScriptedRunner::on(std::string program, ProcessResult answer) {
  return on(std::move(program), [answer = std::move(answer)](const ProcessSpec&) { return answer; });
}

ScriptedRunner& ScriptedRunner::on_match(Predicate when, Handler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back({std::move(when), std::move(handler)});
  return *this;
}

ScriptedRunner& ScriptedRunner::otherwise(Handler handler) {
  return on_match([](const ProcessSpec&) { return true; }, std::move(handler));
}

ScriptedRunner& ScriptedRunner::otherwise(ProcessResult answer) {
  return otherwise([answer = std::move(answer)](const ProcessSpec&) { return answer; });
}

ProcessResult ScriptedRunner::run(const ProcessSpec& spec) {
  Handler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(spec);
    for (const auto& rule : rules_)
      if (rule.when(spec)) {
        handler = rule.answer;
        break;
      }
  }
  if (!handler) return not_started("no rule of the test's ScriptedRunner answers " + program_name(spec));
  const int now = ++running_;
  int seen = max_running_.load();
  while (now > seen && !max_running_.compare_exchange_weak(seen, now)) {
  }
  ProcessResult r = handler(spec);
  --running_;
  return r;
}

std::vector<ProcessSpec> ScriptedRunner::calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

int ScriptedRunner::count(const std::string& program) const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& c : calls_) n += program_name(c) == program;
  return n;
}

}  // namespace swz::test
