// MachineModel: what the locality model needs to know about a GPU, derived from the
// HardwareProfile (device query, arch table, probe) plus per-arch limits:
//   - dies and the L2 of each (MI300X: 8 XCDs with 4 MB each; H100: two 25 MB L2 sides),
//     whether a die's L2 serves only its own workgroups, and what sits behind it (MI300X's
//     256 MB Infinity Cache, shared by all XCDs);
//   - dispatch: which die a workgroup runs on (MI300X: pid % 8, documented; H100: the
//     probe's first-wave table, then whichever slot frees first);
//   - concurrency: workgroups resident per SM/CU from a block's threads, registers and shared
//     memory against the arch's limits (the CUDA/HIP occupancy rules);
//   - the unit the profiler counts (NVIDIA: 32-byte sectors; AMD: 128-byte lines).
// Every fact carries its provenance, printed with each prediction.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/model/footprint.h"

namespace swz {

// How the dies' L2s relate.
enum class L2Topology {
  private_per_die,  // each die's L2 caches what its own workgroups touch (MI300X XCDs)
  home_sides,       // NVIDIA's split L2: an address has a home side; a request looks up its own
                    // side first, then, unless that side holds a copy of a far-homed sector, the
                    // home side across the fabric (locality_sim.h: when the near copy is made)
  shared,           // one L2 for all (single-die parts)
};

struct ArchLimits {
  std::uint64_t l1_smem_per_cu = 262144;  // the unified L1 + shared memory array (H100: 256 KB)
  std::vector<std::uint64_t> smem_carveouts;  // shared-memory sizes the driver can choose; empty: separate L1 of l1_fixed
  std::uint64_t l1_fixed = 0;
  unsigned max_threads_per_cu = 2048;
  unsigned max_blocks_per_cu = 32;
  std::uint64_t regs_per_cu = 65536;
  std::uint64_t smem_per_cu = 233472;  // H100: 228 KB
  std::uint64_t smem_reserved_per_block = 1024;
  unsigned warp = 32;
  unsigned reg_granule = 256;  // registers allocated per warp in multiples of this
};

struct MachineModel {
  std::string name, arch, vendor;
  int num_dies = 1;
  int cus_per_die = 1;
  std::uint64_t l2_bytes_per_die = 0;
  unsigned l2_ways = 16;
  L2Topology topology = L2Topology::shared;
  std::uint64_t mall_bytes = 0;    // a shared cache behind the L2s (MI300X Infinity Cache)
  unsigned sector_bytes = 32;      // the profiler's unit of L2 requests
  // NVIDIA: a read from the SMs that misses part of a line fills the line (Nsight Compute books
  // the rest as sector-promoted misses, outside its sectors), so the later pieces of a span read
  // in pieces (FootprintSpan::piece) hit. 0: not modelled (AMD).
  std::uint64_t line_fill_bytes = 0;
  ArchLimits limits;
  // Dispatch: round_robin -> die = pid % num_dies for every pid; otherwise slots: the first
  // wave's pid p goes to slot p (its die from first_wave_die when measured, else p % dies)
  // and each later pid to the slot that frees first.
  bool round_robin = false;
  std::vector<int> first_wave_die;
  std::map<std::string, std::string> provenance;  // fact -> where it comes from

  int compute_units() const { return num_dies * cus_per_die; }
};

Result<MachineModel> machine_model(const HardwareProfile& hw);

// Workgroups of `block` resident at once on one SM/CU (>= 1), and which limit binds
// ("threads", "registers", "shared memory", "blocks"). Registers 0 (unknown): not a limit.
struct Residency {
  unsigned blocks = 1;
  std::string limit;
};
Residency resident_blocks(const MachineModel& m, const BlockResources& block);

// The L1 bytes per SM/CU left for caching when `resident` blocks of `block` run there: NVIDIA's
// unified array minus the smallest shared-memory carve-out that holds them; AMD's fixed L1.
std::uint64_t l1_bytes_per_cu(const MachineModel& m, const BlockResources& block, unsigned resident);

}  // namespace swz
