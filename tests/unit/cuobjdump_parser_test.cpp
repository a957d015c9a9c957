// Tests for the cuobjdump resource-report parser (backend/cuobjdump_parser) against reports
// cuobjdump 13.0 printed on the H100 machine for the shipped gemm_tc and layernorm programs
// (built as the cuda backend builds them), and its bounds on hostile text.
#include "swizzleperf/backend/cuobjdump_parser.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace swz {
namespace {

using test::fixture_path;
using test::read_text;

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
