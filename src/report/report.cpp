// Reports: baseline vs best side by side, then every attempt in order.
#include "swizzleperf/report/report.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/util/json_field.h"
#include "swizzleperf/util/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace swz {

namespace {

std::string opt_num(const std::optional<double>& v, const char* f = "{:.2f}") {
  return v ? fmt::format(fmt::runtime(f), *v) : "n/a";
}

// The best kernel's file name as this run writes it: best.hip for a C++ program, best.py
// for a Triton one.
std::string best_file_name(const OptimizeSummary& s) {
  if (!s.best_kernel.empty()) return s.best_kernel.filename().string();
  return std::string("best") + source_extension(language_of(s.history.kernel_path));
}

std::optional<double> l2(const Attempt& a) { return a.metrics ? a.metrics->l2_hit_pct : std::nullopt; }
std::optional<double> ms(const Attempt& a) { return a.timing ? std::optional<double>(a.timing->median_ms) : std::nullopt; }
std::optional<double> fabric(const Attempt& a) { return a.metrics ? a.metrics->fabric_sectors : std::nullopt; }
std::optional<double> dram(const Attempt& a) {
  if (!a.metrics || !a.metrics->dram_read_bytes) return std::nullopt;
  return *a.metrics->dram_read_bytes + a.metrics->dram_write_bytes.value_or(0);
}

nlohmann::json attempt_brief(const Attempt& a) {
  nlohmann::json j = {{"iteration", a.iteration}, {"label", a.label}, {"status", to_string(a.status)}};
  if (auto v = l2(a)) j["l2_hit_pct"] = *v;
  if (auto v = ms(a)) j["median_ms"] = *v;
  if (a.speedup) j["speedup"] = *a.speedup;
  // null: not re-checked (only candidates that could become best are).
  j["speedup_ci_low"] = a.speedup_ci_low ? nlohmann::json(*a.speedup_ci_low) : nlohmann::json(nullptr);
  j["speedup_ci_high"] = a.speedup_ci_high ? nlohmann::json(*a.speedup_ci_high) : nlohmann::json(nullptr);
  j["significant"] = a.significant ? nlohmann::json(*a.significant) : nlohmann::json(nullptr);
  j["speedup_regime"] = a.speedup_regime == Regime::unnamed ? nlohmann::json() : nlohmann::json(regime_label(a.speedup_regime));
  if (auto r = regimes_json(a); !r.empty()) j["regimes"] = r;
  if (a.energy_ratio) {
    j["energy_ratio"] = *a.energy_ratio;
    j["energy_ci_low"] = a.energy_ci_low ? nlohmann::json(*a.energy_ci_low) : nlohmann::json();
    j["energy_ci_high"] = a.energy_ci_high ? nlohmann::json(*a.energy_ci_high) : nlohmann::json();
    j["energy_significant"] = a.energy_significant ? nlohmann::json(*a.energy_significant) : nlohmann::json();
  }
  if (a.timing && a.timing->energy_mj_per_run) j["energy_mj_per_run"] = *a.timing->energy_mj_per_run;
  if (a.recheck && !a.recheck->untrusted.empty()) j["untrusted"] = a.recheck->untrusted;
  if (auto v = fabric(a)) j["fabric_sectors"] = *v;
  if (auto v = dram(a)) j["dram_bytes"] = *v;
  if (!a.reason.empty()) j["reason"] = a.reason;
  return j;
}

}  // namespace

