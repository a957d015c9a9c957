// Tests of the locality simulator (model/locality_sim.h) on synthetic footprints with
// answers computed by hand: reuse in one shared L2, writes, a streamed span larger than the
// cache (cyclic LRU), private per-die L2s under round-robin dispatch, NVIDIA's home sides,
// the Infinity Cache, the block order (pid -> tile table), set sampling against the full
// simulation, the identity and unswizzled launches, and the time a 100,000-tile launch takes.
#include "swizzleperf/model/locality_sim.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "support/footprint_builders.h"
#include "support/timing.h"

namespace swz {
namespace {

using test::LaunchBuilder;
using test::test_machine;

constexpr std::uint64_t kSpan = 64 * 1024;

// One CU, one tile at a time: tiles run strictly one after the other.
SimOptions one_at_a_time() {
  SimOptions o;
  o.resident_override = 1;
  return o;
}

// `tiles` tiles on a 1 x tiles grid, each reading [0, kSpan) of buffer 0.
LaunchFootprint same_span(unsigned tiles, bool write_first = false) {
  LaunchBuilder b({1, tiles});
  for (unsigned t = 0; t < tiles; ++t) {
    b.tile();
    if (write_first && t == 0) b.write(0, 0, kSpan);
    else b.read(0, 0, kSpan);
  }
  return b.build();
}

void expect_same_counts(const LaunchPrediction& a, const LaunchPrediction& b, const std::string& what) {
  ASSERT_EQ(a.dies.size(), b.dies.size()) << what;
  for (std::size_t d = 0; d < a.dies.size(); ++d) {
    EXPECT_EQ(a.dies[d].tiles, b.dies[d].tiles) << what << " die " << d;
    EXPECT_EQ(a.dies[d].requests, b.dies[d].requests) << what << " die " << d;
    EXPECT_EQ(a.dies[d].hits, b.dies[d].hits) << what << " die " << d;
    EXPECT_EQ(a.dies[d].dram_read_bytes, b.dies[d].dram_read_bytes) << what << " die " << d;
    EXPECT_EQ(a.dies[d].dram_write_bytes, b.dies[d].dram_write_bytes) << what << " die " << d;
    EXPECT_EQ(a.dies[d].cross_die_bytes, b.dies[d].cross_die_bytes) << what << " die " << d;
  }
}

// ---- (a) reuse in one shared L2 ------------------------------------------------------

TEST(LocalitySim, TheSecondTileReadingTheSameSpanHits) {
  const MachineModel m = test_machine(1, L2Topology::shared, 16 << 20);
  const LaunchPrediction p = simulate_launch(same_span(2), {}, m, one_at_a_time());
  ASSERT_EQ(p.dies.size(), 1u);
  const DieCounts t = p.total();
  EXPECT_EQ(t.tiles, 2u);
  EXPECT_EQ(t.requests, 2 * kSpan / 32);  // 32-byte sectors
  EXPECT_EQ(t.read_requests, 2 * kSpan / 32);
  EXPECT_EQ(t.write_requests, 0u);
  EXPECT_EQ(t.hits, kSpan / 32);
  EXPECT_DOUBLE_EQ(t.hit_pct(), 50.0);
  EXPECT_EQ(t.dram_read_bytes, kSpan);
  EXPECT_EQ(t.dram_write_bytes, 0u);
  EXPECT_EQ(t.cross_die_bytes, 0u);
  EXPECT_EQ(p.resident_per_cu, 1u);
  EXPECT_EQ(p.residency_limit, "given");
  EXPECT_EQ(p.sample, 1u);
  EXPECT_EQ(p.granule_bytes, 128u);  // 4 sectors
  // Four tiles: three of four reads hit.
  EXPECT_DOUBLE_EQ(simulate_launch(same_span(4), {}, m, one_at_a_time()).total().hit_pct(), 75.0);
}

TEST(LocalitySim, LinesOfOneHundredTwentyEightBytesOnAmd) {
  const MachineModel m = test_machine(1, L2Topology::shared, 16 << 20, 1, 128);
  const LaunchPrediction p = simulate_launch(same_span(2), {}, m, one_at_a_time());
  EXPECT_EQ(p.total().requests, 2 * kSpan / 128);
  EXPECT_EQ(p.total().hits, kSpan / 128);
  EXPECT_EQ(p.granule_bytes, 512u);
}

TEST(LocalitySim, PartialSectorsCountAsWholeRequests) {
  // 40 bytes from byte 16, read at once: sectors [0, 32) and [32, 64): 2 requests, 64 DRAM bytes.
  // (Read run by run, a sector that straddles two phases is requested in each: the phases are
  // cut at multiples of the unit from the span's start, not from the buffer's.)
  const MachineModel m = test_machine(1, L2Topology::shared, 16 << 20);
  LaunchBuilder b({1, 1});
  b.tile().read(0, 16, 40, 0, 1, SpanWalk::once);
  const DieCounts t = simulate_launch(b.build(), {}, m, one_at_a_time()).total();
  EXPECT_EQ(t.requests, 2u);
  EXPECT_EQ(t.hits, 0u);
  EXPECT_EQ(t.dram_read_bytes, 64u);
}

// ---- (b) writes ----------------------------------------------------------------------

TEST(LocalitySim, WritesCountAsHitsAndDramWritesAndAllocate) {
  const MachineModel m = test_machine(1, L2Topology::shared, 16 << 20);
  LaunchBuilder w({1, 1});
  w.tile().write(0, 0, kSpan);
  const DieCounts only = simulate_launch(w.build(), {}, m, one_at_a_time()).total();
  EXPECT_EQ(only.requests, kSpan / 32);
  EXPECT_EQ(only.write_requests, kSpan / 32);
  EXPECT_EQ(only.read_requests, 0u);
  EXPECT_EQ(only.hits, kSpan / 32);  // as Nsight Compute counts write sectors
  EXPECT_DOUBLE_EQ(only.hit_pct(), 100.0);
  EXPECT_EQ(only.dram_write_bytes, kSpan);
  EXPECT_EQ(only.dram_read_bytes, 0u);

  // A tile that writes the span, then one that reads it: the read hits what the write allocated.
  const DieCounts t = simulate_launch(same_span(2, true), {}, m, one_at_a_time()).total();
  EXPECT_EQ(t.requests, 2 * kSpan / 32);
  EXPECT_EQ(t.hits, 2 * kSpan / 32);
  EXPECT_EQ(t.dram_read_bytes, 0u);
  EXPECT_EQ(t.dram_write_bytes, kSpan);
}

// ---- (c) a span larger than the cache --------------------------------------------------

TEST(LocalitySim, AStreamLargerThanTheCacheNeverHitsOnReRead) {
  // 2 KB of L2 = 16 granules of 128 B in one set of 16 ways: a fully associative LRU.
  // Re-reading 64 KB in the same order evicts each granule before its reuse.
  const MachineModel tiny = test_machine(1, L2Topology::shared, 2048);
  const DieCounts t = simulate_launch(same_span(2), {}, tiny, one_at_a_time()).total();
  EXPECT_EQ(t.requests, 2 * kSpan / 32);
  EXPECT_EQ(t.hits, 0u);
  EXPECT_EQ(t.dram_read_bytes, 2 * kSpan);

  // Many sets: 16 KB of L2 (8 sets) under a 1 MB stream, every set cycles through more
  // granules than it has ways.
  const MachineModel small = test_machine(1, L2Topology::shared, 16 * 1024);
  LaunchBuilder b({1, 2});
  b.tile().read(0, 0, 1 << 20);
  b.tile().read(0, 0, 1 << 20);
  const DieCounts u = simulate_launch(b.build(), {}, small, one_at_a_time()).total();
  EXPECT_EQ(u.hits, 0u);
  EXPECT_EQ(u.dram_read_bytes, 2u << 20);
  // The same stream in a cache that holds it: the second read hits every sector.
  const MachineModel big = test_machine(1, L2Topology::shared, 4 << 20);
  EXPECT_DOUBLE_EQ(simulate_launch(b.build(), {}, big, one_at_a_time()).total().hit_pct(), 50.0);
}

// ---- (d) dies -------------------------------------------------------------------------

TEST(LocalitySim, RoundRobinSpreadsTilesOverDies) {
  const MachineModel m = test_machine(2, L2Topology::private_per_die, 16 << 20, 1, 32, true);
  LaunchBuilder b({1, 5});
  for (unsigned t = 0; t < 5; ++t) b.tile().read(0, t * 4096ull, 4096);
  const LaunchPrediction p = simulate_launch(b.build(), {}, m, one_at_a_time());
  ASSERT_EQ(p.dies.size(), 2u);
  EXPECT_EQ(p.dies[0].tiles, 3u);  // pids 0, 2, 4
  EXPECT_EQ(p.dies[1].tiles, 2u);  // pids 1, 3
  EXPECT_EQ(p.dies[0].requests, 3 * 4096u / 32);
  EXPECT_EQ(p.dies[1].requests, 2 * 4096u / 32);
  // 8 dies, 2 CUs each, 4 resident: 20 tiles -> dies 0..3 get 3, the rest 2.
  const MachineModel eight = test_machine(8, L2Topology::private_per_die, 1 << 20, 2, 128, true);
  LaunchBuilder c({4, 5});
  for (unsigned t = 0; t < 20; ++t) c.tile().read(0, t * 4096ull, 4096);
  SimOptions o;
  o.resident_override = 4;
  const LaunchPrediction q = simulate_launch(c.build(), {}, eight, o);
  ASSERT_EQ(q.dies.size(), 8u);
  for (int d = 0; d < 8; ++d) EXPECT_EQ(q.dies[d].tiles, d < 4 ? 3u : 2u) << d;
}

TEST(LocalitySim, PrivateL2sDoNotShareWhatAnotherDieFetched) {
  const MachineModel m = test_machine(2, L2Topology::private_per_die, 16 << 20, 1, 32, true);
  // pid 0 on die 0, pid 1 on die 1: both miss everything.
  const LaunchPrediction p = simulate_launch(same_span(2), {}, m, one_at_a_time());
  EXPECT_EQ(p.dies[0].hits, 0u);
  EXPECT_EQ(p.dies[1].hits, 0u);
  EXPECT_EQ(p.dies[0].dram_read_bytes, kSpan);
  EXPECT_EQ(p.dies[1].dram_read_bytes, kSpan);
  EXPECT_EQ(p.total().cross_die_bytes, 0u);  // no Infinity Cache: nothing counted as shared
  // Four tiles: each die reads the span twice and hits the second time only.
  const LaunchPrediction q = simulate_launch(same_span(4), {}, m, one_at_a_time());
  for (int d = 0; d < 2; ++d) {
    EXPECT_DOUBLE_EQ(q.dies[d].hit_pct(), 50.0) << d;
    EXPECT_EQ(q.dies[d].dram_read_bytes, kSpan) << d;
  }
  // The same four tiles in one shared L2: only the first read misses.
  const MachineModel one = test_machine(1, L2Topology::shared, 16 << 20, 2);
  const LaunchPrediction r = simulate_launch(same_span(4), {}, one, one_at_a_time());
  EXPECT_DOUBLE_EQ(r.total().hit_pct(), 75.0);
  EXPECT_EQ(r.total().dram_read_bytes, kSpan);
}

TEST(LocalitySim, TheInfinityCacheServesWhatAnotherXcdFetched) {
  MachineModel m = test_machine(2, L2Topology::private_per_die, 16 << 20, 1, 128, true);
  m.mall_bytes = 64 << 20;
  const LaunchPrediction p = simulate_launch(same_span(2), {}, m, one_at_a_time());
  EXPECT_EQ(p.total().hits, 0u);  // L2 hits: none, each XCD's L2 is cold
  EXPECT_EQ(p.total().dram_read_bytes, kSpan);  // the second XCD is served by the Infinity Cache
  EXPECT_EQ(p.dies[0].cross_die_bytes, 0u);
  EXPECT_EQ(p.dies[1].cross_die_bytes, kSpan);  // bytes die 0's fetch brought in
}

// Round robin starts the first wave in pid order: pid 1 (XCD 1) before pid 2 (XCD 0's
// second tile), so of the two, XCD 1 reads a line they share first and fills the Infinity
// Cache. (Slots ordered die by die had all of XCD 0's first wave go first, so XCD 0 paid
// every shared DRAM read of an order.)
TEST(LocalitySim, RoundRobinStartsTheFirstWaveInPidOrder) {
  MachineModel m = test_machine(2, L2Topology::private_per_die, 16 << 20, 1, 128, true);
  m.mall_bytes = 64 << 20;
  LaunchBuilder b({1, 4});
  b.tile().read(0, 0, kSpan);          // pid 0, XCD 0
  b.tile().read(1, 0, kSpan);          // pid 1, XCD 1: the shared span
  b.tile().read(1, 0, kSpan);          // pid 2, XCD 0
  b.tile().read(0, 1 << 20, kSpan);    // pid 3, XCD 1
  SimOptions o;
  o.resident_override = 2;
  o.model_l1 = false;
  for (const bool stagger : {true, false}) {
    o.stagger = stagger;
    const LaunchPrediction p = simulate_launch(b.build(), {}, m, o);
    ASSERT_EQ(p.dies.size(), 2u);
    EXPECT_EQ(p.dies[0].dram_read_bytes, kSpan) << stagger;      // its own span only
    EXPECT_EQ(p.dies[0].cross_die_bytes, kSpan) << stagger;      // the shared one, XCD 1's fill
    EXPECT_EQ(p.dies[1].dram_read_bytes, 2 * kSpan) << stagger;  // the shared span and pid 3's
    EXPECT_EQ(p.dies[1].cross_die_bytes, 0u) << stagger;
  }
}

TEST(LocalitySim, HomeSidesLookUpTheOtherSideAcrossTheFabric) {
  // Two sides, slot dispatch (first wave: pid p on side p % 2); tile 0 (side 0) reads the span,
  // then tile 1 (side 1, its start staggered half a tile later). Every sector: one DRAM read;
  // one lookup on each side for its own SMs plus one across the fabric for the side it is
  // not homed on. A sector homed on side 0: tile 0 misses; tile 1's first request crosses and
  // hits there, and its near lookup reports that hit (2 hits). Homed on side 1: tile 0 crosses
  // and misses on both sides; tile 1 hits at home (1 hit).
  const MachineModel m = test_machine(2, L2Topology::home_sides, 16 << 20);
  const LaunchPrediction p = simulate_launch(same_span(2), {}, m, one_at_a_time());
  const DieCounts t = p.total();
  const std::uint64_t sectors = kSpan / 32;
  const std::uint64_t homed_on_0 = p.dies[1].cross_die_bytes / 32;
  EXPECT_EQ(p.dies[0].tiles, 1u);
  EXPECT_EQ(p.dies[1].tiles, 1u);
  EXPECT_EQ(t.requests, 3 * sectors);
  EXPECT_EQ(t.hits, sectors + homed_on_0);
  // Of those, the lookups across the fabric: one per sector, on the side it is homed on;
  // they hit for the sectors homed on side 0 (tile 1's), and every hit is a read's.
  EXPECT_EQ(t.fabric_read_requests, sectors);
  EXPECT_EQ(p.dies[0].fabric_read_requests, homed_on_0);
  EXPECT_EQ(t.fabric_read_hits, homed_on_0);
  EXPECT_EQ(p.dies[1].fabric_read_hits, 0u);
  EXPECT_EQ(t.read_hits, t.hits);
  EXPECT_EQ(t.dram_read_bytes, kSpan);
  EXPECT_EQ(t.cross_die_bytes, kSpan);
  // Roughly half the addresses are homed on each side.
  EXPECT_GT(p.dies[0].cross_die_bytes, kSpan / 4);
  EXPECT_GT(homed_on_0, sectors / 4);
  // A plain near cache (the copy made on the first request) looks the same up as often but
  // hits once per sector: tile 1's near lookup of a sector homed on side 0 misses.
  SimOptions plain = one_at_a_time();
  plain.far_copy_on_reuse = false;
  const LaunchPrediction q0 = simulate_launch(same_span(2), {}, m, plain);
  EXPECT_EQ(q0.total().requests, 3 * sectors);
  EXPECT_EQ(q0.total().hits, sectors);
  EXPECT_EQ(q0.total().cross_die_bytes, kSpan);

  // A write from side 0 also reaches the home side of each address homed on side 1: one
  // more lookup there (a hit, as writes count), and the bytes cross the fabric once.
  LaunchBuilder w({1, 1});
  w.tile().write(0, 0, kSpan);
  const LaunchPrediction q = simulate_launch(w.build(), {}, m, one_at_a_time());
  const std::uint64_t crossed = q.dies[0].cross_die_bytes / 32;
  EXPECT_GT(crossed, sectors / 4);
  EXPECT_LT(crossed, 3 * sectors / 4);
  EXPECT_EQ(q.dies[0].requests, sectors);
  EXPECT_EQ(q.dies[1].requests, crossed);
  EXPECT_EQ(q.dies[1].write_requests, crossed);
  EXPECT_EQ(q.total().hits, q.total().requests);
  EXPECT_EQ(q.total().dram_write_bytes, kSpan);
  EXPECT_EQ(q.total().dram_read_bytes, 0u);
}

// Two SM slots, both on side 1 (the first wave table says so), one tile each at a time.
MachineModel both_slots_on_side_1() {
  MachineModel m = test_machine(2, L2Topology::home_sides, 16 << 20);
  m.first_wave_die = {1, 1};
  return m;
}

TEST(LocalitySim, TheNearSideCopiesAFarSectorFromItsSecondRequest) {
  // Three tiles on side 1 read the same span, in rounds that never meet (tile 1 starts half a
  // tile after tile 0, tile 2 when tile 0 ends). A sector homed on side 0 (f of them): tile 0
  // crosses and misses on both sides; tile 1 crosses again and hits at home (its near lookup
  // reports the hit), which makes the near copy; tile 2 hits the copy. A sector homed on
  // side 1 (n): a miss, then two hits.
  const MachineModel m = both_slots_on_side_1();
  const LaunchPrediction p = simulate_launch(same_span(3), {}, m, one_at_a_time());
  const std::uint64_t sectors = kSpan / 32;
  const std::uint64_t f = p.dies[0].requests / 2, n = sectors - f;
  EXPECT_EQ(p.dies[0].tiles, 0u);
  EXPECT_EQ(p.dies[1].tiles, 3u);
  EXPECT_GT(f, sectors / 4);
  EXPECT_LT(f, 3 * sectors / 4);
  EXPECT_EQ(p.dies[0].requests, 2 * f);
  EXPECT_EQ(p.dies[0].hits, f);
  EXPECT_EQ(p.dies[1].requests, 3 * sectors);
  EXPECT_EQ(p.dies[1].hits, 2 * f + 2 * n);
  EXPECT_EQ(p.dies[0].fabric_read_requests, 2 * f);  // all of side 0's lookups came across the fabric
  EXPECT_EQ(p.dies[0].fabric_read_hits, f);
  EXPECT_EQ(p.dies[1].fabric_read_requests, 0u);
  EXPECT_EQ(p.dies[1].read_hits, 2 * f + 2 * n);
  EXPECT_EQ(p.total().cross_die_bytes, 2 * f * 32);
  EXPECT_EQ(p.total().dram_read_bytes, kSpan);
}

TEST(LocalitySim, AReadInPiecesHitsTheRestOfEachLineItsFirstPieceFilled) {
  // One tile on side 1 reads the span once, in pieces: on a machine whose L2 fills a line on a
  // partial miss, of each line's four sectors the first piece's miss (on the SMs' own side)
  // and the rest hit, whichever side the line is homed on; the fabric lookups and DRAM reads
  // are those of the whole line, as without pieces.
  MachineModel m = both_slots_on_side_1();
  m.line_fill_bytes = 128;
  const std::uint64_t sectors = kSpan / 32;
  auto run = [&](std::uint64_t piece, const MachineModel& mm) {
    LaunchBuilder b({1, 1});
    b.tile().read(0, 0, kSpan, 0, 1, SpanWalk::once, piece);
    return simulate_launch(b.build(), {}, mm, one_at_a_time());
  };
  const LaunchPrediction whole = run(0, m);
  EXPECT_EQ(whole.dies[1].requests, sectors);
  EXPECT_EQ(whole.dies[1].hits, 0u);
  const std::uint64_t far = whole.dies[0].fabric_read_requests;
  EXPECT_GT(far, sectors / 4);
  for (const auto& [piece, hit_sectors_per_line] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{64, 2}, {32, 3}, {40, 2}}) {
    SCOPED_TRACE(piece);
    const LaunchPrediction p = run(piece, m);
    EXPECT_EQ(p.dies[1].requests, sectors);
    EXPECT_EQ(p.dies[1].hits, sectors / 4 * hit_sectors_per_line);
    EXPECT_EQ(p.dies[1].read_hits, p.dies[1].hits);
    EXPECT_EQ(p.dies[0].fabric_read_requests, far);
    EXPECT_EQ(p.dies[0].hits, 0u);
    EXPECT_EQ(p.total().dram_read_bytes, kSpan);
    EXPECT_EQ(p.total().cross_die_bytes, whole.total().cross_die_bytes);
  }
  // A piece of a line or more is the whole line; a machine that does not fill lines ignores pieces.
  EXPECT_EQ(run(128, m).dies[1].hits, 0u);
  EXPECT_EQ(run(4096, m).dies[1].hits, 0u);
  EXPECT_EQ(run(64, both_slots_on_side_1()).dies[1].hits, 0u);
  // Read again, the span hits in full either way.
  LaunchBuilder b({1, 2});
  b.tile().read(0, 0, kSpan, 0, 1, SpanWalk::once, 64);
  b.tile().read(0, 0, kSpan, 0, 1, SpanWalk::once, 64);
  SimOptions apart = one_at_a_time();
  apart.stagger = false;
  const LaunchPrediction twice = simulate_launch(b.build(), {}, m, apart);
  EXPECT_EQ(twice.dies[1].requests, 2 * sectors);
  EXPECT_EQ(twice.dies[1].hits, sectors / 2 + sectors);
}

TEST(LocalitySim, ARequestWhileTheFirstIsInFlightMergesWithIt) {
  // Two tiles on side 1 in lockstep (no stagger): tile 1 asks for each sector in the round
  // tile 0 did. A far-homed sector crosses once (tile 1 merges: a hit, nothing crosses, and
  // no near copy is made); with no in-flight window it crosses twice and hits at home.
  const MachineModel m = both_slots_on_side_1();
  SimOptions o = one_at_a_time();
  o.stagger = false;
  const LaunchPrediction merged = simulate_launch(same_span(2), {}, m, o);
  const std::uint64_t sectors = kSpan / 32;
  const std::uint64_t f = merged.dies[0].requests;  // one crossing per far sector
  EXPECT_GT(f, sectors / 4);
  EXPECT_EQ(merged.dies[0].hits, 0u);
  EXPECT_EQ(merged.dies[1].requests, 2 * sectors);
  EXPECT_EQ(merged.dies[1].hits, sectors);  // tile 1: every sector (merged or near-homed)
  EXPECT_EQ(merged.total().cross_die_bytes, f * 32);
  o.in_flight_rounds = 0;
  const LaunchPrediction apart = simulate_launch(same_span(2), {}, m, o);
  EXPECT_EQ(apart.dies[0].requests, 2 * f);
  EXPECT_EQ(apart.dies[0].hits, f);
  EXPECT_EQ(apart.dies[1].hits, sectors);  // near-homed: tile 1 hits; far: tile 1's report of the home hit
  EXPECT_EQ(apart.total().cross_die_bytes, 2 * f * 32);
  EXPECT_EQ(apart.total().dram_read_bytes, kSpan);
  EXPECT_EQ(merged.total().dram_read_bytes, kSpan);
}

// ---- (e) the order matters -------------------------------------------------------------

// Tiles 0 and 2 read X = [0, 2 KB), tiles 1 and 3 read Y = [2 KB, 4 KB); the L2 holds 2 KB.
LaunchFootprint alternating(bool swizzled = true) {
  LaunchBuilder b({2, 2}, {}, swizzled);
  for (unsigned t = 0; t < 4; ++t) b.tile().read(0, (t % 2) * 2048ull, 2048);
  return b.build();
}

TEST(LocalitySim, AnOrderThatKeepsSharersTogetherHitsMore) {
  const MachineModel m = test_machine(1, L2Topology::shared, 2048);
  const LaunchPrediction in_order = simulate_launch(alternating(), {0, 1, 2, 3}, m, one_at_a_time());
  const LaunchPrediction grouped = simulate_launch(alternating(), {0, 2, 1, 3}, m, one_at_a_time());
  EXPECT_EQ(in_order.total().hits, 0u);  // X, Y, X, Y: each evicts the other
  EXPECT_DOUBLE_EQ(grouped.total().hit_pct(), 50.0);  // X, X, Y, Y
  EXPECT_EQ(grouped.total().dram_read_bytes, 4096u);
  EXPECT_EQ(in_order.total().dram_read_bytes, 8192u);
  EXPECT_GT(grouped.total().hit_pct(), in_order.total().hit_pct());
}

// ---- (h) identity and unswizzled launches ----------------------------------------------

TEST(LocalitySim, AnEmptyTableIsTheIdentityAndAnUnswizzledLaunchIgnoresTheTable) {
  const MachineModel m = test_machine(1, L2Topology::shared, 2048);
  const LaunchPrediction empty = simulate_launch(alternating(), {}, m, one_at_a_time());
  const LaunchPrediction identity = simulate_launch(alternating(), test::identity_order(4), m, one_at_a_time());
  expect_same_counts(empty, identity, "empty vs identity");
  EXPECT_EQ(empty.total().hits, 0u);
  // swizzled = false: the launch runs in pid order whatever the table says.
  const LaunchPrediction ignored = simulate_launch(alternating(false), {0, 2, 1, 3}, m, one_at_a_time());
  expect_same_counts(ignored, identity, "unswizzled with a table vs identity");
  // A table of the wrong size is not applied either.
  const LaunchPrediction short_table = simulate_launch(alternating(), {0, 2, 1}, m, one_at_a_time());
  expect_same_counts(short_table, identity, "short table vs identity");
}

// ---- residency -------------------------------------------------------------------------

TEST(LocalitySim, ResidencyComesFromTheBlockUnlessGiven) {
  MachineModel m = test_machine(1, L2Topology::shared, 16 << 20);
  LaunchBuilder b({1, 1}, BlockResources{1024, 0, 0});
  b.tile().read(0, 0, 4096);
  const LaunchPrediction p = simulate_launch(b.build(), {}, m);
  EXPECT_EQ(p.resident_per_cu, 2u);  // 2048 threads / 1024
  EXPECT_EQ(p.residency_limit, "threads");
  SimOptions o;
  o.resident_override = 3;
  EXPECT_EQ(simulate_launch(b.build(), {}, m, o).resident_per_cu, 3u);
}

TEST(LocalitySim, ConcurrentTilesShareWhatTheyFetchTogether) {
  // Two tiles that run at the same time in one L2 (resident 2) reading the same span in step:
  // the second tile's phase finds what the first fetched in the same round.
  const MachineModel m = test_machine(1, L2Topology::shared, 16 << 20);
  SimOptions o;
  o.resident_override = 2;
  EXPECT_DOUBLE_EQ(simulate_launch(same_span(2), {}, m, o).total().hit_pct(), 50.0);
  // In a 2 KB L2 they do not: one phase of 4 KB streams 32 granules through 16 ways before
  // the other tile reads them.
  const MachineModel tiny = test_machine(1, L2Topology::shared, 2048);
  EXPECT_EQ(simulate_launch(same_span(2), {}, tiny, o).total().hits, 0u);
}

// ---- (f) set sampling -------------------------------------------------------------------

// A GEMM-like launch with some scattered extra reads (a fixed pseudo-random pattern).
LaunchFootprint sampled_workload() {
  const unsigned tm = 16, tn = 32;
  const std::uint64_t bm = 32, bn = 32, K = 256, N = tn * bn;
  LaunchBuilder b({tm, tn}, BlockResources{256, 0, 0});
  std::uint64_t x = 12345;
  for (std::uint64_t m = 0; m < tm; ++m)
    for (std::uint64_t n = 0; n < tn; ++n) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const std::uint64_t page = (x >> 33) % 256;  // 1 MB table, 4 KB pieces
      b.tile()
          .read(0, 4 * m * bm * K, 4 * K, 4 * K, bm, SpanWalk::parallel)
          .read(1, 4 * n * bn, 4 * bn, 4 * N, K, SpanWalk::runs)
          .read(2, page * 4096, 4096, 0, 1, SpanWalk::once)
          .write(3, 4 * (m * bm * N + n * bn), 4 * bn, 4 * N, bm, SpanWalk::once);
    }
  return b.build();
}

