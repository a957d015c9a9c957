// The optimize loop's state machine. Every stage's failure becomes an attempt
// status with a one-line reason (loop/attempt_pipeline); only a failing baseline,
// a fatal proposer error or the machine (an unwritable history, report or
// artefact) stop the run. The history is saved after every attempt; an attempt
// cut short by Ctrl-C or by the machine is not recorded, so a resume redoes it.
#include "swizzleperf/loop/optimizer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/loop/finalist_judge.h"
#include "swizzleperf/loop/locality_setup.h"
#include "swizzleperf/loop/measure_settings.h"
#include "swizzleperf/loop/tuned_program.h"
#include "swizzleperf/model/prediction.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

double secs_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The proposer's account beyond the fields the tool reads, kept as its JSON text.
void keep_account(ProposalRecord& r, const nlohmann::json& meta) {
  if (meta.is_object())
    for (const auto& [key, value] : meta.items()) r.account[key] = value.dump();
}

// The proposal's own words and its diff against the original region, for the record.
void describe_proposal(Attempt& a, const Proposal& p, const std::string& original_region) {
  a.label = p.label;
  a.region = p.region;
  keep_account(a.proposal, p.meta);
  a.proposal.account["critique"] = p.critique.dump();
  a.proposal.family = p.family;
  a.proposal.param = p.param;
  a.proposal.reasoning = p.reasoning;
  a.proposal.rationale = p.rationale;
  a.diff = unified_diff(original_region, p.region, "original/region", fmt::format("iter-{:03}/region", a.iteration));
}

}  // namespace

Optimizer::Optimizer(Backend& backend, Proposer& proposer, ProcessRunner& runner, RunState state,
                     std::vector<RunObserver*> observers)
    : backend_(backend), proposer_(proposer), runner_(runner), state_(std::move(state)),
      observers_(std::move(observers)) {}

Error Optimizer::machine_failure(const std::string& why) const {
  return make_error(why + " (the run stopped; free space, then continue with --resume " + state_.run_dir.string() + ")");
}

Status Optimizer::save() { return save_history(state_.run_dir / "history.json", state_.history); }

Status Optimizer::fail_run(Error e) {
  state_.history.state = "failed";
  if (auto st = save(); !st) e.message += " (and the history could not be saved: " + st.error().message + ")";
  return e;
}

fs::path Optimizer::attempt_dir(int iteration) const { return state_.run_dir / fmt::format("iter-{:03}", iteration); }

MeasureSetup Optimizer::measure_setup(const ProgramInfo& program) const {
  const RunConfig& c = state_.history.config;
  MeasureSetup s = measure_setup_from(c);
  s.hw = hw_;
  s.language = state_.kernel.language();
  s.program = program;
  // The run's window, fixed when its baseline was profiled: every attempt is
  // profiled over the baseline's launches.
  s.window = profile_window(program.launches, c.profile_launches);
  s.baseline_dir = baseline_dir();
  s.predictor = predictor_;
  s.own_defines = own_configuration(state_.kernel);
  s.profile_each = profile_each(c, proposer_.name());
  return s;
}

ProposalContext Optimizer::proposal_context(TileGrid grid, const fs::path& dir, int iteration) const {
  ProposalContext ctx{state_.kernel, grid, hw_, state_.history, dir, state_.run_dir, iteration};
  ctx.predictor = predictor_.get();
  return ctx;
}

void Optimizer::load_predictor(const ProgramInfo& program) {
  const RunConfig& c = state_.history.config;
  if (predictor_ || c.locality_model != "on") return;
  predictor_ = load_locality_predictor(backend_, runner_, state_.kernel, c, hw_, program, baseline_dir() / "kernel");
}

Status Optimizer::start() {
  const fs::path& dir = state_.run_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create run dir " + dir.string() + ": " + ec.message());
  if (auto st = write_file_atomic(dir / ".probe-write", ""); !st)
    return make_error("run dir " + dir.string() + " is not writable: " + st.error().message);
  fs::remove(dir / ".probe-write", ec);
  fs::create_directories(dir / "hardware", ec);
  auto hw = backend_.query_device(dir / "hardware");
  if (!hw) return hw.error();
  hw_ = std::move(hw.value());
  state_.history.hardware = hw_;
  if (auto st = write_file_atomic(dir / "hardware.json", nlohmann::json(hw_).dump(2) + "\n"); !st) return st;
  spdlog::info("device: {}", hw_.summary());
  return save();
}

