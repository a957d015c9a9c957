// Tests of predictions (model/prediction.h): predict() sums its launches per die, asks the
// order callback once per distinct grid of the launches that follow swizzle_pid, passes an
// order's Error on; the JSON forms (the full one and the short one history.json keeps) and
// the rendered table.
#include "swizzleperf/model/prediction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "support/footprint_builders.h"

namespace swz {
namespace {

using test::LaunchBuilder;

// `tiles` tiles on grid g, tile t reading 4 KB at (t % 2) * 4 KB and writing 128 B.
LaunchFootprint small_launch(TileGrid g, bool swizzled = true) {
  LaunchBuilder b(g, {}, swizzled);
  for (std::uint64_t t = 0; t < g.num_pids(); ++t) b.tile().read(0, (t % 2) * 4096, 4096).write(1, t * 128, 128);
  return b.build();
}

ProgramFootprint three_launches() {
  // Launches 0 and 2 on 2x2, launch 1 on 1x4; launch 3 on 4x1 ignores swizzle_pid.
  ProgramFootprint fp = test::program_of(
      {small_launch({2, 2}), small_launch({1, 4}), small_launch({2, 2}), small_launch({4, 1}, false)},
      {{"in", 8192}, {"out", 4096}}, {256, 128}, 7);
  fp.launch_ids = {0, 1, 2, 5};
  return fp;
}

SimOptions prediction_one_at_a_time() {
  SimOptions o;
  o.resident_override = 1;
  return o;
}

TEST(Prediction, PredictSumsLaunchesAndAsksOncePerDistinctGrid) {
  const MachineModel m = test::test_machine(2, L2Topology::private_per_die, 1 << 20, 1, 32, true);
  const ProgramFootprint fp = three_launches();
  std::map<std::pair<unsigned, unsigned>, int> asked;
  auto order = [&](TileGrid g) -> Result<std::vector<std::uint32_t>> {
    ++asked[{g.m, g.n}];
    std::vector<std::uint32_t> t = test::identity_order(g.num_pids());
    std::reverse(t.begin(), t.end());
    return t;
  };
  auto p = predict(fp, order, m, prediction_one_at_a_time());
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(asked.size(), 2u);  // 2x2 and 1x4; not the unswizzled 4x1
  EXPECT_EQ((asked[{2, 2}]), 1);
  EXPECT_EQ((asked[{1, 4}]), 1);
  EXPECT_EQ(asked.count({4, 1}), 0u);

  ASSERT_EQ(p->launches.size(), 4u);
  EXPECT_EQ(p->launches[0].launch, 0u);
  EXPECT_EQ(p->launches[3].launch, 5u);  // the program's launch ids
  EXPECT_EQ(p->launches[1].grid.m, 1u);
  EXPECT_EQ(p->launches_total, 7u);
  EXPECT_EQ(p->size, (std::vector<long long>{256, 128}));
  EXPECT_EQ(p->arch, "test");
  EXPECT_EQ(p->device, "test machine");
  EXPECT_EQ(p->unit, "sector (32 B)");
  EXPECT_EQ(p->provenance, m.provenance);
  EXPECT_GE(p->seconds, 0.0);

  // Per die and in total: the sums of the launches' counts.
  ASSERT_EQ(p->dies.size(), 2u);
  DieCounts sum;
  for (std::size_t d = 0; d < 2; ++d) {
    DieCounts die;
    for (const auto& l : p->launches) die += l.dies[d];
    EXPECT_EQ(p->dies[d].requests, die.requests) << d;
    EXPECT_EQ(p->dies[d].hits, die.hits) << d;
    EXPECT_EQ(p->dies[d].tiles, die.tiles) << d;
    EXPECT_EQ(p->dies[d].dram_read_bytes, die.dram_read_bytes) << d;
    sum += die;
  }
  EXPECT_EQ(p->total.tiles, 16u);
  EXPECT_EQ(p->total.requests, sum.requests);
  EXPECT_EQ(p->total.hits, sum.hits);
  EXPECT_EQ(p->total.dram_write_bytes, 16 * 128u);
  EXPECT_DOUBLE_EQ(p->l2_hit_pct(), sum.hit_pct());
  // Each launch is what simulate_launch gives for it with the table of its grid.
  std::vector<std::uint32_t> rev{3, 2, 1, 0};
  const LaunchPrediction first = simulate_launch(fp.launches[0], rev, m, prediction_one_at_a_time());
  EXPECT_EQ(p->launches[0].total().hits, first.total().hits);
  EXPECT_EQ(p->launches[0].total().dram_read_bytes, first.total().dram_read_bytes);
}

TEST(Prediction, TheOrderChangesThePrediction) {
  // Round-robin over 2 dies: in pid order, die 0 runs tiles 0 and 2 (the same 4 KB), die 1
  // tiles 1 and 3: every die's second read hits. Order {0, 1, 3, 2} sends tiles 0 and 3 to
  // die 0: no reuse on either die.
  const MachineModel m = test::test_machine(2, L2Topology::private_per_die, 1 << 20, 1, 32, true);
  ProgramFootprint fp = test::program_of({small_launch({2, 2})}, {{"in", 8192}, {"out", 4096}});
  auto identity = predict(fp, [](TileGrid) -> Result<std::vector<std::uint32_t>> { return std::vector<std::uint32_t>{}; }, m,
                          prediction_one_at_a_time());
  auto mixed = predict(fp, [](TileGrid) -> Result<std::vector<std::uint32_t>> { return std::vector<std::uint32_t>{0, 1, 3, 2}; },
                       m, prediction_one_at_a_time());
  ASSERT_TRUE(identity && mixed);
  EXPECT_EQ(identity->total.dram_read_bytes, 2 * 4096u);
  EXPECT_EQ(mixed->total.dram_read_bytes, 4 * 4096u);
  EXPECT_GT(identity->l2_hit_pct(), mixed->l2_hit_pct());
}

TEST(Prediction, AnOrdersErrorIsPassedOn) {
  const MachineModel m = test::test_machine(1, L2Topology::shared, 1 << 20);
  int calls = 0;
  auto order = [&](TileGrid g) -> Result<std::vector<std::uint32_t>> {
    ++calls;
    if (g.m == 1) return make_error("the region is not a bijection on 1x4");
    return std::vector<std::uint32_t>{};
  };
  auto p = predict(three_launches(), order, m);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "the region is not a bijection on 1x4");
  EXPECT_EQ(calls, 2);  // 2x2, then 1x4 fails: nothing after it is asked
}

TEST(Prediction, UnitNamesTheProfilersUnit) {
  const MachineModel amd = test::test_machine(1, L2Topology::shared, 1 << 20, 1, 128);
  ProgramFootprint fp = test::program_of({small_launch({1, 2})}, {{"in", 8192}, {"out", 4096}});
  auto p = predict(fp, [](TileGrid) -> Result<std::vector<std::uint32_t>> { return std::vector<std::uint32_t>{}; }, amd);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->unit, "line (128 B)");
  ASSERT_EQ(p->dies.size(), 1u);
}

