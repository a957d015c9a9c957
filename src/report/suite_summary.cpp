#include "swizzleperf/report/suite_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "swizzleperf/report/html_report.h"
#include "swizzleperf/util/csv.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/json_field.h"
#include "swizzleperf/util/text.h"

namespace swz {

Status write_suite_summary(const std::filesystem::path& dir, const std::vector<SuiteRow>& rows,
                           const nlohmann::json& meta) {
  if (auto st = make_directories(dir); !st) return st;
  nlohmann::json j = meta;
  j["kernels"] = rows;
  double total = 0;
  for (const auto& r : rows) total += r.wall_s;
  j["total_wall_s"] = total;
  if (auto st = write_file_atomic(dir / "suite-summary.json", j.dump(2) + "\n"); !st) return st;
  std::string csv =
      "kernel,validated,baseline_l2_hit_pct,best_l2_hit_pct,ideal_l2_hit_pct,headroom_captured,baseline_dram_bytes,"
      "best_dram_bytes,baseline_fabric_sectors,best_fabric_sectors,baseline_ms,best_ms,speedup,best_pattern,"
      "iterations_to_best,attempts,wall_s,error,objective,speedup_ci_low,speedup_ci_high,significant,verdict,"
      "best_l2_pattern,best_l2_speedup,headroom_note\n";
  auto q = [](std::string s) {
    std::string o = "\"";
    for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
  };
  for (const auto& r : rows)
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.1f},{},{},{},{},{},{},{},{},{}\n", r.kernel, r.validated,
                       format_or(r.baseline_l2, ""), format_or(r.best_l2, ""), format_or(r.ideal_l2, ""), format_or(r.headroom_captured, "", "{:.3f}"),
                       format_or(r.baseline_dram, "", "{:.0f}"), format_or(r.best_dram, "", "{:.0f}"), format_or(r.baseline_fabric, "", "{:.0f}"),
                       format_or(r.best_fabric, "", "{:.0f}"), format_or(r.baseline_ms, "", "{:.4f}"), format_or(r.best_ms, "", "{:.4f}"),
                       format_or(r.speedup, "", "{:.3f}"), q(r.best_pattern), r.iterations_to_best, r.attempts, r.wall_s, q(r.error),
                       r.objective, format_or(r.speedup_ci_low, "", "{:.4f}"), format_or(r.speedup_ci_high, "", "{:.4f}"),
                       r.significant ? (*r.significant ? "true" : "false") : "", q(r.verdict), q(r.best_l2_pattern),
                       format_or(r.best_l2_speedup, "", "{:.3f}"), q(r.headroom_note));
  if (auto st = write_file_atomic(dir / "suite-summary.csv", csv); !st) return st;
  std::string md = fmt::format("# swizzleperf suite\n\n- device: {}\n- total wall time: {:.1f} s\n\n",
                               meta.value("device", "?"), total);
  std::string objective = meta.value("objective", "");
  for (const auto& r : rows)
    if (objective.empty() && !r.objective.empty()) objective = r.objective;  // merged shards: from the rows
  md += fmt::format("- objective: {}\n- ideal %: the L2 hit rate if only each launch's first touch of a sector missed (a "
                    "compulsory-miss bound, per launch: see docs/architecture.md); blank where the program does not report "
                    "per-launch footprints or the bound lies below a measured rate\n- headroom captured: the share of the "
                    "gap between the baseline's hit rate and that bound which the best kernel closed, from 0 % (no gain) "
                    "to 100 % (at the bound)\n\n", objective.empty() ? "l2 (histories from before --objective)" : objective);
  md += "| kernel | validated | L2 hit % base → best | ideal % | headroom captured | DRAM bytes base → best | fabric sectors base → best | ms base → best | speedup | 95 % interval | significant | best pattern | iter | wall s |\n";
  md += "|---|---|---|---:|---:|---|---|---|---:|---|---|---|---:|---:|\n";
  for (const auto& r : rows) {
    const std::string ci = r.speedup_ci_low && r.speedup_ci_high
                               ? fmt::format("[{:.3f}, {:.3f}]", *r.speedup_ci_low, *r.speedup_ci_high) : "";
    const std::string sig = r.significant ? (*r.significant ? "yes" : "no") : "";
    std::string pattern = r.best_pattern;
    if (pattern.empty() && r.verdict == "no significant speedup")
      pattern = "original (no significant speedup; best L2: " + r.best_l2_pattern + ")";
    else if (r.verdict.rfind("slower", 0) == 0)
      pattern += " (" + r.verdict + ")";
    md += fmt::format("| {} | {} | {} → {} | {} | {} | {} → {} | {} → {} | {} → {} | {} | {} | {} | {} | {} | {:.1f} |\n", r.kernel,
                      r.validated ? "yes" : (r.error.empty() ? "no" : "failed: " + r.error.substr(0, 80)),
                      format_or(r.baseline_l2, ""), format_or(r.best_l2, ""), format_or(r.ideal_l2, ""),
                      r.headroom_captured ? fmt::format("{:.0f}%", 100 * *r.headroom_captured) : "",
                      format_or(r.baseline_dram, "", "{:.3g}"), format_or(r.best_dram, "", "{:.3g}"), format_or(r.baseline_fabric, "", "{:.3g}"),
                      format_or(r.best_fabric, "", "{:.3g}"), format_or(r.baseline_ms, "", "{:.4f}"), format_or(r.best_ms, "", "{:.4f}"),
                      format_or(r.speedup, "", "{:.3f}"), ci, sig, pattern, r.iterations_to_best, r.wall_s);
  }
  std::string notes;
  for (const auto& r : rows)
    if (!r.headroom_note.empty()) notes += fmt::format("- {}: {}\n", r.kernel, r.headroom_note);
  if (!notes.empty()) md += "\nHeadroom notes:\n\n" + notes;
  if (auto st = write_file_atomic(dir / "report.html", render_suite_html(rows, meta)); !st) return st;
  return write_file_atomic(dir / "suite-summary.md", md);
}

