// Suite: optimize over many kernels and summarise them side by side
// (suite-summary.{md,csv,json}), with shards that separate machines or CI jobs
// can run and a merge that joins them. Headroom is per launch: the ideal L2 hit
// rate counts, in each kernel launch, only that launch's first touch of a sector
// as a miss, 1 - sum over launches of unique sectors / sector requests (a re-read
// in a later launch is not counted as reusable: the working set of one launch can
// be many times the L2). Programs that do not report per-launch footprints get no
// headroom (blank, with a note), never a whole-program estimate.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/util/result.h"
#include "swizzleperf/loop/run_summary.h"

namespace swz {

struct SuiteRow {
  std::string kernel;
  bool validated = false;          // a validated candidate exists
  std::string error;               // why the kernel's run failed, if it did
  std::optional<double> baseline_l2, best_l2, ideal_l2, headroom_captured;
  std::optional<double> baseline_dram, best_dram, baseline_fabric, best_fabric;
  std::optional<double> baseline_ms, best_ms, speedup;
  // Under the run's objective: the best's interval and whether it is significant
  // (time: false and no best_pattern when nothing was significantly faster).
  std::optional<double> speedup_ci_low, speedup_ci_high;
  std::optional<bool> significant;
  std::string speedup_regime;      // burst | sustained (the speedup's); empty: unnamed
  nlohmann::json regimes;          // each regime's re-check of the best (report.h regimes_json)
  std::optional<double> energy_ratio;  // the best's energy per run / the baseline's (sustained)
  std::string objective;
  std::string verdict;             // report.h speed_verdict: "no significant speedup", "slower: ..."
  std::string best_l2_pattern;     // the highest-L2 candidate, whatever the objective
  std::optional<double> best_l2_speedup;
  std::string headroom_note;       // why there is no headroom, or what it leaves out
  std::string best_pattern;
  int iterations_to_best = 0;
  int attempts = 0;
  double wall_s = 0;
  std::string run_dir;
};

void to_json(nlohmann::json& j, const SuiteRow& r);
void from_json(const nlohmann::json& j, SuiteRow& r);

// Ideal hit rate (percent) from unique bytes (the sum of per-launch footprints) and the
// profiled sector count (summed over the same launches).
std::optional<double> ideal_l2_hit_pct(double footprint_bytes, std::optional<double> l2_sectors);

// The per-launch ideal from the program's info JSON and the baseline's metrics:
// nullopt with `note` saying why when the program reports no per-launch footprints
// or the profiler saw a different number of launches; a write-heavy baseline gets a
// note on what the estimate leaves out.
std::optional<double> per_launch_ideal_l2(const nlohmann::json& program_info, const Metrics& baseline,
                                          std::string& note);

SuiteRow suite_row_from(const OptimizeSummary& s, double wall_s);

// "i/n" with 1 <= i <= n.
Result<std::pair<int, int>> parse_shard(const std::string& s);
std::vector<std::filesystem::path> select_shard(const std::vector<std::filesystem::path>& kernels, int i, int n);

}  // namespace swz