// A prediction stated by hand: 2 dies, one launch sampled 1 in 4.
Prediction hand_made() {
  Prediction p;
  p.order = "grouped_m(G=8)";
  p.size = {4096, 4096, 1024};
  p.arch = "sm_90";
  p.device = "NVIDIA H100";
  p.launches_total = 3;
  p.unit = "sector (32 B)";
  p.provenance = {{"dies", "arch table"}};
  p.seconds = 0.12345;
  DieCounts a, b;
  a.tiles = 10, a.requests = 3, a.hits = 1, a.dram_read_bytes = 1500000, a.dram_write_bytes = 2000, a.cross_die_bytes = 10;
  a.read_requests = 3, a.read_hits = 1, a.fabric_read_requests = 2, a.fabric_read_hits = 1;
  b.tiles = 6, b.requests = 0;
  p.dies = {a, b};
  p.total = a;
  p.total += b;
  LaunchPrediction l;
  l.launch = 2;
  l.grid = {4, 8};
  l.resident_per_cu = 2;
  l.residency_limit = "registers";
  l.granule_bytes = 128;
  l.accesses = 999;
  l.sample = 4;
  l.dies = {a, b};
  p.launches = {l};
  return p;
}

TEST(Prediction, JsonHasEveryField) {
  const nlohmann::json j = to_json_value(hand_made());
  EXPECT_EQ(j["kind"], "prediction");
  EXPECT_EQ(j["order"], "grouped_m(G=8)");
  EXPECT_EQ(j["size"], (nlohmann::json{4096, 4096, 1024}));
  EXPECT_EQ(j["arch"], "sm_90");
  EXPECT_EQ(j["device"], "NVIDIA H100");
  EXPECT_EQ(j["unit"], "sector (32 B)");
  EXPECT_EQ(j["launches_total"], 3);
  EXPECT_EQ(j["provenance"]["dies"], "arch table");
  EXPECT_DOUBLE_EQ(j["seconds"].get<double>(), 0.123);
  // Summary fields at the top level, rounded to 2 decimals.
  EXPECT_DOUBLE_EQ(j["l2_hit_pct"].get<double>(), 33.33);
  EXPECT_EQ(j["dram_read_bytes"], 1500000);
  EXPECT_EQ(j["dram_write_bytes"], 2000);
  EXPECT_EQ(j["cross_die_bytes"], 10);
  EXPECT_EQ(j["launches_simulated"], 1);
  ASSERT_EQ(j["die_l2_hit_pct"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["die_l2_hit_pct"][0].get<double>(), 33.33);
  EXPECT_DOUBLE_EQ(j["die_l2_hit_pct"][1].get<double>(), 0.0);
  // Per launch.
  ASSERT_EQ(j["launches"].size(), 1u);
  const auto& l = j["launches"][0];
  EXPECT_EQ(l["launch"], 2);
  EXPECT_EQ(l["grid"]["m"], 4);
  EXPECT_EQ(l["grid"]["n"], 8);
  EXPECT_EQ(l["resident_per_cu"], 2);
  EXPECT_EQ(l["residency_limit"], "registers");
  EXPECT_EQ(l["granule_bytes"], 128);
  EXPECT_EQ(l["accesses"], 999);
  EXPECT_EQ(l["sample"], 4);
  EXPECT_DOUBLE_EQ(l["l2_hit_pct"].get<double>(), 33.33);
  // Per die, and the total; a die with no requests has no rate (null), not 0.
  ASSERT_EQ(j["dies"].size(), 2u);
  EXPECT_EQ(j["dies"][0]["tiles"], 10);
  EXPECT_EQ(j["dies"][0]["requests"], 3);
  EXPECT_EQ(j["dies"][0]["hits"], 1);
  EXPECT_DOUBLE_EQ(j["dies"][0]["l2_hit_pct"].get<double>(), 33.33);
  EXPECT_TRUE(j["dies"][1]["l2_hit_pct"].is_null());
  for (const char* key : {"read_requests", "write_requests", "read_hits", "fabric_read_requests", "fabric_read_hits",
                          "dram_read_bytes", "dram_write_bytes", "cross_die_bytes"})
    EXPECT_TRUE(j["dies"][0].contains(key)) << key;
  EXPECT_EQ(j["dies"][0]["fabric_read_requests"], 2);
  EXPECT_EQ(j["total"]["fabric_read_hits"], 1);
  EXPECT_EQ(j["total"]["read_hits"], 1);
  EXPECT_EQ(j["total"]["tiles"], 16);
  EXPECT_EQ(j["total"]["requests"], 3);
}

TEST(Prediction, SummaryJsonIsTheShortForm) {
  const nlohmann::json s = summary_json(hand_made());
  EXPECT_EQ(s.size(), 6u);
  EXPECT_DOUBLE_EQ(s["l2_hit_pct"].get<double>(), 33.33);
  EXPECT_EQ(s["dram_read_bytes"], 1500000);
  EXPECT_EQ(s["dram_write_bytes"], 2000);
  EXPECT_EQ(s["cross_die_bytes"], 10);
  EXPECT_EQ(s["die_l2_hit_pct"], (nlohmann::json{33.33, 0.0}));
  EXPECT_EQ(s["launches_simulated"], 1);
  EXPECT_FALSE(s.contains("dies"));
}

TEST(Prediction, RenderSaysItIsAPredictionWithARowPerDieAndATotal) {
  const std::string out = render_prediction(hand_made());
  EXPECT_EQ(out.rfind("predicted (not measured) for 4096,4096,1024 on NVIDIA H100 [sm_90], order grouped_m(G=8), launches 1 of 3",
                      0),
            0u)
      << out;
  EXPECT_NE(out.find("launch 2: grid 4x8, 2 tile(s) resident per CU (registers), granule 128 B, 1 in 4 sampled"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cross-die"), std::string::npos) << out;
  EXPECT_NE(out.find("  total "), std::string::npos) << out;
  EXPECT_NE(out.find("  0      "), std::string::npos) << out;  // die rows
  EXPECT_NE(out.find("  1      "), std::string::npos) << out;
  EXPECT_NE(out.find("33.33"), std::string::npos) << out;
  EXPECT_NE(out.find("1.5 MB"), std::string::npos) << out;
  EXPECT_NE(out.find("2.0 kB"), std::string::npos) << out;
  EXPECT_NE(out.find("L2 requests counted per sector (32 B)"), std::string::npos) << out;
  // One die: no die rows and no cross-die column, still a total row.
  Prediction one = hand_made();
  one.dies = {one.total};
  one.launches[0].sample = 1;
  const std::string single = render_prediction(one);
  EXPECT_NE(single.find("  total "), std::string::npos) << single;
  EXPECT_EQ(single.find("cross-die"), std::string::npos) << single;
  EXPECT_EQ(single.find("sampled"), std::string::npos) << single;
  EXPECT_EQ(single.find("\n  0 "), std::string::npos) << single;
}

}  // namespace
}  // namespace swz
