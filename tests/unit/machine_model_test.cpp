// Tests of the machine model (model/machine_model.h): what it derives from the arch table's
// profiles (dies, L2 per die, topology, Infinity Cache, the profiler's unit, dispatch), a
// probe's measured table, the refusals, and the occupancy rules of resident_blocks with
// numbers computed by hand from the limits in src/model/machine_model.cpp.
#include "swizzleperf/model/machine_model.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

HardwareProfile arch(const std::string& a) {
  auto h = profile_from_arch(a);
  EXPECT_TRUE(h) << a;
  return h ? *h : HardwareProfile{};
}

MachineModel model(const HardwareProfile& hw) {
  auto m = machine_model(hw);
  EXPECT_TRUE(m) << (m ? "" : m.error().message);
  return m ? *m : MachineModel{};
}

std::vector<int> probe_table() {
  std::vector<int> t(132);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<int>((i / 2) % 2);
  return t;
}

// ---- from the arch table ----------------------------------------------------------

TEST(MachineModel, H100FromTheArchTable) {
  const MachineModel m = model(arch("sm_90"));
  EXPECT_EQ(m.arch, "sm_90");
  EXPECT_EQ(m.vendor, "nvidia");
  EXPECT_EQ(m.num_dies, 2);
  EXPECT_EQ(m.cus_per_die, 66);
  EXPECT_EQ(m.compute_units(), 132);
  EXPECT_EQ(m.l2_bytes_per_die, 25ull << 20);  // 50 MB in two sides
  EXPECT_EQ(m.topology, L2Topology::home_sides);
  EXPECT_EQ(m.mall_bytes, 0u);
  EXPECT_EQ(m.sector_bytes, 32u);
  EXPECT_EQ(m.limits.warp, 32u);
  EXPECT_EQ(m.limits.smem_per_cu, 233472u);
  EXPECT_EQ(m.limits.regs_per_cu, 65536u);
  // The arch table only assumes the H100's dispatch: slots, not round robin.
  EXPECT_FALSE(m.round_robin);
  EXPECT_TRUE(m.first_wave_die.empty());
  EXPECT_NE(m.provenance.at("dispatch").find("assumed"), std::string::npos) << m.provenance.at("dispatch");
  EXPECT_NE(m.provenance.at("limits").find("sm_90"), std::string::npos);
  EXPECT_EQ(m.provenance.count("dies"), 1u);
  EXPECT_EQ(m.provenance.count("l2_topology"), 1u);
  EXPECT_EQ(m.line_fill_bytes, 128u);
  EXPECT_EQ(m.provenance.at("line_fill_bytes").rfind("measured on the H100", 0), 0u) << m.provenance.at("line_fill_bytes");
}

TEST(MachineModel, A100HasLessSharedMemory) {
  const MachineModel m = model(arch("sm_80"));
  EXPECT_EQ(m.limits.smem_per_cu, 167936u);
  EXPECT_EQ(m.num_dies, 2);
  EXPECT_EQ(m.cus_per_die, 54);
  EXPECT_EQ(m.topology, L2Topology::home_sides);
  EXPECT_EQ(m.line_fill_bytes, 128u);  // never measured on an A100: said so
  EXPECT_EQ(m.provenance.at("line_fill_bytes").rfind("assumed", 0), 0u) << m.provenance.at("line_fill_bytes");
}

TEST(MachineModel, Mi300xFromTheArchTable) {
  const MachineModel m = model(arch("gfx942"));
  EXPECT_EQ(m.vendor, "amd");
  EXPECT_EQ(m.num_dies, 8);
  EXPECT_EQ(m.cus_per_die, 38);
  EXPECT_EQ(m.l2_bytes_per_die, 4ull << 20);
  EXPECT_EQ(m.topology, L2Topology::private_per_die);
  EXPECT_EQ(m.mall_bytes, 256ull << 20);
  EXPECT_EQ(m.sector_bytes, 128u);
  EXPECT_EQ(m.limits.warp, 64u);
  EXPECT_EQ(m.limits.smem_per_cu, 65536u);
  EXPECT_EQ(m.limits.smem_reserved_per_block, 0u);
  EXPECT_TRUE(m.round_robin);  // documented: XCD = pid % 8
  EXPECT_NE(m.provenance.at("dispatch").find("pid % 8"), std::string::npos) << m.provenance.at("dispatch");
  EXPECT_EQ(m.provenance.count("mall_bytes"), 1u);
  EXPECT_EQ(m.line_fill_bytes, 0u);  // not modelled on AMD
}

