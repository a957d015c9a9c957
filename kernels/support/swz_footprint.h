// swizzleperf footprint contract: which bytes of which buffers each logical tile of a launch
// reads and writes, in plain host C++11 (no CUDA or HIP), so that the tool's locality model
// (docs/locality-model.md) can predict every die's L2 for any block order without a GPU or a
// GPU compiler.
//
// A program declares its footprint in a section of its source between the lines
//   // swizzleperf:footprint-begin
//   // swizzleperf:footprint-end
// holding a class derived from SwzFootprintSpec and a function
//   const SwzFootprintSpec& swz_footprint_spec();
// returning one instance of it. The section must compile on its own after
// #include "swz_footprint.h" (no HIP, nothing from the rest of the file): the tool cuts it out
// and compiles it with the host C++ compiler into a small footprint program (one compile per
// section text, cached), so `swizzleperf predict` and `check --predict` work on any machine.
// The program itself overrides SwzProgram::footprint() to return &swz_footprint_spec(), and
// its `footprint` mode prints the same thing; keep the program's default_size(), grid() and
// launch count in one place with the spec's (the spec's are the ones to call).
//
// A tile's footprint is a list of strided spans per buffer: `count` runs of `bytes` bytes, run
// i starting at byte `offset + i * stride` of the buffer. Exact: list what the tile's loads
// and stores touch, at its ragged edges too (clamp to the buffer). Reads and writes are listed
// separately. `walk` says how the tile moves through a span over its lifetime: the model
// spreads each tile's accesses over its run time, and
//   SwzWalk::runs      the runs one after another (a GEMM's B panel, K rows read k by k; a
//                      stencil's rows);
//   SwzWalk::parallel  all runs at once, each from its start to its end (a GEMM's A panel:
//                      M-tile rows read k-slice by k-slice);
//   SwzWalk::once      all of it at the tile's start (an attention tile's Q rows).
// A read may also say how many bytes of a run one load request takes at a time (`piece`, the
// last argument of read(); 0, the default: a whole 128-byte line or more). Give it where loads
// that bypass L1 (measured: cp.async.cg) read a run in pieces smaller than a line, one
// k-slice after another: gemm_tc's 64-byte pieces of each row of A and Bt per stage (BK = 32
// halfs). On the H100 such a piece that misses brings its whole line into the L2 (Nsight
// Compute books the rest of the line as sector-promoted misses, outside its sectors), so the
// line's later pieces hit; the model counts them so. Loads through L1 do not show it (gemm's
// 32-byte pieces of A: 0.8 M promoted misses against 133 M DRAM sectors): leave it 0 there.
//
// The footprint program's CLI (also a mode of every kernel program):
//   prog footprint [--size a,b,..] [--launch L | --launches N [--window first|middle]]
//                  [--tiles FIRST:COUNT]
// (--launch: that launch only; --launches: N of them, the first N or (middle) the N around the
// middle of the run, as a profiler's window over a long run would see)
// prints, for the size (default: default_size()), first the buffers
//   {"buffers":[{"name":"A","bytes":..},..]}
// then one header JSON line per launch
//   {"launch":L,"grid":{"m":..,"n":..},"block":{"threads":..,"shared_bytes":..,"registers":..
//    [,"kernel":"NAME"]},"swizzled":true,"tiles":N}
// each followed by one line per tile (logical tile id t = tile_m * n + tile_n, row-major)
//   t <id> <spans>  then per span:  <buffer> <offset> <bytes> <stride> <count> <r|w><R|P|O>[/<piece>]
// and last one JSON line {"mode":"footprint","size":[..],"launches":L,"tiles":total,"spans":total}. Exit codes as the harness: 0 ok, 2 usage error.
#ifndef SWZ_FOOTPRINT_H
#define SWZ_FOOTPRINT_H

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "swz_sizes.h"

enum class SwzWalk { runs, parallel, once };

struct SwzSpan {
  SwzSpan() : buffer(0), offset(0), bytes(0), stride(0), count(0), write(false), walk(SwzWalk::runs), piece(0) {}
  unsigned buffer;           // index into SwzFootprintSpec::buffers()
  unsigned long long offset;  // bytes from the buffer's start to the first run
  unsigned long long bytes;   // bytes per run
  unsigned long long stride;  // bytes from one run's start to the next (ignored when count == 1)
  unsigned long long count;   // runs
  bool write;
  SwzWalk walk;
  unsigned long long piece;  // reads: bytes one load request takes of a run (0: a line or more)
};

