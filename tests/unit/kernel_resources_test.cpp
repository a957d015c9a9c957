// Tests for the lookups in the compiler's resource report (backend/kernel_resources): the
// most registers under a program's name pattern, and one named kernel's own count, on the
// reports cuobjdump 13.0 printed for the shipped gemm_tc and layernorm (sm_90).
#include "swizzleperf/backend/kernel_resources.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "swizzleperf/backend/cuobjdump_parser.h"
#include "swizzleperf/util/name_pattern.h"

namespace swz {
namespace {

using test::fixture_path;
using test::read_text;

NamePattern pattern(const char* p) {
  auto n = NamePattern::compile(p);
  EXPECT_TRUE(n) << p;
  return *n;
}

std::vector<KernelResources> report(const char* fixture) {
  return parse_cuobjdump_resources(read_text(fixture_path(std::string("cuobjdump/") + fixture)));
}

TEST(KernelResources, TheProgramsPatternPicksItsKernelsAndTheMostRegisters) {
  const auto tc = report("gemm_tc.txt");
  const auto one = registers_of(tc, pattern("gemm_tc_kernel"));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->registers, 255u);
  EXPECT_EQ(one->functions, 1u);
  EXPECT_FALSE(registers_of(tc, pattern("attention_fwd_kernel")));
  // layernorm's two kernels (32 and 40 registers) under its pattern: the larger.
  const auto both = registers_of(report("layernorm.txt"), pattern("layernorm_.*"));
  ASSERT_TRUE(both);
  EXPECT_EQ(both->registers, 40u);
  EXPECT_EQ(both->functions, 2u);
}

// A launch that names its kernel takes that kernel's count: layernorm's two kernels differ
// (32 and 40 on sm_90), which the most-of-the-pattern rule gave both.
TEST(KernelResources, AKernelsOwnCountIsFoundByItsCName) {
  const auto ln = report("layernorm.txt");
  const auto partials = registers_of_kernel(ln, "layernorm_partials_kernel");
  ASSERT_TRUE(partials);
  EXPECT_EQ(partials->registers, 32u);
  const auto normalize = registers_of_kernel(ln, "layernorm_normalize_kernel");
  ASSERT_TRUE(normalize);
  EXPECT_EQ(normalize->registers, 40u);
  EXPECT_FALSE(registers_of_kernel(ln, "layernorm"));        // part of a name is not the name
  EXPECT_FALSE(registers_of_kernel(ln, "partials_kernel"));  // nor is its tail
  EXPECT_FALSE(registers_of_kernel(ln, ""));
  // A longer name whose length ends in the same digits ("14abcdefghijklmn" holds "4abcd"),
  // an extern "C" name, and one in a namespace.
  const std::vector<KernelResources> r = {{"_Z14abcdefghijklmnv", 10, 0, 0}, {"plain_c_kernel", 30, 0, 0},
                                          {"_ZN2ns4abcdEv", 40, 0, 0}};
  EXPECT_EQ(registers_of_kernel(r, "plain_c_kernel")->registers, 30u);
  ASSERT_TRUE(registers_of_kernel(r, "abcd"));
  EXPECT_EQ(registers_of_kernel(r, "abcd")->functions, 1u);
  EXPECT_EQ(registers_of_kernel(r, "abcd")->registers, 40u);  // in a namespace
}

}  // namespace
}  // namespace swz
