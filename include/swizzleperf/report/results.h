// Results files read back: what `compare` (and `gate`) take as input. Accepts
// `optimize --json` output, a suite's suite-summary.json (or its directory), a
// run directory (its history.json), and any object of the same shape as
// optimize's (`kernel` plus `baseline` and `best` or `committed` briefs, as
// `gate --json` writes), or a JSON array of those. Each becomes one
// KernelResult per kernel, keyed by the kernel file's stem so a run of
// kernels/gemm.hip and a suite row "gemm" match. Fields that newer versions add
// (speedup_ci_low/high, significant, objective) are read when present.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/util/result.h"

namespace swz {

struct KernelResult {
  std::string kernel;          // stem: "gemm"
  bool validated = false;      // a validated best (or committed) kernel exists
  std::string error;           // why the kernel's run failed, if the file says
  std::string pattern;         // the best pattern's label
  std::optional<double> baseline_l2, best_l2;  // L2 hit rate, percent
  std::optional<double> baseline_ms, best_ms;  // median times
  std::optional<double> speedup;               // baseline / best, same run
  std::optional<double> speedup_ci_low, speedup_ci_high;
  std::optional<bool> significant;
  std::string objective;
  std::string regime;          // the power regime of the speedup (burst | sustained); empty: not said
};

struct ResultSet {
  std::string source;          // the path it was read from
  std::string kind;            // "optimize", "suite", "gate", "list"
  std::string device;
  std::vector<KernelResult> kernels;
  const KernelResult* find(const std::string& kernel) const;
};

// "kernels/gemm.hip" -> "gemm"; "gemm" -> "gemm".
std::string kernel_key(const std::string& kernel_or_path);

Result<ResultSet> results_from_json(const nlohmann::json& j, const std::string& source);
// A file, a suite dir (suite-summary.json) or a run dir (history.json).
Result<ResultSet> load_results(const std::filesystem::path& path);
// Error (one line) when a kernel in both sets had its speedup measured in different
// power regimes: a burst number and a sustained one are not comparable.
Status check_same_regimes(const ResultSet& old_set, const ResultSet& new_set);

}  // namespace swz
