// History: the record of one optimize run, one JSON file per run, rewritten
// atomically (temp file + fsync + rename) after every attempt so a crash or
// Ctrl-C never loses a finished attempt and --resume can continue. A file that
// is corrupt or was not written by swizzleperf is refused, never overwritten.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/attempt_parts.h"
#include "swizzleperf/core/candidate.h"
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/judge_record.h"
#include "swizzleperf/core/program_info.h"
#include "swizzleperf/core/run_config.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/hash.h"
#include "swizzleperf/util/text.h"
#include "swizzleperf/core/metrics.h"
#include "swizzleperf/util/result.h"

namespace swz {

// 2: "config" is RunConfig's serialisation (typed keys, a record of resume
// changes), the program's info line is "program_info" beside it, and why the run
// stopped is "stopped_because". 1 (read, never written): all three inside config.
inline constexpr int kHistorySchemaVersion = 2;
inline constexpr const char* kHistoryFormat = "swizzleperf-history";

// Outcome of one attempt; only "ok" attempts are candidates for best.
enum class AttemptStatus {
  ok,
  proposal_failed,    // the proposer produced nothing usable
  rejected_mapping,   // not a bijection (or did not compile on the host)
  rejected_region,    // the region validator refused the code: nothing was compiled or run
  duplicate,          // same mapping as an earlier attempt
  build_failed,
  validation_failed,  // verify mode failed or full-size output differs from the baseline
  run_failed,         // crash, timeout
  profile_failed,
};
std::string to_string(AttemptStatus s);
std::optional<AttemptStatus> attempt_status_from_string(const std::string& s);

struct Attempt {
  int iteration = 0;                 // 0 = baseline
  std::string proposer;              // "baseline", "builtin", "llm"
  std::string label;                 // e.g. "grouped_m(g=8)"
  AttemptStatus status = AttemptStatus::ok;
  std::string reason;                // one line when status != ok
  std::string region;                // the region code tried
  std::string diff;                  // unified diff against the original region
  // Build defines the candidate was built with (core/candidate.h: a tuning point); with
  // the mapping hash they are the duplicate key. Empty: the program as written (not
  // written then). history.json holds integers; the first form, strings of digits, reads too.
  Defines defines;
  // A candidate with defines: its own program's info line (its grid, launches, tolerance,
  // kernel filter), read after its build. Absent: the program's (RunHistory::program_info).
  std::optional<ProgramInfo> program_info;
  // Each stage's typed part (core/attempt_parts.h); absent: the stage did not run.
  ProposalRecord proposal;                 // what the proposer said (reasoning, critique, LLM usage)
  std::optional<MappingRecord> mapping;    // check: the host mapping check
  std::optional<BuildRecord> build;        // build
  ValidationRecord validation;             // evaluate: verify, the output comparison
  std::optional<Metrics> metrics;
  std::optional<Timing> timing;
  std::optional<double> speedup;     // baseline median / this median, same run; for a re-checked
                                     // attempt the interleaved estimate (median per-round ratio)
  // The interleaved re-check (loop/speed_judge), only for candidates that could become
  // best: 95 % interval of the speedup and whether it excludes 1.0. Absent (null in
  // reports) when the attempt was not re-checked.
  std::optional<double> speedup_ci_low;
  std::optional<double> speedup_ci_high;
  std::optional<bool> significant;
  // The regime the speedup above was measured in (burst | sustained | unnamed).
  // With --regime both it is burst's, and `significant` holds only when every regime's
  // interval excludes 1.0 on the same side and every measurement could be trusted;
  // recheck->regimes has each regime's comparison.
  Regime speedup_regime = Regime::unnamed;
  // Energy per run against the baseline's (candidate / baseline: < 1 uses less),
  // from sustained measurements: one-shot, then the re-check's interval.
  std::optional<double> energy_ratio;
  std::optional<double> energy_ci_low;
  std::optional<double> energy_ci_high;
  std::optional<bool> energy_significant;
  // judge: the re-check's per-regime comparisons with their per-round data (only finalists).
  std::optional<Recheck> recheck;
  // The locality model's prediction for this order (model/prediction.h), made in the
  // check before it ran; absent when the program declares no footprint. Kept beside
  // `metrics` so every run measures the model's error.
  std::optional<PredictionSummary> predicted;
  std::map<std::string, double> stage_seconds;  // propose, check, build, verify, time, profile
  std::string started_at;            // ISO-8601 UTC
  double wall_seconds = 0;

