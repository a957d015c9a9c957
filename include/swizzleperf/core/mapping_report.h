// MappingReport: what a host mapping check (core/mapping_check) found for a swizzle
// region, grid by grid: bijective or not (with colliding and missing ids), per-die
// load, neighbours on one die. A record of its own so that an attempt's record
// (core/attempt_parts) can hold it without the check's machinery.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/kernel_source.h"

namespace swz {

struct GridCheck {
  TileGrid grid;
  bool bijective = false;
  std::string error;                      // e.g. "killed by signal 8" while evaluating
  std::vector<unsigned> colliding_pids;   // pids whose tile another pid also maps to (first few)
  std::vector<unsigned> missing_tiles;    // tiles no pid maps to (first few)
  std::vector<unsigned> out_of_range_pids;// pids mapped to >= num_pids (first few)
  std::uint64_t collisions = 0, missing = 0, out_of_range = 0;  // totals
  std::vector<unsigned> tiles_per_die;
  std::vector<unsigned> rows_per_die, cols_per_die;  // distinct tile rows/cols each die touches
  double row_neighbours_same_die = 0;     // fraction of (i,j)-(i,j+1) pairs on one die
  double col_neighbours_same_die = 0;     // fraction of (i,j)-(i+1,j) pairs on one die
  std::vector<std::uint32_t> mapping;     // pid -> tile, bijective grids only (the main grid's
                                          // alone unless MappingCheckOptions::keep_every_mapping)
};

struct MappingReport {
  bool ok = false;                 // compiled, evaluated, bijective on every grid
  std::string compile_error;       // set when the region does not compile on the host
  std::string region_error;        // set when the region validator rejected it (nothing compiled or ran)
  std::vector<GridCheck> grids;    // [0] is the kernel's own grid
  std::string dispatch_source;     // provenance of the die model used
  int num_dies = 1;
  std::string summary() const;     // one line
};

void to_json(nlohmann::json& j, const GridCheck& g);
void to_json(nlohmann::json& j, const MappingReport& r);
// Lenient, for history.json (core/attempt_parts): a missing or wrongly typed field keeps
// its default. The pid -> tile table is never written, so it reads back empty.
void from_json(const nlohmann::json& j, GridCheck& g);
void from_json(const nlohmann::json& j, MappingReport& r);

}  // namespace swz
