// The optimize loop. Every stage's failure becomes an attempt status with a
// one-line reason; only a failing baseline, a fatal proposer error or an
// unwritable history stop the run. The history is saved after every attempt.
#include "swizzleperf/core/text.h"
#include "swizzleperf/loop/optimizer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/core/region_validator.h"
#include "swizzleperf/core/tile_map.h"
#include "swizzleperf/loop/html_report.h"
#include "swizzleperf/loop/output_check.h"
#include "swizzleperf/loop/report.h"
#include "swizzleperf/loop/speed_judge.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

double secs_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string mapping_hash(const std::vector<std::uint32_t>& mapping) {
  std::string bytes(reinterpret_cast<const char*>(mapping.data()), mapping.size() * sizeof(std::uint32_t));
  return content_hash(bytes);
}

std::string fmt_pct(const std::optional<Metrics>& m) {
  return m && m->l2_hit_pct ? fmt::format("{:.2f}%", *m->l2_hit_pct) : "n/a";
}

}  // namespace

std::string OptimizeSummary::unmeasured() const {
  if (interrupted) return "";
  int failed = 0;
  std::string last;
  for (const auto& a : history.attempts) {
    if (a.status != AttemptStatus::proposal_failed) return "";
    ++failed;
    last = a.reason;
  }
  if (failed == 0) return "no candidate was tried: the proposer had nothing to propose for this kernel's grid";
  return fmt::format("no candidate was tried: all {} proposal(s) failed (last: {})", failed, one_line(last, 200));
}

bool OptimizeSummary::improved() const {
  const Attempt* best = history.best();
  if (!best || !history.baseline) return false;
  // Under time, best() exists only for a significant speedup: that is the improvement.
  if (history.objective() == Objective::time) return true;
  const auto& base = *history.baseline;
  const bool l2 = best->metrics && best->metrics->l2_hit_pct && base.metrics && base.metrics->l2_hit_pct &&
                  *best->metrics->l2_hit_pct > *base.metrics->l2_hit_pct + 0.01;
  const bool time = best->speedup && *best->speedup > 1.0;
  return l2 || time;
}

std::string compare_outputs(const fs::path& a, const fs::path& b, double tol) {
  auto ra = read_file(a), rb = read_file(b);
  if (!ra) return ra.error().message;
  if (!rb) return rb.error().message;
  const std::string& x = *ra;
  const std::string& y = *rb;
  if (x.size() != y.size()) return fmt::format("output sizes differ ({} vs {} bytes)", x.size(), y.size());
  if (tol <= 0) {
    std::size_t diff = 0, first = std::string::npos;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x[i] != y[i]) {
        if (first == std::string::npos) first = i;
        ++diff;
      }
    return diff == 0 ? "" : fmt::format("{} of {} output bytes differ from the baseline's (first at byte {})", diff, x.size(), first);
  }
  const std::size_t n = x.size() / sizeof(float);
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // Bit-identical values are equal, inf and NaN included.
    if (std::memcmp(x.data() + i * 4, y.data() + i * 4, 4) == 0) continue;
    float fa, fb;
    std::memcpy(&fa, x.data() + i * 4, 4);
    std::memcpy(&fb, y.data() + i * 4, 4);
    const double err = std::fabs(static_cast<double>(fa) - fb);
    if (!(err <= tol * std::max(1.0, std::fabs(static_cast<double>(fa))))) {
      if (bad++ == 0) first = i;
    }
  }
  // Bytes past the last whole float are compared exactly.
  for (std::size_t i = n * 4; i < x.size(); ++i)
    if (x[i] != y[i] && bad++ == 0) first = n;
  return bad == 0 ? "" : fmt::format("{} of {} output values differ from the baseline's beyond rel tol {} (first at index {})", bad, n, tol, first);
}

Optimizer::Optimizer(Backend& backend, Proposer& proposer, ProcessRunner& runner, OptimizeOptions options)
    : backend_(backend), proposer_(proposer), runner_(runner), opt_(std::move(options)) {}

