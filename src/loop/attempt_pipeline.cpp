// The stages of one attempt. Every outside failure (a program's exit code, a
// profiler's error, a short output) becomes the attempt's status with a one-line
// reason; only a file the machine cannot write becomes StageEnd::environment.
#include "swizzleperf/loop/attempt_pipeline.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>

#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/core/tile_map.h"
#include "swizzleperf/loop/output_check.h"
#include "swizzleperf/model/prediction.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/hash.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

double stage_seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string mapping_hash(const std::vector<std::uint32_t>& mapping) {
  std::string bytes(reinterpret_cast<const char*>(mapping.data()), mapping.size() * sizeof(std::uint32_t));
  return content_hash(bytes);
}

StageResult passed() { return {}; }

// The candidate failed this stage.
StageResult fail_stage(Attempt& a, AttemptStatus status, std::string why) {
  a.status = status;
  a.reason = std::move(why);
  return {StageEnd::failed, ""};
}

StageResult run_failed(Attempt& a, const char* mode, const ProgramRun& r) {
  return fail_stage(a, AttemptStatus::run_failed, r.failure(mode));
}

// An artefact the user reads later; a write that fails is the machine's failure.
StageResult keep_artifact(const fs::path& path, const std::string& text) {
  if (auto st = write_file_atomic(path, text); !st) return {StageEnd::environment, st.error().message};
  return passed();
}

StageResult interrupted_or_passed() {
  return interrupt_requested() ? StageResult{StageEnd::interrupted, ""} : passed();
}

// Runs fn, recording its wall time as stage `name`.
template <typename Fn>
StageResult timed(Attempt& a, const char* name, Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  StageResult r = fn();
  a.stage_seconds[name] = stage_seconds_since(t0);
  return r;
}

}  // namespace

std::string identity_mapping_hash(TileGrid grid) {
  std::vector<std::uint32_t> identity(grid.num_pids());
  for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<std::uint32_t>(i);
  return mapping_hash(identity);
}

AttemptPipeline::AttemptPipeline(Backend& backend, ProcessRunner& runner, MeasureSetup setup)
    : backend_(backend), runner_(runner), setup_(std::move(setup)) {}

std::vector<std::string> AttemptPipeline::size_args() const {
  if (setup_.size.empty()) return {};
  return {"--size", size_text(setup_.size)};
}

std::vector<std::string> AttemptPipeline::time_args() const {
  std::vector<std::string> args = {"time", "--reps", std::to_string(setup_.time_reps), "--warmup",
                                   std::to_string(setup_.warmup)};
  for (auto& s : size_args()) args.push_back(std::move(s));
  for (auto& s : setup_.timing.program_args()) args.push_back(std::move(s));
  return args;
}

std::vector<std::string> AttemptPipeline::screening_args() const {
  auto args = time_args();
  const Regime r = setup_.timing.screening(setup_.objective);
  if (r != Regime::unnamed) args.insert(args.end(), {"--regime", to_string(r)});
  return args;
}

Result<ProgramInfo> AttemptPipeline::read_info(const fs::path& exe, const fs::path& dir) {
  std::vector<std::string> args{"info"};
  for (auto& s : size_args()) args.push_back(std::move(s));
  auto info = backend_.run_program(exe, args, backend_.tools().run_timeout);
  if (info.process.interrupted) return interrupted_error();
  if (!info.process.success() || !info.json.contains("grid"))
    return make_error("the kernel program's info mode failed (" + info.process.describe() + ": " +
                      tail_lines(info.process.err + info.process.out, 1) + "); see docs/kernel-contract.md");
  if (auto st = write_file_atomic(dir / "info.json", info.json.dump(2) + "\n"); !st) return st.error();
  ProgramInfo p = program_info_from_json(info.json);
  if (auto grid = p.checked_grid(); !grid) return make_error(grid.error().message + " (see docs/kernel-contract.md)");
  return p;
}

TileGrid AttemptPipeline::grid_of(const Candidate& candidate) const {
  return candidate.grid.num_pids() > 0 ? candidate.grid : setup_.program.grid;
}

bool AttemptPipeline::is_tuning_point(const Candidate& candidate) const {
  for (const auto& [name, value] : candidate.defines) {
    const auto own = setup_.own_defines.find(name);
    if (own == setup_.own_defines.end() || own->second != value) return true;
  }
  return false;
}

const std::string& AttemptPipeline::identity_hash(TileGrid grid) {
  auto& hash = identity_hashes_[{grid.m, grid.n}];
  if (hash.empty()) hash = identity_mapping_hash(grid);  // up to 2^26 pids: once per grid
  return hash;
}

