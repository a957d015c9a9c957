// The unit tier's guard (see tier_guard.h).
#include "support/tier_guard.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace swz::test {

void expect_outside_unit_tier(const std::string& what) {
  const char* tier = std::getenv("SWZ_TEST_TIER");
  if (tier == nullptr || std::string_view(tier) != "unit") return;
  ADD_FAILURE() << "a unit-tier test reached for " << what
                << ": the unit tier runs in-process with no compiler, interpreter or real binary. If the test "
                   "needs it, name it in tests/tiers.cmake (toolchain or e2e); otherwise use a double "
                   "(tests/support).";
}

}  // namespace swz::test
