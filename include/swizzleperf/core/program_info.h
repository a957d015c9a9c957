// ProgramInfo: what a kernel program says about itself in `info` mode (its tile
// grid, which kernels to profile, the output tolerance, its launches), read once
// when the baseline is measured and kept in the history. Not a setting: a fact of
// the program at the run's size. Fields one consumer alone reads (the builtin
// proposer's hints, the suite's per-launch footprints) stay in `raw`, the line as
// the program printed it. See docs/kernel-contract.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/util/result.h"

namespace swz {

struct ProgramInfo {
  TileGrid grid;                     // {0, 0} when the line has none (grid_error says why)
  std::string grid_error;            // set when the reported grid is not one (see make_tile_grid)
  std::string kernel_regex;          // which kernels a profile collects ("" : all)
  double dump_tol = 0;               // 0: outputs must be byte-identical; > 0: float32 rel tol
  int launches = 0;                  // kernel launches per run (0: unknown)
  std::vector<int> size;             // the problem size it reports running at
  nlohmann::json raw = nlohmann::json::object();  // the info line as printed

  bool present() const { return !raw.empty(); }
  // The grid, or an Error saying why the program's report is not a grid.
  Result<TileGrid> checked_grid() const;
};

// Lenient: never throws; a bad grid is recorded in grid_error.
ProgramInfo program_info_from_json(const nlohmann::json& info);
void to_json(nlohmann::json& j, const ProgramInfo& p);  // the raw line

}  // namespace swz
