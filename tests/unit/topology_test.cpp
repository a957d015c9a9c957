// Tests of the probe's pure analysis: first-wave dispatch order, L2-side
// classification, GPC groups, the ProbeResult JSON form. Synthetic data for the
// edge cases; the real H100 captures (tests/fixtures/probe/real_h100_*) for the
// numbers the device actually gave.
#include "swizzleperf/probe/topology.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "support/fixtures.h"

namespace swz::probe {
namespace {

nlohmann::json fixture_json(const std::string& name) {
  return nlohmann::json::parse(test::read_text(test::fixture_path("probe/" + name)));
}

std::vector<BlockRecord> records_of(const nlohmann::json& j) {
  std::vector<BlockRecord> v;
  for (const auto& r : j.at("records")) v.push_back({r[0].get<int>(), r[1].get<int>(), r[2].get<std::int64_t>()});
  return v;
}

// `waves` waves over `sms` SMs (k per SM); wave w starts at w * 30 us. Later waves put
// pid p on sm_of(p % W) when `repeat`, else on a rotated SM.
std::vector<BlockRecord> synthetic_waves(int sms, int k, int waves, const std::vector<int>& first, bool repeat) {
  std::vector<BlockRecord> v;
  const int w = sms * k;
  for (int p = 0; p < waves * w; ++p) {
    const int wave = p / w;
    const int sm = wave == 0 || repeat ? first[p % w] : first[(p + 3) % w];
    v.push_back({p, sm, wave * 30000 + (p % w) / 8 * 32});
  }
  return v;
}

// ---- dispatch order -------------------------------------------------------------

TEST(TopologyOrder, FirstWaveAndRepeatingWaves) {
  const std::vector<int> first = {6, 7, 0, 1, 4, 5, 2, 3};
  auto o = first_wave_order(synthetic_waves(8, 1, 3, first, true), 8, 1);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->wave_size, 8);
  EXPECT_EQ(o->pid_to_sm, first);
  EXPECT_TRUE(o->first_wave_is_prefix);
  EXPECT_TRUE(o->balanced);
  EXPECT_EQ(o->later_blocks, 16);
  EXPECT_DOUBLE_EQ(o->later_sm_match, 1.0);
  EXPECT_TRUE(o->later_waves_repeat);
}

TEST(TopologyOrder, LaterWavesThatDoNotRepeat) {
  const std::vector<int> first = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};  // 2 per SM
  auto o = first_wave_order(synthetic_waves(8, 2, 2, first, false), 8, 2);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->wave_size, 16);
  EXPECT_TRUE(o->balanced);
  EXPECT_FALSE(o->later_waves_repeat);
  EXPECT_LT(o->later_sm_match, 0.5);
}

TEST(TopologyOrder, RecordsInAnyOrderAndUnbalancedWave) {
  // SM 3 got two first-wave blocks and SM 2 none: not balanced; input order does not matter.
  std::vector<BlockRecord> v = {{3, 3, 0}, {1, 1, 0}, {0, 0, 0}, {2, 3, 0}, {4, 0, 500}, {5, 1, 500}, {6, 2, 500}, {7, 3, 500}};
  auto o = first_wave_order(v, 4, 1);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->pid_to_sm, (std::vector<int>{0, 1, 3, 3}));
  EXPECT_FALSE(o->balanced);
  EXPECT_TRUE(o->first_wave_is_prefix);
}

TEST(TopologyOrder, FirstWaveNotAPrefix) {
  // pid 5 (second wave) started before pid 3 finished its first-wave start.
  std::vector<BlockRecord> v = {{0, 0, 0}, {1, 1, 0}, {2, 2, 0}, {3, 3, 900}, {4, 0, 900}, {5, 1, 100}, {6, 2, 900}, {7, 3, 900}};
  auto o = first_wave_order(v, 4, 1);
  ASSERT_TRUE(o);
  EXPECT_FALSE(o->first_wave_is_prefix);
}