// Set sampling must not bias the rates. (Sampling whole 4 KB pages, as a first version did,
// simulated granules in clumps of 32: the sampled working set swung far more than the full
// one, the R-times-smaller caches thrashed, and this launch read 65.8 % instead of 72.5 % at
// 1 in 8, with 16 % more requests; sampling per granule is within half a point.)
TEST(LocalitySim, SetSamplingStaysWithinTwoPointsOfTheFullSimulation) {
  const MachineModel m = test_machine(2, L2Topology::home_sides, 1 << 20, 4);
  const LaunchFootprint lf = sampled_workload();
  const SimOptions full;  // the default min_sets (64): 8192 granules a side allow 1 in 8 at most
  const LaunchPrediction a = simulate_launch(lf, {}, m, full);
  ASSERT_EQ(a.sample, 1u);
  SimOptions sampled = full;
  sampled.max_accesses = a.accesses / 12;
  const LaunchPrediction b = simulate_launch(lf, {}, m, sampled);
  EXPECT_EQ(b.sample, 8u) << "the budget should force sampling, as far as min_sets allows";
  EXPECT_LT(b.accesses, a.accesses / 4);
  std::printf("[          ] full: %.2f %% (%llu accesses, %llu requests); 1 in %llu: %.2f %% (%llu accesses, %llu requests)\n",
              a.total().hit_pct(), static_cast<unsigned long long>(a.accesses),
              static_cast<unsigned long long>(a.total().requests), static_cast<unsigned long long>(b.sample),
              b.total().hit_pct(), static_cast<unsigned long long>(b.accesses),
              static_cast<unsigned long long>(b.total().requests));
  EXPECT_NEAR(b.total().hit_pct(), a.total().hit_pct(), 2.0);
  // Counts are scaled back (a missing scale would be 8 times too small); tiles are exact.
  EXPECT_NEAR(static_cast<double>(b.total().requests), static_cast<double>(a.total().requests), 0.1 * a.total().requests);
  EXPECT_EQ(b.total().tiles, a.total().tiles);
  // min_sets bounds the sampling: 1 in R keeps 8192 / R granules = 512 / R sets of 16 ways.
  SimOptions loose = sampled;
  loose.min_sets = 8;
  EXPECT_EQ(simulate_launch(lf, {}, m, loose).sample, 32u);
  SimOptions strict = sampled;
  strict.min_sets = 256;
  EXPECT_EQ(simulate_launch(lf, {}, m, strict).sample, 2u);
}