  bool validated() const { return status == AttemptStatus::ok; }
  // Two attempts with the same key compute the same thing: the build defines and the
  // mapping's hash on the candidate's grid ("" : not checked or not a bijection).
  std::pair<Defines, std::string> duplicate_key() const {
    return {defines, mapping ? mapping->mapping_hash : std::string()};
  }
};

void to_json(nlohmann::json& j, const Attempt& a);
void from_json(const nlohmann::json& j, Attempt& a);

// True when the attempt was re-checked and is significantly faster than the baseline.
bool significantly_faster(const Attempt& a);
// True when the attempt was re-checked and is significantly slower than the baseline.
bool significantly_slower(const Attempt& a);
// True when the attempt was re-checked and uses significantly less energy per run.
bool significantly_less_energy(const Attempt& a);
// Can the attempt be a run's best under the objective? Validated, and under time also
// significantly faster, under energy significantly less energy. RunHistory::best() and report.html's best-so-far line use it.
bool eligible_for_best(const Attempt& a, Objective objective);
// The screening's numbers from the two one-shot timings: speedup (baseline median / a's),
// its regime, and the energy ratio when both timings have energy. Nothing when either
// timing is missing. Set after evaluate, and again when a judge's verdict is undone.
void set_one_shot(Attempt& a, const Attempt& baseline);

struct RunHistory {
  int schema_version = kHistorySchemaVersion;
  std::string kernel_path;
  std::string kernel_name;
  std::string original_region;
  std::string kernel_hash;           // "fnv1a64:..." of the whole kernel file; resume refuses a changed kernel
  RunConfig config;                  // every setting of the run (core/run_config.h)
  ProgramInfo program_info;          // the program's info line, from the baseline
  std::optional<HardwareProfile> hardware;  // the device (absent: the run never queried it)
  std::string created_at;
  std::string updated_at;
  std::string state = "running";     // running | completed | interrupted | failed
  std::string stopped_because;       // why the last session stopped before its budget ("" : it did not)
  double last_session_wall_s = 0;    // the last session's wall time
  std::optional<Attempt> baseline;
  std::vector<Attempt> attempts;     // iteration 1..N in order
  // The speed judge's record (core/judge_record.h: the finalists, then per regime its
  // tournament: every member's rounds, clocks and energies, the order they ran in, each
  // finalist's ratios and verdict, why it stopped); absent until a judge ran.
  // judged_attempts: attempts.size() when it ran (a resume that adds attempts judges again).
  std::optional<JudgeRecord> judge;
  int judged_attempts = 0;

  // The run's objective (config.objective; a history written before the option
  // existed was ranked by L2 and keeps that ranking).
  Objective objective() const { return config.objective; }
  // Best validated attempt under objective() (see Objective). nullptr when there is
  // none (nothing validated; under time also when nothing is significantly faster).
  // The baseline is not a candidate.
  const Attempt* best() const;
  const Attempt* best(Objective objective) const;
  int next_iteration() const { return attempts.empty() ? 1 : attempts.back().iteration + 1; }
  // Attempts that count toward the iteration budget: all but duplicates.
  int counted_attempts() const;
};

void to_json(nlohmann::json& j, const RunHistory& h);
void from_json(const nlohmann::json& j, RunHistory& h);

// Writes to path.tmp, fsyncs, renames over path.
Status save_history(const std::filesystem::path& path, const RunHistory& history);
// Refuses: unreadable, not JSON, not a swizzleperf history, newer schema.
Result<RunHistory> load_history(const std::filesystem::path& path);
// The same checks on the file's bytes; `name` (the path) goes into the errors.
// load_history is read_file + this; the fuzz target tests/fuzz/fuzz_history.cpp calls it.
Result<RunHistory> parse_history(std::string_view text, const std::string& name = "history.json");

// Ranking used by best(): true when a is better than b. Without an objective: the
// L2 ranking (highest L2 hit rate, then lowest median time). Under time both must be
// significantly faster (best() only compares those): largest speedup, then L2.
bool better_attempt(const Attempt& a, const Attempt& b);
bool better_attempt(const Attempt& a, const Attempt& b, Objective objective);


}  // namespace swz
