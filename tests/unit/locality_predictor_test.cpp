// Tests of LocalityPredictor (model/locality_predictor.h): the main grid is the first
// swizzled launch's, predictions are cached by the order's table (a second prediction of the
// same table comes back at once with the new label), a table that does not fit the main grid
// gives nullopt, launches on another grid run in identity order and say so in the
// provenance, and concurrent callers get the same answers.
#include "swizzleperf/model/locality_predictor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>

#include "support/footprint_builders.h"

namespace swz {
namespace {

test::GemmShape predictor_shape() {
  test::GemmShape s;
  s.tiles_m = 8;
  s.tiles_n = 64;
  s.bm = 32;
  s.bn = 32;
  s.k = 256;
  return s;
}

// Two sides of 128 KB, 4 SMs each: the 64 column panels of B (2 MB) do not fit, so the order
// decides how often a panel is fetched again.
MachineModel small_machine() { return test::test_machine(2, L2Topology::home_sides, 128 << 10, 4); }

// pid -> tile for grouped-M with groups of g rows (column by column within a group).
std::vector<std::uint32_t> predictor_grouped(TileGrid grid, unsigned g) {
  std::vector<std::uint32_t> t;
  for (unsigned first = 0; first < grid.m; first += g)
    for (unsigned n = 0; n < grid.n; ++n)
      for (unsigned m = first; m < std::min(grid.m, first + g); ++m) t.push_back(m * grid.n + n);
  return t;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(LocalityPredictor, MainGridIsTheFirstSwizzledLaunchs) {
  ProgramFootprint fp = test::gemm_like_footprint(predictor_shape());
  LaunchFootprint pre = test::LaunchBuilder({1, 2}, {}, false).tile().read(0, 0, 128).tile().read(0, 128, 128).build();
  fp.launches.insert(fp.launches.begin(), pre);
  fp.launch_ids = {0, 1};
  LocalityPredictor p(fp, small_machine(), fast_sim_options());
  EXPECT_EQ(p.main_grid().m, 8u);
  EXPECT_EQ(p.main_grid().n, 64u);
  EXPECT_EQ(p.machine().num_dies, 2);
  EXPECT_EQ(p.footprint().launches.size(), 2u);
  // With no swizzled launch at all, the first launch's grid.
  ProgramFootprint only_pre = test::program_of({pre}, {{"A", 4096}});
  EXPECT_EQ(LocalityPredictor(only_pre, small_machine(), fast_sim_options()).main_grid().n, 2u);
}

TEST(LocalityPredictor, ASecondPredictionOfTheSameTableIsCachedWithTheNewLabel) {
  LocalityPredictor p(test::gemm_like_footprint(predictor_shape()), small_machine(), SimOptions{});
  const auto table = predictor_grouped({8, 64}, 8);
  auto t0 = std::chrono::steady_clock::now();
  auto a = p.predict(table, "grouped_m(G=8)");
  const double first = seconds_since(t0);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->order, "grouped_m(G=8)");
  t0 = std::chrono::steady_clock::now();
  auto b = p.predict(table, "the same order, renamed");
  const double second = seconds_since(t0);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->order, "the same order, renamed");
  EXPECT_EQ(b->total.requests, a->total.requests);
  EXPECT_EQ(b->total.hits, a->total.hits);
  EXPECT_EQ(b->total.dram_read_bytes, a->total.dram_read_bytes);
  // The cached prediction is the first one: even its simulation time is the first's.
  EXPECT_EQ(b->seconds, a->seconds);
  std::printf("[          ] first prediction %.4f s, cached %.6f s\n", first, second);
  EXPECT_LT(second, first / 2) << "the second prediction should not simulate again";
  // The first label is not changed in the cache by the second call.
  EXPECT_EQ(p.predict(table, "third")->order, "third");
}

TEST(LocalityPredictor, DifferentTablesGetDifferentPredictions) {
  LocalityPredictor p(test::gemm_like_footprint(predictor_shape()), small_machine(), fast_sim_options());
  auto identity = p.predict({}, "identity");
  auto explicit_identity = p.predict(test::identity_order(512), "0..511");
  auto g8 = p.predict(predictor_grouped({8, 64}, 8), "grouped_m(G=8)");
  ASSERT_TRUE(identity && explicit_identity && g8);
  EXPECT_EQ(identity->order, "identity");
  EXPECT_EQ(explicit_identity->total.hits, identity->total.hits);
  EXPECT_EQ(explicit_identity->total.requests, identity->total.requests);
  // Row-major order streams all of B once per tile row; grouped-M reuses each B panel 8 times.
  EXPECT_GT(g8->l2_hit_pct(), identity->l2_hit_pct() + 5) << g8->l2_hit_pct() << " vs " << identity->l2_hit_pct();
  EXPECT_LT(g8->total.dram_read_bytes, identity->total.dram_read_bytes);
}

TEST(LocalityPredictor, ATableOfTheWrongSizeGivesNothing) {
  LocalityPredictor p(test::gemm_like_footprint(predictor_shape()), small_machine(), fast_sim_options());
  EXPECT_FALSE(p.predict(test::identity_order(511), "short"));
  EXPECT_FALSE(p.predict(test::identity_order(513), "long"));
  EXPECT_FALSE(p.predict(std::vector<std::uint32_t>(1000, 0), "other"));
  EXPECT_TRUE(p.predict(test::identity_order(512), "fits"));
}

TEST(LocalityPredictor, LaunchesOnAnotherGridAreFlaggedInTheProvenance) {
  const MachineModel m = small_machine();
  // Only the main grid: no flag.
  LocalityPredictor plain(test::gemm_like_footprint(predictor_shape()), m, fast_sim_options());
  auto a = plain.predict(predictor_grouped({8, 64}, 8), "g8");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->provenance.count("other_grids"), 0u);
  EXPECT_EQ(a->provenance.at("dies"), "test");  // the machine's own provenance is kept

