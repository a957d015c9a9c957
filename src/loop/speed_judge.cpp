// Interleaved timing of two programs and its paired-ratio verdict.
#include "swizzleperf/loop/speed_judge.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <thread>

#include "swizzleperf/util/process_session.h"

namespace swz {

void to_json(nlohmann::json& j, const SpeedComparison& c) {
  j = {{"speedup", c.ratio.estimate}, {"ci_low", c.ratio.low}, {"ci_high", c.ratio.high},
       {"confidence", c.ratio.confidence}, {"level", c.ratio.level}, {"significant", c.ratio.significant},
       {"rounds", c.ratio.n}, {"runs", c.runs}, {"served", c.served}, {"pause_ms", c.pause_ms}, {"seconds", c.seconds},
       {"baseline_ms", c.baseline_ms}, {"candidate_ms", c.candidate_ms},
       {"method", std::string("sign-test interval of the median per-round ratio baseline/candidate, rounds interleaved A B A B") +
                      (c.served ? fmt::format("; both programs kept running in serve mode (inputs set up once), {} ms pause before each request", c.pause_ms) : std::string("; one time-mode process per run"))}};
}

namespace {

// Starts exe in serve mode with the time-mode options of `args` and waits for its ready
// line. Error (the reason) when the runner holds no sessions, the program predates serve
// mode (a usage error), or it cannot set up (e.g. two full-size programs do not fit).
Result<std::unique_ptr<ProcessSession>> start_served(Backend& backend, const std::filesystem::path& exe, const std::vector<std::string>& args,
                            std::chrono::seconds timeout) {
  ProcessSpec spec;
  spec.argv = {exe.string(), "serve"};
  spec.argv.insert(spec.argv.end(), args.begin() + 1, args.end());
  auto s = backend.runner().start(spec);
  if (!s) return s.error();
  auto ready = (*s)->request("", timeout);
  if (!ready) return ready.error();
  auto j = nlohmann::json::parse(*ready, nullptr, false);
  if (!j.is_object() || j.value("ready", false) != true) return make_error("no ready line: " + ready->substr(0, 200));
  return std::move(*s);
}

}  // namespace

Result<SpeedComparison> compare_speed(Backend& backend, const std::filesystem::path& exe_base,
                                      const std::filesystem::path& exe_cand, const std::vector<std::string>& args,
                                      int rounds, std::chrono::seconds timeout) {
  if (rounds < 1) return make_error(fmt::format("a speed comparison needs at least 1 round, got {}", rounds));
  const auto t0 = std::chrono::steady_clock::now();
  SpeedComparison c;
  // Both programs in serve mode when they can (each sets up its inputs once, instead of
  // once per round); else, for both alike, one time-mode process per run.
  std::unique_ptr<ProcessSession> base_s, cand_s;
  if (!args.empty() && args.front() == "time") {
    auto a = start_served(backend, exe_base, args, timeout);
    if (!a) {
      spdlog::debug("speed re-check: baseline has no serve mode ({}); one time-mode process per run", a.error().message);
    } else if (auto b = start_served(backend, exe_cand, args, timeout); !b) {
      spdlog::debug("speed re-check: candidate has no serve mode ({}); one time-mode process per run", b.error().message);
    } else {
      base_s = std::move(*a);
      cand_s = std::move(*b);
      c.served = true;
      c.pause_ms = static_cast<int>(kServedPause.count());
    }
  }
  auto time_one = [&](const std::filesystem::path& exe, ProcessSession* session, const char* who) -> Result<double> {
    ++c.runs;
    nlohmann::json j;
    std::string failure;
    if (session) {
      if (c.runs > 1) std::this_thread::sleep_for(kServedPause);  // see kServedPause
      auto line = session->request("time", timeout);
      if (line) j = nlohmann::json::parse(*line, nullptr, false);
      else failure = line.error().message;
      if (line && !j.is_object()) failure = "not a JSON line: " + line->substr(0, 200);
    } else {
      auto r = backend.run_program(exe, args, timeout);
      j = r.json;
      if (!r.process.success()) failure = r.process.describe() + ": " + tail_lines(r.process.err + r.process.out, 1);
    }
    if (failure.empty() && (!j.is_object() || !j.contains("median_ms") || !j["median_ms"].is_number()))
      failure = "no median_ms in its answer";
    if (!failure.empty()) return make_error(fmt::format("{} time mode failed in the speed re-check: {}", who, failure));
    return j["median_ms"].get<double>();
  };
  for (int i = 0; i < rounds; ++i) {
    if (interrupt_requested()) return interrupted_error();
    auto a = time_one(exe_base, base_s.get(), "baseline");
    if (!a) return a.error();
    auto b = time_one(exe_cand, cand_s.get(), "candidate");
    if (!b) return b.error();
    c.baseline_ms.push_back(*a);
    c.candidate_ms.push_back(*b);
  }
  auto ratio = paired_ratio_interval(c.baseline_ms, c.candidate_ms);
  if (!ratio) return ratio.error();
  c.ratio = *ratio;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

}  // namespace swz