TEST(MachineModel, Mi250xGcdIsOneSharedL2) {
  const MachineModel m = model(arch("gfx90a"));
  EXPECT_EQ(m.num_dies, 1);
  EXPECT_EQ(m.cus_per_die, 110);
  EXPECT_EQ(m.l2_bytes_per_die, 8ull << 20);
  EXPECT_EQ(m.topology, L2Topology::shared);
  EXPECT_EQ(m.mall_bytes, 0u);  // no Infinity Cache on a one-die part
  EXPECT_EQ(m.sector_bytes, 128u);
  EXPECT_TRUE(m.round_robin);
}

TEST(MachineModel, AProbedTableIsKeptAndIsNotRoundRobin) {
  HardwareProfile hw = arch("sm_90");
  hw.dispatch.kind = "table";
  hw.dispatch.first_wave_die = probe_table();
  hw.dispatch.source = "measured";
  const MachineModel m = model(hw);
  EXPECT_FALSE(m.round_robin);
  EXPECT_EQ(m.first_wave_die, probe_table());
  EXPECT_NE(m.provenance.at("dispatch").find("measured first wave (measured)"), std::string::npos) << m.provenance.at("dispatch");
  // A round-robin kind that is only assumed is not round robin either; an empty table is not kept.
  HardwareProfile assumed = arch("gfx942");
  assumed.dispatch.source = "assumed";
  EXPECT_FALSE(model(assumed).round_robin);
  HardwareProfile empty = arch("sm_90");
  empty.dispatch.kind = "table";
  EXPECT_TRUE(model(empty).first_wave_die.empty());
}

TEST(MachineModel, L2PerDieFromTheTotalWhenNotGiven) {
  HardwareProfile hw = arch("sm_90");
  hw.l2_bytes_per_die = 0;
  hw.l2_bytes = 40 << 20;
  EXPECT_EQ(model(hw).l2_bytes_per_die, 20ull << 20);
}

TEST(MachineModel, RefusesAProfileWithoutComputeUnitsOrL2) {
  HardwareProfile hw = arch("sm_90");
  hw.compute_units = 0;
  auto m = machine_model(hw);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("no compute-unit count"), std::string::npos) << m.error().message;
  HardwareProfile no_l2 = arch("gfx942");
  no_l2.l2_bytes = 0;
  no_l2.l2_bytes_per_die = 0;
  auto n = machine_model(no_l2);
  ASSERT_FALSE(n);
  EXPECT_NE(n.error().message.find("no L2 size"), std::string::npos) << n.error().message;
}

// ---- resident blocks ---------------------------------------------------------------

TEST(MachineModel, ResidencyOnH100) {
  const MachineModel m = model(arch("sm_90"));
  // gemm.hip's block: 256 threads (8 warps), 8320 B of shared memory, 128 registers.
  // Registers: 128 * 32 = 4096 per warp, 8 warps = 32768: 65536 / 32768 = 2.
  // (Threads would allow 8, shared memory 233472 / (8320 + 1024) = 24.)
  Residency r = resident_blocks(m, {256, 8320, 128});
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.limit, "registers");
  // 1024 threads: 2048 / 1024 = 2.
  r = resident_blocks(m, {1024, 0, 0});
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.limit, "threads");
  // 100 KB of shared memory: 233472 / (102400 + 1024) = 2.
  r = resident_blocks(m, {256, 100 * 1024, 0});
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.limit, "shared memory");
  // Registers 0 are unknown, not a limit: 256 threads alone give 8.
  r = resident_blocks(m, {256, 0, 0});
  EXPECT_EQ(r.blocks, 8u);
  EXPECT_EQ(r.limit, "threads");
  // Per-warp registers round up to 256: 37 * 32 = 1184 -> 1280, 8 warps -> 10240: 6.
  r = resident_blocks(m, {256, 0, 37});
  EXPECT_EQ(r.blocks, 6u);
  EXPECT_EQ(r.limit, "registers");
  // A small block is held back by the 32-block limit.
  r = resident_blocks(m, {32, 0, 0});
  EXPECT_EQ(r.blocks, 32u);
  EXPECT_EQ(r.limit, "blocks");
  // Threads round up to whole warps: 33 threads use 2 warps, 2048 / 64 = 32.
  r = resident_blocks(m, {33, 0, 0});
  EXPECT_EQ(r.blocks, 32u);
  // 0 threads is read as 1.
  EXPECT_GE(resident_blocks(m, {0, 0, 0}).blocks, 1u);
}

TEST(MachineModel, ResidencyOfAnImpossibleBlockIsOneSlotAndSaysSo) {
  const MachineModel m = model(arch("sm_90"));
  Residency r = resident_blocks(m, {256, 300 * 1024, 0});
  EXPECT_EQ(r.blocks, 1u);
  EXPECT_EQ(r.limit, "shared memory (exceeds the arch's limit)");
  r = resident_blocks(m, {4096, 0, 0});
  EXPECT_EQ(r.blocks, 1u);
  EXPECT_EQ(r.limit, "threads (exceeds the arch's limit)");
  // 255 registers x 1024 threads: 8192 per warp x 32 warps is 4 times the register file.
  r = resident_blocks(m, {1024, 0, 255});
  EXPECT_EQ(r.blocks, 1u);
  EXPECT_EQ(r.limit, "registers (exceeds the arch's limit)");
}