StageResult AttemptPipeline::check(Attempt& a, const Candidate& candidate, const ValidRegion& region,
                                   const fs::path& dir, const std::vector<Attempt>& earlier) {
  return timed(a, "check", [&]() -> StageResult {
    const TileGrid grid = grid_of(candidate);
    a.defines = candidate.defines;
    MappingCheckOptions mo{setup_.host_cxx, dir / "mapping", std::chrono::seconds(60)};
    auto report = check_mapping(region, ragged_grids(grid), setup_.hw, mo, runner_);
    if (!report) {
      if (report.error().interrupted()) return {StageEnd::interrupted, ""};
      return fail_stage(a, AttemptStatus::rejected_mapping, report.error().message);
    }
    MappingRecord& m = a.mapping.emplace(MappingRecord{*report, "", std::nullopt});
    if (!report->ok) return fail_stage(a, AttemptStatus::rejected_mapping, report->summary());
    const auto& table = report->grids.front().mapping;
    m.mapping_hash = mapping_hash(table);
    m.tile_map = make_tile_map(grid, table, setup_.hw);  // report.html's map
    // The model is the program's own configuration: a tuning point's tiles are not its.
    if (setup_.predictor && !is_tuning_point(candidate))
      if (auto p = setup_.predictor->predict(table, a.label)) a.predicted = prediction_summary(*p);
    if (!is_tuning_point(candidate) && m.mapping_hash == identity_hash(grid))
      return fail_stage(a, AttemptStatus::duplicate, "same mapping as the baseline (identity) on the kernel's grid");
    for (const auto& prev : earlier)
      if (prev.mapping && prev.duplicate_key() == a.duplicate_key())
        return fail_stage(a, AttemptStatus::duplicate,
                    fmt::format("same mapping as attempt {} ({}) on the kernel's grid", prev.iteration, prev.label));
    return interrupted_or_passed();
  });
}

StageResult AttemptPipeline::build(Attempt& a, BuildPool& pool, const std::string& source, const fs::path& dir,
                                   const Defines& defines) {
  const std::string ext = source_extension(setup_.language);
  auto pooled = pool.get({source, setup_.hw.num_dies, setup_.hw.arch, ext, defines}, dir / ("kernel" + ext), dir / "kernel");
  auto& built = pooled.build;
  if (!built) {
    if (built.error().interrupted()) return {StageEnd::interrupted, ""};
    return fail_stage(a, AttemptStatus::build_failed, built.error().message);
  }
  if (pooled.prefetched) a.stage_seconds["build_wait"] = pooled.wait_seconds;
  else a.stage_seconds["build"] = built->seconds;
  a.build = BuildRecord{built->ok, built->seconds, tail_lines(built->log, 20), pooled.prefetched};
  if (auto k = keep_artifact(dir / "build.log", format_argv(built->argv) + "\n" + built->log); !k.passed()) return k;
  if (!built->ok) return fail_stage(a, AttemptStatus::build_failed, built->failure);
  return interrupted_or_passed();
}

StageResult AttemptPipeline::point_info(Attempt& a, Candidate& candidate, const fs::path& exe, const fs::path& dir) {
  return timed(a, "info", [&]() -> StageResult {
    auto info = read_info(exe, dir);
    if (!info) {
      if (info.error().interrupted()) return {StageEnd::interrupted, ""};
      return fail_stage(a, AttemptStatus::run_failed, "the point's " + info.error().message);
    }
    candidate.grid = info->grid;
    a.program_info = std::move(*info);
    return interrupted_or_passed();
  });
}

StageResult AttemptPipeline::run_candidate(Attempt& a, Candidate candidate, const ValidRegion& region, BuildPool& pool,
                                           const std::string& source, const fs::path& dir,
                                           const std::vector<Attempt>& earlier, const Attempt& baseline) {
  const fs::path exe = dir / "kernel";
  if (is_tuning_point(candidate)) {
    // Its grid is its program's: built first, asked, then checked on that grid.
    a.defines = candidate.defines;
    if (auto r = build(a, pool, source, dir, candidate.defines); !r.passed()) return r;
    if (auto r = point_info(a, candidate, exe, dir); !r.passed()) return r;
    if (auto r = check(a, candidate, region, dir, earlier); !r.passed()) return r;
    if (auto r = evaluate_point(a, exe, dir, baseline); !r.passed()) return r;
  } else {
    if (auto r = check(a, candidate, region, dir, earlier); !r.passed()) return r;
    if (auto r = build(a, pool, source, dir, candidate.defines); !r.passed()) return r;
    if (auto r = evaluate(a, exe, dir, baseline); !r.passed()) return r;
  }
  if (!setup_.profile_each) return passed();
  return profile(a, exe, dir);
}

