// libFuzzer target: a program's `footprint` mode output (kernels/support/swz_footprint.h)
// through parse_footprint (model/footprint.h), the function load_footprint uses on the text a
// footprint program printed, then union_bytes on every launch it accepted. Contract: a value
// or an Error; never a crash, leak, UB or a long loop. Inputs are capped at 1 MB; union_bytes
// walks every run of a strided span, so it runs only when the launch's runs are few (the
// parser bounds spans, not runs).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "swizzleperf/model/footprint.h"

namespace {
std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 20)) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fp = swz::parse_footprint(text, "fuzz.hip");  // the default limits, as load_footprint
  if (!fp) return 0;
  if (fp->launches.empty() || fp->launches.size() != fp->launch_ids.size()) std::abort();
  for (const auto& l : fp->launches) {
    if (l.tile_begin.size() != l.tiles() + 1 || l.tiles() != l.grid.num_pids() || l.tile_begin.back() != l.spans.size())
      std::abort();
    std::uint64_t runs = 0, bytes = 0;
    for (const auto& s : l.spans) {
      if (s.buffer >= fp->buffers.size() || s.bytes == 0 || s.count == 0) std::abort();
      if (s.end() > fp->buffers[s.buffer].bytes || s.end() < s.offset) std::abort();  // inside, no wrap
      if (s.count > 1 && s.stride < s.bytes) std::abort();                          // no self-overlap
      runs += s.count == 1 || s.stride == s.bytes ? 1 : s.count;
      bytes = sat_add(bytes, s.total_bytes());
      if (runs > (1u << 16)) break;
    }
    if (runs > (1u << 16)) continue;
    const std::uint64_t u = swz::union_bytes(l, fp->buffers.size());
    std::uint64_t cap = 0;
    for (const auto& b : fp->buffers) cap = sat_add(cap, b.bytes);
    if (u > bytes || u > cap) std::abort();  // the union is at most what the spans and buffers hold
  }
  return 0;
}