std::vector<std::string> Optimizer::size_args() const {
  if (opt_.size.empty()) return {};
  std::string s;
  for (int v : opt_.size) s += (s.empty() ? "" : ",") + std::to_string(v);
  return {"--size", s};
}

Status Optimizer::save() { return save_history(history_path_, history_); }

std::vector<std::string> Optimizer::time_args() const {
  std::vector<std::string> args = {"time", "--reps", std::to_string(opt_.time_reps), "--warmup", std::to_string(opt_.warmup)};
  auto sz = size_args();
  args.insert(args.end(), sz.begin(), sz.end());
  return args;
}

bool Optimizer::could_become_best(const Attempt& a) const {
  if (opt_.recheck_rounds <= 0 || !a.validated() || !a.speedup) return false;
  if (opt_.recheck_every_candidate) return true;
  const Objective objective = history_.objective();
  const Attempt* current = history_.best(objective);
  if (objective == Objective::time) return *a.speedup > (current && current->speedup ? *current->speedup : 1.0);
  return !current || better_attempt(a, *current, Objective::l2);
}

void Optimizer::recheck_speed(Attempt& a, const fs::path& exe) {
  const auto t0 = std::chrono::steady_clock::now();
  const double one_shot = a.speedup.value_or(0);
  a.recheck = {{"one_shot_speedup", one_shot}};
  std::error_code ec;
  if (!fs::exists(baseline_exe(), ec)) {  // a resumed run: the baseline binary went with the last session
    auto built = backend_.build({opt_.run_dir / "baseline" / "kernel.hip", baseline_exe(), hw_.num_dies, hw_.arch});
    if (!built || !built->ok) {
      a.recheck["error"] = "could not rebuild the baseline binary for the re-check: " +
                           (built ? built->failure : built.error().message);
      a.stage_seconds["recheck"] = secs_since(t0);
      return;
    }
  }
  auto c = compare_speed(backend_, baseline_exe(), exe, time_args(), opt_.recheck_rounds, backend_.tools().run_timeout);
  a.stage_seconds["recheck"] = secs_since(t0);
  if (!c) {
    a.recheck["error"] = c.error().message;
    spdlog::warn("{}: speed re-check failed: {}", a.label, c.error().message);
    return;
  }
  a.recheck.update(nlohmann::json(*c));
  a.recheck["one_shot_speedup"] = one_shot;
  a.speedup = c->ratio.estimate;
  a.speedup_ci_low = c->ratio.low;
  a.speedup_ci_high = c->ratio.high;
  a.significant = c->ratio.significant;
}

Status Optimizer::prepare() {
  auto k = KernelSource::load(opt_.kernel);
  if (!k) return k.error();
  kernel_ = std::move(k.value());
  if (auto st = check_region_code(kernel_->region()); !st) return make_error(opt_.kernel.string() + ": " + st.error().message);
  history_path_ = opt_.run_dir / "history.json";
  std::error_code ec;
  if (opt_.resume) {
    if (!fs::exists(history_path_, ec))
      return make_error("nothing to resume: " + history_path_.string() + " does not exist");
    auto h = load_history(history_path_);
    if (!h) return h.error();
    history_ = std::move(h.value());
    if (auto st = check_recorded_regions(history_); !st) return make_error(history_path_.string() + ": " + st.error().message);
    if (history_.kernel_hash != content_hash(kernel_->text()))
      return make_error("kernel " + opt_.kernel.string() + " changed since run " + opt_.run_dir.string() +
                        " started; resume needs the same file (or start a new run)");
    hw_ = history_.hardware.get<HardwareProfile>();
    spdlog::info("resuming {}: {} attempt(s) recorded", opt_.run_dir.string(), history_.attempts.size());
  } else {
    if (fs::exists(history_path_, ec))
      return make_error("run dir " + opt_.run_dir.string() + " already holds a run: use --resume " + opt_.run_dir.string() + " or another --run-dir");
    fs::create_directories(opt_.run_dir, ec);
    if (ec) return make_error("cannot create run dir " + opt_.run_dir.string() + ": " + ec.message());
    if (auto st = write_file_atomic(opt_.run_dir / ".probe-write", ""); !st)
      return make_error("run dir " + opt_.run_dir.string() + " is not writable: " + st.error().message);
    fs::remove(opt_.run_dir / ".probe-write", ec);
    history_.kernel_path = fs::absolute(opt_.kernel).string();
    history_.kernel_name = kernel_->name();
    history_.original_region = kernel_->region();
    history_.kernel_hash = content_hash(kernel_->text());
    history_.config = opt_.config;
    history_.config["objective"] = to_string(opt_.objective);
    history_.config["recheck_rounds"] = opt_.recheck_rounds;
    history_.created_at = now_iso8601();
  }
  if (auto st = backend_.preflight(true); !st) return st;
  if (!opt_.resume) {
    fs::create_directories(opt_.run_dir / "hardware", ec);
    auto hw = backend_.query_device(opt_.run_dir / "hardware");
    if (!hw) return hw.error();
    hw_ = std::move(hw.value());
    history_.hardware = hw_;
    if (auto st = write_file_atomic(opt_.run_dir / "hardware.json", nlohmann::json(hw_).dump(2) + "\n"); !st) return st;
    if (auto st = save(); !st) return st;
    spdlog::info("device: {}", hw_.summary());
  }
  return ok_status();
}

