// Sweep measurement: two executables built once; per size, the mapping is
// checked on that size's grid, outputs compared, then both timed and profiled.
#include "swizzleperf/loop/sweep.h"
#include "swizzleperf/util/text.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "swizzleperf/core/history.h"
#include "swizzleperf/util/stats.h"
#include "swizzleperf/loop/attempt_pipeline.h"
#include "swizzleperf/loop/measure_settings.h"
#include "swizzleperf/util/file_io.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

std::string size_str(const std::vector<int>& s) {
  std::string o;
  for (int v : s) o += (o.empty() ? "" : ",") + std::to_string(v);
  return o;
}

}  // namespace

std::string sweep_verdict(const SweepPoint& p) {
  if (!p.verdict.empty()) return p.verdict;
  if (p.significant) {
    const bool faster = *p.significant && p.speedup_ci_low && *p.speedup_ci_low > 1.0;
    const bool slower = *p.significant && p.speedup_ci_high && *p.speedup_ci_high < 1.0;
    if (slower) return "hurts";
    if (p.objective == Objective::time) return faster ? "helps" : "no gain";
  }
  const double dl2 = p.base_l2 && p.cand_l2 ? *p.cand_l2 - *p.base_l2 : 0;
  const double ratio = p.base_ms && p.cand_ms && *p.cand_ms > 0 ? *p.base_ms / *p.cand_ms : 1;
  if (dl2 >= 0.5 || ratio >= 1.02) return "helps";
  if (dl2 <= -0.5 || ratio <= 0.98) return "hurts";
  return "no gain";
}

