// Test builders for the locality model (model/): synthetic launch footprints tile by tile,
// a GEMM-like program footprint, machine models stated field by field, and the text a
// program's `footprint` mode would print for a footprint (kernels/support/swz_footprint.h),
// so tests state only the spans that matter to them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "swizzleperf/model/footprint.h"
#include "swizzleperf/model/machine_model.h"

namespace swz::test {

// A LaunchFootprint built tile by tile, in tile order:
//   LaunchBuilder b({1, 2});
//   b.tile().read(0, 0, 65536);
//   b.tile().read(0, 0, 65536).write(1, 0, 4096);
//   LaunchFootprint lf = b.build();
// build() throws std::logic_error when the tiles added are not grid.m * grid.n.
class LaunchBuilder {
 public:
  explicit LaunchBuilder(TileGrid grid, BlockResources block = {}, bool swizzled = true);
  LaunchBuilder& tile();  // starts the next tile (the first call starts tile 0)
  LaunchBuilder& read(std::uint32_t buffer, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stride = 0,
                      std::uint64_t count = 1, SpanWalk walk = SpanWalk::runs, std::uint64_t piece = 0);
  LaunchBuilder& write(std::uint32_t buffer, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stride = 0,
                       std::uint64_t count = 1, SpanWalk walk = SpanWalk::runs);
  LaunchFootprint build() const;

 private:
  LaunchBuilder& add(std::uint32_t buffer, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stride,
                     std::uint64_t count, bool write, SpanWalk walk, std::uint64_t piece = 0);
  LaunchFootprint lf_;
  std::vector<std::vector<FootprintSpan>> tiles_;
};

// A program footprint of these launches (ids 0, 1, ...; launches_total = their count
// unless given) over these buffers.
ProgramFootprint program_of(std::vector<LaunchFootprint> launches, std::vector<FootprintBuffer> buffers,
                            std::vector<long long> size = {1}, unsigned launches_total = 0);

// A fp32 GEMM's footprint, C = A * B row-major (A is MxK, B is KxN), with tiles of bm x bn
// outputs: tile (tm, tn) reads A's row panel tm (bm rows of K, parallel walk) and B's column
// panel tn (K rows of bn floats, run by run) and writes its C block once. Buffers A, B, C.
struct GemmShape {
  unsigned tiles_m = 8, tiles_n = 8;
  std::uint64_t bm = 32, bn = 32, k = 128;
  std::uint64_t a_piece = 0;  // A's rows read in pieces of this many bytes (FootprintSpan::piece)
  BlockResources block{256, 0, 0};
};
LaunchFootprint gemm_like_launch(const GemmShape& s);
ProgramFootprint gemm_like_footprint(const GemmShape& s);
// Its unique bytes: 4 * (M*K + K*N + M*N).
std::uint64_t gemm_like_bytes(const GemmShape& s);

// A machine stated directly (no HardwareProfile): dies, CUs per die, L2 per die, topology,
// dispatch, 16 ways, the profiler's unit, and no L1 (every access reaches the L2).
MachineModel test_machine(int dies, L2Topology topology, std::uint64_t l2_bytes_per_die, int cus_per_die = 1,
                          unsigned sector_bytes = 32, bool round_robin = false);

// The text a program's `footprint` mode prints for `fp` (buffers line, a header and tile
// lines per launch, the summary), for parser round trips and fuzz seeds.
std::string footprint_text(const ProgramFootprint& fp);

// 0, 1, ..., n-1.
std::vector<std::uint32_t> identity_order(std::size_t n);

}  // namespace swz::test
