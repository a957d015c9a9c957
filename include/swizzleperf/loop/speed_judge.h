// Speed judge: which of a few candidate programs is faster than the baseline
// program, by how much, and can the answer be trusted? (docs/timing.md says it for
// users; this is the contract.)
//
// One tournament per power regime. The members -- the baseline (member 0) and the
// finalists the search screened -- are timed in rounds; in every round each member
// still in the race runs once, in an order that changes from round to round (the
// member list rotated by the round number and reversed every other cycle: A B, B A,
// B A, A B for two), so a clock that drifts over the tournament touches every member
// alike. A candidate's speedup is the median of its paired ratios baseline/candidate,
// one per round, with the sign-test 95 % interval of util/stats (distribution-free;
// at 6 rounds it is [min, max], so "significant" needs every round to agree).
//
// Regimes. burst: each request is --reps short passes after an L2 flush, the
// programs' throttle rule discards samples below the threshold, and the judge pauses
// before every request but the first (the GPU cools). sustained: the GPU is brought
// to its power-capped state once (warm_s of the baseline, untimed), then the members'
// windows follow back to back with no pause, so they all run on the same slide of the
// clock under the power cap. The clock is never required to be steady: at the cap an
// H100's clock slides for minutes, and the interleaving, not a steady clock, is what
// makes the comparison fair.
//
// The stopping rule, checked after every round from min_rounds on: a candidate whose
// paired ratio against the round's leader is significantly below 1, or whose interval
// against the baseline lies below 1, leaves the race (its rounds so far are kept); the
// tournament stops when one candidate is left and its interval excludes 1 (decisive),
// when every candidate is significantly slower than the baseline, at max_rounds, or
// when budget_s has passed (no round starts after it; min_rounds always run). Repeated
// looks make the stated 95 % slightly optimistic: a candidate no faster than the
// baseline reaches "significant" with a few per cent chance, not 2.5 %.
//
// Trust (judge_comparison). A gap between the members' clocks is not a reason to
// doubt: an order that moves less DRAM traffic draws less power and, under the power
// cap, runs at a higher clock in every round. That is the order's own effect, and the
// verdict names it (clock_note). A measurement is untrusted only when its evidence is
// inconsistent:
//  - a run could not hold its regime (the programs say: discards over the bound, a
//    window too short for the kernel's passes);
//  - a thermal or hardware slowdown was reported in one member's runs only (an event
//    from outside that the pair did not share);
//  - the paired ratio trends with time (Mann-Kendall |z| >= 2.58 over the rounds, and
//    a change over the run of at least 2 % and at least half the effect), so drift did
//    reach the difference;
//  - the rounds disagree beyond noise (two or more rounds faster, and two or more
//    slower, by more than kDisagreement).
// An untrusted comparison keeps its numbers and is never significant.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/judge_record.h"
#include "swizzleperf/loop/member_timer.h"
#include "swizzleperf/util/result.h"
#include "swizzleperf/util/stats.h"

namespace swz {

inline constexpr int kDefaultRecheckRounds = 6;  // the fewest that can give a 95 % sign-test interval
inline constexpr int kDefaultMaxRounds = 12;
inline constexpr double kDefaultJudgeSeconds = 30;  // per regime
inline constexpr int kDefaultFinalists = 3;
// Members' median clocks this far apart (relative to the higher) get a sentence.
inline constexpr double kClockGapNote = 0.02;
// Rounds that disagree beyond noise: two or more faster and two or more slower by this much.
inline constexpr double kDisagreement = 0.05;

struct JudgeSettings {
  int min_rounds = kDefaultRecheckRounds;
  int max_rounds = kDefaultMaxRounds;
  double budget_s = kDefaultJudgeSeconds;  // per regime; min_rounds always run
  std::chrono::milliseconds pause{250};    // burst: before every request but the first
  double warm_s = 2.0;                     // sustained: the baseline, untimed, before round 1
};

// The verdict's rules (see above) on c's rounds: sets ratio, energy, clock_note and,
// unless already untrusted, trusted/untrusted. Error when the rounds cannot give a ratio.
Status judge_comparison(SpeedComparison& c);

// SpeedComparison, MemberSeries and Tournament, the records this judge fills, are
// core/judge_record.h's (core/history serialises them).

// Round `round`'s order of the members in `active`: rotated by round, reversed every
// other cycle of active.size() rounds.
std::vector<int> round_order(const std::vector<int>& active, int round);

// The tournament over timer's members (0: the baseline) in `regime` (burst,
// sustained, or unnamed for programs from before regimes: burst's pauses, no warm-up).
// labels[i] names member i in the record. Error: a request failed (naming the member),
// or Ctrl-C (kind interrupted).
Result<Tournament> run_tournament(MemberTimer& timer, Regime regime, const JudgeSettings& settings,
                                  const std::vector<std::string>& labels = {});

// Two programs: a tournament with one candidate, through ProgramTimer. `args` are the
// time-mode arguments both programs get ({"time", "--reps", "30", ...}).
Result<SpeedComparison> compare_speed(Backend& backend, const std::filesystem::path& exe_base,
                                      const std::filesystem::path& exe_cand, const std::vector<std::string>& args,
                                      Regime regime, const JudgeSettings& settings,
                                      std::chrono::seconds timeout);

}  // namespace swz