void to_json(nlohmann::json& j, const SweepPoint& p) {
  j = {{"size", p.size}, {"grid", {{"m", p.grid.m}, {"n", p.grid.n}}}, {"verdict", sweep_verdict(p)}};
  auto put = [&](const char* k, const std::optional<double>& v) { j[k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  put("baseline_l2_hit_pct", p.base_l2);
  put("pattern_l2_hit_pct", p.cand_l2);
  put("baseline_ms", p.base_ms);
  put("pattern_ms", p.cand_ms);
  put("baseline_fabric_sectors", p.base_fabric);
  put("pattern_fabric_sectors", p.cand_fabric);
  put("speedup", p.speedup ? p.speedup : (p.base_ms && p.cand_ms && *p.cand_ms > 0 ? std::optional<double>(*p.base_ms / *p.cand_ms) : std::nullopt));
  put("speedup_ci_low", p.speedup_ci_low);
  put("speedup_ci_high", p.speedup_ci_high);
  j["significant"] = p.significant ? nlohmann::json(*p.significant) : nlohmann::json(nullptr);
  j["objective"] = to_string(p.objective);
  j["regime"] = p.regime.empty() ? nlohmann::json() : nlohmann::json(p.regime);
  if (!p.regimes.empty()) {
    nlohmann::json regimes = nlohmann::json::object();
    for (const auto& c : p.regimes) regimes[regime_label(c.regime)] = c;
    j["regimes"] = regimes;
  }
  if (!p.untrusted.empty()) j["untrusted"] = p.untrusted;
}

void to_json(nlohmann::json& j, const SweepReport& r) {
  j = {{"kernel", r.kernel}, {"pattern", r.label}, {"device", r.device}, {"points", r.points}, {"conclusion", r.conclusion}};
}

std::string render_sweep_markdown(const SweepReport& r) {
  std::string md = fmt::format("# sweep: {} with {} on {}\n\n", r.kernel, r.label, r.device);
  md += fmt::format("objective: {}\n\n", r.points.empty() ? "time" : to_string(r.points.front().objective));
  md += "| size | grid | L2 % base | L2 % pattern | gain | ms base | ms pattern | speedup | regime | 95 % interval | significant | fabric base | fabric pattern | verdict |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|---|\n";
  for (const auto& p : r.points) {
    const auto gain = p.base_l2 && p.cand_l2 ? std::optional<double>(*p.cand_l2 - *p.base_l2) : std::nullopt;
    const auto sp = p.speedup ? p.speedup : p.base_ms && p.cand_ms ? std::optional<double>(*p.base_ms / *p.cand_ms) : std::nullopt;
    const std::string ci = p.speedup_ci_low && p.speedup_ci_high
                               ? fmt::format("[{:.3f}, {:.3f}]", *p.speedup_ci_low, *p.speedup_ci_high) : "n/a";
    md += fmt::format("| {} | {}x{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", size_str(p.size), p.grid.m, p.grid.n,
                      format_or(p.base_l2, "n/a"), format_or(p.cand_l2, "n/a"), format_or(gain, "n/a", "{:+.2f}"), format_or(p.base_ms, "n/a", "{:.4f}"),
                      format_or(p.cand_ms, "n/a", "{:.4f}"), format_or(sp, "n/a", "{:.3f}"), p.regime.empty() ? "n/a" : p.regime, ci,
                      p.significant ? (*p.significant ? "yes" : "no") : "n/a", format_or(p.base_fabric, "n/a", "{:.3g}"),
                      format_or(p.cand_fabric, "n/a", "{:.3g}"), sweep_verdict(p));
  }
  for (const auto& p : r.points) {
    if (p.regimes.size() < 2) continue;
    md += fmt::format("\n{}:", size_str(p.size));
    for (const auto& c : p.regimes)
      md += fmt::format(" {} {:.3f}x [{:.3f}, {:.3f}];", regime_label(c.regime), c.ratio.estimate, c.ratio.low, c.ratio.high);
    md += "\n";
  }
  for (const auto& p : r.points)
    if (!p.untrusted.empty()) md += fmt::format("\n{}: no winner named: {}\n", size_str(p.size), p.untrusted);
  md += "\n" + r.conclusion + "\n";
  return md;
}

Result<SweepReport> run_sweep(Backend& backend, ProcessRunner& runner, const SweepOptions& opt) {
  auto kernel = KernelSource::load(opt.kernel);
  if (!kernel) return kernel.error();
  auto region = ValidRegion::make(opt.region, kernel->language());  // the pattern enters here
  if (!region) return region.error();
  auto spliced = kernel->splice(region->code());
  if (!spliced) return spliced.error();
  if (auto st = backend.preflight(true); !st) return st.error();
  std::error_code ec;
  fs::create_directories(opt.out_dir / "hardware", ec);
  auto hw = backend.query_device(opt.out_dir / "hardware");
  if (!hw) return hw.error();
  SweepReport report{kernel->name(), opt.label, hw->name, {}, {}};
  fs::create_directories(opt.out_dir / "baseline", ec);
  fs::create_directories(opt.out_dir / "pattern", ec);
  const std::string src_name = "kernel" + std::string(source_extension(kernel->language()));
  const auto base_src = opt.out_dir / "baseline" / src_name, cand_src = opt.out_dir / "pattern" / src_name;
  if (auto st = write_file_atomic(base_src, kernel->text()); !st) return st.error();
  if (auto st = write_file_atomic(cand_src, *spliced); !st) return st.error();
  const auto base_exe = opt.out_dir / "baseline" / "kernel", cand_exe = opt.out_dir / "pattern" / "kernel";
  for (const auto& [src, exe] : {std::pair{base_src, base_exe}, std::pair{cand_src, cand_exe}}) {
    auto b = backend.build({src, exe, hw->num_dies, hw->arch});
    if (!b) return b.error();
    if (!b->ok) return make_error(src.string() + " does not build: " + b->failure);
  }
  std::optional<std::string> first_bad;
  for (const auto& size : opt.sizes) {
    if (interrupt_requested()) return interrupted_error();
    SweepPoint p;
    p.size = size;
    p.objective = opt.settings.objective;
    // One measurement setting per size: the optimize loop's own stages.
    const auto base_dir = opt.out_dir / ("baseline-" + size_str(size)), cand_dir = opt.out_dir / ("pattern-" + size_str(size));
    fs::create_directories(base_dir, ec);
    fs::create_directories(cand_dir, ec);
    MeasureSetup setup = measure_setup_from(opt.settings);
    setup.hw = *hw;
    setup.size = size;
    setup.baseline_dir = base_dir;
    auto info = AttemptPipeline(backend, runner, setup).read_info(base_exe, base_dir);
    if (!info) {
      if (info.error().interrupted()) return info.error();
      p.verdict = "breaks: the program rejects this size (" + info.error().message + ")";
      report.points.push_back(p);
      continue;
    }
    setup.program = *info;
    setup.language = kernel->language();
    setup.window = LaunchWindow{};  // every launch: a sweep compares sizes, not a long run
    p.grid = info->grid;
    spdlog::info("sweep {} grid {}x{}", size_str(size), p.grid.m, p.grid.n);
    AttemptPipeline pipe(backend, runner, setup);
    Attempt base, cand;
    base.label = "baseline";
    cand.label = opt.label;
    cand.iteration = 1;
    auto breaks = [&](const std::string& who, const StageResult& r, const Attempt& a) -> std::optional<std::string> {
      if (r.passed()) return std::nullopt;
      if (r.end == StageEnd::failed) return "breaks: " + who + a.reason;
      return "breaks: " + who + (r.reason.empty() ? "interrupted" : r.reason);
    };
    Candidate candidate;
    candidate.region = opt.region;
    candidate.label = opt.label;
    candidate.grid = p.grid;
    StageResult r = pipe.check(cand, candidate, *region, cand_dir, {});
    if (r.end == StageEnd::failed && cand.status == AttemptStatus::duplicate) r = {};  // the identity order: still measured
    std::optional<std::string> broke = breaks("", r, cand);
    if (!broke) broke = breaks("the baseline: ", pipe.measure_reference(base, base_exe, base_dir), base);
    if (!broke) broke = breaks("", pipe.evaluate(cand, cand_exe, cand_dir, base), cand);
    if (broke) {
      if (interrupt_requested()) return interrupted_error();
      p.verdict = *broke;
    } else {
      const bool rechecked = opt.settings.recheck_rounds > 0 && pipe.recheck(cand, cand_exe, base_exe).passed() && cand.significant;
      p.regime = regime_label(cand.speedup_regime);
      const SpeedComparison* first = cand.recheck ? cand.recheck->first() : nullptr;
      if (cand.recheck)
        for (const auto& c : cand.recheck->regimes)
          if (c.regime != Regime::unnamed) p.regimes.push_back(c);
      p.untrusted = cand.recheck ? cand.recheck->untrusted : "";
      if (rechecked) {
        p.base_ms = median_of(first ? first->baseline_ms : std::vector<double>{});
        p.cand_ms = median_of(first ? first->candidate_ms : std::vector<double>{});
        p.speedup = cand.speedup;
        p.speedup_ci_low = cand.speedup_ci_low;
        p.speedup_ci_high = cand.speedup_ci_high;
        p.significant = cand.significant;
      } else {  // no interleaved timing (rounds 0 or it failed): the one run each
        if (base.timing) p.base_ms = base.timing->median_ms;
        if (cand.timing) p.cand_ms = cand.timing->median_ms;
      }
      if (pipe.profile(base, base_exe, base_dir).passed() && base.metrics) {
        p.base_l2 = base.metrics->l2_hit_pct;
        p.base_fabric = base.metrics->fabric_sectors;
      }
      if (pipe.profile(cand, cand_exe, cand_dir).passed() && cand.metrics) {
        p.cand_l2 = cand.metrics->l2_hit_pct;
        p.cand_fabric = cand.metrics->fabric_sectors;
      }
    }
    if (!first_bad && sweep_verdict(p) != "helps") first_bad = size_str(size) + " (" + sweep_verdict(p) + ")";
    report.points.push_back(p);
  }
  report.conclusion = first_bad ? "The pattern stops helping first at size " + *first_bad + "."
                                : "The pattern helps at every size measured.";
  if (auto st = write_file_atomic(opt.out_dir / "sweep.json", nlohmann::json(report).dump(2) + "\n"); !st) return st.error();
  if (auto st = write_file_atomic(opt.out_dir / "sweep.md", render_sweep_markdown(report)); !st) return st.error();
  return report;
}

}  // namespace swz
