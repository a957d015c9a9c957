// Paths of the source tree and the build, baked in here alone (see fixtures.h).
#include "support/fixtures.h"
#include "support/tier_guard.h"

namespace swz::test {

fs::path source_dir() { return SWZ_TEST_SOURCE_DIR; }
fs::path fixture_path(const std::string& rel) { return fs::path(SWZ_TEST_FIXTURE_DIR) / rel; }
fs::path binary_path() {
  expect_outside_unit_tier("the real binary");
  return SWZ_TEST_BINARY;
}
fs::path fake_dir() { return SWZ_TEST_FAKE_DIR; }
fs::path test_build_dir() { return SWZ_TEST_BUILD_DIR; }

}  // namespace swz::test