StageResult AttemptPipeline::measure_reference(Attempt& a, const fs::path& exe, const fs::path& dir) {
  return evaluate_three_processes(a, exe, dir, nullptr, OutputStage::record);
}

StageResult AttemptPipeline::evaluate(Attempt& a, const fs::path& exe, const fs::path& dir, const Attempt& baseline) {
  return evaluate_with(a, exe, dir, baseline, OutputStage::compare);
}

StageResult AttemptPipeline::evaluate_point(Attempt& a, const fs::path& exe, const fs::path& dir,
                                            const Attempt& baseline) {
  StageResult r = evaluate_with(a, exe, dir, baseline, OutputStage::skip);
  if (r.passed()) a.validation.full_size_output = kPointNotCompared;
  return r;
}

StageResult AttemptPipeline::evaluate_with(Attempt& a, const fs::path& exe, const fs::path& dir,
                                           const Attempt& baseline, OutputStage output) {
  StageResult r;
  bool unsupported = evaluate_unsupported_;
  if (!unsupported) r = evaluate_one_process(a, exe, dir, baseline, output, unsupported);
  if (unsupported) {
    if (!evaluate_unsupported_)
      spdlog::info("the kernel program has no evaluate mode; verify, compare and time run as separate processes");
    evaluate_unsupported_ = true;
    r = evaluate_three_processes(a, exe, dir, &baseline, output);
  }
  if (r.passed()) set_one_shot(a, baseline);
  return r;
}

// Verify, output check (record for the baseline, compare for a candidate, none for a
// tuning point), time: one process each. Used for the baseline, for programs without
// evaluate mode and for a plain-dump reference (which evaluate cannot check).
StageResult AttemptPipeline::evaluate_three_processes(Attempt& a, const fs::path& exe, const fs::path& dir,
                                                      const Attempt* baseline, OutputStage output) {
  const auto timeout = backend_.tools().run_timeout;
  auto r = timed(a, "verify", [&]() -> StageResult {
    auto run = backend_.run_program(exe, {"verify"}, timeout);
    a.validation.verify_line = run.json.dump();
    if (auto k = keep_artifact(dir / "verify.log", run.process.out + run.process.err); !k.passed()) return k;
    if (run.process.interrupted) return {StageEnd::interrupted, ""};
    if (run.process.success() && run.json.value("ok", false)) return passed();
    if (run.process.exited_with(1))
      return fail_stage(a, AttemptStatus::validation_failed, "verify mode: results differ from the CPU reference");
    return run_failed(a, "verify", run);
  });
  if (!r.passed() || !(r = interrupted_or_passed()).passed()) return r;
  if (output != OutputStage::skip) r = timed(a, "compare", [&]() -> StageResult {
    // Device-side digest / compare (loop/output_check); a full dump only on a mismatch.
    OutputCheck check(backend_, size_args(), setup_.program.dump_tol);
    const auto o = output == OutputStage::record || baseline == nullptr
                       ? check.record_baseline(exe, dir, a.validation)
                       : check.check_candidate(exe, dir, setup_.baseline_dir, baseline->validation.output_check,
                                               a.validation);
    if (o.kind == OutputCheckResult::Kind::ok) return passed();
    return fail_stage(a, o.kind == OutputCheckResult::Kind::mismatch ? AttemptStatus::validation_failed
                                                               : AttemptStatus::run_failed,
                o.reason);
  });
  if (!r.passed() || !(r = interrupted_or_passed()).passed()) return r;
  r = timed(a, "time", [&]() -> StageResult {
    auto run = backend_.run_program(exe, screening_args(), timeout);
    if (auto k = keep_artifact(dir / "time.json", run.json.dump(2) + "\n"); !k.passed()) return k;
    if (run.process.interrupted) return {StageEnd::interrupted, ""};
    if (!run.process.success() || !run.json.contains("median_ms")) return run_failed(a, "time", run);
    try {
      a.timing = run.json.get<Timing>();
    } catch (const nlohmann::json::exception& e) {
      return fail_stage(a, AttemptStatus::run_failed, std::string("time mode: unreadable timing: ") + e.what());
    }
    return passed();
  });
  if (!r.passed()) return r;
  return interrupted_or_passed();
}

