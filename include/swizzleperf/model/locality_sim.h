// The locality model's simulator: replays one launch's footprint in a block order on a
// MachineModel and counts, per die, the L2 requests the profiler would count, how many hit,
// the DRAM bytes and the traffic between dies.
//
// Model (docs/locality-model.md says what each part rests on and what it leaves out):
//  - Workgroups start in pid order; the pid -> tile table is the region's mapping.
//  - Concurrency: each SM/CU holds `resident` tiles at once (occupancy from the block's
//    resources); a tile's accesses are spread over its run time in phases, and a tile's
//    run time is proportional to the bytes it touches (so causal tiles that read less
//    finish sooner). All resident tiles advance one phase per round, round-robin.
//  - Dispatch: MachineModel's (round-robin over dies, or first-wave slots then the slot that
//    frees first).
//  - Each die's L2 is a set-associative LRU cache of granules (a few of the profiler's units,
//    at least a 128-byte line) holding a mask of the units present, so requests and hits are
//    counted per unit (sector or line) exactly while replacement works per granule.
//  - Set sampling (a classic of cache simulation): when a launch touches more granules than
//    the budget, 1 in R granules (chosen by hash) is simulated in caches R times smaller and
//    the counts are scaled by R; rates are unbiased, and at least min_sets sets remain.
//  - Each SM/CU has an L1 (its size after the shared-memory carve-out the resident blocks need)
//    that persists across the blocks it runs: a read it holds is not an L2 request.
//  - H100 (two L2 sides, each address homed on one): a read of a far-homed sector is looked
//    up on the near side and, unless the near side holds a copy, again on the home side across
//    the fabric; the near lookup then reports what the home found. The near side keeps a copy
//    only from a sector's second request on, and a request arriving while the first is in
//    flight (the same round) merges with it. (Fitted to what the H100's counters show: a
//    sector re-read once, a stencil halo, crosses the fabric again and hits on both sides;
//    a GEMM panel re-read many times is served by the near copy.)
//  - Reads that miss go to DRAM (through the MI300X Infinity Cache when the model has one);
//    writes count as L2 hits (as Nsight Compute counts them) and allocate in the cache.
//  - Every launch starts with empty caches (the profiler flushes between launches).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "swizzleperf/model/footprint.h"
#include "swizzleperf/model/machine_model.h"

namespace swz {

struct DieCounts {
  std::uint64_t tiles = 0;
  std::uint64_t requests = 0;         // profiler units looked up in this die's L2
  std::uint64_t hits = 0;
  std::uint64_t read_requests = 0, write_requests = 0;
  std::uint64_t read_hits = 0;
  // H100 (home sides): the part of read_requests / read_hits this side looked up for reads
  // of the other side's SMs, across the fabric (Nsight Compute's srcunit_ltcfabric op_read
  // sectors and their lookup hits); the rest came from this side's own SMs (srcunit_tex).
  std::uint64_t fabric_read_requests = 0, fabric_read_hits = 0;
  std::uint64_t dram_read_bytes = 0;  // reads that missed every cache
  std::uint64_t dram_write_bytes = 0;
  std::uint64_t cross_die_bytes = 0;  // H100: bytes this side fetched across the fabric;
                                      // MI300X: bytes this XCD fetched that another XCD's L2 also fetched
  DieCounts& operator+=(const DieCounts& o);
  DieCounts& operator*=(std::uint64_t k);  // scales the counts (set sampling), not the tiles
  double hit_pct() const { return requests ? 100.0 * static_cast<double>(hits) / static_cast<double>(requests) : 0.0; }
};

struct LaunchPrediction {
  unsigned launch = 0;
  TileGrid grid;
  unsigned resident_per_cu = 1;
  std::string residency_limit;
  std::uint64_t granule_bytes = 0;
  std::uint64_t accesses = 0;  // granule accesses simulated
  std::uint64_t sample = 1;    // 1 in `sample` granules simulated (set sampling); counts scaled
  std::vector<DieCounts> dies;
  DieCounts total() const;
};

struct SimOptions {
  unsigned phases = 16;                     // phases of a tile of average size
  unsigned granule_units = 4;               // granule = this many profiler units (at least 128 B)
  std::uint64_t max_accesses = 8'000'000;   // set sampling keeps the simulated accesses near this
  unsigned min_sets = 64;                   // ... but keeps at least this many sets per cache
  unsigned resident_override = 0;           // tiles per SM/CU (0: from the block's resources)
  bool model_l1 = true;                     // reads an SM's L1 holds never reach the L2
  bool stagger = true;                      // first-wave starts spread as in the steady state
  // H100 (home sides): the near side keeps a copy of a far-homed sector from its second
  // request on (false: from the first, as a plain cache would); a request within
  // in_flight_rounds rounds of the first merges with it.
  bool far_copy_on_reuse = true;
  unsigned in_flight_rounds = 1;
};
// For ranking many candidates (check --predict, the proposer): coarser and cheaper.
inline SimOptions fast_sim_options() {
  SimOptions o;
  o.phases = 8;
  o.granule_units = 8;
  o.max_accesses = 400'000;
  o.min_sets = 8;
  return o;
}

// One launch made ready to simulate in many orders: the granule, the sampling and each
// tile's phases are fixed here; with keep = true every phase's granule accesses are also
// generated once and kept (about 16 bytes each, at most max_accesses x 1.2), so ranking many
// orders costs only the cache lookups. The footprint must outlive the simulator.
class LaunchSimulator {
 public:
  LaunchSimulator(const LaunchFootprint& launch, const MachineModel& machine, const SimOptions& options, bool keep);
  ~LaunchSimulator();
  LaunchSimulator(const LaunchSimulator&) = delete;
  LaunchSimulator& operator=(const LaunchSimulator&) = delete;
  // pid_to_tile: the order (pid -> tile id), num_pids entries, a bijection; empty: identity.
  LaunchPrediction run(const std::vector<std::uint32_t>& pid_to_tile) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// pid_to_tile: the order (pid -> tile id), num_pids entries, a bijection; empty: identity.
// The caller checks that it is a bijection (the mapping check) before predicting.
LaunchPrediction simulate_launch(const LaunchFootprint& launch, const std::vector<std::uint32_t>& pid_to_tile,
                                 const MachineModel& machine, const SimOptions& options = {});

}  // namespace swz
