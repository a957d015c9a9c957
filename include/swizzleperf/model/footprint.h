// Footprint: what each logical tile of each launch of a kernel program reads and writes,
// as the program declares it (kernels/support/swz_footprint.h) and prints in its
// `footprint` mode, parsed into memory for the locality model.
//
// The text is a program's output, so it is treated as untrusted: parse_footprint reads it
// in one linear pass (no regex, no recursion beyond nlohmann's bounded parse of each header
// line), caps every count (tiles per launch, spans per tile, spans in all, launches), and
// checks that every span lies inside its buffer (no overflow: offsets and lengths are
// 64-bit and compared without wrapping). tests/fuzz/fuzz_footprint.cpp feeds it arbitrary
// bytes up to 1 MB.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/util/result.h"

namespace swz {

// How a tile moves through a span over its run time (swz_footprint.h's SwzWalk).
enum class SpanWalk { runs, parallel, once };

struct FootprintSpan {
  std::uint32_t buffer = 0;
  std::uint64_t offset = 0;  // bytes from the buffer's start to run 0
  std::uint64_t bytes = 0;   // bytes per run (> 0)
  std::uint64_t stride = 0;  // bytes between run starts (0 when count == 1)
  std::uint64_t count = 1;   // runs (> 0)
  bool write = false;
  SpanWalk walk = SpanWalk::runs;
  std::uint64_t piece = 0;   // reads: bytes one load request takes of a run (0: a line or more)

  std::uint64_t total_bytes() const { return bytes * count; }  // bounded by the buffer check
  std::uint64_t end() const { return offset + (count - 1) * stride + bytes; }
};

struct BlockResources {
  unsigned threads = 256;
  std::uint64_t shared_bytes = 0;
  unsigned registers = 0;  // per thread; 0: unknown
  std::string kernel;      // the launch's __global__ function (a C name), or empty: not named
};

struct LaunchFootprint {
  TileGrid grid;
  BlockResources block;
  bool swizzled = true;
  // Tile t's spans are spans[tile_begin[t] .. tile_begin[t + 1]).
  std::vector<std::uint32_t> tile_begin;
  std::vector<FootprintSpan> spans;

  std::uint64_t tiles() const { return tile_begin.empty() ? 0 : tile_begin.size() - 1; }
};

struct FootprintBuffer {
  std::string name;
  std::uint64_t bytes = 0;
};

struct ProgramFootprint {
  std::vector<long long> size;
  unsigned launches_total = 0;       // launches of one run() (the program's count)
  std::vector<unsigned> launch_ids;  // which of them `launches` holds, in order
  std::vector<FootprintBuffer> buffers;
  std::vector<LaunchFootprint> launches;
};

struct FootprintLimits {
  std::uint64_t max_tiles_per_launch = 1ull << 24;
  std::uint64_t max_spans_per_tile = 4096;
  std::uint64_t max_spans = 1ull << 26;
  std::uint64_t max_runs_per_span = 1ull << 24;  // the simulator and union_bytes visit runs one by one
  std::uint64_t max_runs = 1ull << 32;
  unsigned max_launches = 64;
};

// Parses a `footprint` mode's stdout (the header, tile and summary lines of
// swz_footprint.h). `name` goes into the errors ("gemm.hip's footprint: line 3: ...").
Result<ProgramFootprint> parse_footprint(std::string_view text, const std::string& name,
                                         const FootprintLimits& limits = {});

// The launch headers of a `footprint` run alone (as `--tiles 0:0` prints them, no tile
// line): Ok when every launch header's grid is one parse_footprint takes; else its Error (a
// grid of 2^32 tiles or more, or more tiles than the model takes). Every other line is left
// to parse_footprint. A refusal in milliseconds where listing every tile of such a grid
// would take minutes.
Status check_footprint_grids(std::string_view text, const std::string& name, const FootprintLimits& limits = {});

// Unique bytes a launch touches (the union of every tile's spans per buffer, reads and
// writes together): what the program's launch_footprints_bytes should report.
std::uint64_t union_bytes(const LaunchFootprint& launch, std::size_t buffers);

}  // namespace swz
