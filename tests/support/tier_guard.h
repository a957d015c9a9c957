// The unit tier's guard. CTest runs the unit-labelled tests (tests/tiers.cmake) with
// SWZ_TEST_TIER=unit; the support functions that reach outside the process for a tool
// (binary_path, have_tool, so nvcc_path and hipcc_path too) call expect_outside_unit_tier
// first, so a unit-labelled test that asks for the real binary or a compiler fails at once,
// naming the file that classifies it, instead of making `ctest -L unit` slow or dependent on
// what is installed. Run by hand (no SWZ_TEST_TIER), nothing is checked.
#pragma once

#include <string>

namespace swz::test {

// Fails the running test when it runs as a unit-tier test; `what` says what it reached for.
void expect_outside_unit_tier(const std::string& what);

}  // namespace swz::test