Status Optimizer::measure_baseline() {
  const auto dir = baseline_dir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  const auto t0 = std::chrono::steady_clock::now();
  Attempt a;
  a.proposer = "baseline";
  a.label = "identity (original region)";
  a.region = state_.kernel.region();
  a.started_at = now_iso8601();
  if (auto st = write_file_atomic(dir / source_name(), state_.kernel.text()); !st)
    return make_error(st.error().message + " (the baseline was not built; free space or choose a writable --run-dir)");
  auto built = backend_.build({dir / source_name(), dir / "kernel", hw_.num_dies, hw_.arch});
  if (!built) return built.error();
  a.stage_seconds["build"] = built->seconds;
  a.build = BuildRecord{built->ok, built->seconds, tail_lines(built->log, 20), std::nullopt};
  if (auto st = write_file_atomic(dir / "build.log", format_argv(built->argv) + "\n" + built->log); !st) return st;
  if (!built->ok)
    return make_error("the original kernel does not build: " + built->failure + " (see " + (dir / "build.log").string() + ")");
  // The program says its grid, output tolerance and launches; every stage after needs them.
  auto info = AttemptPipeline(backend_, runner_, measure_setup({})).read_info(dir / "kernel", dir);
  if (!info) return info.error();
  state_.history.program_info = *info;
  load_predictor(*info);
  if (predictor_) {  // the baseline's prediction: its own region's order
    MappingCheckOptions mo{state_.history.config.host_cxx, dir / "mapping", std::chrono::seconds(60)};
    auto report = check_mapping(a.region, {info->grid}, hw_, mo, runner_, state_.kernel.language());
    if (report && report->ok)
      if (auto p = predictor_->predict(report->grids.front().mapping, a.label)) a.predicted = prediction_summary(*p);
  }
  pipeline_ = std::make_unique<AttemptPipeline>(backend_, runner_, measure_setup(*info));
  // The grid is known now: the first candidates build while the baseline is measured.
  const int next = state_.history.next_iteration();
  prefetch_lookahead(proposal_context(info->grid, attempt_dir(next), next));
  StageResult r = pipeline_->measure_reference(a, dir / "kernel", dir);
  if (r.passed()) r = pipeline_->profile(a, dir / "kernel", dir);
  if (r.end == StageEnd::interrupted || interrupt_requested()) return interrupted_error();
  if (r.end == StageEnd::environment) return make_error(r.reason + " (free space or choose a writable --run-dir)");
  if (r.end == StageEnd::failed)
    return make_error("the unswizzled baseline could not be measured (" + to_string(a.status) + "): " + a.reason);
  a.wall_seconds = secs_since(t0);
  a.speedup = 1.0;
  state_.history.baseline = a;
  return save();
}

StageResult Optimizer::evaluate(Attempt& a, const Candidate& candidate, const ValidRegion& region, const fs::path& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  const StageResult end = [&]() -> StageResult {
    auto spliced = state_.kernel.splice(region.code());
    if (!spliced) {
      a.status = AttemptStatus::proposal_failed;
      a.reason = spliced.error().message;
      return {StageEnd::failed, ""};
    }
    // Only the region changes (a point's defines go to its build); the machine's failure to
    // write it stops the run.
    if (auto st = write_file_atomic(dir / source_name(), *spliced); !st) return {StageEnd::environment, st.error().message};
    return pipeline_->run_candidate(a, candidate, region, *pool_, *spliced, dir, state_.history.attempts,
                                    *state_.history.baseline);
  }();
  // Binaries are large; the source and logs stay. A validated one waits for the judge.
  std::error_code ec;
  if (!a.validated()) fs::remove(dir / "kernel", ec);
  a.wall_seconds = secs_since(t0);
  return end;
}

