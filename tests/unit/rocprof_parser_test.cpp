// Tests for the rocprofv3 counter_collection.csv and agent_info.csv parsers.
#include "swizzleperf/backend/rocprof_parser.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/fixtures.h"

namespace swz {
namespace {

using test::fixture_path;
using test::read_text;

std::string fixture(const std::string& name) { return read_text(fixture_path("rocprof/" + name)); }

std::string rocprof_must_fail(std::string_view csv, std::string_view regex = "") {
  auto r = parse_rocprof_counters(csv, regex);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message;
}

Metrics rocprof_must_parse(std::string_view csv, std::string_view regex = "") {
  auto r = parse_rocprof_counters(csv, regex);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : Metrics{};
}

TEST(RocprofCounters, Header2025AllDispatches) {
  Metrics m = rocprof_must_parse(fixture("counters_2025.csv"));
  EXPECT_EQ(m.launches, 4);
  EXPECT_EQ(m.l2_hits, 3000000.0 + 50000 + 2500000 + 3500000);
  EXPECT_EQ(m.l2_misses, 1000000.0 + 50000 + 1500000 + 500000);
  EXPECT_EQ(m.l2_sectors, *m.l2_hits + *m.l2_misses);
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 100.0 * 9050000 / (9050000 + 3050000));
  EXPECT_EQ(m.raw.at("TCC_HIT_sum"), 9050000.0);
  EXPECT_EQ(m.raw.at("TCC_MISS_sum"), 3050000.0);
  EXPECT_EQ(m.raw.at("SQ_WAVES"), 65536.0 * 3 + 4096);
  EXPECT_EQ(m.raw.at("TCC_EA0_WRREQ_64B_sum"), 0.0);  // printed as 0.00000000e+00
  EXPECT_EQ(m.profiler_time_ns, 4000000.0 + 100000 + 4000000 + 4000000);
  EXPECT_FALSE(m.fabric_sectors.has_value());
  EXPECT_FALSE(m.dram_read_bytes.has_value());
}

TEST(RocprofCounters, RegexSelectsTemplatedKernelWithCommas) {
  Metrics m = rocprof_must_parse(fixture("counters_2025.csv"), R"x(gemm_kernel<float, 64>\(float const\*)x");
  EXPECT_EQ(m.launches, 3);
  EXPECT_EQ(m.l2_hits, 9000000.0);
  EXPECT_EQ(m.l2_misses, 3000000.0);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 75.0);
}

TEST(RocprofCounters, RegexIsASearchNotAFullMatch) {
  Metrics m = rocprof_must_parse(fixture("counters_2025.csv"), "reduce");
  EXPECT_EQ(m.launches, 1);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 50.0);
}

TEST(RocprofCounters, Header2024WithoutTimestamps) {
  Metrics m = rocprof_must_parse(fixture("counters_2024.csv"), "addition_kernel");
  EXPECT_EQ(m.launches, 2);
  EXPECT_EQ(m.l2_hits, 98304.0 + 114688);
  EXPECT_EQ(m.l2_misses, 32768.0 + 16384);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 100.0 * 212992 / (212992 + 49152));
  EXPECT_EQ(m.raw.at("SQ_WAVES"), 32768.0);
  EXPECT_FALSE(m.profiler_time_ns.has_value());
}

