// TileMap: a pid -> tile mapping reduced to a picture's worth of numbers, for
// the swizzle maps in report.html. The tile grid is shown as at most
// max_side x max_side cells (a 1-D grid longer than max_side is first wrapped
// into rows); per cell: the die that computes most of its tiles under the
// hardware's dispatch model (die = dispatch.die_of(pid), the model the mapping
// check uses), the share of the cell's tiles on that die, and when the cell runs
// (its mean pid as a fraction of the grid). Small grids (one tile per cell) also
// keep each tile's pid so the report can print the execution order as numbers.
// Made at evaluation time from the mapping the check already computed, so the
// report needs no compiler; stored in the attempt's `mapping.tile_map`.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/kernel_source.h"

namespace swz {

struct TileMap {
  unsigned grid_m = 0, grid_n = 0;  // the kernel's tile grid
  unsigned view_m = 0, view_n = 0;  // the grid as drawn (a wrapped 1-D grid differs)
  unsigned rows = 0, cols = 0;      // display cells
  int num_dies = 1;
  std::vector<int> die;             // rows*cols, row-major; -1: a cell with no tile
  std::vector<int> purity;          // percent of the cell's tiles on `die`
  std::vector<int> order;           // mean pid of the cell's tiles, 0..999 of the grid
  std::vector<std::int64_t> pid;    // one tile per cell only: that tile's pid; else empty

  bool wrapped() const { return view_m != grid_m; }
  bool empty() const { return die.empty(); }
};

void to_json(nlohmann::json& j, const TileMap& t);
void from_json(const nlohmann::json& j, TileMap& t);

// pid_to_tile[pid] = tile (row-major, tile = row * n + col). Out-of-range entries are skipped.
TileMap make_tile_map(TileGrid grid, const std::vector<std::uint32_t>& pid_to_tile, const HardwareProfile& hw,
                      unsigned max_side = 48);
// The unswizzled order: tile = pid.
TileMap identity_tile_map(TileGrid grid, const HardwareProfile& hw, unsigned max_side = 48);

}  // namespace swz