// ---- (g) speed -------------------------------------------------------------------------

TEST(LocalitySim, AHundredThousandTileLaunchIsSimulatedQuickly) {
  // A 2-D stencil-like launch: 250 x 400 tiles, each reading its own 32 rows x 256 B and the
  // 32 rows below (the halo its lower neighbour reads as its own): 2 spans, 16 KB a tile.
  auto hw = profile_from_arch("sm_90");
  ASSERT_TRUE(hw);
  auto m = machine_model(*hw);
  ASSERT_TRUE(m) << m.error().message;
  const unsigned TM = 250, TN = 400;
  const std::uint64_t row = TN * 256ull, rows = (TM + 1) * 32ull;
  LaunchBuilder b({TM, TN});
  for (std::uint64_t i = 0; i < TM; ++i)
    for (std::uint64_t j = 0; j < TN; ++j)
      b.tile()
          .read(0, i * 32 * row + j * 256, 256, row, 32, SpanWalk::runs)
          .read(0, (i + 1) * 32 * row + j * 256, 256, row, 32, SpanWalk::runs);
  const LaunchFootprint lf = b.build();
  ASSERT_EQ(lf.tiles(), 100000u);
  ASSERT_LE(lf.spans.back().end(), rows * row);
  const auto t0 = std::chrono::steady_clock::now();
  const LaunchPrediction p = simulate_launch(lf, {}, *m);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[          ] 100,000 tiles x 16 KB on %s: %.3f s, %llu accesses, 1 in %llu sampled, L2 hit %.2f %%\n",
              m->arch.c_str(), s, static_cast<unsigned long long>(p.accesses), static_cast<unsigned long long>(p.sample),
              p.total().hit_pct());
  EXPECT_EQ(p.total().tiles, 100000u);
  EXPECT_GT(p.total().hit_pct(), 0.0);
  EXPECT_LT(s, test::time_limit(3.0)) << "the model claims <= 1 s on one core in Release";
}