// Stages after a successful build: info (baseline only), verify, dump+compare,
// time, profile. Returns false when the attempt failed (status/reason set).
bool Optimizer::finish_attempt_stages(Attempt& a, const fs::path& dir, const fs::path& exe) {
  const auto& tools = backend_.tools();
  auto stage = [&](const char* name, auto&& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    bool ok = fn();
    a.stage_seconds[name] = secs_since(t0);
    return ok;
  };
  auto fail = [&](AttemptStatus st, std::string why) {
    a.status = st;
    a.reason = std::move(why);
    return false;
  };
  auto run_failed = [&](const char* mode, const ProgramRun& r) {
    return fail(AttemptStatus::run_failed, r.failure(mode));
  };
  // Candidates: verify, output check and timing in one process (`prog evaluate`),
  // unless the program predates that mode or the baseline's reference is a dump.
  std::optional<bool> one_process;
  if (a.iteration > 0 && history_.baseline && !evaluate_unsupported_)
    one_process = evaluate_in_one_process(a, dir, exe);
  if (one_process && !*one_process) return false;
  if (!one_process && !stage("verify", [&] {
        auto r = backend_.run_program(exe, {"verify"}, tools.run_timeout);
        (void)write_file_atomic(dir / "verify.log", r.process.out + r.process.err);
        a.validation["verify"] = r.json;
        if (r.process.success() && r.json.value("ok", false)) return true;
        if (r.process.exited_with(1))
          return fail(AttemptStatus::validation_failed, "verify mode: results differ from the CPU reference");
        return run_failed("verify", r);
      }))
    return false;
  if (interrupt_requested()) return false;
  if (!one_process && !stage("compare", [&] {
        // Device-side digest / compare (loop/output_check); a full dump only on a mismatch.
        OutputCheck check(backend_, size_args(), dump_tol_);
        const auto o = a.iteration == 0 ? check.record_baseline(exe, dir, a.validation)
                                        : check.check_candidate(exe, dir, opt_.run_dir / "baseline",
                                                                history_.baseline->validation, a.validation);
        if (o.kind == OutputCheckResult::Kind::ok) return true;
        return fail(o.kind == OutputCheckResult::Kind::mismatch ? AttemptStatus::validation_failed
                                                                : AttemptStatus::run_failed,
                    o.reason);
      }))
    return false;
  if (interrupt_requested()) return false;
  if (!one_process && !stage("time", [&] {
        auto r = backend_.run_program(exe, time_args(), tools.run_timeout);
        (void)write_file_atomic(dir / "time.json", r.json.dump(2) + "\n");
        if (!r.process.success() || !r.json.contains("median_ms")) return run_failed("time", r);
        a.timing = r.json.get<Timing>();
        return true;
      }))
    return false;
  if (interrupt_requested()) return false;
  if (!stage("profile", [&] {
        std::vector<std::string> args = {"profile"};
        auto sz = size_args();
        args.insert(args.end(), sz.begin(), sz.end());
        auto m = backend_.profile({exe, args, kernel_regex_, dir, window_});
        if (!m) return fail(AttemptStatus::profile_failed, m.error().message);
        a.metrics = m.value();
        (void)write_file_atomic(dir / "metrics.json", nlohmann::json(a.metrics.value()).dump(2) + "\n");
        return true;
      }))
    return false;
  return true;
}

