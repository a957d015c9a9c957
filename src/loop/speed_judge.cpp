// Interleaved timing of two programs and its paired-ratio verdict.
#include "swizzleperf/loop/speed_judge.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>

#include "swizzleperf/util/process_session.h"

namespace swz {

namespace {

nlohmann::json known_or_null(const std::vector<double>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (double x : v) out.push_back(x >= 0 ? nlohmann::json(x) : nlohmann::json());
  return out;
}

double median_known(const std::vector<double>& v) {
  std::vector<double> known;
  for (double x : v)
    if (x >= 0) known.push_back(x);
  return known.empty() ? -1 : median_of(known);
}

}  // namespace

void to_json(nlohmann::json& j, const SpeedComparison& c) {
  j = {{"regime", c.regime.empty() ? nlohmann::json() : nlohmann::json(c.regime)},
       {"speedup", c.ratio.estimate}, {"ci_low", c.ratio.low}, {"ci_high", c.ratio.high},
       {"confidence", c.ratio.confidence}, {"level", c.ratio.level}, {"significant", c.ratio.significant},
       {"rounds", c.ratio.n}, {"runs", c.runs}, {"served", c.served}, {"pause_ms", c.pause_ms}, {"seconds", c.seconds},
       {"baseline_ms", c.baseline_ms}, {"candidate_ms", c.candidate_ms},
       {"method", std::string("sign-test interval of the median per-round ratio baseline/candidate, rounds interleaved A B A B") +
                      (c.served ? fmt::format("; both programs kept running in serve mode (inputs set up once), {} ms pause before each request", c.pause_ms) : std::string("; one time-mode process per run"))}};
  if (c.regime.empty()) return;
  j["baseline_mhz"] = known_or_null(c.baseline_mhz);
  j["candidate_mhz"] = known_or_null(c.candidate_mhz);
  const double bm = median_known(c.baseline_mhz), cm = median_known(c.candidate_mhz);
  j["baseline_mhz_median"] = bm >= 0 ? nlohmann::json(bm) : nlohmann::json();
  j["candidate_mhz_median"] = cm >= 0 ? nlohmann::json(cm) : nlohmann::json();
  j["baseline_discarded"] = c.baseline_discarded;
  j["candidate_discarded"] = c.candidate_discarded;
  j["clock_reasons"] = c.clock_reasons;
  j["clock_reason_names"] = clock_reason_names(c.clock_reasons);
  j["baseline_mj"] = known_or_null(c.baseline_mj);
  j["candidate_mj"] = known_or_null(c.candidate_mj);
  if (c.energy) {
    j["energy_ratio"] = c.energy->estimate;
    j["energy_ci_low"] = c.energy->low;
    j["energy_ci_high"] = c.energy->high;
    j["energy_significant"] = c.energy->significant;
    const double be = median_known(c.baseline_mj), ce = median_known(c.candidate_mj);
    j["baseline_mj_median"] = be;
    j["candidate_mj_median"] = ce;
  } else {
    j["energy_ratio"] = nullptr;
  }
  j["baseline_clock_reasons"] = c.baseline_reasons;
  j["candidate_clock_reasons"] = c.candidate_reasons;
  if (!c.clock_note.empty()) j["clock_note"] = c.clock_note;
  j["trusted"] = c.trusted;
  if (!c.trusted) j["untrusted"] = c.untrusted;
}

ClockGapVerdict judge_burst_clocks(const SpeedComparison& c) {
  ClockGapVerdict v;
  const size_t n = std::min(c.baseline_mhz.size(), c.candidate_mhz.size());
  size_t first_gap = n;
  for (size_t i = 0; i < n && first_gap == n; ++i) {
    const double ma = c.baseline_mhz[i], mb = c.candidate_mhz[i];
    if (ma > 0 && mb > 0 && std::abs(ma - mb) > kPairClockTolerance * std::max(ma, mb)) first_gap = i;
  }
  if (first_gap == n) return v;
  // Which member ran lower, and is it so in every round with both clocks known?
  const bool base_lower = c.baseline_mhz[first_gap] < c.candidate_mhz[first_gap];
  const std::vector<double>& lo = base_lower ? c.baseline_mhz : c.candidate_mhz;
  const std::vector<double>& hi = base_lower ? c.candidate_mhz : c.baseline_mhz;
  bool consistent = true;
  double lo_max = 0, hi_min = 1e300;
  for (size_t i = 0; i < n; ++i) {
    consistent = consistent && lo[i] > 0 && hi[i] > 0 && lo[i] < hi[i];
    lo_max = std::max(lo_max, lo[i]);
    hi_min = std::min(hi_min, hi[i]);
  }
  const long long lower_reasons = base_lower ? c.baseline_reasons : c.candidate_reasons;
  const bool power_capped = (lower_reasons & kClockReasonSwPowerCap) != 0;
  const bool heat = (c.clock_reasons & kClockReasonsHeatOrBrake) != 0;
  const char* lower = base_lower ? "baseline" : "candidate";
  if (consistent && lo_max < hi_min && power_capped && !heat) {
    v.note = fmt::format("the clock gap is the order's own: the {} ran at {:.0f}-{:.0f} MHz under the software power "
                         "cap in all {} rounds, the {} at {:.0f} MHz or more",
                         lower, *std::min_element(lo.begin(), lo.begin() + n), lo_max, n,
                         base_lower ? "candidate" : "baseline", hi_min);
    return v;
  }
  v.trusted = false;
  const std::string why = !consistent ? "the gap changed sides or a clock is unknown"
                          : lo_max >= hi_min ? "the members' clocks overlap across rounds"
                          : heat             ? "a thermal or hardware slowdown was reported"
                                             : fmt::format("the {} did not report the power cap", lower);
  v.untrusted = fmt::format("the SM clock moved between the members of round {} ({:.0f} MHz baseline, {:.0f} MHz "
                            "candidate: more than {:.0f} %), so the difference may be the clock's, not the order's "
                            "(not the order's own gap: {})",
                            first_gap + 1, c.baseline_mhz[first_gap], c.candidate_mhz[first_gap],
                            kPairClockTolerance * 100, why);
  return v;
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
                                      int rounds, std::chrono::seconds timeout, const std::string& regime,
                                      std::chrono::milliseconds pause) {
  if (rounds < 1) return make_error(fmt::format("a speed comparison needs at least 1 round, got {}", rounds));
  const auto t0 = std::chrono::steady_clock::now();
  SpeedComparison c;
  c.regime = regime;
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
      c.pause_ms = static_cast<int>(pause.count());
    }
  }
  const std::string request = regime.empty() ? "time" : "time " + regime;
  std::vector<std::string> run_args = args;
  if (!regime.empty()) run_args.insert(run_args.end(), {"--regime", regime});
  // One run: its answer as Timing (with the regime's fields), or an Error naming the program.
  auto time_one = [&](const std::filesystem::path& exe, ProcessSession* session, const char* who) -> Result<Timing> {
    ++c.runs;
    nlohmann::json j;
    std::string failure;
    if (session) {
      if (c.runs > 1) std::this_thread::sleep_for(pause);  // see RegimeSettings::pause_ms (0: none)
      auto line = session->request(request, timeout);
      if (line) j = nlohmann::json::parse(*line, nullptr, false);
      else failure = line.error().message;
      if (line && !j.is_object()) failure = "not a JSON line: " + line->substr(0, 200);
    } else {
      auto r = backend.run_program(exe, run_args, timeout);
      j = r.json;
      if (!r.process.success()) failure = r.process.describe() + ": " + tail_lines(r.process.err + r.process.out, 1);
    }
    if (failure.empty() && j.is_object() && j.value("ok", true) == false && j.contains("error") && j["error"].is_string())
      failure = j["error"].get<std::string>();
    if (failure.empty() && (!j.is_object() || !j.contains("median_ms") || !j["median_ms"].is_number()))
      failure = "no median_ms in its answer";
    Timing t;
    if (failure.empty()) {
      try {
        // The judge needs the median alone; the other time fields default to it.
        for (const char* k : {"min_ms", "max_ms"})
          if (!j.contains(k) || !j[k].is_number()) j[k] = j["median_ms"];
        if (!j.contains("reps") || !j["reps"].is_number_integer()) j["reps"] = 0;
        t = j.get<Timing>();
      } catch (const nlohmann::json::exception& e) {
        failure = std::string("unreadable answer: ") + e.what();
      }
    }
    if (failure.empty() && !regime.empty() && t.regime != regime)
      failure = fmt::format("it was asked for the {} regime and answered {}: a program built before regimes (rebuild it "
                            "with the current kernels/support/swz_harness.h; docs/kernel-contract.md)",
                            regime, t.regime.empty() ? "none" : t.regime);
    if (!failure.empty()) return make_error(fmt::format("{} time mode failed in the speed re-check: {}", who, failure));
    if (!t.regime_reached && c.trusted) {
      c.trusted = false;
      c.untrusted = fmt::format("the {} regime was not reached in a {} run: {}", regime, who,
                                t.regime_problem.empty() ? "the program did not say why" : t.regime_problem);
    }
    return t;
  };
  for (int i = 0; i < rounds; ++i) {
    if (interrupt_requested()) return interrupted_error();
    auto a = time_one(exe_base, base_s.get(), "baseline");
    if (!a) return a.error();
    auto b = time_one(exe_cand, cand_s.get(), "candidate");
    if (!b) return b.error();
    c.baseline_ms.push_back(a->median_ms);
    c.candidate_ms.push_back(b->median_ms);
    c.baseline_mhz.push_back(a->sm_mhz_median.value_or(-1));
    c.candidate_mhz.push_back(b->sm_mhz_median.value_or(-1));
    c.baseline_mj.push_back(a->energy_mj_per_run.value_or(-1));
    c.candidate_mj.push_back(b->energy_mj_per_run.value_or(-1));
    c.baseline_discarded += a->discarded;
    c.candidate_discarded += b->discarded;
    c.baseline_reasons |= a->clock_reasons.value_or(0);
    c.candidate_reasons |= b->clock_reasons.value_or(0);
    c.clock_reasons |= c.baseline_reasons | c.candidate_reasons;
  }
  // Burst pairs run at one unthrottled clock unless the order itself moves it.
  if (regime == "burst" && c.trusted) {
    const ClockGapVerdict v = judge_burst_clocks(c);
    c.trusted = v.trusted;
    c.untrusted = v.untrusted;
    c.clock_note = v.note;
  }
  auto ratio = paired_ratio_interval(c.baseline_ms, c.candidate_ms);
  if (!ratio) return ratio.error();
  c.ratio = *ratio;
  const auto all_known = [](const std::vector<double>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  };
  if (all_known(c.baseline_mj) && all_known(c.candidate_mj))
    if (auto e = paired_ratio_interval(c.candidate_mj, c.baseline_mj)) c.energy = *e;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

}  // namespace swz
