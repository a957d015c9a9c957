// Candidate: one point of the search, as a proposer names it and the attempt
// pipeline tries it: the order (the region code, its label, and for a built-in
// order its family and parameter) and the build defines that go with it.
//
// Defines are how tuning will vary template parameters (tile sizes) with the order:
// they are carried and part of the duplicate key, but no backend passes them to a
// compiler yet. A candidate that changes tile sizes changes the launch grid, so the
// candidate carries the grid its mapping is checked on; with no defines that is the
// program's grid (its info line) and everything behaves as for the original program.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "swizzleperf/core/kernel_source.h"

namespace swz {

struct Candidate {
  std::string region;                          // the complete region (between the markers)
  std::string label;                           // short name of the pattern, e.g. "grouped_m(G=8)"
  std::string family;                          // the built-in family ("" : not a built-in order)
  std::optional<int> param;                    // its parameter
  std::map<std::string, std::string> defines;  // NAME -> VALUE for the build; none yet
  // The tile grid the mapping is checked on; 0x0 until the loop sets it (the program's
  // grid for a candidate without defines).
  TileGrid grid;
};

}  // namespace swz
