// Judge records: what the speed judge (loop/speed_judge, which measures and decides)
// learned, as typed records. They live in core because core/history serialises them:
// an attempt's re-check (Recheck: its comparison in each regime measured, with the
// per-round data) and the run's judge record (JudgeRecord: the finalists and one
// tournament per regime). Only core/history turns them into history.json and back;
// every other reader uses the fields.
//
// The JSON keys are the ones history.json has always had. A comparison's derived
// numbers (per-round ratios, median clocks and energies, clock reason names, the
// method sentence) are written from the series, never stored, so reading a record
// and writing it again gives the same JSON. Reading is lenient: a missing or wrongly
// typed field keeps its default (a history is text a user may edit).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/run_config.h"
#include "swizzleperf/util/stats.h"

namespace swz {

// The regime's name in records and messages: "burst", "sustained", "" for unnamed (a
// comparison made without regime options). regime_of_label reads it back; anything
// else is unnamed.
std::string regime_label(Regime r);
Regime regime_of_label(const std::string& s);

// One candidate against the baseline in one regime.
struct SpeedComparison {
  Regime regime = Regime::unnamed;   // burst | sustained | unnamed (no regime options)
  std::string label;                 // the candidate's, for the record
  PairedRatio ratio;                 // speedup = baseline / candidate, its interval, significant
  std::vector<double> baseline_ms;   // per round, in round order (the rounds this candidate ran)
  std::vector<double> candidate_ms;
  double seconds = 0;                // wall time of the whole tournament it was part of
  int runs = 0;                      // timing requests the tournament made
  bool served = false;               // the runs were requests to serving programs
  int pause_ms = 0;                  // burst: the pause before each request after the first
  // Per round, as each run reported them (-1: the platform did not say).
  std::vector<double> baseline_mhz, candidate_mhz;  // median SM clock of the run
  std::vector<double> baseline_mj, candidate_mj;    // energy per run (sustained; -1 unknown)
  int baseline_discarded = 0, candidate_discarded = 0;  // burst samples re-taken below the threshold
  long long clock_reasons = 0;       // OR of every run's clock event reasons
  long long baseline_reasons = 0, candidate_reasons = 0;  // the same, per member
  std::string clock_note;            // a clock gap between the members, named as the order's effect
  std::optional<PairedRatio> energy; // candidate / baseline energy per run, when every round has both
  int left_after = 0;                // the round after which it left the race (0: it stayed)
  std::string left_because;
  bool trusted = true;
  std::string untrusted;             // one line: why no winner may be named on it
  // Significant and trusted.
  bool decisive() const { return trusted && ratio.significant; }
};

void to_json(nlohmann::json& j, const SpeedComparison& c);
void from_json(const nlohmann::json& j, SpeedComparison& c);

// The median of the known (>= 0) values; -1 when none is known.
double median_known(const std::vector<double>& v);

// One member's rounds as measured.
struct MemberSeries {
  std::string label;
  std::vector<double> ms, mhz, mj;
  long long reasons = 0;
  int discarded = 0;
  std::string problem;  // the first run that could not hold the regime: its sentence
};

struct Tournament {
  Regime regime = Regime::unnamed;
  std::vector<MemberSeries> members;         // [0] the baseline
  std::vector<std::vector<int>> order;       // per round, the members in the order they ran
  std::vector<SpeedComparison> candidates;   // members[i + 1] against the baseline
  int rounds = 0;
  int runs = 0;
  double seconds = 0;                        // the whole tournament, warm-up included
  double warm_seconds = 0;
  bool served = false;
  int pause_ms = 0;
  std::string stop;                          // why it stopped, one phrase
  int leader = -1;                           // candidates[] index with the largest speedup; -1: none
};

// Candidate i's per-round series from the members' (it ran every round until it left
// the race, so they are the baseline's first rounds) and the tournament's facts.
void fill_series(SpeedComparison& c, const Tournament& t, std::size_t i);

// The candidates' per-round data is written once, in `members`; reading rebuilds it.
void to_json(nlohmann::json& j, const Tournament& t);
void from_json(const nlohmann::json& j, Tournament& t);

// An attempt's re-check by the judge: only finalists have one.
struct Recheck {
  std::optional<double> one_shot_speedup;  // the screening's speedup, before the judge
  std::string error;                    // a rebuild or a tournament failed: why ("" none)
  // Its comparison in each regime measured, in the order measured (burst, then
  // sustained); the first is the attempt's speedup. Empty: the judge measured nothing.
  std::vector<SpeedComparison> regimes;
  std::string untrusted;                // the first untrusted regime's reason ("" none)

  const SpeedComparison* first() const { return regimes.empty() ? nullptr : &regimes.front(); }
};

// The first comparison's keys at the top level, every named regime's under "regimes".
void to_json(nlohmann::json& j, const Recheck& r);
void from_json(const nlohmann::json& j, Recheck& r);

struct JudgeFinalist {
  int iteration = 0;
  std::string label;
  double one_shot_speedup = 0;
};

// The run's judge: the finalists and one tournament per regime, or why there was none.
struct JudgeRecord {
  std::vector<JudgeFinalist> finalists;
  std::vector<Tournament> tournaments;
  std::optional<double> seconds;        // the tournaments' wall time, when any ran
  std::string why_none;                 // no finalist: why ("" when there were finalists)
};

void to_json(nlohmann::json& j, const JudgeRecord& r);
void from_json(const nlohmann::json& j, JudgeRecord& r);

}  // namespace swz