std::optional<bool> Optimizer::evaluate_in_one_process(Attempt& a, const fs::path& dir, const fs::path& exe) {
  OutputCheck check(backend_, size_args(), dump_tol_);
  const auto baseline_dir = opt_.run_dir / "baseline";
  auto check_args = check.evaluate_args(dir, baseline_dir, history_.baseline->validation);
  if (!check_args) return std::nullopt;
  std::vector<std::string> args = time_args();
  args.front() = "evaluate";
  args.insert(args.end(), check_args->begin(), check_args->end());
  const auto t0 = std::chrono::steady_clock::now();
  // Three modes' work in one process: three modes' time limit.
  auto r = backend_.run_program(exe, args, backend_.tools().run_timeout * 3);
  if (r.process.exited_with(2) && !r.json.contains("verify")) {
    // A program built before evaluate mode: the three-process path, for the rest of the run.
    spdlog::info("the kernel program has no evaluate mode; verify, compare and time run as separate processes");
    evaluate_unsupported_ = true;
    return std::nullopt;
  }
  a.stage_seconds["evaluate"] = secs_since(t0);
  (void)write_file_atomic(dir / "evaluate.json", r.json.dump(2) + "\n");
  const bool exited_1 = r.process.exited_with(1);
  auto fail = [&](AttemptStatus st, std::string why) {
    a.status = st;
    a.reason = std::move(why);
    return false;
  };
  auto run_failed = [&] { return fail(AttemptStatus::run_failed, r.failure("evaluate")); };
  if (!r.process.success() && !exited_1) return run_failed();
  if (r.json.is_object() && r.json.contains("seconds")) a.validation["evaluate_seconds"] = r.json["seconds"];
  // Exit 1 without parts: the compare part stopped the program itself (e.g. output sizes differ).
  const char* part_name = r.json.contains("hash") ? "hash" : "compare";
  if (exited_1 && r.json.is_object() && !r.json.contains("verify")) {
    auto o = check.judge_evaluated(r.json, true, exe, dir, baseline_dir, history_.baseline->validation, a.validation);
    if (o.kind == OutputCheckResult::Kind::mismatch) return fail(AttemptStatus::validation_failed, o.reason);
    return run_failed();
  }
  if (!r.json.is_object() || !r.json.contains("verify")) return run_failed();
  a.validation["verify"] = r.json["verify"];
  if (!r.json["verify"].is_object() || !r.json["verify"].value("ok", false)) {
    if (exited_1) return fail(AttemptStatus::validation_failed, "verify mode: results differ from the CPU reference");
    return run_failed();
  }
  if (!r.json.contains(part_name)) return run_failed();
  auto o = check.judge_evaluated(r.json[part_name], exited_1, exe, dir, baseline_dir, history_.baseline->validation,
                                 a.validation);
  if (o.kind == OutputCheckResult::Kind::mismatch) return fail(AttemptStatus::validation_failed, o.reason);
  if (o.kind != OutputCheckResult::Kind::ok) return fail(AttemptStatus::run_failed, "evaluate mode: " + o.reason);
  if (!r.process.success() || !r.json.contains("time") || !r.json["time"].is_object() ||
      !r.json["time"].contains("median_ms"))
    return run_failed();
  (void)write_file_atomic(dir / "time.json", r.json["time"].dump(2) + "\n");
  try {
    a.timing = r.json["time"].get<Timing>();
  } catch (const nlohmann::json::exception& e) {
    return fail(AttemptStatus::run_failed, std::string("evaluate mode: unreadable time part: ") + e.what());
  }
  return true;
}

