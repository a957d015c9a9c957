// Tests for parse_ncu_csv against committed fixtures and small inline cases.
#include "swizzleperf/backend/ncu_parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "support/fixtures.h"

namespace swz {
namespace {

using test::fixture_path;
using test::read_text;

const std::string kHeader =
    R"x("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")x";

std::string row(int id, const std::string& metric, const std::string& unit, const std::string& value,
                const std::string& kernel = "k(float *, int)") {
  return "\"" + std::to_string(id) + R"x(","42","app","127.0.0.1",")x" + kernel +
         R"x(","1","7","(256, 1, 1)","(64, 1, 1)","0","9.0","Command line profiler metrics",")x" + metric + "\",\"" +
         unit + "\",\"" + value + "\"\n";
}

Metrics ncu_must_parse(const std::string& text) {
  auto r = parse_ncu_csv(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : Metrics{};
}

std::string ncu_must_fail(const std::string& text) {
  auto r = parse_ncu_csv(text);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message;
}

TEST(NcuParser, GemmOneLaunchAllDefaultMetrics) {
  Metrics m = ncu_must_parse(read_text(fixture_path("ncu/gemm_h100_details.csv")));
  EXPECT_EQ(m.launches, 1);
  EXPECT_EQ(m.l2_sectors, 545259520.0);
  EXPECT_EQ(m.l2_hits, 238387462.0);
  EXPECT_EQ(m.l2_misses, 301504866.0);
  EXPECT_EQ(m.fabric_sectors, 142016384.0);
  EXPECT_EQ(m.dram_read_bytes, 8085788928.0);
  EXPECT_EQ(m.dram_write_bytes, 268697600.0);
  EXPECT_EQ(m.profiler_time_ns, 12912640.0);
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_NEAR(*m.l2_hit_pct, 43.72, 1e-3);  // hits / sectors, as ncu computes it
  EXPECT_EQ(m.raw.size(), 8u);  // one launch: the percentage is kept as printed
  EXPECT_EQ(m.raw.at("lts__t_sector_hit_rate.pct"), 43.72);
  EXPECT_EQ(m.raw.at("dram__bytes_read.sum"), 8085788928.0);
}

TEST(NcuParser, TwoKernelsAreSummedAndHitRateComesFromSums) {
  Metrics m = ncu_must_parse(read_text(fixture_path("ncu/softmax_two_kernels.csv")));
  EXPECT_EQ(m.launches, 2);
  EXPECT_EQ(m.l2_sectors, 16793600.0 + 41943040.0);
  EXPECT_EQ(m.l2_hits, 3980083.0 + 8388608.0);
  EXPECT_EQ(m.dram_read_bytes, 536936448.0 + 536870912.0);
  EXPECT_EQ(m.profiler_time_ns, 348320.0 + 331776.0);
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_NEAR(*m.l2_hit_pct, 100.0 * 12368691.0 / 58736640.0, 1e-9);
  EXPECT_GT(std::abs(*m.l2_hit_pct - (23.70 + 20.00) / 2), 0.5);  // not the mean of percentages
  // A percentage has no meaningful sum over launches.
  EXPECT_EQ(m.raw.count("lts__t_sector_hit_rate.pct"), 0u);
  EXPECT_EQ(m.raw.size(), 7u);
}

TEST(NcuParser, DefaultMetricList) {
  const std::vector<std::string> want = {
      "lts__t_sector_hit_rate.pct",    "lts__t_sectors.sum",     "lts__t_sectors_lookup_hit.sum",
      "lts__t_sectors_lookup_miss.sum", "lts__t_sectors_srcunit_ltcfabric.sum", "dram__bytes_read.sum",
      "dram__bytes_write.sum",          "gpu__time_duration.sum"};
  EXPECT_EQ(ncu_default_metrics(), want);
}

TEST(NcuParser, CounterPermissionError) {
  std::string msg = ncu_must_fail(read_text(fixture_path("ncu/ctrperm.txt")));
  EXPECT_NE(msg.find("ERR_NVGPUCTRPERM"), std::string::npos) << msg;
  EXPECT_NE(msg.find("root"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(NcuParser, NoKernelsProfiled) {
  std::string msg = ncu_must_fail(read_text(fixture_path("ncu/no_kernels.txt")));
  EXPECT_NE(msg.find("ncu profiled no kernel"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--kernel-name"), std::string::npos) << msg;
}

TEST(NcuParser, NoKernelsListsWhatWasLaunched) {
  std::string msg = ncu_must_fail(read_text(fixture_path("ncu/no_kernels.txt")));
  EXPECT_NE(msg.find("kernels launched: sgemm_tiled"), std::string::npos) << msg;
  msg = ncu_must_fail(read_text(fixture_path("ncu/real_h100_no_kernels.txt")));
  EXPECT_NE(msg.find("ncu profiled no kernel"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernels launched: add_k, scale_k"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(NcuParser, RealH100CaptureTwoKernels) {
  Metrics m = ncu_must_parse(read_text(fixture_path("ncu/real_h100_two_kernels.csv")));
  EXPECT_EQ(m.launches, 2);
  EXPECT_EQ(m.l2_sectors, 6400895.0 + 9518306.0);
  EXPECT_EQ(m.l2_hits, 3226754.0 + 3189596.0);
  EXPECT_EQ(m.l2_misses, 3144101.0 + 6291858.0);
  EXPECT_EQ(m.fabric_sectors, 2182814.0 + 3200490.0);
  EXPECT_EQ(m.dram_read_bytes, 67122944.0 + 134222592.0);
  EXPECT_EQ(m.dram_write_bytes, 44557824.0 + 51323136.0);
  EXPECT_EQ(m.profiler_time_ns, 55872.0 + 71136.0);  // unit printed as "ns"
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 100.0 * (3226754.0 + 3189596.0) / (6400895.0 + 9518306.0));
}

TEST(NcuParser, DerivedHitRateMatchesNcuPercentOnRealCapture) {
  // Per launch, hits/sectors reproduces ncu's printed percentage (2 decimals).
  const std::string text = read_text(fixture_path("ncu/real_h100_two_kernels.csv"));
  for (const char* id : {"\"0\"", "\"1\""}) {
    std::string one;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      std::string line = text.substr(pos, nl - pos + 1);
      if (line[0] != '"' || line.rfind("\"ID\"", 0) == 0 || line.rfind(id, 0) == 0) one += line;
      pos = nl == std::string::npos ? text.size() : nl + 1;
    }
    Metrics m = ncu_must_parse(one);
    ASSERT_EQ(m.launches, 1);
    ASSERT_TRUE(m.l2_hit_pct);
    EXPECT_NEAR(*m.l2_hit_pct, m.raw.at("lts__t_sector_hit_rate.pct"), 0.005) << id;
  }
}

TEST(NcuParser, RealH100CaptureWithRateAndAttributeMetrics) {
  Metrics m = ncu_must_parse(read_text(fixture_path("ncu/real_h100_extra_metrics.csv")));
  EXPECT_EQ(m.launches, 2);
  EXPECT_TRUE(m.l2_hit_pct.has_value());
  EXPECT_TRUE(m.dram_read_bytes.has_value());
  // Neither a throughput percentage nor a grid size adds up over launches.
  EXPECT_EQ(m.raw.count("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 0u);
  EXPECT_EQ(m.raw.count("launch__grid_size"), 0u);
  EXPECT_EQ(m.raw.count("lts__t_sectors.sum"), 1u);
}

TEST(NcuParser, HitsAndMissesWithoutSectors) {
  Metrics m = ncu_must_parse(kHeader + "\n" + row(0, "lts__t_sectors_lookup_hit.sum", "sector", "30") +
                         row(0, "lts__t_sectors_lookup_miss.sum", "sector", "10"));
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 75.0);
}

TEST(NcuParser, NoHeaderAtAllIsNoKernel) {
  EXPECT_NE(ncu_must_fail("==PROF== Connected to process 1\nhello\n").find("ncu profiled no kernel"), std::string::npos);
  EXPECT_NE(ncu_must_fail("").find("ncu profiled no kernel"), std::string::npos);
}

TEST(NcuParser, NoHeaderPassesOnNcuErrorLine) {
  std::string msg = ncu_must_fail("==ERROR== The application returned an error code (1).\n");
  EXPECT_NE(msg.find("The application returned an error code (1)."), std::string::npos) << msg;
}

TEST(NcuParser, HeaderWithoutRowsIsNoKernel) {
  EXPECT_NE(ncu_must_fail(kHeader + "\n").find("ncu profiled no kernel"), std::string::npos);
}

TEST(NcuParser, UnparseableValueNamesTheMetric) {
  std::string msg = ncu_must_fail(kHeader + "\n" + row(0, "dram__bytes_read.sum", "byte", "lots"));
  EXPECT_NE(msg.find("dram__bytes_read.sum"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lots"), std::string::npos) << msg;
  msg = ncu_must_fail(kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "n/a"));
  EXPECT_NE(msg.find("lts__t_sectors.sum"), std::string::npos) << msg;
}

TEST(NcuParser, HeaderFoundByContentAfterNoisyOutputAndColumnsByName) {
  // A reordered, shorter header (as older ncu versions print) still works.
  std::string text =
      "==PROF== Connected\nID,\"not, a header\"\nresult: \"ok\", 3 ms\n"
      "\"Metric Name\",\"Metric Value\",\"ID\",\"Metric Unit\"\n"
      "\"lts__t_sectors.sum\",\"1,000\",\"0\",\"sector\"\n"
      "\"lts__t_sectors_lookup_hit.sum\",\"250\",\"0\",\"sector\"\n";
  Metrics m = ncu_must_parse(text);
  EXPECT_EQ(m.l2_sectors, 1000.0);
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 25.0);  // hits/sectors when misses are absent
}

TEST(NcuParser, UnitsAreConvertedToBase) {
  std::string text = kHeader + "\n" + row(0, "dram__bytes_read.sum", "Mbyte", "2.5") +
                     row(0, "dram__bytes_write.sum", "Kbyte", "640") + row(0, "gpu__time_duration.sum", "us", "41.28") +
                     row(1, "dram__bytes_read.sum", "Gbyte", "1.5") + row(1, "dram__bytes_write.sum", "byte", "1,000") +
                     row(1, "gpu__time_duration.sum", "msecond", "2") + row(2, "gpu__time_duration.sum", "nsecond", "7") +
                     row(2, "dram__bytes_read.sum", "MB", "1") + row(2, "dram__bytes_write.sum", "", "3");
  Metrics m = ncu_must_parse(text);
  EXPECT_EQ(m.launches, 3);
  EXPECT_DOUBLE_EQ(*m.dram_read_bytes, 2.5e6 + 1.5e9 + 1e6);
  EXPECT_DOUBLE_EQ(*m.dram_write_bytes, 640e3 + 1000 + 3);
  EXPECT_DOUBLE_EQ(*m.profiler_time_ns, 41280.0 + 2e6 + 7);
  EXPECT_FALSE(m.l2_hit_pct.has_value());
  EXPECT_FALSE(m.l2_sectors.has_value());
}

TEST(NcuParser, PercentOnlyWithOneLaunchIsUsed) {
  Metrics m = ncu_must_parse(kHeader + "\n" + row(0, "lts__t_sector_hit_rate.pct", "%", "87.98"));
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, 87.98);
}

TEST(NcuParser, PercentOverSeveralLaunchesIsWeightedBySectors) {
  std::string text = kHeader + "\n" + row(0, "lts__t_sector_hit_rate.pct", "%", "90") +
                     row(0, "lts__t_sectors.sum", "sector", "100") + row(1, "lts__t_sector_hit_rate.pct", "%", "10") +
                     row(1, "lts__t_sectors.sum", "sector", "300");
  Metrics m = ncu_must_parse(text);
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_DOUBLE_EQ(*m.l2_hit_pct, (90.0 * 100 + 10.0 * 300) / 400);
}

TEST(NcuParser, PercentOverSeveralLaunchesWithoutWeightsIsAnError) {
  std::string text = kHeader + "\n" + row(0, "lts__t_sector_hit_rate.pct", "%", "90") +
                     row(1, "lts__t_sector_hit_rate.pct", "%", "10");
  std::string msg = ncu_must_fail(text);
  EXPECT_NE(msg.find("lts__t_sectors.sum"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 launches"), std::string::npos) << msg;
}

TEST(NcuParser, MetricMissingFromOneLaunchStaysOutOfTypedFields) {
  std::string text = kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "100") +
                     row(0, "dram__bytes_read.sum", "byte", "64") + row(1, "dram__bytes_read.sum", "byte", "32");
  Metrics m = ncu_must_parse(text);
  EXPECT_EQ(m.launches, 2);
  EXPECT_FALSE(m.l2_sectors.has_value());
  EXPECT_EQ(m.raw.at("lts__t_sectors.sum"), 100.0);
  EXPECT_EQ(m.dram_read_bytes, 96.0);
}

TEST(NcuParser, CrlfTrailingWarningsAndDuplicateRows) {
  std::string text = kHeader + "\r\n" + row(0, "lts__t_sectors.sum", "sector", "100") +
                     row(0, "lts__t_sectors.sum", "sector", "100") +  // same metric in a second section
                     "==WARNING== Found outstanding GPU clock reset, trying to revert...Success.\r\n";
  Metrics m = ncu_must_parse(text);
  EXPECT_EQ(m.l2_sectors, 100.0);
}

TEST(NcuParser, RuleRowsWithoutMetricAreSkipped) {
  std::string text = kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "5") + row(0, "", "", "");
  EXPECT_EQ(ncu_must_parse(text).l2_sectors, 5.0);
}

TEST(NcuParser, TruncatedRowNamesTheLine) {
  std::string text = "==PROF== x\n" + kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "5") +
                     R"x("1","42","app","127.0.0.1","k(float *, int)","1")x" "\n";
  std::string msg = ncu_must_fail(text);
  EXPECT_NE(msg.find("line 4"), std::string::npos) << msg;
}

// Values that overflow when scaled or summed over launches gave a NaN hit rate
// (found by tests/fuzz/fuzz_ncu_csv); now they are an error.
TEST(NcuParser, OverflowingValuesAreAnErrorNotANan) {
  const std::string text = kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "1e308") +
                           row(0, "lts__t_sectors_lookup_hit.sum", "sector", "1e308") +
                           row(1, "lts__t_sectors.sum", "sector", "1e308") +
                           row(1, "lts__t_sectors_lookup_hit.sum", "sector", "1e308");
  EXPECT_NE(ncu_must_fail(text).find("out of range"), std::string::npos);
}

// A damaged file (negative counts, more hits than sectors, a printed rate above
// 100) gave a hit rate outside [0, 100]; now it is an error. A full hit rate is
// exactly 100, whatever the magnitude of the counts.
TEST(NcuParser, HitRateOutsideZeroToHundredIsAnError) {
  for (const std::string& text :
       {kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "10") +
            row(0, "lts__t_sectors_lookup_hit.sum", "sector", "-5"),
        kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "10") +
            row(0, "lts__t_sectors_lookup_hit.sum", "sector", "11"),
        kHeader + "\n" + row(0, "lts__t_sector_hit_rate.pct", "%", "150")}) {
    const std::string msg = ncu_must_fail(text);
    EXPECT_NE(msg.find("outside 0-100"), std::string::npos) << msg;
  }
  Metrics m = ncu_must_parse(kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "1e307") +
                             row(0, "lts__t_sectors_lookup_hit.sum", "sector", "1e307"));
  ASSERT_TRUE(m.l2_hit_pct);
  EXPECT_EQ(*m.l2_hit_pct, 100.0);
}

// A quoted value spanning lines was echoed into the error, which then had two
// lines (found by tests/fuzz/fuzz_ncu_csv).
TEST(NcuParser, ErrorsStayOneLineWhenAFieldSpansLines) {
  const std::string text = kHeader + "\n" + row(0, "lts__t_sectors.sum", "sector", "12\nnot a number");
  const std::string msg = ncu_must_fail(text);
  EXPECT_NE(msg.find("not a number"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(NcuParser, FuzzRegressionInputsGiveAValueOrAnError) {
  for (const auto& e : std::filesystem::directory_iterator(fixture_path("fuzz/fuzz_ncu_csv"))) {
    auto r = parse_ncu_csv(read_text(e.path()));
    if (r.ok() && r.value().l2_hit_pct) {
      EXPECT_GE(*r.value().l2_hit_pct, 0.0) << e.path();
      EXPECT_LE(*r.value().l2_hit_pct, 100.0) << e.path();
    }
    if (!r.ok()) EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace swz

// Captured by swizzleperf itself on the H100 (2026-11-22): the baselines of the
// gemm bench and of softmax in the suite. Expected values are the ones those runs
// recorded in their history.json.
namespace {

TEST(NcuParserRealCapture, SwizzleperfGemmBaselineOnTheH100) {
  auto m = swz::parse_ncu_csv(swz::test::read_text(swz::test::fixture_path("ncu/real_h100_gemm_swizzleperf.csv")));
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->launches, 1);
  EXPECT_DOUBLE_EQ(*m->l2_sectors, 304279006.0);
  EXPECT_DOUBLE_EQ(*m->l2_hits, 105171313.0);
  EXPECT_DOUBLE_EQ(*m->fabric_sectors, 76125656.0);
  EXPECT_DOUBLE_EQ(*m->dram_read_bytes, 4250600192.0);
  EXPECT_NEAR(*m->l2_hit_pct, 34.56, 0.005);  // ncu's own printed rate
}

TEST(NcuParserRealCapture, SwizzleperfSoftmaxTwoKernelsSumAcrossLaunches) {
  auto m = swz::parse_ncu_csv(swz::test::read_text(swz::test::fixture_path("ncu/real_h100_softmax_swizzleperf.csv")));
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->launches, 2);
  EXPECT_DOUBLE_EQ(*m->l2_sectors, 613536661.0);
  EXPECT_DOUBLE_EQ(*m->l2_hits, 210269931.0);
  EXPECT_DOUBLE_EQ(*m->fabric_sectors, 203309359.0);
  EXPECT_NEAR(*m->l2_hit_pct, 100.0 * 210269931.0 / 613536661.0, 1e-9);
}

}  // namespace
