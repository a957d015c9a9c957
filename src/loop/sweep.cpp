// Sweep measurement: two executables built once; per size, the mapping is
// checked on that size's grid, outputs compared, then both timed and profiled.
#include "swizzleperf/loop/sweep.h"
#include "swizzleperf/core/text.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "swizzleperf/core/history.h"
#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/core/stats.h"
#include "swizzleperf/loop/optimizer.h"
#include "swizzleperf/loop/speed_judge.h"

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
}

void to_json(nlohmann::json& j, const SweepReport& r) {
  j = {{"kernel", r.kernel}, {"pattern", r.label}, {"device", r.device}, {"points", r.points}, {"conclusion", r.conclusion}};
}

std::string render_sweep_markdown(const SweepReport& r) {
  std::string md = fmt::format("# sweep: {} with {} on {}\n\n", r.kernel, r.label, r.device);
  md += fmt::format("objective: {}\n\n", r.points.empty() ? "time" : to_string(r.points.front().objective));
  md += "| size | grid | L2 % base | L2 % pattern | gain | ms base | ms pattern | speedup | 95 % interval | significant | fabric base | fabric pattern | verdict |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|\n";
  for (const auto& p : r.points) {
    const auto gain = p.base_l2 && p.cand_l2 ? std::optional<double>(*p.cand_l2 - *p.base_l2) : std::nullopt;
    const auto sp = p.speedup ? p.speedup : p.base_ms && p.cand_ms ? std::optional<double>(*p.base_ms / *p.cand_ms) : std::nullopt;
    const std::string ci = p.speedup_ci_low && p.speedup_ci_high
                               ? fmt::format("[{:.3f}, {:.3f}]", *p.speedup_ci_low, *p.speedup_ci_high) : "n/a";
    md += fmt::format("| {} | {}x{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", size_str(p.size), p.grid.m, p.grid.n,
                      format_or(p.base_l2, "n/a"), format_or(p.cand_l2, "n/a"), format_or(gain, "n/a", "{:+.2f}"), format_or(p.base_ms, "n/a", "{:.4f}"),
                      format_or(p.cand_ms, "n/a", "{:.4f}"), format_or(sp, "n/a", "{:.3f}"), ci,
                      p.significant ? (*p.significant ? "yes" : "no") : "n/a", format_or(p.base_fabric, "n/a", "{:.3g}"),
                      format_or(p.cand_fabric, "n/a", "{:.3g}"), sweep_verdict(p));
  }
  md += "\n" + r.conclusion + "\n";
  return md;
}

