// AttemptPipeline: the stages one swizzle goes through, as named steps with a
// typed result, used alike by optimize (every candidate and the baseline), gate
// (its one committed candidate, through the optimizer) and sweep (per size):
//
//   check     host mapping check on the candidate's grid and ragged neighbours;
//             identity and earlier mappings are duplicates (no GPU time)
//   build     through the BuildPool (a build prefetched ahead is taken), with the
//             candidate's defines
//   evaluate  verify against the CPU reference, full-size output against the
//             baseline's reference (loop/output_check), time: one `evaluate`
//             process when the program has that mode, else three
//   judge     the finalists and the baseline in one interleaved tournament per
//             power regime the run measures (burst, sustained or both): each
//             finalist's speedup, its 95 % interval, whether it excludes 1.0 and
//             can be trusted, the clocks and the energy ratio (loop/speed_judge,
//             docs/timing.md). optimize judges its finalists once, after the
//             search; gate and sweep judge their one candidate (recheck).
//   profile   the profiler's metrics over the run's launch window
//
// A tuning point (a candidate whose defines change the program's own configuration)
// goes build -> info (its program's own info line: grid, launches, tolerance, kernel
// filter; Attempt::program_info) -> check on that grid -> evaluate without the output
// comparison: a new tile changes the reduction order, so the point is verified against
// the CPU reference with the program's tolerance at the verify sizes, never compared bit
// for bit with the baseline (ValidationRecord::full_size_output says so) -> profile.
//
// A Candidate (core/candidate.h) enters at check (a tuning point at build). Each stage writes what it learns
// into its typed part of the Attempt (its record in the history; core/attempt_parts.h):
// check -> mapping, predicted; build -> build; evaluate -> validation, timing, speedup;
// judge -> recheck (core/judge_record.h) and the verdict; profile -> metrics. The
// stage's wall time goes into stage_seconds, and its artefacts into the attempt's
// directory. A StageResult says whether to go on: a candidate's failure sets the
// attempt's status and reason; a failure of the machine (an artefact that cannot
// be written: a full disk) is `environment`, which stops the run instead of
// blaming the candidate. Region code arrives as a ValidRegion only.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/model/locality_predictor.h"
#include "swizzleperf/core/candidate.h"
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/core/program_info.h"
#include "swizzleperf/core/run_config.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/loop/build_pool.h"
#include "swizzleperf/loop/speed_judge.h"

namespace swz {

// What every stage of one measurement setting needs: fixed for a run (optimize,
// gate) or for one size (sweep).
struct MeasureSetup {
  HardwareProfile hw;
  // The program's info line at this size: dump tolerance, kernel filter, launches, and
  // the grid of a candidate without defines (a candidate's own grid: Candidate::grid).
  ProgramInfo program;
  LaunchWindow window;              // which launches a profile collects
  std::vector<int> size;            // --size for the program; empty: its default
  int time_reps = 30;
  int warmup = 5;
  int recheck_rounds = 6;           // the judge's least rounds per regime (0: no judge)
  int max_rounds = kDefaultMaxRounds;
  double judge_s = kDefaultJudgeSeconds;  // the judge's time budget per regime
  RegimeSettings timing;            // the regimes measured and their rules
  Objective objective = Objective::time;  // energy: the one-shot timing is sustained
  std::string host_cxx = "c++";
  std::filesystem::path baseline_dir;  // the baseline's attempt dir: its output reference
  RegionLanguage language = RegionLanguage::cpp;  // the program's: its copies are kernel.hip or kernel.py
  // The locality model for this program, size and machine; null when the program declares
  // no footprint. The check stage records each attempt's prediction (Attempt::predicted).
  std::shared_ptr<const LocalityPredictor> predictor;
  // The program's own configuration (tune/tune_space: its tunables' declared values): a
  // candidate whose defines all equal these is the program as written, not a tuning point.
  Defines own_defines;
  int profile_launches = 24;        // the most launches a profile collects (a point's window)
  bool profile_each = true;         // profile every screened candidate (else only the baseline and the winner)
};

// The message a tuning point's validation record carries instead of an output comparison.
inline constexpr const char* kPointNotCompared =
    "not compared with the baseline's output: the point's defines change the program's configuration "
    "(and its reduction order); verified against the CPU reference with the program's tolerance at the "
    "verify sizes";

enum class StageEnd {
  passed,       // go on to the next stage
  failed,       // the candidate failed: the attempt's status and reason say why
  environment,  // the machine failed (reason says how): stop the run, record nothing
  interrupted,  // Ctrl-C: stop, record nothing
};

struct StageResult {
  StageEnd end = StageEnd::passed;
  std::string reason;  // environment: the one-line cause
  bool passed() const { return end == StageEnd::passed; }
};

class AttemptPipeline {
 public:
  AttemptPipeline(Backend& backend, ProcessRunner& runner, MeasureSetup setup);

  const MeasureSetup& setup() const { return setup_; }
  // {"--size", "a,b,c"} or empty.
  std::vector<std::string> size_args() const;
  // {"time", "--reps", R, "--warmup", W, size args..., the regime rules' options}:
  // what the re-check gives both programs (it names the regime per request).
  std::vector<std::string> time_args() const;
  // time_args() and `--regime R` of the one-shot timing (RegimeSettings::screening).
  std::vector<std::string> screening_args() const;

