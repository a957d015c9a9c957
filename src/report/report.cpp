// Reports: baseline vs best side by side, then every attempt in order.
#include "swizzleperf/report/report.h"
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
  if (auto v = fabric(a)) j["fabric_sectors"] = *v;
  if (auto v = dram(a)) j["dram_bytes"] = *v;
  if (!a.reason.empty()) j["reason"] = a.reason;
  return j;
}

}  // namespace

std::string speed_text(const Attempt& a) {
  if (!a.speedup) return "n/a";
  if (!a.significant) return fmt::format("{:.3f}x (one-shot, not re-checked)", *a.speedup);
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}], {}", *a.speedup, a.speedup_ci_low.value_or(0), a.speedup_ci_high.value_or(0),
                     *a.significant ? "significant" : "not significant");
}

std::string speed_verdict(const RunHistory& h) {
  const Attempt* b = h.best();
  if (h.objective() == Objective::time) {
    if (!b) return "no significant speedup";
    return fmt::format("faster: {:.3f}x [{:.3f}, {:.3f}]", *b->speedup, *b->speedup_ci_low, *b->speedup_ci_high);
  }
  if (b && significantly_slower(*b))
    return fmt::format("slower: {:.2f}x [{:.2f}, {:.2f}]", *b->speedup, *b->speedup_ci_low, *b->speedup_ci_high);
  if (b && significantly_faster(*b))
    return fmt::format("faster: {:.3f}x [{:.3f}, {:.3f}]", *b->speedup, *b->speedup_ci_low, *b->speedup_ci_high);
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
                      {"device", h.hardware.value("name", "")}};
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
  out += fmt::format("\nobjective: {}\n", to_string(objective));
  if (b && h.baseline) {
    out += fmt::format("best: iteration {} ({}), L2 hit {:+.2f} points, speedup {}\n", b->iteration, b->label,
                       l2_gain(*b), speed_text(*b));
    if (objective == Objective::l2 && significantly_slower(*b)) out += speed_verdict(h) + " — the best-L2 kernel is slower than the baseline\n";
    out += fmt::format("best kernel: {}\n", s.best_kernel.string());
  } else if (objective == Objective::time && best_l2 && h.baseline) {
    out += "no significant speedup: no validated candidate was significantly faster than the baseline; "
           "best.hip is the original kernel\n";
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
                     h.kernel_path, h.hardware.value("name", "?"), h.state, h.created_at, h.updated_at,
                     to_string(h.objective()));
  if (const auto v = speed_verdict(h); !v.empty()) out += "- verdict: " + v + "\n";
  if (h.objective() == Objective::time && !h.best())
    if (const Attempt* l2b = h.best(Objective::l2))
      out += fmt::format("- best L2 candidate: iteration {} ({}), speedup {}\n", l2b->iteration, l2b->label, speed_text(*l2b));
  out += "\nspeedup: baseline time / candidate time; with an interval when the candidate was re-checked "
         "(interleaved rounds, 95 % sign-test interval of the median ratio), else one-shot.\n\n";
  out += "| iter | pattern | status | L2 hit % | median ms | speedup | 95 % interval | significant | fabric sectors | DRAM bytes | note |\n";
  out += "|---:|---|---|---:|---:|---:|---|---|---:|---:|---|\n";
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
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", a.iteration, cell(a.label), to_string(a.status),
                       opt_num(l2(a)), opt_num(ms(a), "{:.4f}"), opt_num(a.speedup, "{:.3f}"), ci, sig,
                       opt_num(fabric(a), "{:.0f}"), opt_num(dram(a), "{:.4g}"), note.substr(0, 160));
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
    out += fmt::format("\n## Best: iteration {} — {}\n\nspeedup {}\n\n```cpp\n{}```\n", b->iteration, b->label,
                       speed_text(*b), b->region);
  } else if (h.objective() == Objective::time && h.baseline) {
    out += "\n## Best: the original kernel (no significant speedup)\n";
  }
  return out;
}

}  // namespace swz