Status Optimizer::measure_baseline() {
  const auto dir = opt_.run_dir / "baseline";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const auto t0 = std::chrono::steady_clock::now();
  Attempt a;
  a.iteration = 0;
  a.proposer = "baseline";
  a.label = "identity (original region)";
  a.region = kernel_->region();
  a.started_at = now_iso8601();
  if (auto st = write_file_atomic(dir / "kernel.hip", kernel_->text()); !st)
    return make_error(st.error().message + " (the baseline was not built; free space or choose a writable --run-dir)");
  auto built = backend_.build({dir / "kernel.hip", dir / "kernel", hw_.num_dies, hw_.arch});
  if (!built) return built.error();
  a.stage_seconds["build"] = built->seconds;
  (void)write_file_atomic(dir / "build.log", format_argv(built->argv) + "\n" + built->log);
  a.build = {{"ok", built->ok}, {"seconds", built->seconds}, {"log_excerpt", tail_lines(built->log, 20)}};
  if (!built->ok) return make_error("the original kernel does not build: " + built->failure + " (see " + (dir / "build.log").string() + ")");
  auto info = backend_.run_program(dir / "kernel", [&] {
    std::vector<std::string> args{"info"};
    auto sz = size_args();
    args.insert(args.end(), sz.begin(), sz.end());
    return args;
  }(), backend_.tools().run_timeout);
  if (!info.process.success() || !info.json.contains("grid"))
    return make_error("the kernel program's info mode failed (" + info.process.describe() + ": " +
                      tail_lines(info.process.err + info.process.out, 1) + "); see docs/kernel-contract.md");
  history_.config["program_info"] = info.json;
  history_.config["profile_launches"] = backend_.tools().profile_launches;
  if (auto st = read_program_info(); !st)  // the compare stage below needs dump_tol_
    return make_error(st.error().message + " (see docs/kernel-contract.md)");
  // The grid is known now: the first candidates build while the baseline is measured.
  const int next = history_.next_iteration();
  prefetch_lookahead({*kernel_, grid_, hw_, history_, attempt_dir(next), opt_.run_dir, next});
  if (!finish_attempt_stages(a, dir, dir / "kernel")) {
    if (interrupt_requested()) return make_error("interrupted");
    return make_error("the unswizzled baseline could not be measured (" + to_string(a.status) + "): " + a.reason);
  }
  a.wall_seconds = secs_since(t0);
  a.speedup = 1.0;
  history_.baseline = a;
  spdlog::info("baseline: L2 hit {}, median {:.4f} ms", fmt_pct(a.metrics), a.timing ? a.timing->median_ms : 0.0);
  return save();
}

