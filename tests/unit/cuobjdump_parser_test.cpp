// Tests for the cuobjdump resource-report parser (backend/cuobjdump_parser) against a
// report of the shape cuobjdump prints, and its bounds on hostile text.
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
  const auto report = parse_cuobjdump_resources(read_text(fixture_path("cuobjdump/gemm_tc.txt")));
  ASSERT_EQ(report.size(), 3u);
  EXPECT_EQ(report[1].function, "_Z14gemm_tc_kernelPKtS0_Pfiii11SwizzleGrid");
  EXPECT_EQ(report[1].registers, 255u);
  EXPECT_EQ(report[1].stack_bytes, 8u);
  EXPECT_EQ(report[1].shared_bytes, 0u);
  EXPECT_EQ(report[0].registers, 16u);
}

TEST(CuobjdumpParser, TheProgramsPatternPicksItsKernelsAndTheMostRegisters) {
  const auto report = parse_cuobjdump_resources(read_text(fixture_path("cuobjdump/gemm_tc.txt")));
  const auto one = registers_of(report, pattern("gemm_tc_kernel"));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->registers, 255u);
  EXPECT_EQ(one->functions, 1u);
  const auto both = registers_of(report, pattern("gemm_tc_(reference_)?kernel"));
  ASSERT_TRUE(both);
  EXPECT_EQ(both->registers, 255u);
  EXPECT_EQ(both->functions, 2u);
  EXPECT_FALSE(registers_of(report, pattern("attention_fwd_kernel")));
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