  // A second swizzled launch on a 2x4 grid: run in identity order, and said.
  ProgramFootprint fp = test::gemm_like_footprint(predictor_shape());
  test::GemmShape other = predictor_shape();
  other.tiles_m = 2;
  other.tiles_n = 4;
  fp.launches.push_back(test::gemm_like_launch(other));
  fp.launch_ids = {0, 1};
  LocalityPredictor two(fp, m, fast_sim_options());
  auto b = two.predict(predictor_grouped({8, 64}, 8), "g8");
  ASSERT_TRUE(b);
  ASSERT_EQ(b->launches.size(), 2u);
  ASSERT_EQ(b->provenance.count("other_grids"), 1u);
  EXPECT_NE(b->provenance.at("other_grids").find("identity order"), std::string::npos);
  EXPECT_EQ(b->launches[1].grid.m, 2u);
  // The other launch was run in identity order: the same as predicting it alone with no table.
  auto alone = predict(test::program_of({test::gemm_like_launch(other)}, fp.buffers),
                       [](TileGrid) -> Result<std::vector<std::uint32_t>> { return std::vector<std::uint32_t>{}; }, m,
                       fast_sim_options());
  ASSERT_TRUE(alone);
  EXPECT_EQ(b->launches[1].total().hits, alone->total.hits);
  EXPECT_EQ(b->launches[1].total().requests, alone->total.requests);

  // An unswizzled launch on another grid ignores the order anyway: no flag.
  ProgramFootprint unswizzled = test::gemm_like_footprint(predictor_shape());
  LaunchFootprint l = test::gemm_like_launch(other);
  l.swizzled = false;
  unswizzled.launches.push_back(l);
  unswizzled.launch_ids = {0, 1};
  auto c = LocalityPredictor(unswizzled, m, fast_sim_options()).predict(predictor_grouped({8, 64}, 8), "g8");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->provenance.count("other_grids"), 0u);
}

TEST(LocalityPredictor, ConcurrentCallersGetTheSameAnswers) {
  LocalityPredictor p(test::gemm_like_footprint(predictor_shape()), small_machine(), fast_sim_options());
  const std::vector<std::vector<std::uint32_t>> tables = {{}, predictor_grouped({8, 64}, 2), predictor_grouped({8, 64}, 4), predictor_grouped({8, 64}, 8)};
  auto run = [&] {
    std::vector<std::uint64_t> hits;
    for (const auto& t : tables) hits.push_back(p.predict(t, "x")->total.hits);
    return hits;
  };
  auto f1 = std::async(std::launch::async, run);
  auto f2 = std::async(std::launch::async, run);
  auto f3 = std::async(std::launch::async, run);
  const auto h1 = f1.get(), h2 = f2.get(), h3 = f3.get();
  EXPECT_EQ(h1, h2);
  EXPECT_EQ(h1, h3);
  // ... and the answers the simulator gives without the predictor.
  auto direct = predict(p.footprint(), [&](TileGrid) -> Result<std::vector<std::uint32_t>> { return tables[3]; }, p.machine(),
                        fast_sim_options());
  ASSERT_TRUE(direct);
  EXPECT_EQ(h1[3], direct->total.hits);
}

}  // namespace
}  // namespace swz
