// TileMap: dies, order and pids per cell for small grids, majority and purity
// when cells hold many tiles, wrapped 1-D grids, and the JSON round trip.
#include "swizzleperf/core/tile_map.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

HardwareProfile round_robin(int dies) {
  HardwareProfile hw;
  hw.num_dies = dies;
  hw.dispatch.kind = "round_robin";
  return hw;
}

TEST(TileMap, IdentityOnASmallGridKeepsEveryPid) {
  const auto t = identity_tile_map({2, 4}, round_robin(2));
  EXPECT_EQ(t.rows, 2u);
  EXPECT_EQ(t.cols, 4u);
  EXPECT_EQ(t.die, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(t.pid, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(t.purity, std::vector<int>(8, 100));
  EXPECT_EQ(t.order.front(), 0);
  EXPECT_EQ(t.order.back(), 999);
  EXPECT_TRUE(std::is_sorted(t.order.begin(), t.order.end()));
}

TEST(TileMap, ASwizzleThatGroupsDiesPutsEachDieOnItsOwnHalf) {
  // pid p on die p % 2: even pids take the top row, odd pids the bottom row.
  std::vector<std::uint32_t> m(8);
  for (unsigned p = 0; p < 8; ++p) m[p] = (p % 2) * 4 + p / 2;
  const auto t = make_tile_map({2, 4}, m, round_robin(2));
  EXPECT_EQ(t.die, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(t.pid, (std::vector<std::int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(TileMap, LargeGridsAreDownsampledWithMajorityAndPurity) {
  const auto t = identity_tile_map({100, 100}, round_robin(2), 10);
  EXPECT_EQ(t.rows, 10u);
  EXPECT_EQ(t.cols, 10u);
  EXPECT_TRUE(t.pid.empty());
  for (int p : t.purity) EXPECT_EQ(p, 50);  // every 10x10 block holds both dies equally
  // A probed table: the first 4 pids of each 8 on side 0.
  HardwareProfile hw = round_robin(2);
  hw.dispatch.kind = "table";
  hw.dispatch.first_wave_die = {0, 0, 0, 0, 1, 1, 1, 1};
  const auto u = identity_tile_map({8, 8}, hw);
  EXPECT_EQ(u.die[0], 0);
  EXPECT_EQ(u.die[4], 1);
}

TEST(TileMap, LongOneDimensionalGridsAreWrapped) {
  const auto t = identity_tile_map({1, 1000}, round_robin(8), 48);
  EXPECT_TRUE(t.wrapped());
  EXPECT_EQ(t.view_n, 32u);
  EXPECT_EQ(t.view_m, 32u);
  EXPECT_EQ(t.die.back(), -1);  // 1024 cells for 1000 tiles: the last ones are empty
  EXPECT_EQ(t.die[0], 0);
  EXPECT_EQ(t.die[1], 1);
}

TEST(TileMap, JsonRoundTripAndMismatchedArraysAreRefused) {
  const auto t = identity_tile_map({3, 5}, round_robin(2));
  nlohmann::json j = t;
  const auto back = j.get<TileMap>();
  EXPECT_EQ(back.die, t.die);
  EXPECT_EQ(back.pid, t.pid);
  EXPECT_EQ(back.rows, 3u);
  j["die"].push_back(0);
  EXPECT_THROW(j.get<TileMap>(), nlohmann::json::exception);
}

// A history file is text a user may edit: a dimension that is a float, negative
// or huge is refused (1e300 converted to unsigned was undefined behaviour).
TEST(TileMap, DimensionsThatAreNotCountsAreRefused) {
  const nlohmann::json good = identity_tile_map({3, 5}, round_robin(2));
  for (const nlohmann::json bad : {nlohmann::json(1e300), nlohmann::json(3.0), nlohmann::json(-1),
                                   nlohmann::json(1ll << 40), nlohmann::json("3")}) {
    for (const char* key : {"grid", "view", "cells"}) {
      nlohmann::json j = good;
      j[key][0] = bad;
      EXPECT_THROW(j.get<TileMap>(), nlohmann::json::exception) << key << " " << bad.dump();
    }
  }
}

}  // namespace
}  // namespace swz