// ---- L1 ----------------------------------------------------------------------------------

TEST(LocalitySim, AnL1HoldsWhatItsCuReadBeforeAndWritesGoThrough) {
  MachineModel m = test_machine(1, L2Topology::shared, 16 << 20);
  m.limits.l1_fixed = 512 << 10;  // a 512 KB L1 per CU (AMD-style: no carve-out): 64 KB fit in any set
  // One CU: the second tile's reads all hit its L1; the L2 sees only the first tile's.
  const DieCounts one_cu = simulate_launch(same_span(2), {}, m, one_at_a_time()).total();
  EXPECT_EQ(one_cu.requests, kSpan / 32);
  EXPECT_EQ(one_cu.hits, 0u);
  EXPECT_EQ(one_cu.dram_read_bytes, kSpan);
  // Without the L1 model: both tiles' reads reach the L2.
  SimOptions no_l1 = one_at_a_time();
  no_l1.model_l1 = false;
  EXPECT_EQ(simulate_launch(same_span(2), {}, m, no_l1).total().requests, 2 * kSpan / 32);
  // Two CUs: each has its own L1, so the second tile's reads reach the L2 and hit there.
  MachineModel two = m;
  two.cus_per_die = 2;
  const DieCounts two_cu = simulate_launch(same_span(2), {}, two, one_at_a_time()).total();
  EXPECT_EQ(two_cu.requests, 2 * kSpan / 32);
  EXPECT_EQ(two_cu.hits, kSpan / 32);
  // Writes are not kept in the L1: a read after a write on the same CU goes to the L2 (a hit).
  const DieCounts written = simulate_launch(same_span(2, true), {}, m, one_at_a_time()).total();
  EXPECT_EQ(written.requests, 2 * kSpan / 32);
  EXPECT_EQ(written.write_requests, kSpan / 32);
  EXPECT_EQ(written.hits, 2 * kSpan / 32);
}

