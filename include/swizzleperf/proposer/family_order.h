// The built-in families' orders computed natively (pid -> tile tables), the same numbers
// their rendered regions compute (tests/unit/family_order_test.cpp evaluates both on many
// grids), so the proposer and `check --predict` can rank dozens of candidates with the
// locality model without compiling each region.
#pragma once

#include <cstdint>
#include <vector>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/proposer/family_candidate.h"

namespace swz {

// pid -> tile for every pid of `grid` with SWZ_NUM_DIES = num_dies (unsigned 32-bit
// arithmetic, as the region). Values >= num_pids are possible for a broken family
// (the mapping check's business); the built-in ones are bijections.
std::vector<std::uint32_t> family_order(const FamilyCandidate& c, TileGrid grid, int num_dies);

}  // namespace swz
