// Optimizer: the loop. Measure the unswizzled baseline, then per iteration:
// propose -> mapping check (host) -> splice -> build -> verify + compare the
// full-size output with the baseline's + time (one `prog evaluate` process for a
// candidate, three modes for the baseline) -> profile -> append to the
// history (atomically) -> keep the best validated kernel. Ctrl-C stops at a
// clean point; --resume continues without repeating a finished attempt.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/loop/build_pool.h"
#include "swizzleperf/proposer/proposer.h"

namespace swz {

struct OptimizeOptions {
  std::filesystem::path kernel;
  std::filesystem::path run_dir;     // created; must not already hold a run
  bool resume = false;               // run_dir holds a run to continue
  int iterations = 10;               // attempts that reach the GPU or the check (duplicates excluded)
  int time_reps = 30;
  int warmup = 5;
  std::vector<int> size;             // --size for the program (empty: its default)
  std::string host_cxx = "c++";
  Objective objective = Objective::time;  // what "best" means; recorded as config["objective"]
  int recheck_rounds = 6;            // interleaved A B rounds for a candidate that could become best (0: off)
  bool recheck_every_candidate = false;  // re-check every validated candidate (gate: its one candidate)
  int build_jobs = 0;                // concurrent builds incl. prefetch; 1 = serial; 0 = BuildPool::default_jobs()
  nlohmann::json config = nlohmann::json::object();  // recorded in the history
};

struct OptimizeSummary {
  RunHistory history;
  std::filesystem::path run_dir;
  std::filesystem::path best_kernel;  // best.hip; under --objective time with no significant
                                      // speedup it holds the original kernel; empty when none written
  bool interrupted = false;
  bool improved() const;              // best beats the baseline's L2 hit rate or time
  // Why the run judged no candidate at all ("" when it judged at least one): every
  // proposal failed (e.g. the LLM stopped answering) or the proposer had nothing to
  // propose. Such a run measured nothing it was asked to: optimize and suite exit 2.
  std::string unmeasured() const;
};

// One attempt's evaluation: used for the baseline (identity region) and candidates.
class Optimizer {
 public:
  Optimizer(Backend& backend, Proposer& proposer, ProcessRunner& runner, OptimizeOptions options);
  Result<OptimizeSummary> run();

 private:
  Status prepare();
  Status measure_baseline();
  // grid_, kernel_regex_, dump_tol_ and the profile window from the program's info in
  // the history's config; an Error when its grid is not one (see make_tile_grid).
  Status read_program_info();
  std::filesystem::path attempt_dir(int iteration) const;  // run_dir/iter-NNN
  Attempt evaluate(int iteration, const Proposal& proposal, const std::filesystem::path& dir);
  bool finish_attempt_stages(Attempt& a, const std::filesystem::path& dir, const std::filesystem::path& exe);
  // verify + output check + time as one `prog evaluate` process (a candidate). true:
  // all passed (a.timing set); false: a's status and reason say why; nullopt: the
  // program has no evaluate mode or the reference is a dump (use the separate modes).
  std::optional<bool> evaluate_in_one_process(Attempt& a, const std::filesystem::path& dir,
                                              const std::filesystem::path& exe);
  Status save();
  void update_best();
  std::string environment_failure_;  // set when the machine, not a candidate, failed an attempt (disk full)
  // Interleaved re-check against the baseline binary for a candidate that could
  // become best under the objective; sets speedup, its interval and significant.
  void recheck_speed(Attempt& a, const std::filesystem::path& exe);
  bool could_become_best(const Attempt& a) const;
  std::filesystem::path baseline_exe() const { return opt_.run_dir / "baseline" / "kernel"; }
  std::vector<std::string> time_args() const;
  void prefetch_lookahead(const ProposalContext& ctx);  // builds the proposer's next candidates ahead
  std::vector<std::string> size_args() const;

  Backend& backend_;
  Proposer& proposer_;
  ProcessRunner& runner_;
  OptimizeOptions opt_;
  std::optional<KernelSource> kernel_;
  HardwareProfile hw_;
  RunHistory history_;
  TileGrid grid_;
  std::string kernel_regex_;
  double dump_tol_ = 0;
  LaunchWindow window_;  // which launches a profile collects (profile_window)
  bool evaluate_unsupported_ = false;  // the program answered evaluate with a usage error
  std::filesystem::path history_path_;
  std::unique_ptr<BuildPool> pool_;  // lives for one run()
};

// Byte-exact comparison, or float32 comparison within a relative tolerance when tol > 0.
// Returns an empty string when equal, else a one-line description of the difference.
std::string compare_outputs(const std::filesystem::path& a, const std::filesystem::path& b, double tol);

}  // namespace swz