Attempt Optimizer::evaluate(int iteration, const Proposal& p, const fs::path& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  Attempt a;
  a.iteration = iteration;
  a.proposer = proposer_.name();
  a.label = p.label;
  a.region = p.region;
  a.started_at = now_iso8601();
  a.proposal = p.meta;
  a.proposal["reasoning"] = p.reasoning;
  a.proposal["critique"] = p.critique;
  a.proposal["rationale"] = p.rationale;
  a.diff = unified_diff(history_.original_region, p.region, "original/region", fmt::format("iter-{:03}/region", iteration));
  (void)write_file_atomic(dir / "region.diff", a.diff);
  auto done = [&]() -> Attempt& {
    a.wall_seconds = secs_since(t0);
    return a;
  };
  // 0. The region validator: untrusted code that is not plain arithmetic is never compiled.
  if (auto verdict = validate_region_code(p.region); !verdict.ok) {
    a.status = AttemptStatus::rejected_region;
    a.reason = verdict.message();
    return done();
  }
  // 1. Mapping check on the host: no GPU time for a broken mapping.
  {
    const auto c0 = std::chrono::steady_clock::now();
    MappingCheckOptions mo{opt_.host_cxx, dir / "mapping", std::chrono::seconds(60)};
    auto report = check_mapping(p.region, ragged_grids(grid_), hw_, mo, runner_);
    a.stage_seconds["check"] = secs_since(c0);
    if (!report) {
      a.status = AttemptStatus::rejected_mapping;
      a.reason = report.error().message;
      return done();
    }
    a.mapping = *report;
    if (!report->ok) {
      a.status = AttemptStatus::rejected_mapping;
      a.reason = report->summary();
      return done();
    }
    const auto hash = mapping_hash(report->grids.front().mapping);
    a.mapping["mapping_hash"] = hash;
    a.mapping["tile_map"] = make_tile_map(grid_, report->grids.front().mapping, hw_);  // report.html's swizzle map
    std::vector<std::uint32_t> identity(grid_.num_pids());
    for (unsigned i = 0; i < identity.size(); ++i) identity[i] = i;
    if (hash == mapping_hash(identity)) {
      a.status = AttemptStatus::duplicate;
      a.reason = "same mapping as the baseline (identity) on the kernel's grid";
      return done();
    }
    for (const auto& prev : history_.attempts)
      if (prev.mapping.value("mapping_hash", "") == hash) {
        a.status = AttemptStatus::duplicate;
        a.reason = fmt::format("same mapping as attempt {} ({}) on the kernel's grid", prev.iteration, prev.label);
        return done();
      }
  }
  if (interrupt_requested()) return done();
  // 2. Splice: only the region changes.
  auto spliced = kernel_->splice(p.region);
  if (!spliced) {
    a.status = AttemptStatus::proposal_failed;
    a.reason = spliced.error().message;
    return done();
  }
  if (auto st = write_file_atomic(dir / "kernel.hip", *spliced); !st) {
    // The machine's fault (a full disk, a read-only dir), not the candidate's: the run stops.
    environment_failure_ = st.error().message;
    return done();
  }
  // 3. Build (or take the build prefetched while an earlier attempt was measured).
  auto pooled = pool_->get({*spliced, hw_.num_dies, hw_.arch}, dir / "kernel.hip", dir / "kernel");
  auto& built = pooled.build;
  if (!built) {
    a.status = AttemptStatus::build_failed;
    a.reason = built.error().message;
    return done();
  }
  if (pooled.prefetched) a.stage_seconds["build_wait"] = pooled.wait_seconds;
  else a.stage_seconds["build"] = built->seconds;
  (void)write_file_atomic(dir / "build.log", format_argv(built->argv) + "\n" + built->log);
  a.build = {{"ok", built->ok}, {"seconds", built->seconds}, {"log_excerpt", tail_lines(built->log, 20)},
             {"prefetched", pooled.prefetched}};
  if (!built->ok) {
    a.status = AttemptStatus::build_failed;
    a.reason = built->failure;
    return done();
  }
  if (interrupt_requested()) return done();
  // 4. Verify, compare, time, profile.
  if (finish_attempt_stages(a, dir, dir / "kernel") && history_.baseline && history_.baseline->timing && a.timing &&
      a.timing->median_ms > 0)
    a.speedup = history_.baseline->timing->median_ms / a.timing->median_ms;
  if (could_become_best(a) && !interrupt_requested()) recheck_speed(a, dir / "kernel");
  std::error_code rm_ec;
  fs::remove(dir / "kernel", rm_ec);  // binaries are large; the source and logs stay
  return done();
}

void Optimizer::update_best() {
  const Attempt* best = history_.best();
  if (!best) {
    // Under time with nothing significantly faster the original kernel is the best kernel.
    if (history_.objective() == Objective::time && history_.baseline)
      (void)write_file_atomic(opt_.run_dir / "best.hip", kernel_->text());
    return;
  }
  if (auto st = check_region_code(best->region); !st) {
    spdlog::warn("best.hip not written: {}", st.error().message);
    return;
  }
  auto spliced = kernel_->splice(best->region);
  if (spliced) (void)write_file_atomic(opt_.run_dir / "best.hip", *spliced);
}