// What one tile touches: add spans with read() / write().
class SwzTileFootprint {
 public:
  void read(unsigned buffer, unsigned long long offset, unsigned long long bytes, unsigned long long stride = 0,
            unsigned long long count = 1, SwzWalk walk = SwzWalk::runs, unsigned long long piece = 0) {
    add(buffer, offset, bytes, stride, count, false, walk, piece);
  }
  void write(unsigned buffer, unsigned long long offset, unsigned long long bytes, unsigned long long stride = 0,
             unsigned long long count = 1, SwzWalk walk = SwzWalk::runs) {
    add(buffer, offset, bytes, stride, count, true, walk, 0);
  }
  const std::vector<SwzSpan>& spans() const { return spans_; }
  void clear() { spans_.clear(); }

 private:
  void add(unsigned buffer, unsigned long long offset, unsigned long long bytes, unsigned long long stride,
           unsigned long long count, bool write, SwzWalk walk, unsigned long long piece) {
    if (bytes == 0 || count == 0) return;  // a clamped edge tile may touch nothing of a buffer
    SwzSpan s;
    s.buffer = buffer;
    s.offset = offset;
    s.bytes = bytes;
    s.stride = count > 1 ? stride : 0;
    s.count = count;
    s.write = write;
    s.walk = walk;
    s.piece = piece;
    spans_.push_back(s);
  }
  std::vector<SwzSpan> spans_;
};

struct SwzBuffer {
  SwzBuffer() : name(""), bytes(0) {}
  SwzBuffer(const char* n, unsigned long long b) : name(n), bytes(b) {}
  const char* name;
  unsigned long long bytes;
};

// One launch's tile grid (the grid swizzle_pid is given; num_pids = m * n).
struct SwzFootprintGrid {
  SwzFootprintGrid() : m(0), n(0) {}
  SwzFootprintGrid(unsigned long long mm, unsigned long long nn) : m(mm), n(nn) {}
  unsigned long long m, n;
};

// A workgroup's resource use, for the model's occupancy (resident blocks per SM/CU). These are
// the program's own expectation; when the tool has the compiler's report (registers, static
// shared memory) that wins. `kernel` names the launch's __global__ function (its C name, e.g.
// "fdtd_ey_kernel"; 0: not named): the compiler's count for that function then applies to
// that launch alone, where without it every launch takes the most among the program's kernels.
struct SwzBlockUse {
  SwzBlockUse() : threads(256), shared_bytes(0), registers(0), kernel(0) {}
  SwzBlockUse(unsigned t, unsigned long long smem, unsigned regs, const char* k = 0)
      : threads(t), shared_bytes(smem), registers(regs), kernel(k) {}
  unsigned threads;
  unsigned long long shared_bytes;  // static + dynamic shared memory (LDS) per block
  unsigned registers;               // per thread; 0: unknown
  const char* kernel;               // letters, digits and '_'; others are left out when printed
};

class SwzFootprintSpec {
 public:
  virtual ~SwzFootprintSpec() {}
  virtual SwzSize default_size() const = 0;
  // Buffers by index (the spans' `buffer`), with their sizes in bytes at size s.
  virtual std::vector<SwzBuffer> buffers(const SwzSize& s) const = 0;
  // Kernel launches of one run() that the footprint describes, in launch order (default 1).
  virtual unsigned launches(const SwzSize&) const { return 1; }
  virtual SwzFootprintGrid grid(const SwzSize& s, unsigned launch) const = 0;
  virtual SwzBlockUse block(const SwzSize&, unsigned) const { return SwzBlockUse(); }
  // Whether this launch's tiles run in swizzle_pid's order (false: a launch that ignores it).
  virtual bool swizzled(const SwzSize&, unsigned) const { return true; }
  // Arity and positivity are checked before; "" or nullptr = ok, else why not.
  virtual const char* size_error(const SwzSize&) const { return nullptr; }
  // The spans of tile (tile_m, tile_n) of `launch` at size s.
  virtual void tile(const SwzSize& s, unsigned launch, unsigned long long tile_m, unsigned long long tile_n,
                    SwzTileFootprint& out) const = 0;
};

