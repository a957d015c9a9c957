// Per-arch facts the locality model adds to a HardwareProfile. Sources: NVIDIA's CUDA C
// Programming Guide, "Compute capabilities" table (sm_80/sm_90: 64K registers, 2048 threads,
// 32 blocks per SM; 164/228 KB shared memory per SM, 1 KB reserved per block; registers
// allocated per warp in units of 256); the A100/H100 whitepapers (the L2 is two partitions,
// each caching data for the SMs attached to it); AMD's CDNA3 whitepaper and ROCm docs for
// MI300X (8 XCDs, 38 CUs each, 4 MB L2 per XCD, 256 MB Infinity Cache, 64 KB LDS per CU, 4
// SIMDs per CU with 512 VGPRs per lane each and at most 8 waves per SIMD, 128-byte L2 lines).
#include "swizzleperf/model/machine_model.h"

#include <algorithm>

#include <fmt/format.h>

namespace swz {

Result<MachineModel> machine_model(const HardwareProfile& hw) {
  MachineModel m;
  m.name = hw.name;
  m.arch = hw.arch;
  m.vendor = hw.vendor;
  m.num_dies = std::max(1, hw.num_dies);
  const int cus = hw.compute_units > 0 ? hw.compute_units : 0;
  if (cus <= 0) return make_error(fmt::format("no compute-unit count for {} ({}): cannot model its concurrency", hw.name, hw.arch));
  m.cus_per_die = std::max(1, cus / m.num_dies);
  m.l2_bytes_per_die = hw.l2_bytes_per_die > 0 ? static_cast<std::uint64_t>(hw.l2_bytes_per_die)
                                               : static_cast<std::uint64_t>(std::max<std::int64_t>(hw.l2_bytes, 0)) / m.num_dies;
  if (m.l2_bytes_per_die == 0) return make_error(fmt::format("no L2 size for {} ({}): cannot model its cache", hw.name, hw.arch));
  auto prov = [&](const char* key, const char* fallback) {
    const auto it = hw.provenance.find(key);
    return it != hw.provenance.end() ? it->second : std::string(fallback);
  };
  m.provenance["dies"] = prov("num_dies", "arch table");
  m.provenance["l2_bytes_per_die"] = prov("l2_bytes_per_die", "arch table");
  m.provenance["compute_units"] = prov("compute_units", "arch table");
  const bool amd = hw.vendor == "amd";
  if (amd) {
    m.sector_bytes = 128;
    m.limits.warp = 64;
    m.limits.max_threads_per_cu = 2048;   // 4 SIMDs x 8 waves x 64 lanes
    m.limits.max_blocks_per_cu = 32;
    m.limits.regs_per_cu = 4ull * 512 * 64;  // 4 SIMDs x 512 VGPRs x 64 lanes
    m.limits.smem_per_cu = 65536;            // LDS
    m.limits.smem_reserved_per_block = 0;
    m.limits.reg_granule = 8 * 64;           // VGPRs allocated in blocks of 8 per lane
    m.limits.l1_fixed = 32768;               // vL1D per CU
    m.limits.smem_carveouts.clear();
    m.provenance["limits"] = "arch table (CDNA3: 64 KB LDS, 512 VGPRs x 4 SIMDs, 8 waves per SIMD)";
    m.topology = m.num_dies > 1 ? L2Topology::private_per_die : L2Topology::shared;
    m.provenance["l2_topology"] = m.num_dies > 1 ? "documented: each XCD's L2 serves its own CUs" : "one L2";
    if (m.num_dies == 8) {
      m.mall_bytes = 256ull << 20;
      m.provenance["mall_bytes"] = "documented: 256 MB Infinity Cache shared by the XCDs";
    }
  } else {
    const bool sm80 = hw.arch.rfind("sm_80", 0) == 0;
    m.limits.smem_per_cu = sm80 ? 167936 : 233472;
    m.limits.l1_smem_per_cu = sm80 ? 196608 : 262144;
    m.limits.smem_carveouts = sm80 ? std::vector<std::uint64_t>{0, 8, 16, 32, 64, 100, 132, 164}
                                   : std::vector<std::uint64_t>{0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    for (auto& c : m.limits.smem_carveouts) c *= 1024;
    m.provenance["limits"] = sm80 ? "arch table (sm_80: 64K registers, 164 KB shared memory, 2048 threads, 32 blocks per SM)"
                                  : "arch table (sm_90: 64K registers, 228 KB shared memory, 2048 threads, 32 blocks per SM)";
    m.topology = m.num_dies > 1 ? L2Topology::home_sides : L2Topology::shared;
    m.line_fill_bytes = 128;
    m.provenance["line_fill_bytes"] = std::string(sm80 ? "assumed as measured on the H100" : "measured on the H100") +
                                      " (Nsight Compute's sector-promoted misses on gemm_tc's cp.async.cg pieces): a read "
                                      "missing part of a 128-byte line fills it";
    m.provenance["l2_topology"] = m.num_dies > 1 ? "documented (whitepaper): each L2 side caches for its own SMs; an address is "
                                                   "homed on one side, reached across the fabric from the other"
                                                 : "one L2";
  }
  m.round_robin = hw.dispatch.kind == "round_robin" && hw.dispatch.source == "documented";
  if (hw.dispatch.kind == "table" && !hw.dispatch.first_wave_die.empty()) m.first_wave_die = hw.dispatch.first_wave_die;
  m.provenance["dispatch"] =
      m.round_robin ? "documented: die = pid % " + std::to_string(m.num_dies)
      : !m.first_wave_die.empty()
          ? "measured first wave (" + hw.dispatch.source + "), then each block to the slot that frees first"
          : "assumed: first wave die = pid % " + std::to_string(m.num_dies) + ", then each block to the slot that frees first";
  return m;
}

std::uint64_t l1_bytes_per_cu(const MachineModel& m, const BlockResources& block, unsigned resident) {
  const ArchLimits& L = m.limits;
  if (L.smem_carveouts.empty()) return L.l1_fixed;
  const std::uint64_t need = block.shared_bytes ? static_cast<std::uint64_t>(resident) * (block.shared_bytes + L.smem_reserved_per_block) : 0;
  for (std::uint64_t c : L.smem_carveouts)
    if (c >= need) return L.l1_smem_per_cu > c ? L.l1_smem_per_cu - c : 0;
  return L.l1_smem_per_cu > L.smem_carveouts.back() ? L.l1_smem_per_cu - L.smem_carveouts.back() : 0;
}

Residency resident_blocks(const MachineModel& m, const BlockResources& block) {
  const ArchLimits& L = m.limits;
  const unsigned threads = std::max(1u, block.threads);
  const unsigned warps = (threads + L.warp - 1) / L.warp;
  Residency r;
  r.blocks = L.max_blocks_per_cu;
  r.limit = "blocks";
  auto take = [&](std::uint64_t n, const char* why) {
    if (n < r.blocks) {
      r.blocks = static_cast<unsigned>(n);
      r.limit = why;
    }
  };
  take(L.max_threads_per_cu / (warps * L.warp), "threads");
  if (block.registers > 0) {
    const std::uint64_t per_warp = (static_cast<std::uint64_t>(block.registers) * L.warp + L.reg_granule - 1) / L.reg_granule * L.reg_granule;
    take(L.regs_per_cu / (per_warp * warps), "registers");
  }
  if (block.shared_bytes > 0) take(L.smem_per_cu / (block.shared_bytes + L.smem_reserved_per_block), "shared memory");
  if (r.blocks == 0) {
    r.blocks = 1;  // the launch would fail on the device; the model still gives one slot
    r.limit += " (exceeds the arch's limit)";
  }
  return r;
}

}  // namespace swz