  // The program's info line at the setup's size (the baseline's binary), written to dir/info.json.
  Result<ProgramInfo> read_info(const std::filesystem::path& exe, const std::filesystem::path& dir);

  // Host mapping check of `candidate` (its region validated as `region`) on its grid
  // (grid_of) and the ragged neighbours; sets a.mapping (the report, the mapping hash,
  // the tile map), a.defines and a.predicted (not for a tuning point: the model describes
  // the program's own configuration). A duplicate: the identity on that grid
  // (a candidate without defines), or an attempt of `earlier` with the same
  // duplicate key (defines, mapping hash).
  StageResult check(Attempt& a, const Candidate& candidate, const ValidRegion& region,
                    const std::filesystem::path& dir, const std::vector<Attempt>& earlier);
  // The grid a candidate is checked on: its own, or the program's when it has none.
  TileGrid grid_of(const Candidate& candidate) const;
  // Does the candidate change the program's configuration (a define that is not one of the
  // program's own values)? Such a point takes the tuning path above.
  bool is_tuning_point(const Candidate& candidate) const;
  // Every stage of one candidate whose region was validated (`region`) and spliced into
  // `source`: check, build, evaluate, profile (when profile_each), or for a tuning point
  // build, point_info, check, evaluate_point, profile. The attempt's status and reason
  // say where a candidate failed.
  StageResult run_candidate(Attempt& a, Candidate candidate, const ValidRegion& region, BuildPool& pool,
                            const std::string& source, const std::filesystem::path& dir,
                            const std::vector<Attempt>& earlier, const Attempt& baseline);
  // A tuning point's own info line from its build (dir/info.json): sets a.program_info and
  // the candidate's grid. A program that cannot say it fails the point (run_failed).
  StageResult point_info(Attempt& a, Candidate& candidate, const std::filesystem::path& exe,
                         const std::filesystem::path& dir);
  // Builds `source` (the spliced kernel) to dir/kernel, taking a prefetched build if
  // the pool has one; sets a.build (BuildRecord) and the build log.
  StageResult build(Attempt& a, BuildPool& pool, const std::string& source, const std::filesystem::path& dir,
                    const Defines& defines = {});
  // The baseline: verify, record the output reference in dir, time.
  StageResult measure_reference(Attempt& a, const std::filesystem::path& exe, const std::filesystem::path& dir);
  // A candidate: verify, its output against `baseline`'s reference, time; sets
  // a.timing and a.speedup (one-shot, against baseline's median).
  StageResult evaluate(Attempt& a, const std::filesystem::path& exe, const std::filesystem::path& dir,
                       const Attempt& baseline);
  // A tuning point: verify (the CPU reference, at the verify sizes) and time, in one
  // `evaluate` process without compare options (its hash part is not judged) or in two
  // processes; sets a.timing, a.speedup and validation.full_size_output (kPointNotCompared).
  StageResult evaluate_point(Attempt& a, const std::filesystem::path& exe, const std::filesystem::path& dir,
                             const Attempt& baseline);
  // The judge's tournament, once per regime measured, over the baseline (baseline_exe)
  // and the finalists (finalists[i]'s program at exes[i]); sets each finalist's
  // speedup, its interval, significant, energy ratio and its `recheck` record (every
  // regime's comparison). Returns the tournaments, for the history. A tournament that
  // fails (a request failed) is recorded in each finalist's Recheck::error and leaves
  // the regimes measured before it: it never fails an attempt.
  std::vector<Tournament> judge(const std::vector<Attempt*>& finalists, const std::vector<std::filesystem::path>& exes,
                                const std::filesystem::path& baseline_exe);
  // judge() with one finalist (gate, sweep).
  StageResult recheck(Attempt& a, const std::filesystem::path& exe, const std::filesystem::path& baseline_exe);
  // The judge's settings from the setup.
  JudgeSettings judge_settings() const;
  // The profiler over the attempt's program's kernels and launch window (its own info line
  // for a tuning point, else the setup's).
  StageResult profile(Attempt& a, const std::filesystem::path& exe, const std::filesystem::path& dir);

 private:
  // How the full-size output is checked: recorded (the baseline), compared with the
  // baseline's reference (a candidate), or not at all (a tuning point).
  enum class OutputStage { record, compare, skip };
  StageResult evaluate_with(Attempt& a, const std::filesystem::path& exe, const std::filesystem::path& dir,
                            const Attempt& baseline, OutputStage output);
  StageResult evaluate_one_process(Attempt& a, const std::filesystem::path& exe, const std::filesystem::path& dir,
                                   const Attempt& baseline, OutputStage output, bool& unsupported);
  StageResult evaluate_three_processes(Attempt& a, const std::filesystem::path& exe, const std::filesystem::path& dir,
                                       const Attempt* baseline, OutputStage output);

  Backend& backend_;
  ProcessRunner& runner_;
  MeasureSetup setup_;
  bool evaluate_unsupported_ = false;  // the program answered evaluate with a usage error
  // The identity table's hash on a grid, made once per grid (candidates may differ in grid).
  const std::string& identity_hash(TileGrid grid);
  std::map<std::pair<unsigned, unsigned>, std::string> identity_hashes_;
};

// Identity pid -> tile table's hash on `grid`, as check() stores mapping hashes.
std::string identity_mapping_hash(TileGrid grid);

}  // namespace swz