Result<SweepReport> run_sweep(Backend& backend, ProcessRunner& runner, const SweepOptions& opt) {
  auto kernel = KernelSource::load(opt.kernel);
  if (!kernel) return kernel.error();
  auto spliced = kernel->splice(opt.region);
  if (!spliced) return spliced.error();
  if (auto st = backend.preflight(true); !st) return st.error();
  std::error_code ec;
  fs::create_directories(opt.out_dir / "hardware", ec);
  auto hw = backend.query_device(opt.out_dir / "hardware");
  if (!hw) return hw.error();
  SweepReport report{kernel->name(), opt.label, hw->name, {}, {}};
  fs::create_directories(opt.out_dir / "baseline", ec);
  fs::create_directories(opt.out_dir / "pattern", ec);
  const auto base_src = opt.out_dir / "baseline" / "kernel.hip", cand_src = opt.out_dir / "pattern" / "kernel.hip";
  if (auto st = write_file_atomic(base_src, kernel->text()); !st) return st.error();
  if (auto st = write_file_atomic(cand_src, *spliced); !st) return st.error();
  const auto base_exe = opt.out_dir / "baseline" / "kernel", cand_exe = opt.out_dir / "pattern" / "kernel";
  for (const auto& [src, exe] : {std::pair{base_src, base_exe}, std::pair{cand_src, cand_exe}}) {
    auto b = backend.build({src, exe, hw->num_dies, hw->arch});
    if (!b) return b.error();
    if (!b->ok) return make_error(src.string() + " does not build: " + b->failure);
  }
  const auto& tools = backend.tools();
  auto verify = backend.run_program(cand_exe, {"verify"}, tools.run_timeout);
  const bool cand_verifies = verify.process.success() && verify.json.value("ok", false);
  std::optional<std::string> first_bad;
  for (const auto& size : opt.sizes) {
    if (interrupt_requested()) return make_error("interrupted");
    SweepPoint p;
    p.size = size;
    p.objective = opt.objective;
    const std::vector<std::string> sz = {"--size", size_str(size)};
    auto info = backend.run_program(base_exe, {"info", "--size", size_str(size)}, tools.run_timeout);
    if (!info.process.success() || !info.json.contains("grid")) {
      p.verdict = "breaks: the program rejects this size (" + tail_lines(info.process.err, 1) + ")";
      report.points.push_back(p);
      continue;
    }
    const auto& gj = info.json["grid"];
    auto dim = [&](const char* k) { return gj.is_object() && gj.contains(k) && gj[k].is_number_integer() ? gj[k].get<long long>() : -1; };
    auto grid = make_tile_grid(dim("m"), dim("n"), "the program's info grid");
    if (!grid) {
      p.verdict = "breaks: " + grid.error().message;
      report.points.push_back(p);
      continue;
    }
    p.grid = *grid;
    spdlog::info("sweep {} grid {}x{}", size_str(size), p.grid.m, p.grid.n);
    MappingCheckOptions mo{opt.host_cxx, opt.out_dir / "mapping", std::chrono::seconds(60)};
    auto check = check_mapping(opt.region, {p.grid}, *hw, mo, runner);
    if (!check || !check->ok) {
      p.verdict = "breaks: " + (check ? check->summary() : check.error().message);
    } else if (!cand_verifies) {
      p.verdict = "breaks: the pattern fails verify mode";
    } else {
      const auto base_out = opt.out_dir / "base.bin", cand_out = opt.out_dir / "cand.bin";
      auto d1 = backend.run_program(base_exe, {"dump", base_out.string(), "--size", size_str(size)}, tools.run_timeout);
      auto d2 = backend.run_program(cand_exe, {"dump", cand_out.string(), "--size", size_str(size)}, tools.run_timeout);
      std::string diff = d1.process.success() && d2.process.success()
                             ? compare_outputs(base_out, cand_out, info.json.value("dump_tol", 0.0))
                             : "dump failed: " + (d1.process.success() ? d2 : d1).process.describe();
      fs::remove(base_out, ec);
      fs::remove(cand_out, ec);
      if (!diff.empty()) p.verdict = "breaks: " + diff;
    }
    if (p.verdict.empty()) {
      const std::string regex = info.json.value("kernel_regex", "");
      if (opt.rounds > 0) {  // interleaved A B rounds: the speedup with its interval
        auto c = compare_speed(backend, base_exe, cand_exe,
                               {"time", "--reps", std::to_string(opt.time_reps), "--warmup", std::to_string(opt.warmup),
                                "--size", size_str(size)},
                               opt.rounds, tools.run_timeout);
        if (c) {
          p.base_ms = median_of(c->baseline_ms);
          p.cand_ms = median_of(c->candidate_ms);
          p.speedup = c->ratio.estimate;
          p.speedup_ci_low = c->ratio.low;
          p.speedup_ci_high = c->ratio.high;
          p.significant = c->ratio.significant;
        } else {
          spdlog::warn("sweep {}: {}", size_str(size), c.error().message);
        }
      }
      for (int which = 0; which < 2; ++which) {
        const auto& exe = which == 0 ? base_exe : cand_exe;
        auto& ms = which == 0 ? p.base_ms : p.cand_ms;
        if (!p.speedup) {  // no interleaved timing (rounds 0 or it failed): one run each
          auto t = backend.run_program(exe, {"time", "--reps", std::to_string(opt.time_reps), "--warmup",
                                             std::to_string(opt.warmup), "--size", size_str(size)}, tools.run_timeout);
          if (t.json.contains("median_ms")) ms = t.json["median_ms"].get<double>();
        }
        auto m = backend.profile({exe, {"profile", "--size", size_str(size)}, regex,
                                  opt.out_dir / fmt::format("{}-{}", which == 0 ? "baseline" : "pattern", size_str(size)),
                                  LaunchWindow{}});  // every launch: a sweep compares sizes, not a long run
        auto& l2 = which == 0 ? p.base_l2 : p.cand_l2;
        auto& fab = which == 0 ? p.base_fabric : p.cand_fabric;
        if (m) {
          l2 = m->l2_hit_pct;
          fab = m->fabric_sectors;
        }
      }
    }
    if (!first_bad && sweep_verdict(p) != "helps") first_bad = size_str(size) + " (" + sweep_verdict(p) + ")";
    report.points.push_back(p);
  }
  report.conclusion = first_bad ? "The pattern stops helping first at size " + *first_bad + "."
                                : "The pattern helps at every size measured.";
  (void)write_file_atomic(opt.out_dir / "sweep.json", nlohmann::json(report).dump(2) + "\n");
  (void)write_file_atomic(opt.out_dir / "sweep.md", render_sweep_markdown(report));
  return report;
}

}  // namespace swz