TEST(LocalitySim, ASampledL1KeepsAWorkingSetThatFitsIt) {
  // Sixteen tiles on one CU read the same 224 KB through a 256 KB L1. Sampled 1 in 32, the
  // L1 has 64 granules for the span's ~56 sampled ones: as a 16-way cache of 4 sets some set
  // gets more than 16 of them (conflict misses the real 2048-granule L1 does not have);
  // a sampled L1 of fewer than 128 granules is one fully associative set instead, so only the
  // first tile's reads reach the L2.
  MachineModel m = test_machine(1, L2Topology::shared, 16 << 20);
  m.limits.l1_fixed = 256 << 10;
  const std::uint64_t span = 224 << 10;
  LaunchBuilder b({1, 16});
  for (unsigned t = 0; t < 16; ++t) b.tile().read(0, 0, span);
  SimOptions o = one_at_a_time();
  o.max_accesses = 1000;
  o.min_sets = 1;
  const LaunchPrediction p = simulate_launch(b.build(), {}, m, o);
  ASSERT_GE(p.sample, 32u);
  EXPECT_LE(p.total().requests, span / 32 * 5 / 4);
  EXPECT_GE(p.total().requests, span / 32 * 3 / 4);
}

// ---- DieCounts -------------------------------------------------------------------------

