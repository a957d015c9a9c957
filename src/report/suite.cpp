// Suite rows are derived from each kernel's history; nothing is re-measured.
#include "swizzleperf/report/suite.h"
#include "swizzleperf/util/json_field.h"
#include "swizzleperf/util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "swizzleperf/core/history.h"
#include "swizzleperf/report/report.h"

namespace swz {

namespace {

template <typename T>
void put(nlohmann::json& j, const char* k, const std::optional<T>& v) {
  j[k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::optional<double> dram_of(const Attempt& a) {
  if (!a.metrics || !a.metrics->dram_read_bytes) return std::nullopt;
  return *a.metrics->dram_read_bytes + a.metrics->dram_write_bytes.value_or(0);
}

}  // namespace

void to_json(nlohmann::json& j, const SuiteRow& r) {
  j = {{"kernel", r.kernel}, {"validated", r.validated}, {"error", r.error}, {"best_pattern", r.best_pattern},
       {"iterations_to_best", r.iterations_to_best}, {"attempts", r.attempts}, {"wall_s", r.wall_s},
       {"run_dir", r.run_dir}};
  put(j, "baseline_l2_hit_pct", r.baseline_l2);
  put(j, "best_l2_hit_pct", r.best_l2);
  put(j, "ideal_l2_hit_pct", r.ideal_l2);
  put(j, "headroom_captured", r.headroom_captured);
  put(j, "baseline_dram_bytes", r.baseline_dram);
  put(j, "best_dram_bytes", r.best_dram);
  put(j, "baseline_fabric_sectors", r.baseline_fabric);
  put(j, "best_fabric_sectors", r.best_fabric);
  put(j, "baseline_ms", r.baseline_ms);
  put(j, "best_ms", r.best_ms);
  put(j, "speedup", r.speedup);
  put(j, "speedup_ci_low", r.speedup_ci_low);
  put(j, "speedup_ci_high", r.speedup_ci_high);
  put(j, "significant", r.significant);
  j["speedup_regime"] = r.speedup_regime.empty() ? nlohmann::json() : nlohmann::json(r.speedup_regime);
  if (r.regimes.is_object() && !r.regimes.empty()) j["regimes"] = r.regimes;
  put(j, "energy_ratio", r.energy_ratio);
  put(j, "best_l2_speedup", r.best_l2_speedup);
  j["objective"] = r.objective;
  j["verdict"] = r.verdict;
  j["best_l2_pattern"] = r.best_l2_pattern;
  j["headroom_note"] = r.headroom_note;
}

void from_json(const nlohmann::json& j, SuiteRow& r) {
  r.kernel = j.at("kernel").get<std::string>();
  r.validated = j.value("validated", false);
  r.error = j.value("error", "");
  r.best_pattern = j.value("best_pattern", "");
  r.iterations_to_best = int_or(j, "iterations_to_best", 0);
  r.attempts = int_or(j, "attempts", 0);
  r.wall_s = j.value("wall_s", 0.0);
  r.run_dir = j.value("run_dir", "");
  read_optional(j, "baseline_l2_hit_pct", r.baseline_l2);
  read_optional(j, "best_l2_hit_pct", r.best_l2);
  read_optional(j, "ideal_l2_hit_pct", r.ideal_l2);
  read_optional(j, "headroom_captured", r.headroom_captured);
  read_optional(j, "baseline_dram_bytes", r.baseline_dram);
  read_optional(j, "best_dram_bytes", r.best_dram);
  read_optional(j, "baseline_fabric_sectors", r.baseline_fabric);
  read_optional(j, "best_fabric_sectors", r.best_fabric);
  read_optional(j, "baseline_ms", r.baseline_ms);
  read_optional(j, "best_ms", r.best_ms);
  read_optional(j, "speedup", r.speedup);
  read_optional(j, "speedup_ci_low", r.speedup_ci_low);
  read_optional(j, "speedup_ci_high", r.speedup_ci_high);
  read_optional(j, "significant", r.significant);
  if (j.contains("speedup_regime") && j["speedup_regime"].is_string()) r.speedup_regime = j["speedup_regime"].get<std::string>();
  if (j.contains("regimes") && j["regimes"].is_object()) r.regimes = j["regimes"];
  read_optional(j, "energy_ratio", r.energy_ratio);
  read_optional(j, "best_l2_speedup", r.best_l2_speedup);
  r.objective = j.value("objective", "");
  r.verdict = j.value("verdict", "");
  r.best_l2_pattern = j.value("best_l2_pattern", "");
  r.headroom_note = j.value("headroom_note", "");
}

std::optional<double> ideal_l2_hit_pct(double footprint_bytes, std::optional<double> l2_sectors) {
  if (!l2_sectors || *l2_sectors <= 0 || footprint_bytes <= 0) return std::nullopt;
  const double unique = footprint_bytes / 32.0;  // 32-byte sectors
  return std::clamp(100.0 * (1.0 - unique / *l2_sectors), 0.0, 100.0);
}

std::optional<double> per_launch_ideal_l2(const nlohmann::json& program_info, const Metrics& baseline,
                                          std::string& note) {
  note.clear();
  std::optional<double> ideal;
  const auto it = program_info.find("launch_footprints_bytes");
  if (it == program_info.end() || !it->is_array() || it->empty()) {
    note = "no headroom: the program does not report per-launch footprints (launch_footprints_bytes in info mode)";
  } else {
    // A windowed profile (Metrics::launches_total) is held against its own launches' footprints.
    const bool windowed = baseline.launches_total > 0;
    const int first = windowed ? baseline.launch_skip : 0;
    const int reported = static_cast<int>(it->size());
    double unique = 0;
    bool numbers = true;
    for (int i = 0; i < reported; ++i) {
      const auto& v = (*it)[static_cast<size_t>(i)];
      numbers = numbers && v.is_number() && v.get<double>() >= 0;
      if (numbers && i >= first && (!windowed || i < first + baseline.launches)) unique += v.get<double>();
    }
    if (!numbers) {
      note = "no headroom: launch_footprints_bytes is not a list of byte counts";
    } else if (windowed && baseline.launches_total != reported) {
      note = fmt::format("no headroom: the program reports {} launch footprints but the profile window was cut "
                         "from {} launches", reported, baseline.launches_total);
    } else if (!windowed && baseline.launches > 0 && baseline.launches != reported) {
      note = fmt::format("no headroom: the program reports {} launch footprints but the profiler saw {} launches",
                         reported, baseline.launches);
    } else {
      ideal = ideal_l2_hit_pct(unique, baseline.l2_sectors);
      if (!ideal) note = "no headroom: the profiler reported no L2 sector count";
    }
  }
  // Writes: the estimate counts a written sector's first touch as its one miss. What it
  // leaves out: write-backs of dirty lines to DRAM (not L2 lookups at all) and writes
  // that allocate without a fetch, which the profiler may count as hits.
  const double rd = baseline.dram_read_bytes.value_or(0), wr = baseline.dram_write_bytes.value_or(0);
  if (rd + wr > 0 && wr / (rd + wr) >= 0.3) {
    const std::string w = fmt::format(
        "write-heavy ({:.0f} % of DRAM bytes are writes): the ideal counts each written sector once as a "
        "compulsory miss and leaves out dirty-line write-backs and fetch-less write allocation, so it is approximate",
        100.0 * wr / (rd + wr));
    note = note.empty() ? w : note + "; " + w;
  }
  return ideal;
}

SuiteRow suite_row_from(const OptimizeSummary& s, double wall_s) {
  const auto& h = s.history;
  SuiteRow r;
  r.kernel = h.kernel_name;
  r.run_dir = s.run_dir.string();
  r.wall_s = wall_s;
  r.attempts = static_cast<int>(h.attempts.size());
  r.objective = to_string(h.objective());
  r.verdict = speed_verdict(h);
  for (const auto& a : h.attempts) r.validated = r.validated || a.validated();
  if (h.baseline) {
    const auto& b = *h.baseline;
    if (b.metrics) {
      r.baseline_l2 = b.metrics->l2_hit_pct;
      r.baseline_fabric = b.metrics->fabric_sectors;
      r.ideal_l2 = per_launch_ideal_l2(h.program_info.raw, *b.metrics,
                                       r.headroom_note);
    }
    r.baseline_dram = dram_of(b);
    if (b.timing) r.baseline_ms = b.timing->median_ms;
  }
  if (const Attempt* l2b = h.best(Objective::l2)) {
    r.best_l2_pattern = l2b->label;
    r.best_l2_speedup = l2b->speedup;
  }
  if (h.objective() != Objective::l2 && r.validated && !h.best()) r.significant = false;
  if (const Attempt* best = h.best()) {
    r.best_pattern = best->label;
    r.iterations_to_best = best->iteration;
    if (best->metrics) {
      r.best_l2 = best->metrics->l2_hit_pct;
      r.best_fabric = best->metrics->fabric_sectors;
    }
    r.best_dram = dram_of(*best);
    if (best->timing) r.best_ms = best->timing->median_ms;
    r.speedup = best->speedup;
    r.speedup_ci_low = best->speedup_ci_low;
    r.speedup_ci_high = best->speedup_ci_high;
    r.significant = best->significant;
    r.speedup_regime = regime_label(best->speedup_regime);
    r.regimes = regimes_json(*best);
    r.energy_ratio = best->energy_ratio;
  }
  // The ideal is a compulsory-miss bound: it means something only where it lies above
  // every measured rate. Where a kernel beats it (ncu counts some sectors the model
  // does not, e.g. writes that allocate without a fetch) it is dropped, with a note,
  // so that no row reads "ideal below the baseline" or "205 % captured".
  if (r.ideal_l2) {
    const double measured = std::max(r.baseline_l2.value_or(0), r.best_l2.value_or(0));
    if (*r.ideal_l2 + 1e-9 < measured) {
      r.headroom_note = fmt::format("no headroom: the compulsory-miss bound ({:.2f} %) is below a measured hit rate "
                                    "({:.2f} %), so it does not bound this kernel", *r.ideal_l2, measured);
      r.ideal_l2.reset();
    }
  }
  // Headroom captured, in [0, 1]: the share of the gap between the baseline's hit rate
  // and the bound that the best kernel closed; 0 when it did not raise the hit rate.
  if (r.baseline_l2 && r.best_l2 && r.ideal_l2 && *r.ideal_l2 > *r.baseline_l2 + 1e-9)
    r.headroom_captured = std::clamp((*r.best_l2 - *r.baseline_l2) / (*r.ideal_l2 - *r.baseline_l2), 0.0, 1.0);
  return r;
}

Result<std::pair<int, int>> parse_shard(const std::string& s) {
  auto slash = s.find('/');
  try {
    if (slash == std::string::npos) throw 0;
    std::size_t ui = 0, un = 0;
    const std::string a = s.substr(0, slash), b = s.substr(slash + 1);
    int i = std::stoi(a, &ui), n = std::stoi(b, &un);
    if (ui != a.size() || un != b.size() || n < 1 || i < 1 || i > n) throw 0;
    return std::pair{i, n};
  } catch (...) {
    return make_error("--shard '" + s + "' is not i/n with 1 <= i <= n (e.g. 1/2)");
  }
}

std::vector<std::filesystem::path> select_shard(const std::vector<std::filesystem::path>& kernels, int i, int n) {
  std::vector<std::filesystem::path> out;
  for (std::size_t k = 0; k < kernels.size(); ++k)
    if (static_cast<int>(k % n) == i - 1) out.push_back(kernels[k]);
  return out;
}

}  // namespace swz