TEST(TopologyOrder, BadInputsAreErrors) {
  EXPECT_FALSE(first_wave_order({{0, 0, 0}, {1, 1, 0}}, 4, 1));                          // less than a wave
  EXPECT_FALSE(first_wave_order({{0, 0, 0}, {0, 1, 0}, {2, 2, 0}, {3, 3, 0}}, 4, 1));    // pid twice
  EXPECT_FALSE(first_wave_order({{0, 0, 0}, {1, 1, 0}, {2, 2, 0}, {7, 3, 0}}, 4, 1));    // pid out of range
  EXPECT_FALSE(first_wave_order({{0, 0, 0}, {1, -1, 0}, {2, 2, 0}, {3, 3, 0}}, 4, 1));   // never ran
  EXPECT_FALSE(first_wave_order({{0, 0, 0}}, 0, 1));
}

TEST(TopologyOrder, RealH100OneBlockPerSm) {
  const auto j = fixture_json("real_h100_order_k1.json");
  auto o = first_wave_order(records_of(j), j.at("num_sms"), j.at("blocks_per_sm"));
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->wave_size, 132);
  const std::vector<int> head(o->pid_to_sm.begin(), o->pid_to_sm.begin() + 16);
  EXPECT_EQ(head, (std::vector<int>{124, 125, 126, 127, 128, 129, 130, 131, 0, 1, 16, 17, 32, 33, 48, 49}));
  EXPECT_TRUE(o->first_wave_is_prefix);
  EXPECT_TRUE(o->balanced);
  // Measured: later waves go to whichever SM frees first, not to pid % 132's SM.
  EXPECT_FALSE(o->later_waves_repeat);
  EXPECT_LT(o->later_sm_match, 0.05);
}

TEST(TopologyOrder, RealH100TwoBlocksPerSm) {
  const auto j = fixture_json("real_h100_order_k2.json");
  auto o = first_wave_order(records_of(j), j.at("num_sms"), j.at("blocks_per_sm"));
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->wave_size, 264);
  EXPECT_TRUE(o->balanced);
  EXPECT_TRUE(o->first_wave_is_prefix);
  EXPECT_FALSE(o->later_waves_repeat);
}

// ---- sides ------------------------------------------------------------------------