// min(a, b) and the clamped length of [begin, begin + len) inside [0, limit), for ragged edges.
inline unsigned long long swz_fp_min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long swz_fp_clamp(unsigned long long begin, unsigned long long len, unsigned long long limit) {
  return begin >= limit ? 0 : swz_fp_min(len, limit - begin);
}

namespace swz_fp_detail {

inline int usage(const std::string& msg) {
  std::printf("{\"mode\":\"footprint\",\"error\":\"");
  for (char c : msg) {
    if (c == '"' || c == '\\') std::printf("\\%c", c);
    else if (static_cast<unsigned char>(c) < 0x20) std::printf(" ");
    else std::printf("%c", c);
  }
  std::printf("\"}\n");
  std::fprintf(stderr, "footprint: %s\n", msg.c_str());
  return 2;
}

inline bool parse_ull(const char* s, unsigned long long* out) {
  if (!s || !*s || *s == '-') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

inline bool parse_size(const char* s, SwzSize* out) {
  out->clear();
  std::string cur;
  for (const char* p = s;; ++p) {
    if (*p == ',' || *p == '\0') {
      unsigned long long v = 0;
      if (!parse_ull(cur.c_str(), &v) || v > 0x7fffffffffffffffull) return false;
      out->push_back(static_cast<long long>(v));
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur += *p;
    }
  }
  return !out->empty();
}

inline char walk_char(SwzWalk w) { return w == SwzWalk::runs ? 'R' : w == SwzWalk::parallel ? 'P' : 'O'; }

// " <v>" appended to out: decimal by hand (printf is most of the cost of a large footprint).
inline void put_u64(std::string& out, unsigned long long v) {
  char b[24];
  int i = 24;
  do {
    b[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  out += ' ';
  out.append(b + i, b + 24);
}

}  // namespace swz_fp_detail

// The footprint mode: argv[first] onwards are its options (see the top of this file).
inline int swz_footprint_run(const SwzFootprintSpec& spec, int argc, char** argv, int first) {
  using namespace swz_fp_detail;
  SwzSize size = spec.default_size();
  bool one_launch = false;
  unsigned long long launch_only = 0, first_launches = ~0ull, tile_first = 0, tile_count = ~0ull;
  bool middle = false;
  for (int i = first; i < argc; ++i) {
    const std::string opt = argv[i];
    if (i + 1 >= argc) return usage(opt + " needs a value");
    const char* v = argv[++i];
    if (opt == "--size") {
      if (!parse_size(v, &size)) return usage(std::string("--size: '") + v + "' is not a list of non-negative integers");
    } else if (opt == "--launch") {
      if (!parse_ull(v, &launch_only)) return usage(std::string("--launch: '") + v + "' is not a launch index");
      one_launch = true;
    } else if (opt == "--launches") {
      if (!parse_ull(v, &first_launches) || first_launches == 0)
        return usage(std::string("--launches: '") + v + "' is not a positive count");
    } else if (opt == "--window") {
      if (std::strcmp(v, "first") != 0 && std::strcmp(v, "middle") != 0)
        return usage(std::string("--window: '") + v + "' is not first or middle");
      middle = std::strcmp(v, "middle") == 0;
    } else if (opt == "--tiles") {
      const char* colon = std::strchr(v, ':');
      if (!colon) return usage("--tiles: expected FIRST:COUNT");
      const std::string a(v, colon);
      if (!parse_ull(a.c_str(), &tile_first) || !parse_ull(colon + 1, &tile_count))
        return usage(std::string("--tiles: '") + v + "' is not FIRST:COUNT");
    } else {
      return usage("unknown option '" + opt + "' (usage: footprint [--size a,b,..] [--launch L | --launches N [--window first|middle]] [--tiles FIRST:COUNT])");
    }
  }
  const SwzSize def = spec.default_size();
  if (size.size() != def.size())
    return usage("--size: expected " + std::to_string(def.size()) + " values, got " + std::to_string(size.size()));
  for (size_t i = 0; i < size.size(); ++i)
    if (size[i] <= 0) return usage("--size: value " + std::to_string(i + 1) + " must be positive");
  if (const char* e = spec.size_error(size))
    if (*e) return usage(std::string("--size: ") + e);
  const unsigned launches = spec.launches(size);
  if (one_launch && launch_only >= launches)
    return usage("--launch: " + std::to_string(launch_only) + " is not below the launch count " + std::to_string(launches));
  unsigned long long window_first = 0;  // the first launch of the --launches window
  if (middle && first_launches < launches) window_first = (launches - first_launches) / 2;
  const std::vector<SwzBuffer> bufs = spec.buffers(size);
  std::printf("{\"buffers\":[");
  for (size_t i = 0; i < bufs.size(); ++i) {
    std::printf("%s{\"name\":\"", i ? "," : "");
    for (const char* p = bufs[i].name; p && *p; ++p)
      if (*p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) std::printf("%c", *p);
    std::printf("\",\"bytes\":%llu}", bufs[i].bytes);
  }
  std::printf("]}\n");
  unsigned long long total_tiles = 0, total_spans = 0;
  SwzTileFootprint fp;
  std::string line;
  for (unsigned l = 0; l < launches; ++l) {
    if ((one_launch && l != launch_only) || l < window_first || l - window_first >= first_launches) continue;
    const SwzFootprintGrid g = spec.grid(size, l);
    const SwzBlockUse b = spec.block(size, l);
    const unsigned long long tiles = g.m * g.n;
    const unsigned long long first_tile = tile_first < tiles ? tile_first : tiles;
    const unsigned long long last_tile = tile_count < tiles - first_tile ? first_tile + tile_count : tiles;
    std::printf("{\"launch\":%u,\"grid\":{\"m\":%llu,\"n\":%llu},\"block\":{\"threads\":%u,\"shared_bytes\":%llu,"
                "\"registers\":%u",
                l, g.m, g.n, b.threads, b.shared_bytes, b.registers);
    if (b.kernel && *b.kernel) {
      std::printf(",\"kernel\":\"");
      for (const char* p = b.kernel; *p && p - b.kernel < 256; ++p)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_') std::printf("%c", *p);
      std::printf("\"");
    }
    std::printf("},\"swizzled\":%s,\"tiles\":%llu}\n", spec.swizzled(size, l) ? "true" : "false", last_tile - first_tile);
    for (unsigned long long t = first_tile; t < last_tile; ++t) {
      fp.clear();
      spec.tile(size, l, t / g.n, t % g.n, fp);
      line = "t";
      put_u64(line, t);
      put_u64(line, fp.spans().size());
      for (const SwzSpan& s : fp.spans()) {
        if (s.buffer >= bufs.size()) {
          std::fflush(stdout);
          return usage("tile " + std::to_string(t) + " names buffer " + std::to_string(s.buffer) + " of " +
                       std::to_string(bufs.size()));
        }
        put_u64(line, s.buffer);
        put_u64(line, s.offset);
        put_u64(line, s.bytes);
        put_u64(line, s.stride);
        put_u64(line, s.count);
        line += ' ';
        line += s.write ? 'w' : 'r';
        line += walk_char(s.walk);
        if (s.piece && !s.write) {
          line += '/';
          line += std::to_string(s.piece);
        }
      }
      line += '\n';
      std::fwrite(line.data(), 1, line.size(), stdout);
      total_spans += fp.spans().size();
    }
    total_tiles += last_tile - first_tile;
  }
  std::printf("{\"mode\":\"footprint\",\"size\":[");
  for (size_t i = 0; i < size.size(); ++i) std::printf("%s%lld", i ? "," : "", size[i]);
  std::printf("],\"launches\":%u,\"tiles\":%llu,\"spans\":%llu}\n", launches, total_tiles, total_spans);
  return 0;
}

// main() of the tool's stand-alone footprint program: `prog footprint [options]`.
inline int swz_footprint_main(const SwzFootprintSpec& spec, int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "footprint") != 0)
    return swz_fp_detail::usage(
        "usage: prog footprint [--size a,b,..] [--launch L | --launches N [--window first|middle]] [--tiles FIRST:COUNT]");
  return swz_footprint_run(spec, argc, argv, 2);
}

#endif  // SWZ_FOOTPRINT_H
