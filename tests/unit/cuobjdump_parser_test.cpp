// Tests for the cuobjdump resource-report parser (backend/cuobjdump_parser) against reports
// cuobjdump 13.0 printed on the H100 machine for the shipped gemm_tc and layernorm programs
// (built as the cuda backend builds them), and its bounds on hostile text.
#include "swizzleperf/backend/cuobjdump_parser.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
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

TEST(CuobjdumpParser, ReadsEveryFunctionOfTheReport) {
  // Two "Fatbin elf code" sections; the first lists no function.
  const auto report = parse_cuobjdump_resources(read_text(fixture_path("cuobjdump/gemm_tc.txt")));
  ASSERT_EQ(report.size(), 4u);
  EXPECT_EQ(report[2].function, "_Z14gemm_tc_kernelPKtS0_Pfiii11SwizzleGrid");
  EXPECT_EQ(report[2].registers, 255u);  // what Nsight Compute reported for it (launch__registers_per_thread)
  EXPECT_EQ(report[2].stack_bytes, 8u);
  EXPECT_EQ(report[2].shared_bytes, 1024u);
  EXPECT_EQ(report[0].function, "_ZN10swz_detail22swz_compare_f32_kernelEPKjS1_ydPyS2_");
  EXPECT_EQ(report[0].registers, 22u);
}

TEST(CuobjdumpParser, TheProgramsPatternPicksItsKernelsAndTheMostRegisters) {
  const auto tc = parse_cuobjdump_resources(read_text(fixture_path("cuobjdump/gemm_tc.txt")));
  const auto one = registers_of(tc, pattern("gemm_tc_kernel"));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->registers, 255u);
  EXPECT_EQ(one->functions, 1u);
  EXPECT_FALSE(registers_of(tc, pattern("attention_fwd_kernel")));
  // layernorm's two kernels (32 and 40 registers) under its pattern: the larger.
  const auto ln = parse_cuobjdump_resources(read_text(fixture_path("cuobjdump/layernorm.txt")));
  const auto both = registers_of(ln, pattern("layernorm_.*"));
  ASSERT_TRUE(both);
  EXPECT_EQ(both->registers, 40u);
  EXPECT_EQ(both->functions, 2u);
}

// A launch that names its kernel takes that kernel's count: layernorm's two kernels differ
// (32 and 40 on sm_90), which the most-of-the-pattern rule gave both.
TEST(CuobjdumpParser, AKernelsOwnCountIsFoundByItsCName) {
  const auto ln = parse_cuobjdump_resources(read_text(fixture_path("cuobjdump/layernorm.txt")));
  const auto partials = registers_of_kernel(ln, "layernorm_partials_kernel");
  ASSERT_TRUE(partials);
  EXPECT_EQ(partials->registers, 32u);
  const auto normalize = registers_of_kernel(ln, "layernorm_normalize_kernel");
  ASSERT_TRUE(normalize);
  EXPECT_EQ(normalize->registers, 40u);
  EXPECT_FALSE(registers_of_kernel(ln, "layernorm"));          // part of a name is not the name
  EXPECT_FALSE(registers_of_kernel(ln, "partials_kernel"));    // nor is its tail
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

TEST(CuobjdumpParser, OddLinesAreSkippedAndNumbersBounded) {
  const std::string text =
      " Function :\n  REG:12\n"                       // no name: not a function line
      " Function _Z1fv:\n  STACK:0 SHARED:0\n"          // no REG yet: still waiting
      "  REG:x12 SHARED:4\n"                            // not a number
      "  REG:99999999999999999999999 SHARED:1024 STACK:16\n"
      "REG:7\n"                                         // no function open
      " Function _Z1gv:\r\n  REG:32 SHARED:49152\r\n";  // CRLF
  const auto report = parse_cuobjdump_resources(text);
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[0].function, "_Z1fv");
  EXPECT_EQ(report[0].registers, 1u << 16);
  EXPECT_EQ(report[0].shared_bytes, 1024u);
  EXPECT_EQ(report[1].function, "_Z1gv");
  EXPECT_EQ(report[1].registers, 32u);
  EXPECT_EQ(report[1].shared_bytes, 49152u);
  EXPECT_TRUE(parse_cuobjdump_resources("").empty());
}

TEST(CuobjdumpParser, AMegabyteOfReportParsesInOnePass) {
  std::string big;
  while (big.size() < (1u << 20)) big += " Function _Z6kernelv:\n  REG:40 STACK:0 SHARED:0\n";
  big += std::string(1 << 20, 'R');  // and a megabyte-long line of nothing
  const auto report = parse_cuobjdump_resources(big);
  EXPECT_GT(report.size(), 20000u);
  EXPECT_EQ(report.back().registers, 40u);
}

}  // namespace
}  // namespace swz
