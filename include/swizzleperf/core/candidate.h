// Candidate: one point of the search, as a proposer names it and the attempt
// pipeline tries it: the order (the region code, its label, and for a built-in
// order its family and parameter) and the build defines that go with it.
//
// Defines are a tuning point's template parameters (tune/tune_space): they reach the
// candidate's build (BuildRequest::defines: -DNAME=V for C++, the declaring lines
// rewritten for Triton) and are part of the duplicate key. A point changes the launch
// grid (and what else the program's info line says), so a candidate with defines is
// built first and its grid, launches, tolerance and kernel filter are read from its own
// program's info line (loop/attempt_pipeline); without defines they are the program's
// and everything behaves as for the original program.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "swizzleperf/core/kernel_source.h"

namespace swz {

// NAME -> VALUE of a tuning point, as BuildRequest::defines and Attempt::defines hold it.
using Defines = std::map<std::string, std::int64_t>;

struct Candidate {
  std::string region;                          // the complete region (between the markers)
  std::string label;                           // short name of the pattern, e.g. "grouped_m(G=8)"
  std::string family;                          // the built-in family ("" : not a built-in order)
  std::optional<int> param;                    // its parameter
  Defines defines;                             // NAME -> VALUE for the build; empty: the program as written
  // The tile grid the mapping is checked on; 0x0 until the loop sets it (the program's
  // grid for a candidate without defines, the grid its built program reports for one with).
  TileGrid grid;
};

}  // namespace swz