TEST(RocprofCounters, NoDispatchMatched) {
  std::string msg = rocprof_must_fail(fixture("counters_2025.csv"), "^softmax");
  EXPECT_NE(msg.find("no rocprofv3 dispatch matched"), std::string::npos) << msg;
  EXPECT_NE(msg.find("^softmax"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reduce_rows(float*, int)"), std::string::npos) << msg;  // lists what it saw
}

TEST(RocprofCounters, InvalidRegex) {
  std::string msg = rocprof_must_fail(fixture("counters_2025.csv"), "gemm(");
  EXPECT_NE(msg.find("invalid kernel regex"), std::string::npos) << msg;
}

TEST(RocprofCounters, MissingMissCounterIsNamed) {
  std::string msg = rocprof_must_fail(fixture("counters_missing_miss.csv"));
  EXPECT_NE(msg.find("TCC_MISS_sum"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("TCC_HIT_sum counter"), std::string::npos) << msg;
}

TEST(RocprofCounters, CounterMissingForOneDispatch) {
  std::string csv =
      "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n"
      "1,\"k\",\"TCC_HIT_sum\",1.000000\n1,\"k\",\"TCC_MISS_sum\",1.000000\n"
      "2,\"k\",\"TCC_HIT_sum\",1.000000\n";
  std::string msg = rocprof_must_fail(csv);
  EXPECT_NE(msg.find("TCC_MISS_sum"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dispatch 2"), std::string::npos) << msg;
}

TEST(RocprofCounters, EmptyFile) {
  std::string msg = rocprof_must_fail(fixture("empty.csv"));
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
  EXPECT_NE(rocprof_must_fail("\n\n").find("empty"), std::string::npos);
  // A byte-order mark alone is not blank but holds no record (found by fuzz_rocprof_csv,
  // tests/fixtures/fuzz/fuzz_rocprof_csv/bom-only.csv).
  EXPECT_NE(rocprof_must_fail("\xEF\xBB\xBF").find("empty"), std::string::npos);
  auto agents = parse_rocprof_agent_info("\xEF\xBB\xBF");
  ASSERT_FALSE(agents);
  EXPECT_NE(agents.error().message.find("agent_info.csv is empty"), std::string::npos) << agents.error().message;
}

TEST(RocprofCounters, HeaderOnly) {
  std::string header = fixture("counters_2025.csv");
  header = header.substr(0, header.find('\n') + 1);
  EXPECT_NE(rocprof_must_fail(header).find("no dispatch"), std::string::npos);
}

TEST(RocprofCounters, TruncatedRowNamesTheLine) {
  std::string msg = rocprof_must_fail(fixture("counters_truncated.csv"));
  EXPECT_NE(msg.find("line 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST(RocprofCounters, CutInsideQuotedNameIsAnError) {
  std::string csv = fixture("counters_2025.csv");
  csv = csv.substr(0, csv.find("void gemm_kernel<float, 64>(float const*", csv.find('\n')) + 20);
  std::string msg = rocprof_must_fail(csv);
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
}

TEST(RocprofCounters, HeaderMissingRequiredColumns) {
  std::string msg = rocprof_must_fail("\"Dispatch_Id\",\"Kernel_Name\",\"Counter\"\n1,\"k\",\"TCC_HIT_sum\"\n");
  EXPECT_NE(msg.find("Counter_Name"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Counter_Value"), std::string::npos) << msg;
}

TEST(RocprofCounters, UnparseableValueNamesTheCounter) {
  std::string csv =
      "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n1,\"k\",\"TCC_HIT_sum\",oops\n";
  std::string msg = rocprof_must_fail(csv);
  EXPECT_NE(msg.find("TCC_HIT_sum"), std::string::npos) << msg;
}

TEST(RocprofCounters, NegativeCounterIsADamagedFile) {
  std::string msg = rocprof_must_fail(read_text(fixture_path("fuzz/fuzz_rocprof_csv/negative-miss.csv")));
  EXPECT_NE(msg.find("TCC_MISS_sum is negative"), std::string::npos) << msg;
}

TEST(RocprofCounters, HugeCountsGiveARateInRangeOrAnError) {
  Metrics m = rocprof_must_parse(read_text(fixture_path("fuzz/fuzz_rocprof_csv/hit-times-100-overflows.csv")));
  ASSERT_TRUE(m.l2_hit_pct.has_value());
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 100.0);
  std::string msg = rocprof_must_fail(read_text(fixture_path("fuzz/fuzz_rocprof_csv/sum-overflows.csv")));
  EXPECT_NE(msg.find("more than a double holds"), std::string::npos) << msg;
}

TEST(RocprofCounters, CrlfLineEndings) {
  std::string csv = fixture("counters_2024.csv");
  std::string crlf;
  for (char c : csv) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  EXPECT_EQ(rocprof_must_parse(crlf).launches, 2);
}

TEST(RocprofAgentInfo, FirstGpuAgent) {
  auto r = parse_rocprof_agent_info(fixture("agent_info.csv"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->arch, "gfx942");
  EXPECT_EQ(r->product_name, "AMD Instinct MI300X");
  EXPECT_EQ(r->cu_count, 304);
  EXPECT_EQ(r->num_xcc, 8);
  EXPECT_EQ(r->simd_count, 1216);
  EXPECT_EQ(r->wave_front_size, 64);
  EXPECT_EQ(r->node_id, 2);
}

TEST(RocprofAgentInfo, ColumnsByNameAndArchFromTargetVersion) {
  std::string csv =
      "\"Cu_Count\",\"Agent_Type\",\"Gfx_Target_Version\"\n"
      "0,\"CPU\",0\n"
      "104,\"GPU\",90010\n"
      "304,\"GPU\",90402\n";
  auto r = parse_rocprof_agent_info(csv);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->arch, "gfx90a");
  EXPECT_EQ(r->cu_count, 104);
  EXPECT_FALSE(r->num_xcc.has_value());
  EXPECT_TRUE(r->product_name.empty());
}

TEST(RocprofAgentInfo, WithoutAgentTypeAGfxNameMarksTheGpu) {
  auto r = parse_rocprof_agent_info("\"Name\",\"Cu_Count\",\"Num_Xcc\"\n\"AMD EPYC\",0,0\n\"gfx1100\",48,1\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->arch, "gfx1100");
  EXPECT_EQ(r->num_xcc, 1);
}

TEST(RocprofAgentInfo, Errors) {
  EXPECT_FALSE(parse_rocprof_agent_info("").ok());
  auto no_gpu = parse_rocprof_agent_info("\"Agent_Type\",\"Name\",\"Cu_Count\"\n\"CPU\",\"AMD EPYC\",0\n");
  ASSERT_FALSE(no_gpu.ok());
  EXPECT_NE(no_gpu.error().message.find("no GPU agent"), std::string::npos);
  auto no_cu = parse_rocprof_agent_info("\"Agent_Type\",\"Name\"\n\"GPU\",\"gfx942\"\n");
  ASSERT_FALSE(no_cu.ok());
  EXPECT_NE(no_cu.error().message.find("Cu_Count"), std::string::npos);
  auto cut = parse_rocprof_agent_info("\"Agent_Type\",\"Name\",\"Cu_Count\"\n\"GPU\",\"gfx942\"\n");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("line 2"), std::string::npos);
}

// A number no int holds was converted to int, which is undefined behaviour
// (found by tests/fuzz/fuzz_rocprof_csv): it now counts as no value.
TEST(RocprofAgentInfo, NumbersOutsideAnIntAreNoValue) {
  auto huge_cu = parse_rocprof_agent_info("\"Name\",\"Cu_Count\"\n\"gfx942\",6.66667e+100\n");
  ASSERT_FALSE(huge_cu.ok());
  EXPECT_NE(huge_cu.error().message.find("no valid Cu_Count"), std::string::npos) << huge_cu.error().message;
  auto huge_target = parse_rocprof_agent_info("\"Agent_Type\",\"Gfx_Target_Version\",\"Cu_Count\"\n\"GPU\",1e300,304\n");
  ASSERT_FALSE(huge_target.ok());
  EXPECT_NE(huge_target.error().message.find("no gfx architecture"), std::string::npos) << huge_target.error().message;
  auto r = parse_rocprof_agent_info("\"Name\",\"Cu_Count\",\"Num_Xcc\",\"Node_Id\"\n\"gfx942\",304,2147483648,-3e9\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->cu_count, 304);
  EXPECT_FALSE(r->num_xcc.has_value());
  EXPECT_FALSE(r->node_id.has_value());
}

// An error echoed a quoted field spanning lines, so it had two lines; a hit count
// near DBL_MAX made 100 * hits overflow, so the rate was inf (both found by
// tests/fuzz/fuzz_rocprof_csv): every error is one line, every rate in [0, 100].
TEST(RocprofParser, FuzzRegressionInputsGiveAValueOrAOneLineError) {
  for (const auto& e : std::filesystem::directory_iterator(fixture_path("fuzz/fuzz_rocprof_csv"))) {
    const std::string text = read_text(e.path());
    for (const char* regex : {"", "gemm_kernel"}) {
      auto r = parse_rocprof_counters(text, regex);
      if (!r.ok()) EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << e.path();
      if (r.ok() && r->l2_hit_pct) {
        EXPECT_GE(*r->l2_hit_pct, 0.0) << e.path();
        EXPECT_LE(*r->l2_hit_pct, 100.0) << e.path();
      }
    }
    auto a = parse_rocprof_agent_info(text);
    if (!a.ok()) EXPECT_EQ(a.error().message.find('\n'), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace swz