StageResult AttemptPipeline::evaluate_one_process(Attempt& a, const fs::path& exe, const fs::path& dir,
                                                  const Attempt& baseline, OutputStage output, bool& unsupported) {
  OutputCheck check(backend_, size_args(), setup_.program.dump_tol);
  const auto& baseline_dir = setup_.baseline_dir;
  // A tuning point gives no compare options: the program hashes its own output, unjudged.
  auto check_args = output == OutputStage::skip
                        ? std::optional<std::vector<std::string>>(std::vector<std::string>{})
                        : check.evaluate_args(dir, baseline_dir, baseline.validation.output_check);
  if (!check_args) {  // a plain-dump reference: the separate modes, this attempt only
    return evaluate_three_processes(a, exe, dir, &baseline, output);
  }
  std::vector<std::string> args = screening_args();
  args.front() = "evaluate";
  args.insert(args.end(), check_args->begin(), check_args->end());
  const auto t0 = std::chrono::steady_clock::now();
  // Three modes' work in one process: three modes' time limit.
  auto r = backend_.run_program(exe, args, backend_.tools().run_timeout * 3);
  if (r.process.exited_with(2) && !r.json.contains("verify")) {
    unsupported = true;  // a program built before evaluate mode
    return passed();
  }
  a.stage_seconds["evaluate"] = stage_seconds_since(t0);
  if (auto k = keep_artifact(dir / "evaluate.json", r.json.dump(2) + "\n"); !k.passed()) return k;
  if (r.process.interrupted) return {StageEnd::interrupted, ""};
  const bool exited_1 = r.process.exited_with(1);
  if (!r.process.success() && !exited_1) return run_failed(a, "evaluate", r);
  if (r.json.is_object() && r.json.contains("seconds")) a.validation.evaluate_seconds = r.json["seconds"].dump();
  // Exit 1 without parts: the compare part stopped the program itself (e.g. output sizes differ).
  if (exited_1 && r.json.is_object() && !r.json.contains("verify")) {
    if (output == OutputStage::skip) return run_failed(a, "evaluate", r);
    auto o = check.judge_evaluated(r.json, true, exe, dir, baseline_dir, baseline.validation.output_check, a.validation);
    if (o.kind == OutputCheckResult::Kind::mismatch) return fail_stage(a, AttemptStatus::validation_failed, o.reason);
    return run_failed(a, "evaluate", r);
  }
  if (!r.json.is_object() || !r.json.contains("verify")) return run_failed(a, "evaluate", r);
  a.validation.verify_line = r.json["verify"].dump();
  if (!r.json["verify"].is_object() || !r.json["verify"].value("ok", false)) {
    if (exited_1) return fail_stage(a, AttemptStatus::validation_failed, "verify mode: results differ from the CPU reference");
    return run_failed(a, "evaluate", r);
  }
  if (output != OutputStage::skip) {
    const char* part_name = r.json.contains("hash") ? "hash" : "compare";
    if (!r.json.contains(part_name)) return run_failed(a, "evaluate", r);
    auto o = check.judge_evaluated(r.json[part_name], exited_1, exe, dir, baseline_dir,
                                   baseline.validation.output_check, a.validation);
    if (o.kind == OutputCheckResult::Kind::mismatch) return fail_stage(a, AttemptStatus::validation_failed, o.reason);
    if (o.kind != OutputCheckResult::Kind::ok) return fail_stage(a, AttemptStatus::run_failed, "evaluate mode: " + o.reason);
  }
  if (!r.process.success() || !r.json.contains("time") || !r.json["time"].is_object() ||
      !r.json["time"].contains("median_ms"))
    return run_failed(a, "evaluate", r);
  if (auto k = keep_artifact(dir / "time.json", r.json["time"].dump(2) + "\n"); !k.passed()) return k;
  try {
    a.timing = r.json["time"].get<Timing>();
  } catch (const nlohmann::json::exception& e) {
    return fail_stage(a, AttemptStatus::run_failed, std::string("evaluate mode: unreadable time part: ") + e.what());
  }
  return interrupted_or_passed();
}

JudgeSettings AttemptPipeline::judge_settings() const {
  JudgeSettings j;
  j.min_rounds = setup_.recheck_rounds;
  j.max_rounds = std::max(setup_.recheck_rounds, setup_.max_rounds);
  j.budget_s = setup_.judge_s;
  j.pause = std::chrono::milliseconds(setup_.timing.pause_ms);
  j.warm_s = setup_.timing.settle_s;
  return j;
}

