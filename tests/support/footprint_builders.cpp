// Test builders for the locality model (see footprint_builders.h).
#include "support/footprint_builders.h"

#include <numeric>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace swz::test {

LaunchBuilder::LaunchBuilder(TileGrid grid, BlockResources block, bool swizzled) {
  lf_.grid = grid;
  lf_.block = block;
  lf_.swizzled = swizzled;
}

LaunchBuilder& LaunchBuilder::tile() {
  tiles_.emplace_back();
  return *this;
}

LaunchBuilder& LaunchBuilder::read(std::uint32_t buffer, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stride,
                                   std::uint64_t count, SpanWalk walk, std::uint64_t piece) {
  return add(buffer, offset, bytes, stride, count, false, walk, piece);
}

LaunchBuilder& LaunchBuilder::write(std::uint32_t buffer, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stride,
                                    std::uint64_t count, SpanWalk walk) {
  return add(buffer, offset, bytes, stride, count, true, walk);
}

LaunchBuilder& LaunchBuilder::add(std::uint32_t buffer, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stride,
                                  std::uint64_t count, bool write, SpanWalk walk, std::uint64_t piece) {
  if (tiles_.empty()) throw std::logic_error("LaunchBuilder: a span before tile()");
  FootprintSpan s;
  s.buffer = buffer;
  s.offset = offset;
  s.bytes = bytes;
  s.stride = count > 1 ? stride : 0;
  s.count = count;
  s.write = write;
  s.walk = walk;
  s.piece = piece;
  tiles_.back().push_back(s);
  return *this;
}

LaunchFootprint LaunchBuilder::build() const {
  if (tiles_.size() != lf_.grid.num_pids())
    throw std::logic_error("LaunchBuilder: " + std::to_string(tiles_.size()) + " tiles for a " + std::to_string(lf_.grid.m) +
                           "x" + std::to_string(lf_.grid.n) + " grid");
  LaunchFootprint out = lf_;
  out.tile_begin.assign(1, 0);
  for (const auto& t : tiles_) {
    out.spans.insert(out.spans.end(), t.begin(), t.end());
    out.tile_begin.push_back(static_cast<std::uint32_t>(out.spans.size()));
  }
  return out;
}

ProgramFootprint program_of(std::vector<LaunchFootprint> launches, std::vector<FootprintBuffer> buffers,
                            std::vector<long long> size, unsigned launches_total) {
  ProgramFootprint fp;
  fp.size = std::move(size);
  fp.buffers = std::move(buffers);
  for (unsigned i = 0; i < launches.size(); ++i) fp.launch_ids.push_back(i);
  fp.launches_total = launches_total ? launches_total : static_cast<unsigned>(launches.size());
  fp.launches = std::move(launches);
  return fp;
}

LaunchFootprint gemm_like_launch(const GemmShape& s) {
  const std::uint64_t M = s.tiles_m * s.bm, N = s.tiles_n * s.bn, K = s.k;
  LaunchBuilder b({s.tiles_m, s.tiles_n}, s.block);
  for (std::uint64_t tm = 0; tm < s.tiles_m; ++tm)
    for (std::uint64_t tn = 0; tn < s.tiles_n; ++tn) {
      b.tile()
          .read(0, 4 * tm * s.bm * K, 4 * K, 4 * K, s.bm, SpanWalk::parallel, s.a_piece)
          .read(1, 4 * tn * s.bn, 4 * s.bn, 4 * N, K, SpanWalk::runs)
          .write(2, 4 * (tm * s.bm * N + tn * s.bn), 4 * s.bn, 4 * N, s.bm, SpanWalk::once);
    }
  (void)M;
  return b.build();
}

ProgramFootprint gemm_like_footprint(const GemmShape& s) {
  const std::uint64_t M = s.tiles_m * s.bm, N = s.tiles_n * s.bn, K = s.k;
  return program_of({gemm_like_launch(s)}, {{"A", 4 * M * K}, {"B", 4 * K * N}, {"C", 4 * M * N}},
                    {static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K)});
}

std::uint64_t gemm_like_bytes(const GemmShape& s) {
  const std::uint64_t M = s.tiles_m * s.bm, N = s.tiles_n * s.bn, K = s.k;
  return 4 * (M * K + K * N + M * N);
}

MachineModel test_machine(int dies, L2Topology topology, std::uint64_t l2_bytes_per_die, int cus_per_die,
                          unsigned sector_bytes, bool round_robin) {
  MachineModel m;
  m.name = "test machine";
  m.arch = "test";
  m.vendor = sector_bytes == 32 ? "nvidia" : "amd";
  m.num_dies = dies;
  m.cus_per_die = cus_per_die;
  m.l2_bytes_per_die = l2_bytes_per_die;
  m.l2_ways = 16;
  m.topology = topology;
  m.sector_bytes = sector_bytes;
  m.round_robin = round_robin;
  m.limits.smem_carveouts.clear();  // no L1: the L2 sees every access (set limits.l1_fixed for one)
  m.limits.l1_fixed = 0;
  m.provenance["dies"] = "test";
  return m;
}

std::string footprint_text(const ProgramFootprint& fp) {
  std::string out;
  nlohmann::json bufs = nlohmann::json::array();
  for (const auto& b : fp.buffers) bufs.push_back({{"name", b.name}, {"bytes", b.bytes}});
  out += nlohmann::json{{"buffers", bufs}}.dump() + "\n";
  std::uint64_t tiles = 0, spans = 0;
  for (std::size_t l = 0; l < fp.launches.size(); ++l) {
    const LaunchFootprint& lf = fp.launches[l];
    nlohmann::json h;
    h["launch"] = l < fp.launch_ids.size() ? fp.launch_ids[l] : l;
    h["grid"] = {{"m", lf.grid.m}, {"n", lf.grid.n}};
    h["block"] = {{"threads", lf.block.threads}, {"shared_bytes", lf.block.shared_bytes}, {"registers", lf.block.registers}};
    if (!lf.block.kernel.empty()) h["block"]["kernel"] = lf.block.kernel;
    h["swizzled"] = lf.swizzled;
    h["tiles"] = lf.tiles();
    out += h.dump() + "\n";
    for (std::uint64_t t = 0; t < lf.tiles(); ++t) {
      const std::uint32_t b = lf.tile_begin[t], e = lf.tile_begin[t + 1];
      out += "t " + std::to_string(t) + " " + std::to_string(e - b);
      for (std::uint32_t k = b; k < e; ++k) {
        const FootprintSpan& s = lf.spans[k];
        out += " " + std::to_string(s.buffer) + " " + std::to_string(s.offset) + " " + std::to_string(s.bytes) + " " +
               std::to_string(s.stride) + " " + std::to_string(s.count) + " " + (s.write ? "w" : "r") +
               (s.walk == SpanWalk::runs ? "R" : s.walk == SpanWalk::parallel ? "P" : "O") +
               (s.piece && !s.write ? "/" + std::to_string(s.piece) : "");
      }
      out += "\n";
      spans += e - b;
    }
    tiles += lf.tiles();
  }
  out += nlohmann::json{{"mode", "footprint"},
                        {"size", fp.size},
                        {"launches", fp.launches_total},
                        {"tiles", tiles},
                        {"spans", spans}}
             .dump() +
         "\n";
  return out;
}

std::vector<std::uint32_t> identity_order(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

}  // namespace swz::test