Result<std::optional<Attempt>> Optimizer::next_attempt(int iteration) {
  const auto dir = attempt_dir(iteration);
  std::error_code ec;
  fs::create_directories(dir, ec);
  const ProposalContext ctx = proposal_context(state_.history.program_info.grid, dir, iteration);
  prefetch_lookahead(ctx);  // this proposal's build too, if the baseline has not started it
  const auto p0 = std::chrono::steady_clock::now();
  auto proposal = proposer_.propose(ctx);
  const double propose_s = secs_since(p0);
  if (interrupt_requested()) {
    end_ = RunEnd::interrupted;
    return std::optional<Attempt>();
  }
  Attempt a;
  a.iteration = iteration;
  a.proposer = proposer_.name();
  a.started_at = now_iso8601();
  if (!proposal) {
    if (proposal.error().exhausted()) {
      state_.history.stopped_because = proposal.error().stop_reason.empty()
          ? "the " + proposer_.name() + " proposer has no untried pattern left" : proposal.error().stop_reason;
      end_ = RunEnd::exhausted;
      return std::optional<Attempt>();
    }
    if (proposal.error().fatal) return proposal.error();
    a.status = AttemptStatus::proposal_failed;
    a.reason = proposal.error().message;
    // A failed LLM call still cost tokens and time (the full exchange is in reply.json).
    keep_account(a.proposal, proposer_.failure_meta());
  } else {
    describe_proposal(a, *proposal, state_.history.original_region);
    if (auto st = write_file_atomic(dir / "region.diff", a.diff); !st) return machine_failure(st.error().message);
    // The proposal's region enters the tool here: validated once, carried as a ValidRegion.
    RegionVerdict verdict;
    auto region = ValidRegion::make(proposal->region, state_.kernel.language(), &verdict);
    if (!region) {
      // Untrusted code that is not plain arithmetic is never compiled.
      a.status = verdict.ok ? AttemptStatus::rejected_mapping : AttemptStatus::rejected_region;
      a.reason = verdict.ok ? region.error().message : verdict.message();
    } else {
      Candidate candidate = *proposal;  // the proposer's account stays in the record
      if (candidate.grid.num_pids() == 0) candidate.grid = ctx.grid;
      const StageResult end = evaluate(a, candidate, *region, dir);
      if (end.end == StageEnd::environment) return machine_failure(end.reason);
      if (end.end == StageEnd::interrupted || interrupt_requested()) {
        end_ = RunEnd::interrupted;
        return std::optional<Attempt>();
      }
      if (a.validated()) state_.valid_regions.insert_or_assign(iteration, std::move(*region));
    }
  }
  a.stage_seconds["propose"] = propose_s;
  a.wall_seconds += propose_s;
  return std::optional<Attempt>(std::move(a));
}

Status Optimizer::write_best() {
  const RunHistory& h = state_.history;
  const Attempt* best = h.best();
  std::string text;
  if (best) {
    const auto it = state_.valid_regions.find(best->iteration);
    if (it == state_.valid_regions.end())
      return make_error(fmt::format("attempt {} is best but its region was never validated", best->iteration));
    auto program = program_with(state_.kernel, it->second, best->defines);  // its parameters set
    if (!program) return program.error();
    text = std::move(*program);
  } else if (h.objective() != Objective::l2 && h.baseline) {
    text = state_.kernel.text();  // nothing significantly better: the original is the best kernel
  } else {
    return ok_status();
  }
  return write_file_atomic(state_.run_dir / best_name(), text);
}

Status Optimizer::record(Attempt a) {
  state_.history.attempts.push_back(std::move(a));
  if (auto st = save(); !st) return st;
  if (auto st = write_best(); !st) return st;
  for (auto* o : observers_)
    if (auto st = o->on_attempt(state_.history, state_.history.attempts.back()); !st) return st;
  return ok_status();
}

OptimizeSummary Optimizer::summary() const {
  OptimizeSummary s;
  s.history = state_.history;
  s.run_dir = state_.run_dir;
  s.end = end_;
  if (s.history.best() || (s.history.objective() != Objective::l2 && s.history.baseline))
    s.best_kernel = state_.run_dir / best_name();
  return s;
}

void Optimizer::prefetch_lookahead(const ProposalContext& ctx) {
  if (pool_->jobs() <= 1) return;
  // The proposal about to be made and the jobs() - 1 after it.
  for (const auto& p : proposer_.lookahead(ctx, pool_->jobs())) {
    auto region = ValidRegion::make(p.region, state_.kernel.language());
    if (!region) continue;  // never compile an unvalidated region
    auto spliced = state_.kernel.splice(region->code());
    if (!spliced) continue;
    // Never compile an unchecked region: the host mapping check gates the build.
    // A tuning point's grid is known once it is built: its gate checks the program's grid.
    const bool point = pipeline_ && pipeline_->is_tuning_point(p);
    const auto check_dir = state_.run_dir / "build-cache" / ("check-" + pool_->key({p.region, 0, "", ".hip", p.defines}));
    pool_->prefetch({*spliced, hw_.num_dies, hw_.arch, source_extension(state_.kernel.language()), p.defines},
                    [this, region = std::move(*region), check_dir, grid = !point && p.grid.num_pids() ? p.grid : ctx.grid] {
                      MappingCheckOptions mo{state_.history.config.host_cxx, check_dir, std::chrono::seconds(60)};
                      auto report = check_mapping(region, ragged_grids(grid), hw_, mo, runner_);
                      return report && report->ok;
                    });
  }
}

