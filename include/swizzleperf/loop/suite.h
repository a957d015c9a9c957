// Suite: optimize over many kernels and summarise them side by side
// (suite-summary.{md,csv,json}), with shards that separate machines or CI jobs
// can run and a merge that joins them. Headroom = the L2 hit rate with only
// compulsory misses, 1 - unique sectors / sector requests.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/result.h"
#include "swizzleperf/loop/optimizer.h"

namespace swz {

struct SuiteRow {
  std::string kernel;
  bool validated = false;          // a validated candidate exists
  std::string error;               // why the kernel's run failed, if it did
  std::optional<double> baseline_l2, best_l2, ideal_l2, headroom_captured;
  std::optional<double> baseline_dram, best_dram, baseline_fabric, best_fabric;
  std::optional<double> baseline_ms, best_ms, speedup;
  std::string best_pattern;
  int iterations_to_best = 0;
  int attempts = 0;
  double wall_s = 0;
  std::string run_dir;
};

void to_json(nlohmann::json& j, const SuiteRow& r);
void from_json(const nlohmann::json& j, SuiteRow& r);

// Ideal hit rate (percent) from the program's footprint and the profiled sector count.
std::optional<double> ideal_l2_hit_pct(double footprint_bytes, std::optional<double> l2_sectors);

SuiteRow suite_row_from(const OptimizeSummary& s, double wall_s);

// "i/n" with 1 <= i <= n.
Result<std::pair<int, int>> parse_shard(const std::string& s);
std::vector<std::filesystem::path> select_shard(const std::vector<std::filesystem::path>& kernels, int i, int n);

// Writes suite-summary.md, .csv and .json into dir.
Status write_suite_summary(const std::filesystem::path& dir, const std::vector<SuiteRow>& rows,
                           const nlohmann::json& meta);
// Reads suite-summary.json from each dir (shards) and returns all rows, in kernel order.
Result<std::vector<SuiteRow>> merge_suite_summaries(const std::vector<std::filesystem::path>& dirs);

}  // namespace swz