Status Optimizer::read_program_info() {
  const auto& info = history_.config["program_info"];
  const auto& gj = info.is_object() && info.contains("grid") ? info["grid"] : nlohmann::json();
  auto dim = [&](const char* k) { return gj.is_object() && gj.contains(k) && gj[k].is_number_integer() ? gj[k].get<long long>() : -1; };
  auto grid = make_tile_grid(dim("m"), dim("n"), "the kernel program's info mode reports grid");
  if (!grid) return grid.error();
  grid_ = *grid;
  kernel_regex_ = info.value("kernel_regex", "");
  dump_tol_ = info.value("dump_tol", 0.0);
  // The run's window, fixed when its baseline was profiled (a resumed run keeps it, so
  // every attempt is profiled over the baseline's launches).
  const auto footprints = info.find("launch_footprints_bytes");
  int total = footprints != info.end() && footprints->is_array() ? static_cast<int>(footprints->size()) : 0;
  if (const auto n = info.find("launches"); n != info.end() && n->is_number_integer())
    total = static_cast<int>(std::clamp<long long>(n->get<long long>(), 0, 1 << 24));
  window_ = profile_window(total, history_.config.value("profile_launches", backend_.tools().profile_launches));
  return ok_status();
}

fs::path Optimizer::attempt_dir(int iteration) const { return opt_.run_dir / fmt::format("iter-{:03}", iteration); }

void Optimizer::prefetch_lookahead(const ProposalContext& ctx) {
  if (pool_->jobs() <= 1) return;
  // The proposal about to be made and the jobs() - 1 after it.
  for (const auto& p : proposer_.lookahead(ctx, pool_->jobs())) {
    auto spliced = kernel_->splice(p.region);
    if (!spliced) continue;
    // Never compile an unchecked region: the host mapping check gates the build.
    const auto check_dir = opt_.run_dir / "build-cache" / ("check-" + pool_->key({p.region, 0, ""}));
    pool_->prefetch({*spliced, hw_.num_dies, hw_.arch}, [this, region = p.region, check_dir] {
      MappingCheckOptions mo{opt_.host_cxx, check_dir, std::chrono::seconds(60)};
      auto report = check_mapping(region, ragged_grids(grid_), hw_, mo, runner_);
      return report && report->ok;
    });
  }
}