Status Optimizer::judge_finalists() {
  RunHistory& h = state_.history;
  if (h.config.recheck_rounds <= 0 || h.judged_attempts == static_cast<int>(h.attempts.size())) return ok_status();
  const RunDirs dirs{[this](int iteration) { return attempt_dir(iteration); }, baseline_dir(), source_name()};
  JudgeRecord record = swz::judge_finalists(h, *pipeline_, backend_, hw_, dirs);
  if (interrupt_requested()) return ok_status();  // not recorded: a resume judges again
  h.judge = std::move(record);
  if (!pipeline_->setup().profile_each) profile_winner(h, *pipeline_, backend_, hw_, dirs);
  if (interrupt_requested()) return ok_status();
  h.judged_attempts = static_cast<int>(h.attempts.size());
  if (auto st = save(); !st) return st;
  if (auto st = write_best(); !st) return st;
  for (auto* o : observers_)
    if (auto st = o->on_judged(h); !st) return st;
  return ok_status();
}

Result<OptimizeSummary> Optimizer::run() {
  const auto run_t0 = std::chrono::steady_clock::now();
  RunHistory& h = state_.history;
  if (auto st = backend_.preflight(true); !st) return st.error();
  if (!state_.resumed) {
    if (auto st = start(); !st) return st.error();
  } else {
    auto now = backend_.query_device(state_.run_dir / "hardware");
    if (!now) return now.error();
    if (auto st = check_same_device(h, *now); !st) return st.error();
    hw_ = h.hardware.value_or(*now);
    spdlog::info("resuming {}: {} attempt(s) recorded", state_.run_dir.string(), h.attempts.size());
  }
  const RunConfig& config = h.config;
  pool_ = std::make_unique<BuildPool>(backend_, state_.run_dir / "build-cache",
                                      config.build_jobs > 0 ? config.build_jobs : BuildPool::default_jobs());
  struct PoolEnd {  // waits for background builds and removes their cache on every return
    std::unique_ptr<BuildPool>& pool;
    ~PoolEnd() { pool.reset(); }
  } pool_end{pool_};
  h.state = "running";
  h.stopped_because.clear();
  if (!h.baseline) {
    if (auto st = measure_baseline(); !st) {
      if (!st.error().interrupted()) return fail_run(st.error()).error();
      h.state = "interrupted";
      end_ = RunEnd::interrupted;
      if (auto saved = save(); !saved) return saved.error();
      return summary();
    }
  } else {
    auto grid = h.program_info.checked_grid();
    if (!grid) return make_error(grid.error().message + " (in " + (state_.run_dir / "history.json").string() + ")");
    load_predictor(h.program_info);
    pipeline_ = std::make_unique<AttemptPipeline>(backend_, runner_, measure_setup(h.program_info));
  }
  for (auto* o : observers_)
    if (auto st = o->on_baseline(h); !st) return fail_run(st.error()).error();

  int guard = 0;
  while (h.counted_attempts() < config.iterations && guard++ < config.iterations * 4 + 8) {
    if (interrupt_requested()) {
      end_ = RunEnd::interrupted;
      break;
    }
    auto next = next_attempt(h.next_iteration());
    if (!next) return fail_run(next.error()).error();
    if (!*next) break;  // interrupted or exhausted (end_ says which)
    if (auto st = record(std::move(**next)); !st) return fail_run(st.error()).error();
  }
  if (end_ != RunEnd::interrupted && !interrupt_requested())
    if (auto st = judge_finalists(); !st) return fail_run(st.error()).error();
  if (interrupt_requested()) end_ = RunEnd::interrupted;
  h.state = end_ == RunEnd::interrupted ? "interrupted" : "completed";
  h.last_session_wall_s = secs_since(run_t0);
  if (auto st = save(); !st) return st.error();
  if (auto st = write_best(); !st) return fail_run(st.error()).error();
  std::error_code ec;
  // Kept for the judge; a resumed run rebuilds what it needs.
  fs::remove(baseline_dir() / "kernel", ec);
  for (const auto& a : h.attempts) fs::remove(attempt_dir(a.iteration) / "kernel", ec);
  const OptimizeSummary s = summary();
  for (auto* o : observers_)
    if (auto st = o->on_finish(s); !st) return st.error();
  return s;
}

}  // namespace swz