TEST(MachineModel, ResidencyOnMi300x) {
  const MachineModel m = model(arch("gfx942"));
  // 256 threads = 4 waves of 64. Registers: 128 VGPRs x 64 lanes = 8192 per wave (a multiple
  // of 512), x 4 waves = 32768: 131072 / 32768 = 4. LDS 65536 / 8320 = 7; threads 2048 / 256 = 8.
  Residency r = resident_blocks(m, {256, 8320, 128});
  EXPECT_EQ(r.blocks, 4u);
  EXPECT_EQ(r.limit, "registers");
  // LDS: no per-block reservation on AMD: 65536 / 32768 = 2.
  r = resident_blocks(m, {256, 32768, 0});
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.limit, "shared memory");
  r = resident_blocks(m, {256, 32769, 0});
  EXPECT_EQ(r.blocks, 1u);
  // 1024 threads: 2048 / 1024 = 2.
  r = resident_blocks(m, {1024, 0, 0});
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.limit, "threads");
  // One wave per block: 2048 / 64 = 32 = the block limit, which binds first.
  r = resident_blocks(m, {64, 0, 0});
  EXPECT_EQ(r.blocks, 32u);
  EXPECT_EQ(r.limit, "blocks");
  // VGPRs round up to 8 per lane: 9 -> 16 per lane = 1024 per wave, x 4 = 4096: 32 (the block limit);
  // 100 -> 104 per lane = 6656 per wave, x 4 = 26624: 131072 / 26624 = 4.
  r = resident_blocks(m, {256, 0, 100});
  EXPECT_EQ(r.blocks, 4u);
  EXPECT_EQ(r.limit, "registers");
  // 512 VGPRs x 4 waves fill the register file once: 1.
  r = resident_blocks(m, {256, 0, 512});
  EXPECT_EQ(r.blocks, 1u);
  EXPECT_EQ(r.limit, "registers");
  // More LDS than a CU has.
  r = resident_blocks(m, {256, 70000, 0});
  EXPECT_EQ(r.blocks, 1u);
  EXPECT_EQ(r.limit, "shared memory (exceeds the arch's limit)");
}

// ---- L1 left for caching ----------------------------------------------------------------

TEST(MachineModel, L1IsTheUnifiedArrayMinusTheSharedMemoryCarveOut) {
  const MachineModel h100 = model(arch("sm_90"));
  // No shared memory: the smallest carve-out (0): all 256 KB.
  EXPECT_EQ(l1_bytes_per_cu(h100, {256, 0, 0}, 8), 256u << 10);
  // gemm.hip's block, 2 resident: 2 x (8320 + 1024) = 18688 B -> the 32 KB carve-out: 224 KB.
  EXPECT_EQ(l1_bytes_per_cu(h100, {256, 8320, 128}, 2), 224u << 10);
  // 2 x (100 KB + 1 KB) = 206848 B -> 228 KB: 28 KB left.
  EXPECT_EQ(l1_bytes_per_cu(h100, {256, 100 * 1024, 0}, 2), 28u << 10);
  // More than the largest carve-out: what the largest leaves.
  EXPECT_EQ(l1_bytes_per_cu(h100, {256, 100 * 1024, 0}, 3), 28u << 10);
  // Exactly a carve-out: 8 KB - 1 KB reserved = 7168 B per block, 1 block -> 8 KB.
  EXPECT_EQ(l1_bytes_per_cu(h100, {256, 7168, 0}, 1), 248u << 10);
  EXPECT_EQ(l1_bytes_per_cu(h100, {256, 7169, 0}, 1), 240u << 10);
  // A100: 192 KB array.
  const MachineModel a100 = model(arch("sm_80"));
  EXPECT_EQ(l1_bytes_per_cu(a100, {256, 0, 0}, 8), 192u << 10);
  EXPECT_EQ(l1_bytes_per_cu(a100, {256, 8320, 128}, 2), 160u << 10);
  // MI300X: a separate 32 KB vL1D, whatever the LDS use.
  const MachineModel mi300x = model(arch("gfx942"));
  EXPECT_EQ(l1_bytes_per_cu(mi300x, {256, 0, 0}, 8), 32u << 10);
  EXPECT_EQ(l1_bytes_per_cu(mi300x, {256, 32768, 0}, 2), 32u << 10);
}

}  // namespace
}  // namespace swz
