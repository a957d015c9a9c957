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
#include "swizzleperf/core/kernel_source.h"

namespace swz {

struct SweepOptions {
  std::filesystem::path kernel;
  std::string region;                       // the pattern to compare against the original
  std::string label;
  std::vector<std::vector<int>> sizes;
  std::filesystem::path out_dir;
  int time_reps = 20;
  int warmup = 3;
  std::string host_cxx = "c++";
};

struct SweepPoint {
  std::vector<int> size;
  TileGrid grid;
  std::string verdict;  // helps | no gain | hurts | breaks: <why>
  std::optional<double> base_l2, cand_l2, base_ms, cand_ms, base_fabric, cand_fabric;
};

struct SweepReport {
  std::string kernel, label, device;
  std::vector<SweepPoint> points;
  std::string conclusion;  // where it stops helping / breaks
};

void to_json(nlohmann::json& j, const SweepPoint& p);
void to_json(nlohmann::json& j, const SweepReport& r);
std::string render_sweep_markdown(const SweepReport& r);

// Classifies one point: gain >= 0.5 L2 points or >= 2% faster -> helps;
// worse by those margins -> hurts; else no gain.
std::string sweep_verdict(const SweepPoint& p);

Result<SweepReport> run_sweep(Backend& backend, ProcessRunner& runner, const SweepOptions& options);

}  // namespace swz
