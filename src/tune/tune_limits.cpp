// tune_limits_of (see the header). The fallback numbers are the vendors' documented limits:
//   NVIDIA, the CUDA C++ Programming Guide's "Technical Specifications per Compute
//   Capability" table: 1024 threads per block and a warp of 32 on every compute capability;
//   "maximum amount of shared memory per thread block", which above 48 KB is reached by
//   opting in (cudaFuncAttributeMaxDynamicSharedMemorySize; Triton does it itself):
//   7.0/7.2 96 KB, 7.5 64 KB, 8.0/8.7 163 KB, 8.6/8.9 99 KB, 9.0 227 KB, 10.x 227 KB,
//   12.x 99 KB; 48 KB before 7.0 and for a capability this table does not know.
//   AMD, the HIP programming guide and the CDNA/RDNA ISA documents: 1024 work-items per
//   workgroup, 64 KB of LDS a workgroup may allocate, a wavefront of 64 on gfx9 (GCN, CDNA)
//   and 32 on gfx10 and later (RDNA compiles for wave32 by default).
// The device query, where it answers, wins over all of these.
#include "swizzleperf/tune/tune_limits.h"

#include <cctype>
#include <cstdint>
#include <limits>
#include <string>

namespace swz {

namespace {

constexpr std::int64_t kKiB = 1024;

// The query's positive integer at `key`, else 0. nlohmann stores a large unsigned number as
// unsigned: one above int64's range is ignored rather than wrapped.
std::int64_t query_limit(const nlohmann::json& q, const char* key) {
  if (!q.is_object()) return 0;
  const auto it = q.find(key);
  if (it == q.end() || !it->is_number_integer()) return 0;
  if (it->is_number_unsigned())
    return it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
               ? static_cast<std::int64_t>(it->get<std::uint64_t>())
               : 0;
  const auto v = it->get<std::int64_t>();
  return v > 0 ? v : 0;
}

// "sm_90a" -> 90, "sm_120" -> 120; -1 when `arch` is not sm_ followed by digits.
int sm_number(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return -1;
  int n = 0;
  std::size_t i = 3;
  for (; i < arch.size() && i < 7 && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
    n = n * 10 + (arch[i] - '0');
  return i > 3 ? n : -1;
}

// Shared memory per block (opt-in maximum) by compute capability, `sm` = major * 10 + minor.
std::int64_t nvidia_shared_bytes(int sm) {
  switch (sm) {
    case 70:
    case 72: return 96 * kKiB;
    case 75: return 64 * kKiB;
    case 80:
    case 87: return 163 * kKiB;
    case 86:
    case 89: return 99 * kKiB;
    case 90: return 227 * kKiB;
    default: break;
  }
  if (sm >= 100 && sm < 110) return 227 * kKiB;
  if (sm >= 120 && sm < 130) return 99 * kKiB;
  return 48 * kKiB;
}

// gfx9xx -> 9, gfx1100 -> 11: the major generation, -1 when `arch` is not gfx followed by digits.
int gfx_generation(const std::string& arch) {
  if (arch.rfind("gfx", 0) != 0) return -1;
  std::size_t digits = 0;
  while (3 + digits < arch.size() && std::isxdigit(static_cast<unsigned char>(arch[3 + digits]))) ++digits;
  // The last two hex digits are minor and stepping (gfx942, gfx90a, gfx1100).
  if (digits < 3) return -1;
  int major = 0;
  for (std::size_t i = 3; i < 3 + digits - 2; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(arch[i]))) return -1;
    major = major * 10 + (arch[i] - '0');
  }
  return major;
}

TuneLimits arch_fallback(const HardwareProfile& hw) {
  TuneLimits l;
  const int gfx = gfx_generation(hw.arch);
  const int sm = sm_number(hw.arch);
  if (hw.vendor == "amd" || hw.arch.rfind("gfx", 0) == 0) {
    l.threads_per_block = 1024;
    l.shared_bytes_per_block = 64 * kKiB;
    l.warp_size = gfx >= 10 ? 32 : 64;  // an unreadable gfx name: CDNA's 64, the Instinct parts
  } else if (hw.vendor == "nvidia" || hw.arch.rfind("sm_", 0) == 0) {
    l.threads_per_block = 1024;
    l.warp_size = 32;
    l.shared_bytes_per_block = nvidia_shared_bytes(sm);
  }
  return l;
}

}  // namespace

TuneLimits tune_limits_of(const HardwareProfile& hw) {
  TuneLimits l = arch_fallback(hw);
  auto take = [&](std::int64_t& field, const char* key) {
    if (const std::int64_t v = query_limit(hw.device_query, key); v > 0) field = v;
  };
  take(l.shared_bytes_per_block, "shared_mem_per_block");
  take(l.threads_per_block, "max_threads_per_block");
  take(l.warp_size, "warp_size");
  return l;
}

}  // namespace swz
