// Optimizer: the loop's state machine. Measure the unswizzled baseline, then per
// iteration: propose -> validate the region (once, here, where it enters) -> the
// attempt pipeline (check, build, evaluate, profile: the screening) -> record the
// attempt (history saved atomically, best.hip rewritten, observers told). After the
// search, the finalists (loop/finalists) and the baseline go to the speed judge's
// tournament (loop/speed_judge), once; its verdicts name the best. Ctrl-C
// stops at a clean point; a resumed run continues without repeating a finished
// attempt. The run's settings are its history's RunConfig; the engine writes no
// report itself (observers do: loop/run_observer.h).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/loop/attempt_pipeline.h"
#include "swizzleperf/loop/build_pool.h"
#include "swizzleperf/loop/run_observer.h"
#include "swizzleperf/loop/run_state.h"
#include "swizzleperf/loop/run_summary.h"
#include "swizzleperf/proposer/proposer.h"

namespace swz {

class Optimizer {
 public:
  Optimizer(Backend& backend, Proposer& proposer, ProcessRunner& runner, RunState state,
            std::vector<RunObserver*> observers = {});
  // An Error of kind interrupted when Ctrl-C stopped the baseline; other Errors: the
  // run could not go on (its history, when one exists, says "failed").
  Result<OptimizeSummary> run();

 private:
  Status start();             // a new run: run dir, device query, first save
  Status measure_baseline();
  MeasureSetup measure_setup(const ProgramInfo& program) const;
  // One iteration: propose, validate, the pipeline. Error: the machine failed (not
  // recorded; resume redoes it). nullopt: interrupted, or the proposer is exhausted.
  Result<std::optional<Attempt>> next_attempt(int iteration);
  // The pipeline's stages for a candidate whose region was validated, into `a` (its
  // proposal fields set).
  StageResult evaluate(Attempt& a, const Candidate& candidate, const ValidRegion& region,
                       const std::filesystem::path& dir);
  // The judge over the finalists (loop/finalist_judge), once the search is over (again on
  // a resume that added attempts); its record into the history. Error: the machine failed.
  Status judge_finalists();
  Status record(Attempt a);      // append, save, best.hip, observers
  Status write_best();
  Status save();
  Status fail_run(Error e);
  // The machine, not a candidate, failed (a full disk): the one line that says so.
  Error machine_failure(const std::string& why) const;      // state "failed", saved; returns e (or the save's error)
  OptimizeSummary summary() const;
  void prefetch_lookahead(const ProposalContext& ctx);
  // The locality model for the run's program and size (model/): its footprint section
  // compiled on the host; none (a log line says why) when the program declares no footprint.
  void load_predictor(const ProgramInfo& program);
  ProposalContext proposal_context(TileGrid grid, const std::filesystem::path& dir, int iteration) const;
  std::filesystem::path attempt_dir(int iteration) const;
  std::filesystem::path baseline_dir() const { return state_.run_dir / "baseline"; }
  // The name of a program copy in an attempt dir: kernel.hip, or kernel.py for a Triton program.
  std::string best_name() const { return std::string("best") + source_extension(state_.kernel.language()); }
  std::string source_name() const { return std::string("kernel") + source_extension(state_.kernel.language()); }

  Backend& backend_;
  Proposer& proposer_;
  ProcessRunner& runner_;
  RunState state_;
  std::vector<RunObserver*> observers_;
  HardwareProfile hw_;
  std::unique_ptr<AttemptPipeline> pipeline_;  // once the program's info is known
  std::unique_ptr<BuildPool> pool_;            // lives for one run()
  std::shared_ptr<const LocalityPredictor> predictor_;  // null: the program declares no footprint
  RunEnd end_ = RunEnd::completed;
};

}  // namespace swz