TEST(LocalitySim, DieCountsAddUpAndAnEmptyDieHasNoRate) {
  DieCounts a, b;
  a.tiles = 1, a.requests = 10, a.hits = 5, a.read_requests = 6, a.write_requests = 4, a.dram_read_bytes = 100,
  a.dram_write_bytes = 200, a.cross_die_bytes = 300, a.read_hits = 2, a.fabric_read_requests = 3, a.fabric_read_hits = 1;
  b.tiles = 2, b.requests = 30, b.hits = 5, b.read_requests = 30, b.dram_read_bytes = 1, b.cross_die_bytes = 3;
  b.read_hits = 5, b.fabric_read_requests = 7, b.fabric_read_hits = 4;
  a += b;
  EXPECT_EQ(a.read_hits, 7u);
  EXPECT_EQ(a.fabric_read_requests, 10u);
  EXPECT_EQ(a.fabric_read_hits, 5u);
  EXPECT_EQ(a.tiles, 3u);
  EXPECT_EQ(a.requests, 40u);
  EXPECT_EQ(a.hits, 10u);
  EXPECT_EQ(a.read_requests, 36u);
  EXPECT_EQ(a.write_requests, 4u);
  EXPECT_EQ(a.dram_read_bytes, 101u);
  EXPECT_EQ(a.dram_write_bytes, 200u);
  EXPECT_EQ(a.cross_die_bytes, 303u);
  EXPECT_DOUBLE_EQ(a.hit_pct(), 25.0);
  EXPECT_EQ(DieCounts{}.hit_pct(), 0.0);
  LaunchPrediction lp;
  lp.dies = {a, b};
  EXPECT_EQ(lp.total().requests, 70u);
  // Scaling (set sampling) multiplies every count but the tiles.
  DieCounts c = b;
  c *= 4;
  EXPECT_EQ(c.tiles, 2u);
  EXPECT_EQ(c.requests, 120u);
  EXPECT_EQ(c.hits, 20u);
  EXPECT_EQ(c.read_requests, 120u);
  EXPECT_EQ(c.write_requests, 0u);
  EXPECT_EQ(c.read_hits, 20u);
  EXPECT_EQ(c.fabric_read_requests, 28u);
  EXPECT_EQ(c.fabric_read_hits, 16u);
  EXPECT_EQ(c.dram_read_bytes, 4u);
  EXPECT_EQ(c.dram_write_bytes, 0u);
  EXPECT_EQ(c.cross_die_bytes, 12u);
}

}  // namespace
}  // namespace swz