Result<OptimizeSummary> Optimizer::run() {
  const auto run_t0 = std::chrono::steady_clock::now();
  if (auto st = prepare(); !st) return st.error();
  pool_ = std::make_unique<BuildPool>(backend_, opt_.run_dir / "build-cache",
                                      opt_.build_jobs > 0 ? opt_.build_jobs : BuildPool::default_jobs());
  struct PoolEnd {  // waits for background builds and removes their cache on every return
    std::unique_ptr<BuildPool>& pool;
    ~PoolEnd() { pool.reset(); }
  } pool_end{pool_};
  history_.state = "running";
  if (!history_.baseline) {
    if (auto st = measure_baseline(); !st) {
      if (interrupt_requested()) {
        history_.state = "interrupted";
        (void)save();
        OptimizeSummary s{history_, opt_.run_dir, {}, true};
        return s;
      }
      history_.state = "failed";
      (void)save();
      return st.error();
    }
  } else {
    spdlog::info("baseline (recorded): L2 hit {}", fmt_pct(history_.baseline->metrics));
  }
  if (auto st = read_program_info(); !st) return make_error(st.error().message + " (in " + (opt_.run_dir / "history.json").string() + ")");

  auto counted = [&] {
    int n = 0;
    for (const auto& a : history_.attempts) n += a.status != AttemptStatus::duplicate;
    return n;
  };
  bool interrupted = false;
  std::string stop_reason;
  int guard = 0;
  while (counted() < opt_.iterations && guard++ < opt_.iterations * 4 + 8) {
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    const int iteration = history_.next_iteration();
    const auto dir = attempt_dir(iteration);
    std::error_code ec;
    fs::create_directories(dir, ec);
    ProposalContext ctx{*kernel_, grid_, hw_, history_, dir, opt_.run_dir, iteration};
    prefetch_lookahead(ctx);  // this proposal's build too, if the baseline has not started it
    const auto p0 = std::chrono::steady_clock::now();
    auto proposal = proposer_.propose(ctx);
    const double propose_s = secs_since(p0);
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    Attempt a;
    if (!proposal) {
      if (proposal.error().message == kExhausted) {
        stop_reason = "the " + proposer_.name() + " proposer has no untried pattern left";
        break;
      }
      if (proposal.error().fatal) {
        history_.state = "failed";
        (void)save();
        return make_error(proposal.error().message);
      }
      a.iteration = iteration;
      a.proposer = proposer_.name();
      a.status = AttemptStatus::proposal_failed;
      a.reason = proposal.error().message;
      a.started_at = now_iso8601();
      // A failed LLM call still cost tokens and time: keep its usage and latency
      // (the full exchange stays in the attempt's reply.json).
      std::error_code rec;
      if (fs::exists(dir / "reply.json", rec)) {
        auto text = read_file(dir / "reply.json");
        auto j = nlohmann::json::parse(text ? *text : std::string(), nullptr, false);
        if (!j.is_discarded() && j.contains("calls") && j["calls"].is_array()) {
          nlohmann::json calls = nlohmann::json::array();
          for (const auto& c : j["calls"]) {
            nlohmann::json kept = nlohmann::json::object();
            for (const char* k : {"purpose", "usage", "latency_s", "finish_reason", "http_status", "attempts"})
              if (c.contains(k)) kept[k] = c[k];
            calls.push_back(kept);
          }
          a.proposal["calls"] = calls;
        }
      }
    } else {
      a = evaluate(iteration, proposal.value(), dir);
      if (!environment_failure_.empty()) {  // not recorded: a resume redoes the attempt
        history_.state = "failed";
        (void)save();
        return make_error(environment_failure_ + " (the run stopped; free space, then continue with --resume " +
                          opt_.run_dir.string() + ")");
      }
      if (interrupt_requested()) {
        interrupted = true;  // the unfinished attempt is not recorded; resume redoes it
        break;
      }
    }
    a.stage_seconds["propose"] = propose_s;
    a.wall_seconds += propose_s;
    history_.attempts.push_back(a);
    if (auto st = save(); !st) return st.error();
    update_best();
    (void)write_file_atomic(opt_.run_dir / "report.html", render_run_html(history_));
    const double base_l2 = history_.baseline->metrics && history_.baseline->metrics->l2_hit_pct ? *history_.baseline->metrics->l2_hit_pct : 0;
    if (a.validated())
      spdlog::info("[{}/{}] {}: L2 hit {} ({:+.2f} pts), {:.4f} ms ({:.3f}x{})", counted(), opt_.iterations, a.label,
                   fmt_pct(a.metrics), a.metrics && a.metrics->l2_hit_pct ? *a.metrics->l2_hit_pct - base_l2 : 0.0,
                   a.timing ? a.timing->median_ms : 0.0, a.speedup.value_or(0),
                   a.significant ? fmt::format(" [{:.3f}, {:.3f}], {}", a.speedup_ci_low.value_or(0),
                                               a.speedup_ci_high.value_or(0),
                                               *a.significant ? "significant" : "not significant")
                                 : std::string(", one-shot"));
    else
      spdlog::info("[{}/{}] {}: {} — {}", counted(), opt_.iterations, a.label.empty() ? "(no proposal)" : a.label,
                   to_string(a.status), a.reason);
  }
  history_.state = interrupted ? "interrupted" : "completed";
  history_.config["run_wall_seconds_last_session"] = secs_since(run_t0);
  if (!stop_reason.empty()) history_.config["stopped_because"] = stop_reason;
  if (auto st = save(); !st) return st.error();
  update_best();
  std::error_code rm_ec;
  fs::remove(baseline_exe(), rm_ec);  // kept for the re-checks; a resumed run rebuilds it when needed
  OptimizeSummary s;
  s.history = history_;
  s.run_dir = opt_.run_dir;
  s.interrupted = interrupted;
  if (history_.best() || (history_.objective() == Objective::time && history_.baseline))
    s.best_kernel = opt_.run_dir / "best.hip";
  (void)write_file_atomic(opt_.run_dir / "report.md", render_report_markdown(s));
  (void)write_file_atomic(opt_.run_dir / "report.html", render_run_html(history_));
  return s;
}

}  // namespace swz