TEST(TopologySides, TwoCleanPopulations) {
  // SMs 0-3 near the reference (few fabric sectors), 4-7 far.
  std::vector<double> v = {21146, 21300, 25000, 22000, 217754, 217800, 217892, 217760};
  auto c = classify_sides(v, 0);
  EXPECT_EQ(c.side, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(c.confidence, "high") << c.note;
  EXPECT_EQ(c.populations[0].count, 4);
  EXPECT_DOUBLE_EQ(c.populations[0].min, 21146);
  EXPECT_DOUBLE_EQ(c.populations[0].max, 25000);
  EXPECT_DOUBLE_EQ(c.populations[1].min, 217754);
  EXPECT_DOUBLE_EQ(c.populations[1].max, 217892);
  EXPECT_DOUBLE_EQ(c.gap, 217754 - 25000);
  EXPECT_GT(c.separation, 100);
}

TEST(TopologySides, ReferenceSideIsSideZeroWhateverItsIndex) {
  std::vector<double> v = {300, 300, 380, 380, 300, 380};
  auto c = classify_sides(v, 2);  // SM 2 is in the high population: labels follow it, confidence drops
  EXPECT_EQ(c.side, (std::vector<int>{1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(c.confidence, "low");
  EXPECT_NE(c.note.find("high population"), std::string::npos);
  auto d = classify_sides(v, 4);
  EXPECT_EQ(d.side, (std::vector<int>{0, 0, 1, 1, 0, 1}));
  EXPECT_EQ(d.confidence, "high") << d.note;
}

TEST(TopologySides, NoisyOverlappingPopulationsAreLowConfidence) {
  std::mt19937 rng(7);
  std::normal_distribution<double> a(1000, 120), b(1200, 120);
  std::vector<double> v;
  for (int i = 0; i < 66; ++i) v.push_back(a(rng));
  for (int i = 0; i < 66; ++i) v.push_back(b(rng));
  auto c = classify_sides(v, 0);
  EXPECT_EQ(c.confidence, "low");
  EXPECT_LT(c.separation, 4);
  EXPECT_FALSE(c.note.empty());
}

TEST(TopologySides, FlatValuesAndOneOutlierAreLowConfidence) {
  // What ncu printed when three metrics were asked for at once: every launch the same.
  std::vector<double> v(132, 21146);
  v[77] = 31706;
  auto c = classify_sides(v, 0);
  EXPECT_EQ(c.confidence, "low");
  EXPECT_EQ(c.populations[1].count, 1);
  std::vector<double> flat(10, 5.0);
  EXPECT_EQ(classify_sides(flat, 0).confidence, "low");
}

TEST(TopologySides, UnmeasuredSmsAreMinusOne) {
  std::vector<double> v = {10, -1, 10, NAN, 100, 100, 11, 101};
  auto c = classify_sides(v, 0);
  EXPECT_EQ(c.side, (std::vector<int>{0, -1, 0, -1, 1, 1, 0, 1}));
  EXPECT_EQ(c.confidence, "high") << c.note;
  auto none = classify_sides({-1, -1, 5}, 0);
  EXPECT_EQ(none.confidence, "low");
  EXPECT_EQ(none.side, (std::vector<int>{-1, -1, -1}));
}

TEST(TopologySides, UnmeasuredReferenceTakesTheLowPopulation) {
  std::vector<double> v = {-1, 10, 10, 100, 100};
  auto c = classify_sides(v, 0);
  EXPECT_EQ(c.side, (std::vector<int>{-1, 0, 0, 1, 1}));
  EXPECT_EQ(c.confidence, "low");
}

TEST(TopologySides, RealH100LatencySplitsInHalf) {
  const auto j = fixture_json("real_h100_latency_ref0.json");
  std::vector<double> v = j.at("mean_cycles").get<std::vector<double>>();
  auto c = classify_sides(v, 0);
  EXPECT_EQ(c.confidence, "high") << c.note;
  EXPECT_EQ(c.populations[0].count, 66);
  EXPECT_EQ(c.populations[1].count, 66);
  EXPECT_LT(c.populations[0].max, 320);  // near: ~278-310 cycles
  EXPECT_GT(c.populations[1].min, 360);  // far: ~366-396 cycles
}

TEST(TopologySides, PidToSideLaterWaveMatchAndAgreement) {
  EXPECT_EQ(pid_to_side({3, 0, 2, 9}, {0, 1, 1, 0}), (std::vector<int>{0, 0, 1, -1}));
  WaveOrder o;
  o.wave_size = 2;
  o.pid_to_sm = {0, 1};
  std::vector<BlockRecord> recs = {{0, 0, 0}, {1, 1, 0}, {2, 2, 9}, {3, 3, 9}};
  // pid 2 -> SM 2 (side 0) vs SM 0 (side 0): match; pid 3 -> SM 3 (side 1) vs SM 1 (side 0): no.
  EXPECT_DOUBLE_EQ(later_wave_side_match(recs, o, {0, 0, 0, 1}), 0.5);
  EXPECT_DOUBLE_EQ(side_agreement({0, 1, -1, 1}, {0, 1, 1, 0}), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(side_agreement({-1}, {0}), -1);
}

// ---- GPCs -------------------------------------------------------------------------

TEST(TopologyGpc, ClustersJoinTransitively) {
  std::vector<ClusterRecord> r = {
      {2, 0, 0}, {2, 0, 1},    // TPC 0-1
      {2, 1, 16}, {2, 1, 17},  // TPC 16-17
      {2, 2, 2}, {2, 2, 3},    // TPC 2-3, alone
      {4, 3, 1}, {4, 3, 16}, {4, 3, 0}, {4, 3, 17},
      {4, 4, 9}, {4, 4, 8},
  };
  auto g = gpc_groups(r);
  EXPECT_EQ(g, (std::vector<std::vector<int>>{{0, 1, 16, 17}, {2, 3}, {8, 9}}));
  EXPECT_TRUE(groups_single_sided(g, {0, 0, 1, 1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, 0, 0}));
  EXPECT_FALSE(groups_single_sided(g, {0, 0, 1, 1, -1, -1, -1, -1, 0, 1}));
  EXPECT_TRUE(gpc_groups({}).empty());
}

TEST(TopologyGpc, RealH100Clusters) {
  const auto j = fixture_json("real_h100_cluster.json");
  std::vector<ClusterRecord> r;
  for (const auto& x : j.at("records")) r.push_back({x[0].get<int>(), x[1].get<int>(), x[2].get<int>()});
  auto g = gpc_groups(r);
  EXPECT_EQ(g, j.at("groups").get<std::vector<std::vector<int>>>());  // the program's own grouping agrees
  ASSERT_EQ(g.size(), 12u);
  EXPECT_EQ(g[0], (std::vector<int>{0, 1, 16, 17, 32, 33, 48, 49}));
  int total = 0;
  for (const auto& x : g) total += static_cast<int>(x.size());
  EXPECT_EQ(total, 132);
  // Measured sides (latency, ref SM 0): every group lies on one side.
  std::vector<double> lat = fixture_json("real_h100_latency_ref0.json").at("mean_cycles").get<std::vector<double>>();
  EXPECT_TRUE(groups_single_sided(g, classify_sides(lat, 0).side));
}

// ---- result -------------------------------------------------------------------------

ProbeResult sample_result() {
  ProbeResult r;
  r.vendor = "nvidia";
  r.device_name = "NVIDIA H100 80GB HBM3";
  r.arch = "sm_90";
  r.sm_count = 4;
  r.l2_bytes = 52428800;
  r.driver_version = 13000;
  r.created_at = "2026-11-22T05:00:00Z";
  r.tool_version = "0.1.0";
  r.num_l2_domains = 2;
  r.ref_sm = 0;
  r.side_method = "ncu_fabric";
  r.sides = classify_sides({100, 110, 900, 910}, 0);
  r.sm_side = r.sides.side;
  r.side_methods_agreement = 1.0;
  r.wave_size = 4;
  r.blocks_per_sm = 1;
  r.first_wave_pid_to_sm = {2, 3, 0, 1};
  r.first_wave_pid_to_side = {1, 1, 0, 0};
  r.later_waves_repeat = false;
  OrderSummary os;
  os.blocks_per_sm = 1;
  os.wave_size = 4;
  os.pid_to_sm = r.first_wave_pid_to_sm;
  os.pid_to_side = r.first_wave_pid_to_side;
  os.first_wave_is_prefix = true;
  os.balanced = true;
  os.later_sm_match = 0.25;
  os.later_side_match = 0.5;
  r.orders = {os};
  r.cluster_size = 2;
  r.gpc_groups = {{0, 1}, {2, 3}};
  r.gpc_groups_single_sided = true;
  r.fabric_sectors_per_sm = {100, 110, 900, 910};
  r.l2_latency_cycles_per_sm = {280, 281, -1, 390};
  r.raw_extra = {{"anything", {1, 2}}};
  r.how["sm_side"] = {"measured", "high", "ncu fabric"};
  r.how["sm_count"] = {"device query", "high", ""};
  r.notes = {"a note"};
  return r;
}

TEST(TopologyResult, JsonRoundTrip) {
  const ProbeResult r = sample_result();
  nlohmann::json j = r;
  const auto text = j.dump(2);
  ProbeResult back = nlohmann::json::parse(text).get<ProbeResult>();
  nlohmann::json j2 = back;
  EXPECT_EQ(j, j2);
  EXPECT_EQ(back.sm_side, r.sm_side);
  EXPECT_EQ(back.sides.confidence, "high");
  EXPECT_EQ(back.sides.populations[1].count, 2);
  EXPECT_EQ(back.orders.at(0).later_side_match, 0.5);
  EXPECT_EQ(back.how.at("sm_side").note, "ncu fabric");
  EXPECT_EQ(back.l2_latency_cycles_per_sm[2], -1);
  EXPECT_TRUE(back.sides_known());
  // Field names are the documented schema (docs/probe.md).
  for (const char* key : {"device_name", "arch", "sm_count", "l2_bytes", "num_l2_domains", "sm_side", "first_wave_pid_to_sm",
                          "first_wave_pid_to_side", "wave_size", "blocks_per_sm", "gpc_groups", "raw", "how"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["raw"].contains("fabric_sectors_per_sm"));
  EXPECT_EQ(j["how"]["sm_count"]["how"], "device query");
}

TEST(TopologyResult, ApplyToProfile) {
  HardwareProfile h;
  h.vendor = "nvidia";
  h.name = "NVIDIA H100 80GB HBM3";
  h.compute_units = 4;
  h.l2_bytes = 52428800;
  const ProbeResult r = sample_result();
  ASSERT_TRUE(apply_probe(h, r));
  EXPECT_EQ(h.num_dies, 2);
  EXPECT_EQ(h.l2_bytes_per_die, 26214400);
  EXPECT_EQ(h.dispatch.kind, "table");
  EXPECT_EQ(h.dispatch.source, "measured");
  EXPECT_EQ(h.dispatch.first_wave_die, r.first_wave_pid_to_side);
  EXPECT_NE(h.dispatch.note.find("do NOT repeat"), std::string::npos);

  HardwareProfile other = h;
  other.name = "NVIDIA A100";
  other.dispatch = DispatchModel{};
  EXPECT_FALSE(apply_probe(other, r));
  EXPECT_EQ(other.dispatch.kind, "round_robin");
  ProbeResult noisy = r;
  noisy.sides.confidence = "low";
  HardwareProfile h2;
  h2.name = r.device_name;
  h2.compute_units = 4;
  EXPECT_FALSE(apply_probe(h2, noisy));
}

TEST(TopologyResult, FormatIdRanges) {
  EXPECT_EQ(format_id_ranges({3, 0, 1, 8, 9, 10, 12}), "0-1 3 8-10 12");
  EXPECT_EQ(format_id_ranges({}), "");
  EXPECT_EQ(format_id_ranges({5, 5}), "5");
}

// parse_probe: what load_probe (and the probe cache) runs on hardware.json's bytes.
TEST(TopologyResult, ParseProbeReadsARealProbeAndRefusesOtherJson) {
  const auto text = test::read_text(test::source_dir() / "bench" / "results" / "2026-11-22-h100-probe.json");
  auto p = parse_probe(text, "h100.json");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(p->sm_count, 132);
  EXPECT_EQ(p->num_l2_domains, 2);
  for (const std::string bad : {"", "not json", "[1,2]", R"({"device_name": "x"})", R"({"how": {}})"}) {
    auto r = parse_probe(bad, "h.json");
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("h.json is not a swizzleperf probe result"), std::string::npos) << r.error().message;
  }
  auto newer = parse_probe(R"({"device_name": "x", "how": {}, "schema_version": 2})", "h.json");
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().message.find("newer swizzleperf"), std::string::npos);
}

// hardware.json with a mistyped schema_version threw out of load_probe, and one with
// a float beyond int range in an int array was undefined behaviour (both found by
// tests/fuzz/fuzz_probe_json); now each is an error naming what is wrong.
TEST(TopologyResult, FuzzRegressionInputsAreErrorsNotThrown) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::fixture_path("fuzz/fuzz_probe_json"))) {
    ++n;
    auto p = parse_probe(test::read_text(e.path()), "hardware.json");
    ASSERT_FALSE(p) << e.path();
    const bool named = p.error().message.find("schema_version") != std::string::npos ||
                       p.error().message.find("out of range") != std::string::npos;
    EXPECT_TRUE(named) << p.error().message;
  }
  EXPECT_GE(n, 2);
}

}  // namespace
}  // namespace swz::probe