std::vector<RegimeView> regime_views(const Attempt& a) {
  std::vector<RegimeView> out;
  if (!a.recheck) return out;
  for (const SpeedComparison& c : a.recheck->regimes) {
    RegimeView v;
    v.regime = c.regime;
    v.speedup = c.ratio.estimate;
    v.low = c.ratio.low;
    v.high = c.ratio.high;
    v.significant = c.ratio.significant;
    if (c.regime != Regime::unnamed) {  // a comparison without regime options has no clocks, energy or trust
      v.trusted = c.trusted;
      v.untrusted = c.untrusted;
      v.clock_note = c.clock_note;
      if (const double mhz = median_known(c.baseline_mhz); mhz >= 0) v.baseline_mhz = mhz;
      if (const double mhz = median_known(c.candidate_mhz); mhz >= 0) v.candidate_mhz = mhz;
      v.discarded = c.baseline_discarded + c.candidate_discarded;
      if (c.energy) {
        v.energy_ratio = c.energy->estimate;
        v.energy_low = c.energy->low;
        v.energy_high = c.energy->high;
        v.energy_significant = c.energy->significant;
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string regime_text(const RegimeView& v) {
  std::string s = fmt::format("{}{:.3f}x [{:.3f}, {:.3f}], {}", v.name().empty() ? "" : v.name() + " ", v.speedup, v.low,
                              v.high, v.significant && v.trusted ? "significant" : "not significant");
  if (v.baseline_mhz && v.candidate_mhz) s += fmt::format(", SM clock {:.0f} -> {:.0f} MHz", *v.baseline_mhz, *v.candidate_mhz);
  if (v.discarded > 0) s += fmt::format(", {} samples discarded", v.discarded);
  if (v.energy_ratio && v.energy_low && v.energy_high)
    s += fmt::format(", energy per run x{:.3f} [{:.3f}, {:.3f}]", *v.energy_ratio, *v.energy_low, *v.energy_high);
  if (!v.clock_note.empty()) s += " (" + v.clock_note + ")";
  if (!v.trusted) s += "; untrusted: " + v.untrusted;
  return s;
}

nlohmann::json regimes_json(const Attempt& a) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& v : regime_views(a)) {
    if (v.name().empty()) continue;
    nlohmann::json j = {{"speedup", v.speedup}, {"ci_low", v.low}, {"ci_high", v.high},
                        {"significant", v.significant && v.trusted}, {"trusted", v.trusted}};
    if (!v.trusted) j["untrusted"] = v.untrusted;
    if (!v.clock_note.empty()) j["clock_note"] = v.clock_note;
    j["baseline_mhz_median"] = v.baseline_mhz ? nlohmann::json(*v.baseline_mhz) : nlohmann::json();
    j["candidate_mhz_median"] = v.candidate_mhz ? nlohmann::json(*v.candidate_mhz) : nlohmann::json();
    j["discarded"] = v.discarded;
    j["energy_ratio"] = v.energy_ratio ? nlohmann::json(*v.energy_ratio) : nlohmann::json();
    if (v.energy_ratio) {
      j["energy_ci_low"] = v.energy_low ? nlohmann::json(*v.energy_low) : nlohmann::json();
      j["energy_ci_high"] = v.energy_high ? nlohmann::json(*v.energy_high) : nlohmann::json();
      j["energy_significant"] = v.energy_significant;
    }
    out[v.name()] = j;
  }
  return out;
}

std::string speed_text(const Attempt& a) {
  if (!a.speedup) return "n/a";
  const std::string regime = a.speedup_regime == Regime::unnamed ? "" : " " + regime_label(a.speedup_regime);
  if (!a.significant) return fmt::format("{:.3f}x ({}one-shot, not re-checked)", *a.speedup,
                                         a.speedup_regime == Regime::unnamed ? "" : regime_label(a.speedup_regime) + ", ");
  const auto views = regime_views(a);
  if (views.size() < 2)  // one regime: the attempt's own interval
    return fmt::format("{:.3f}x [{:.3f}, {:.3f}]{}, {}", *a.speedup, a.speedup_ci_low.value_or(0),
                       a.speedup_ci_high.value_or(0), regime, *a.significant ? "significant" : "not significant") +
           (views.empty() || views.front().clock_note.empty() ? "" : " (" + views.front().clock_note + ")") +
           (views.empty() || views.front().trusted ? "" : "; untrusted: " + views.front().untrusted);
  std::string s;
  for (const auto& v : views) s += (s.empty() ? "" : "; ") + regime_text(v);
  return s + (*a.significant ? " (significant in both)" : " (not significant in both: no winner)");
}

namespace {

// "faster: 1.300x [1.29, 1.31] (burst); sustained 1.219x [1.21, 1.23]".
std::string faster_text(const char* word, const Attempt& b, const char* f) {
  const std::string bound = std::string(f).substr(0, std::string(f).size() - 1);  // "{:.3f}x" -> "{:.3f}"
  std::string s = fmt::format(fmt::runtime(std::string("{}: ") + f + " [" + bound + ", " + bound + "]"), word, *b.speedup,
                              b.speedup_ci_low.value_or(0), b.speedup_ci_high.value_or(0));
  if (b.speedup_regime != Regime::unnamed) s += " (" + regime_label(b.speedup_regime) + ")";
  const auto views = regime_views(b);
  for (std::size_t i = 1; i < views.size(); ++i)
    s += fmt::format("; {} {:.3f}x [{:.3f}, {:.3f}]", views[i].name(), views[i].speedup, views[i].low, views[i].high);
  return s;
}

// "; no winner named: burst: the SM clock moved ..." when an attempt's re-check could not be trusted.
std::string untrusted_note(const RunHistory& h) {
  for (auto it = h.attempts.rbegin(); it != h.attempts.rend(); ++it)
    if (it->validated() && it->recheck && !it->recheck->untrusted.empty())
      return fmt::format("; no winner named on {}'s re-check: {}", it->label, it->recheck->untrusted);
  return "";
}

}  // namespace

std::string speed_verdict(const RunHistory& h) {
  const Attempt* b = h.best();
  if (h.objective() == Objective::time) {
    if (!b) return "no significant speedup" + untrusted_note(h);
    return faster_text("faster", *b, "{:.3f}x");
  }
  if (h.objective() == Objective::energy) {
    if (!b) return "no significant energy saving" + untrusted_note(h);
    return fmt::format("less energy per run: x{:.3f} [{:.3f}, {:.3f}] (sustained); ", b->energy_ratio.value_or(0),
                       b->energy_ci_low.value_or(0), b->energy_ci_high.value_or(0)) +
           speed_text(*b);
  }
  if (b && significantly_slower(*b)) return faster_text("slower", *b, "{:.2f}x");
  if (b && significantly_faster(*b)) return faster_text("faster", *b, "{:.3f}x");
  if (b && b->significant) return "no significant speed difference";
  return b ? "speed not re-checked" : "";
}

nlohmann::json stage_medians(const RunHistory& h) {
  std::map<std::string, std::vector<double>> per_stage;
  std::vector<double> walls;
  for (const auto& a : h.attempts) {
    if (a.status == AttemptStatus::duplicate) continue;
    walls.push_back(a.wall_seconds);
    for (const auto& [stage, secs] : a.stage_seconds) per_stage[stage].push_back(secs);
  }
  nlohmann::json j = {{"attempts", walls.size()}, {"stage_seconds_median", nlohmann::json::object()}};
  if (!walls.empty()) j["attempt_wall_s_median"] = median_of(walls);
  for (const auto& [stage, v] : per_stage) j["stage_seconds_median"][stage] = median_of(v);
  return j;
}

nlohmann::json summary_json(const OptimizeSummary& s) {
  const auto& h = s.history;
  nlohmann::json j = {{"kernel", h.kernel_path}, {"run_dir", s.run_dir.string()}, {"state", h.state},
                      {"improved", s.improved()}, {"attempts", h.attempts.size()},
                      {"device", h.hardware ? h.hardware->name : std::string()}};
  int validated = 0;
  for (const auto& a : h.attempts) validated += a.validated();
  j["validated"] = validated;
  if (h.baseline) j["baseline"] = attempt_brief(*h.baseline);
  if (const Attempt* b = h.best()) {
    j["best"] = attempt_brief(*b);
    j["best_kernel"] = s.best_kernel.string();
    j["best"]["region"] = b->region;
  }
  j["objective"] = to_string(h.objective());
  j["verdict"] = speed_verdict(h);
  // Under time the best-L2 candidate is still reported (it may be slower).
  if (const Attempt* l2b = h.best(Objective::l2)) j["best_l2"] = attempt_brief(*l2b);
  if (!j.contains("best_kernel") && !s.best_kernel.empty()) j["best_kernel"] = s.best_kernel.string();
  if (!h.stopped_because.empty()) j["stopped_because"] = h.stopped_because;
  j["timing"] = stage_medians(h);
  return j;
}

std::string render_summary_table(const OptimizeSummary& s) {
  const auto& h = s.history;
  std::string out;
  const Attempt* b = h.best();
  out += fmt::format("\n{:<10} {:>12} {:>12} {:>16} {:>14}  {}\n", "", "L2 hit %", "median ms", "fabric sectors", "DRAM bytes", "pattern");
  auto row = [&](const char* name, const Attempt& a) {
    out += fmt::format("{:<10} {:>12} {:>12} {:>16} {:>14}  {}\n", name, opt_num(l2(a)), opt_num(ms(a), "{:.4f}"),
                       opt_num(fabric(a), "{:.0f}"), opt_num(dram(a), "{:.3g}"), a.label);
  };
  if (h.baseline) row("baseline", *h.baseline);
  if (b) row("best", *b);
  const Objective objective = h.objective();
  const Attempt* best_l2 = h.best(Objective::l2);
  if (objective == Objective::time && best_l2 && best_l2 != b) row("best L2", *best_l2);
  auto l2_gain = [&](const Attempt& a) {
    const auto bl = h.baseline ? l2(*h.baseline) : std::nullopt, ba = l2(a);
    return bl && ba ? *ba - *bl : 0.0;
  };
  out += fmt::format("\nobjective: {}, regime: {}\n", to_string(objective), to_string(h.config.timing.regime));
  if (const auto note = untrusted_note(h); !note.empty()) out += note.substr(2) + "\n";
  if (b && h.baseline) {
    out += fmt::format("best: iteration {} ({}), L2 hit {:+.2f} points, speedup {}\n", b->iteration, b->label,
                       l2_gain(*b), speed_text(*b));
    if (b->energy_ratio && b->energy_ci_low && b->energy_ci_high)
      out += fmt::format("energy per run: x{:.3f} [{:.3f}, {:.3f}] of the baseline's (sustained){}\n", *b->energy_ratio,
                         *b->energy_ci_low, *b->energy_ci_high, b->energy_significant.value_or(false) ? ", significant" : "");
    if (objective == Objective::l2 && significantly_slower(*b)) out += speed_verdict(h) + " — the best-L2 kernel is slower than the baseline\n";
    out += fmt::format("best kernel: {}\n", s.best_kernel.string());
  } else if (objective != Objective::l2 && best_l2 && h.baseline) {
    out += (objective == Objective::energy
                ? "no significant energy saving: no validated candidate used significantly less energy per run than the "
                  "baseline; "
                : "no significant speedup: no validated candidate was significantly faster than the baseline; ") +
           best_file_name(s) + " is the original kernel\n";
    out += fmt::format("best L2 candidate: iteration {} ({}), L2 hit {:+.2f} points, speedup {}\n", best_l2->iteration,
                       best_l2->label, l2_gain(*best_l2), speed_text(*best_l2));
    if (!s.best_kernel.empty()) out += fmt::format("best kernel: {} (the original)\n", s.best_kernel.string());
  } else {
    out += "no attempt validated; nothing better than the baseline was found\n";
  }
  out += fmt::format("{}: {} ({} attempts); history: {}\n", s.improved() ? "improved" : "not improved",
                     s.interrupted() ? "interrupted — continue with --resume " + s.run_dir.string() : "run completed",
                     h.attempts.size(), (s.run_dir / "history.json").string());
  return out;
}

std::string render_report_markdown(const OptimizeSummary& s) {
  const auto& h = s.history;
  std::string out = fmt::format("# swizzleperf run: {}\n\n", h.kernel_name);
  out += fmt::format("- kernel: `{}`\n- device: {}\n- state: {}\n- created: {}, updated: {}\n- objective: {}\n",
                     h.kernel_path, h.hardware ? h.hardware->name : "?", h.state, h.created_at, h.updated_at,
                     to_string(h.objective()));
  if (const auto v = speed_verdict(h); !v.empty()) out += "- verdict: " + v + "\n";
  if (h.objective() == Objective::time && !h.best())
    if (const Attempt* l2b = h.best(Objective::l2))
      out += fmt::format("- best L2 candidate: iteration {} ({}), speedup {}\n", l2b->iteration, l2b->label, speed_text(*l2b));
  out += "\nspeedup: baseline time / candidate time; with an interval when the candidate was re-checked "
         "(interleaved rounds, 95 % sign-test interval of the median ratio), else one-shot. regime: the power regime "
         "the speedup was measured in (burst or sustained; docs/timing.md). energy ratio: candidate / baseline energy "
         "per run, measured sustained.\n\n";
  if (h.config.timing.regime != Regime::unnamed)
    out += fmt::format("regime: {} (burst: throttle threshold {} of the clock rate, at most {} discards per request; "
                       "sustained: {} s settle, {} s window)\n\n",
                       to_string(h.config.timing.regime), h.config.timing.throttle_threshold, h.config.timing.max_discards,
                       h.config.timing.settle_s, h.config.timing.sustain_s);
  out += "| iter | pattern | status | L2 hit % | median ms | speedup | regime | 95 % interval | significant | energy ratio | fabric sectors | DRAM bytes | note |\n";
  out += "|---:|---|---|---:|---:|---:|---|---|---|---:|---:|---:|---|\n";
  auto cell = [](std::string text) {  // a table cell: no column breaks, one line
    for (auto& c : text)
      if (c == '|' || c == '\n') c = ' ';
    return text;
  };
  auto row = [&](const Attempt& a) {
    const std::string note = cell(a.reason);
    const std::string ci = a.speedup_ci_low && a.speedup_ci_high
                               ? fmt::format("[{:.3f}, {:.3f}]", *a.speedup_ci_low, *a.speedup_ci_high) : "";
    const std::string sig = a.significant ? (*a.significant ? "yes" : "no") : "";
    std::string energy = opt_num(a.energy_ratio, "{:.3f}");
    if (a.energy_ci_low && a.energy_ci_high) energy += fmt::format(" [{:.3f}, {:.3f}]", *a.energy_ci_low, *a.energy_ci_high);
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", a.iteration, cell(a.label),
                       to_string(a.status), opt_num(l2(a)), opt_num(ms(a), "{:.4f}"), opt_num(a.speedup, "{:.3f}"),
                       regime_label(a.speedup_regime), ci, sig, energy, opt_num(fabric(a), "{:.0f}"),
                       opt_num(dram(a), "{:.4g}"), note.substr(0, 160));
  };
  if (h.baseline) row(*h.baseline);
  for (const auto& a : h.attempts) row(a);
  const auto t = stage_medians(h);
  if (t.contains("attempt_wall_s_median")) {
    out += fmt::format("\n## Wall time per attempt (median over {} attempts, duplicates excluded)\n\n",
                       t["attempts"].get<std::size_t>());
    out += fmt::format("- attempt: {:.2f} s\n", t["attempt_wall_s_median"].get<double>());
    for (const auto& [stage, secs] : t["stage_seconds_median"].items())
      out += fmt::format("- {}: {:.2f} s\n", stage, secs.get<double>());
  }
  if (const Attempt* b = h.best()) {
    std::string regimes;
    for (const auto& v : regime_views(*b)) regimes += "- " + regime_text(v) + "\n";
    out += fmt::format("\n## Best: iteration {} — {}\n\nspeedup {}\n\n{}\n```cpp\n{}```\n", b->iteration, b->label,
                       speed_text(*b), regimes, b->region);
  } else if (h.objective() == Objective::time && h.baseline) {
    out += "\n## Best: the original kernel (no significant speedup)\n";
  }
  return out;
}

}  // namespace swz
