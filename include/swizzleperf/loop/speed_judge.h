// Speed judge: is the candidate program faster than the baseline program?
// Runs both programs' `time` mode alternately, A B A B ... for `rounds` rounds
// (each run: its own warm-up, then `reps` timed reps with the harness's L2 flush
// before each, reporting their median), and turns the paired round medians into
// a speedup with a distribution-free 95 % interval (core/stats: sign-test
// interval of the median ratio baseline/candidate). Interleaving puts machine
// drift into both members of a pair instead of into the difference.
// Cost: 2 * rounds time-mode runs. Where both programs have the harness's `serve`
// mode (and the runner holds sessions), each is started once and kept running, its
// inputs set up once, and each run is a "time" request to it; otherwise each run is
// its own `time` process. A failed run is an Error naming the program; nothing is
// retried. Used by the optimize loop's re-check and by `gate`.
//
// Regimes (docs/timing.md): a comparison is taken in one power regime, named to
// each program per request (`time burst` / `time sustained` to a serving program,
// `--regime R` to a time process). Each run's answer brings its SM clock, clock
// event reasons, discarded samples and energy per run; the comparison keeps them
// per round and decides whether its verdict can be trusted:
//  - a run that could not hold the regime (regime_reached false: the discard bound
//    was hit, the kernel is too long for the sustained window, the clock did not
//    settle) makes the comparison untrusted, with that run's sentence;
//  - in burst, both members of a pair should run at the same unthrottled clock: a
//    pair whose median SM clocks differ by more than kPairClockTolerance may be clock
//    drift, not the swizzle, and makes it untrusted -- unless the gap is the order's
//    own (judge_burst_clocks): a power-hungry order can pull its own clock down under
//    the power cap even within a burst. In sustained the clocks differ by design (the
//    order changes the power drawn, hence the clock under the cap): they are
//    reported, not judged.
// An untrusted comparison keeps its numbers and is never significant.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/util/result.h"
#include "swizzleperf/util/stats.h"

namespace swz {

inline constexpr int kDefaultRecheckRounds = 6;  // the fewest that can give a 95 % sign-test interval
// The most two members of a burst pair's median SM clocks may differ (relative to
// the higher) before the pair counts as clock drift.
inline constexpr double kPairClockTolerance = 0.05;

struct SpeedComparison {
  std::string regime;                // burst | sustained; empty: unnamed (no regime options)
  PairedRatio ratio;                 // speedup = baseline / candidate, its interval, significant
  std::vector<double> baseline_ms;   // per-round medians, in run order
  std::vector<double> candidate_ms;
  double seconds = 0;                // wall time of the whole comparison
  int runs = 0;                      // time-mode runs made (2 * rounds)
  bool served = false;               // the runs were requests to two serving programs
  int pause_ms = 0;                  // the pause before each served request after the first
  // Per round, as each run reported them (-1: the platform did not say).
  std::vector<double> baseline_mhz, candidate_mhz;  // median SM clock of the run
  std::vector<double> baseline_mj, candidate_mj;    // energy per run (sustained; -1 unknown)
  int baseline_discarded = 0, candidate_discarded = 0;  // burst samples re-taken below the threshold
  long long clock_reasons = 0;       // OR of every run's clock event reasons
  long long baseline_reasons = 0, candidate_reasons = 0;  // the same, per member
  std::string clock_note;            // burst: why a clock gap over the tolerance was the order's own
  std::optional<PairedRatio> energy; // candidate / baseline energy per run, when every round has both
  bool trusted = true;
  std::string untrusted;             // one line: why no winner may be named on it
  // Significant and trusted.
  bool decisive() const { return trusted && ratio.significant; }
};

void to_json(nlohmann::json& j, const SpeedComparison& c);

// The burst clock rule, judged once every round is in. No pair's clocks more than
// kPairClockTolerance apart (or a clock unknown): trusted, no note. Otherwise the gap
// is the order's own, and the comparison stays trusted with `note` saying so, only
// when all of these hold:
//  - every round's clocks are known and the same member ran lower in every round;
//  - the members' clock ranges over the rounds do not overlap (the lower member's
//    highest round below the higher member's lowest): drift moves both members of
//    an interleaved pair alike, so it cannot keep them apart while each stays put;
//  - the lower member's runs reported the software power cap, the mechanism by which
//    an order's DRAM traffic lowers its own clock, and no run reported a thermal or
//    hardware slowdown (heat and external brakes are drift, whoever they hit).
// Else untrusted, the sentence naming the first round over the tolerance.
struct ClockGapVerdict {
  bool trusted = true;
  std::string note;       // trusted with a gap: the order's own, and the evidence
  std::string untrusted;  // not trusted: why
};
ClockGapVerdict judge_burst_clocks(const SpeedComparison& c);

// `args` are the time-mode arguments both programs get (e.g. {"time", "--reps", "30",
// "--warmup", "5", "--size", ..., the regime rules' options}); `regime` is "burst",
// "sustained" or "" (unnamed: no regime named, as programs from before regimes).
// The median is read from each run's JSON line. Served, each request after the first
// waits `pause` first (RegimeSettings::pause_ms).
Result<SpeedComparison> compare_speed(Backend& backend, const std::filesystem::path& exe_base,
                                      const std::filesystem::path& exe_cand, const std::vector<std::string>& args,
                                      int rounds, std::chrono::seconds timeout, const std::string& regime,
                                      std::chrono::milliseconds pause);

}  // namespace swz
