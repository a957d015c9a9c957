// The judge's timing requests, answered by the kernel programs themselves.
#include "swizzleperf/loop/member_timer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "swizzleperf/core/metrics.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace fs = std::filesystem;

Result<MemberSample> sample_from_time_json(nlohmann::json j, const std::string& regime) {
  if (!j.is_object()) return make_error("no JSON line in its answer");
  if (j.value("ok", true) == false && j.contains("error") && j["error"].is_string())
    return make_error(j["error"].get<std::string>());
  if (!j.contains("median_ms") || !j["median_ms"].is_number()) return make_error("no median_ms in its answer");
  Timing t;
  try {
    // The judge needs the median alone; the other time fields default to it.
    for (const char* k : {"min_ms", "max_ms"})
      if (!j.contains(k) || !j[k].is_number()) j[k] = j["median_ms"];
    if (!j.contains("reps") || !j["reps"].is_number_integer()) j["reps"] = 0;
    t = j.get<Timing>();
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("unreadable answer: ") + e.what());
  }
  if (!regime.empty() && t.regime != regime)
    return make_error(fmt::format("it was asked for the {} regime and answered {}: a program built before regimes "
                                  "(rebuild it with the current kernels/support/swz_harness.h; docs/kernel-contract.md)",
                                  regime, t.regime.empty() ? "none" : t.regime));
  if (!(t.median_ms > 0) || !std::isfinite(t.median_ms))
    return make_error(fmt::format("its median time {} ms is not a positive number", t.median_ms));
  MemberSample s;
  s.ms = t.median_ms;
  s.mhz = t.sm_mhz_median.value_or(-1);
  s.mj = t.energy_mj_per_run.value_or(-1);
  s.reasons = t.clock_reasons.value_or(0);
  s.discarded = t.discarded;
  s.reached = t.regime_reached;
  s.problem = t.regime_problem;
  return s;
}

ProgramTimer::ProgramTimer(Backend& backend, std::vector<fs::path> exes, std::vector<std::string> names,
                           std::vector<std::string> args, std::string regime, std::chrono::seconds timeout)
    : backend_(backend), exes_(std::move(exes)), names_(std::move(names)), args_(std::move(args)),
      regime_(std::move(regime)), timeout_(timeout) {
  names_.resize(exes_.size());
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i].empty()) names_[i] = i == 0 ? "baseline" : fmt::format("candidate {}", i);
}

void ProgramTimer::start() {
  if (args_.empty() || args_.front() != "time") return;
  // Every program is started first, then each ready line awaited: the set-ups (a Triton
  // program's imports and compiles, every program's inputs) overlap.
  std::vector<std::unique_ptr<ProcessSession>> started;
  std::string why;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < exes_.size() && why.empty(); ++i) {
    ProcessSpec spec;
    spec.argv = {exes_[i].string(), "serve"};
    spec.argv.insert(spec.argv.end(), args_.begin() + 1, args_.end());
    auto s = backend_.runner().start(spec);
    if (!s) {
      why = s.error().message;
      failed = i;
    } else {
      started.push_back(std::move(*s));
    }
  }
  for (std::size_t i = 0; i < started.size() && why.empty(); ++i) {
    auto ready = started[i]->request("", timeout_);
    const auto j = ready ? nlohmann::json::parse(*ready, nullptr, false) : nlohmann::json();
    if (!ready) why = ready.error().message;
    else if (!j.is_object() || j.value("ready", false) != true) why = "no ready line: " + one_line(*ready, 200);
    failed = i;
  }
  if (!why.empty()) {
    // All or none: a member timed by processes and another by requests would differ in more than the order.
    spdlog::debug("speed judge: the {} cannot serve ({}); one time-mode process per run for every member", names_[failed], why);
    return;
  }
  sessions_ = std::move(started);
}

Result<MemberSample> ProgramTimer::time(std::size_t member) {
  nlohmann::json j;
  std::string failure;
  if (!sessions_.empty()) {
    auto line = sessions_[member]->request(regime_.empty() ? "time" : "time " + regime_, timeout_);
    if (!line) {
      if (line.error().interrupted()) return line.error();
      failure = line.error().message;
    } else {
      j = nlohmann::json::parse(*line, nullptr, false);
      if (!j.is_object()) failure = "not a JSON line: " + one_line(*line, 200);
    }
  } else {
    std::vector<std::string> args = args_;
    if (!regime_.empty()) args.insert(args.end(), {"--regime", regime_});
    auto r = backend_.run_program(exes_[member], args, timeout_);
    if (r.process.interrupted) return interrupted_error();
    j = r.json;
    if (!r.process.success()) failure = r.process.describe() + ": " + tail_lines(r.process.err + r.process.out, 1);
  }
  if (failure.empty()) {
    auto s = sample_from_time_json(std::move(j), regime_);
    if (s) return s;
    failure = s.error().message;
  }
  return make_error(fmt::format("{} time mode failed in the speed judge: {}", names_[member], failure));
}

Status ProgramTimer::warm(std::size_t member, double seconds) {
  const double until = now_s() + seconds;
  do {
    if (interrupt_requested()) return interrupted_error();
    auto s = time(member);
    if (!s) return s.error();
  } while (now_s() < until);
  return ok_status();
}

void ProgramTimer::pause(std::chrono::milliseconds ms) { std::this_thread::sleep_for(ms); }

double ProgramTimer::now_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

}  // namespace swz