namespace {

// Adds j's run facts to meta, dropping (and remembering in `disagreed`) any fact that
// differs from what an earlier summary said.
void agree_on_meta(const nlohmann::json& j, nlohmann::json& meta, std::vector<std::string>& disagreed) {
  for (const char* key : {"device", "objective", "iterations", "proposer"}) {
    const auto v = j.find(key);
    if (v == j.end() || v->is_null() || (v->is_string() && v->get<std::string>().empty())) continue;
    if (std::find(disagreed.begin(), disagreed.end(), key) != disagreed.end()) continue;
    if (!meta.contains(key)) meta[key] = *v;
    else if (meta[key] != *v) meta.erase(key), disagreed.emplace_back(key);
  }
}

}  // namespace

Result<std::vector<SuiteRow>> merge_suite_summaries(const std::vector<std::filesystem::path>& dirs,
                                                    nlohmann::json* agreed_meta) {
  std::vector<SuiteRow> rows;
  nlohmann::json meta = nlohmann::json::object();
  std::vector<std::string> disagreed;
  // The first objective stated (by a summary or a row) and where: every other must be it.
  std::string objective;
  std::filesystem::path objective_from;
  for (const auto& d : dirs) {
    const auto p = d / "suite-summary.json";
    auto text = read_file(p);
    if (!text) return make_error(text.error().message + " (is " + d.string() + " a suite output dir?)");
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.contains("kernels")) return make_error(p.string() + " is not a swizzleperf suite summary");
    agree_on_meta(j, meta, disagreed);
    const std::string file_objective = j.contains("objective") && j["objective"].is_string() ? j["objective"].get<std::string>() : "";
    for (const auto& k : j["kernels"]) {
      auto row = k.get<SuiteRow>();
      // One table ranks every kernel by one meaning of "best": shards judged by different
      // objectives (time, l2, energy) do not merge (the later row would silently win).
      const std::string row_objective = row.objective.empty() ? file_objective : row.objective;
      if (!row_objective.empty() && objective.empty()) objective = row_objective, objective_from = d;
      else if (!row_objective.empty() && row_objective != objective)
        return make_error(fmt::format("{} was run with --objective {} but {} with --objective {}: a merged summary ranks "
                                      "every kernel by one objective; merge suites run with the same --objective",
                                      objective_from.string(), objective, d.string(), one_line(row_objective, 40)));
      // A kernel in several inputs (an interrupted shard rerun elsewhere): keep the
      // validated row, else the later one.
      auto same = std::find_if(rows.begin(), rows.end(), [&](const SuiteRow& r) { return r.kernel == row.kernel; });
      if (same == rows.end()) rows.push_back(row);
      else if (row.validated || !same->validated) *same = row;
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.kernel < b.kernel; });
  if (agreed_meta) *agreed_meta = std::move(meta);
  return rows;
}

}  // namespace swz