namespace {

// The finalist's verdict from its comparison in each regime measured (the first
// regime's numbers are the attempt's speedup): a winner (or a loser) only when every
// regime was measured, each trusted and significant, all on the same side of 1.0.
void apply_verdict(Attempt& a, const std::vector<SpeedComparison>& done, std::size_t regimes_asked) {
  if (done.empty()) return;
  const SpeedComparison& first = done.front();
  Recheck& r = a.recheck ? *a.recheck : a.recheck.emplace(Recheck{a.speedup.value_or(0), "", {}, ""});
  r.regimes = done;
  r.untrusted.clear();
  a.speedup = first.ratio.estimate;
  a.speedup_ci_low = first.ratio.low;
  a.speedup_ci_high = first.ratio.high;
  a.speedup_regime = first.regime;
  bool decisive = done.size() == regimes_asked;
  for (const auto& c : done) {
    decisive = decisive && c.decisive() && ((c.ratio.low > 1.0) == (first.ratio.low > 1.0));
    // A named first regime's reason as it stands (its record says the regime); others prefixed.
    if (!c.trusted && r.untrusted.empty())
      r.untrusted = &c == &first && c.regime != Regime::unnamed ? c.untrusted : regime_label(c.regime) + ": " + c.untrusted;
    if (c.energy) {
      a.energy_ratio = c.energy->estimate;
      a.energy_ci_low = c.energy->low;
      a.energy_ci_high = c.energy->high;
      a.energy_significant = c.energy->significant && c.trusted;
    }
  }
  a.significant = decisive;
}

}  // namespace

std::vector<Tournament> AttemptPipeline::judge(const std::vector<Attempt*>& finalists, const std::vector<fs::path>& exes,
                                               const fs::path& baseline_exe) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<fs::path> programs = {baseline_exe};
  std::vector<std::string> names = {"baseline"}, labels = {"baseline"};
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    Attempt& a = *finalists[i];
    programs.push_back(exes[i]);
    names.push_back(fmt::format("candidate {} ({})", a.iteration, one_line(a.label, 60)));
    labels.push_back(a.label);
    a.recheck = Recheck{a.speedup.value_or(0), "", {}, ""};
  }
  // The tournament warms the GPU once; each sustained window then starts at once.
  std::vector<std::string> args = time_args();
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--settle-seconds") args[i + 1] = "0";
  const JudgeSettings settings = judge_settings();
  std::vector<Tournament> out;
  std::vector<std::vector<SpeedComparison>> done(finalists.size());
  ProgramTimer timer(backend_, programs, names, args, "", backend_.tools().run_timeout);
  timer.start();
  for (const Regime r : setup_.timing.measured()) {
    const std::string name = regime_label(r);
    timer.set_regime(name);
    auto t = run_tournament(timer, r, settings, labels);
    if (!t) {
      if (t.error().interrupted()) break;
      for (Attempt* a : finalists) a->recheck->error = (name.empty() ? "" : name + ": ") + t.error().message;
      spdlog::warn("the speed judge failed{}: {}", name.empty() ? "" : " (" + name + ")", t.error().message);
      break;  // the regimes judged before stand; the missing one is named in the error
    }
    for (std::size_t i = 0; i < finalists.size(); ++i) done[i].push_back(t->candidates[i]);
    out.push_back(std::move(*t));
  }
  const double seconds = stage_seconds_since(t0);
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    apply_verdict(*finalists[i], done[i], setup_.timing.measured().size());
    finalists[i]->stage_seconds["judge"] = seconds;
  }
  return out;
}

StageResult AttemptPipeline::recheck(Attempt& a, const fs::path& exe, const fs::path& baseline_exe) {
  judge({&a}, {exe}, baseline_exe);
  return interrupted_or_passed();
}

StageResult AttemptPipeline::profile(Attempt& a, const fs::path& exe, const fs::path& dir) {
  return timed(a, "profile", [&]() -> StageResult {
    std::vector<std::string> args = {"profile"};
    for (auto& s : size_args()) args.push_back(std::move(s));
    // A tuning point's own kernels and launches; the window's size is the run's.
    const ProgramInfo& program = a.program_info ? *a.program_info : setup_.program;
    const LaunchWindow window =
        a.program_info ? profile_window(program.launches, setup_.profile_launches) : setup_.window;
    auto m = backend_.profile({exe, args, program.kernel_regex, dir, window});
    if (!m) {
      if (m.error().interrupted()) return {StageEnd::interrupted, ""};
      return fail_stage(a, AttemptStatus::profile_failed, m.error().message);
    }
    a.metrics = m.value();
    return keep_artifact(dir / "metrics.json", nlohmann::json(a.metrics.value()).dump(2) + "\n");
  });
}

}  // namespace swz
