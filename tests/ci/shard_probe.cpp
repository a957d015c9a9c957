// A googletest binary for testing .ci/gtest-shards (gtest_shards_test.sh): its tests pass,
// skip, fail, crash or hang as SWZ_PROBE_MODE says, so the runner's every outcome can be
// provoked on purpose. It is not part of the tool's tests (ctest does not discover it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

bool mode_is(const char* want) {
  const char* m = std::getenv("SWZ_PROBE_MODE");
  return m != nullptr && std::string(m) == want;
}

TEST(Probe, Passes) {}
TEST(Probe, PassesToo) {}
TEST(Probe, FailsWhenAsked) { EXPECT_FALSE(mode_is("fail")) << "planted failure"; }
TEST(Probe, CrashesWhenAsked) {
  if (mode_is("crash")) std::abort();
}
TEST(Probe, HangsWhenAsked) {
  if (mode_is("hang")) sleep(600);
}
TEST(Probe, Skips) { GTEST_SKIP() << "always skipped"; }

class ProbeParam : public ::testing::TestWithParam<int> {};
TEST_P(ProbeParam, FailsForTwoWhenAsked) { EXPECT_FALSE(mode_is("param") && GetParam() == 2) << "planted failure"; }
INSTANTIATE_TEST_SUITE_P(Values, ProbeParam, ::testing::Values(1, 2, 3));

}  // namespace
