// Sweep: the unswizzled baseline against one pattern across problem sizes
// (the paper's A.6), both built once and measured side by side per size, to
// show where the pattern stops helping or breaks.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/run_config.h"

namespace swz {

struct SweepOptions {
  std::filesystem::path kernel;
  std::string region;                       // the pattern to compare against the original
  std::string label;
  std::vector<std::vector<int>> sizes;
  std::filesystem::path out_dir;
  // The settings sweep takes (the rows of core/run_config's table for sweep, at
  // sweep's defaults): reps, warm-up, host compiler, the objective its verdict judges
  // (time or l2), the judge's rounds (0: one run each) and the power regime. Each
  // size's measurement is made from them by measure_setup_from, as optimize's is.
  RunConfig settings = default_config(kSweep);
};

struct SweepPoint {
  std::vector<int> size;
  TileGrid grid;
  std::string verdict;  // helps | no gain | hurts | breaks: <why>
  std::optional<double> base_l2, cand_l2, base_ms, cand_ms, base_fabric, cand_fabric;
  // From the interleaved timing (rounds > 0): speedup = median per-round ratio, its
  // 95 % interval and whether it excludes 1.0.
  std::optional<double> speedup, speedup_ci_low, speedup_ci_high;
  std::optional<bool> significant;
  std::string regime;                      // the speedup's regime (burst | sustained; empty: unnamed)
  std::vector<SpeedComparison> regimes;    // each named regime's comparison (the re-check's)
  std::string untrusted;                   // why the verdict names no winner on a measurement
  Objective objective = Objective::time;
};

struct SweepReport {
  std::string kernel, label, device;
  std::vector<SweepPoint> points;
  std::string conclusion;  // where it stops helping / breaks
};

void to_json(nlohmann::json& j, const SweepPoint& p);
void to_json(nlohmann::json& j, const SweepReport& r);
std::string render_sweep_markdown(const SweepReport& r);

// Classifies one point. objective time (with an interval): significantly faster ->
// helps, significantly slower -> hurts, else no gain. objective l2, or no interval:
// gain >= 0.5 L2 points or >= 2% faster -> helps; worse by those margins -> hurts;
// else no gain (under l2 a significantly slower point is "hurts" whatever its L2).
std::string sweep_verdict(const SweepPoint& p);

Result<SweepReport> run_sweep(Backend& backend, ProcessRunner& runner, const SweepOptions& options);

}  // namespace swz
