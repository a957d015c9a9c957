// swizzleperf XCC probe (AMD only; not a kernel-contract program): which XCC (die)
// does each workgroup of a 1-D grid run on?
//
//   xcc_probe [BLOCKS]          BLOCKS defaults to 8*304*2 = 4864 (two waves on MI300X)
//
// Each workgroup's thread 0 records
//   - its XCC id:  s_getreg_b32 hwreg(HW_REG_XCC_ID) (gfx940/941/942 only; -1 elsewhere),
//   - its CU:      HW_REG_HW_ID decoded as HIP 5.2's __smid does (SE_ID bits 14:13,
//                  CU_ID bits 11:8: se*16 + cu, local to the XCC),
//   - its start:   s_memrealtime (constant-rate wall clock; -1 when the target lacks it).
// and the host prints one JSON line:
//   {"probe":"xcc","arch":"gfx942:...","blocks":N,"xcc_of_block":[first 64],
//    "cu_of_block":[first 64],"xcc_ids":[distinct ids, sorted],"num_xcc_seen":X,
//    "round_robin_matches":K,"pattern":"round_robin"|"other"|"unavailable",
//    "earliest_blocks":[16 block ids by start time]}
// round_robin_matches counts blocks with xcc == pid % num_xcc_seen, where xcc is the
// block's id's rank among the distinct ids seen (the raw id itself when the ids are
// 0..X-1, as in SPX mode). pattern is "round_robin" when every block matches,
// "other" when some do not, "unavailable" when no block could read its XCC id
// (not a gfx940/941/942 code object).
// swizzleperf's arch table assumes 8 XCDs, round-robin (xcd = pid % 8) for MI300X in
// SPX mode; this program is how to check that on a real device. It has never run on
// AMD hardware (docs/amd.md).
//
// Exit codes: 0 ok, 2 usage error (or not AMD), 3 no GPU / runtime error.
// Build: hipcc --offload-arch=gfx942 -O2 kernels/support/xcc_probe.hip -o xcc_probe
// (Debian's hipcc 5.2 compiles it for gfx940.) On NVIDIA (nvcc through hip_on_cuda) it
// builds to a stub that prints {"probe":"xcc","error":"AMD only"} and exits 2.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

namespace {

const int kDefaultBlocks = 8 * 304 * 2;
const int kThreads = 64;  // one wavefront
const int kShown = 64;    // blocks listed in the JSON arrays

__global__ void probe_kernel(int* xcc, int* cu, long long* start) {
  if (threadIdx.x != 0) return;
  const unsigned pid = blockIdx.x;
  long long t = -1;
#if defined(__HIP_DEVICE_COMPILE__) && __has_builtin(__builtin_amdgcn_s_memrealtime)
  t = static_cast<long long>(__builtin_amdgcn_s_memrealtime());
#endif
  int x = -1;
  int c = -1;
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
  unsigned v = 0;
  asm volatile("s_getreg_b32 %0, hwreg(HW_REG_XCC_ID)" : "=s"(v));
  x = static_cast<int>(v & 0xFu);
#endif
#if defined(__HIP_DEVICE_COMPILE__)
  unsigned hw = 0;
  asm volatile("s_getreg_b32 %0, hwreg(HW_REG_HW_ID)" : "=s"(hw));
  c = static_cast<int>(((hw >> 13) & 0x3u) * 16u + ((hw >> 8) & 0xFu));
#endif
  xcc[pid] = x;
  cu[pid] = c;
  start[pid] = t;
}

std::string esc(const char* s) {
  std::string o;
  for (; *s; ++s) {
    const unsigned char ch = static_cast<unsigned char>(*s);
    if (ch == '"' || ch == '\\') {
      o += '\\';
      o += static_cast<char>(ch);
    } else if (ch < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", ch);
      o += b;
    } else {
      o += static_cast<char>(ch);
    }
  }
  return o;
}

[[noreturn]] void fail(int code, const std::string& msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  std::printf("{\"probe\":\"xcc\",\"error\":\"%s\"}\n", esc(msg.c_str()).c_str());
  std::fflush(stdout);
  std::exit(code);
}

void check(hipError_t e, const char* what) {
  if (e != hipSuccess) fail(3, std::string(what) + ": " + hipGetErrorString(e));
}

std::string int_list(const std::vector<int>& v, size_t n) {
  std::string o = "[";
  for (size_t i = 0; i < v.size() && i < n; ++i) o += (i ? "," : "") + std::to_string(v[i]);
  return o + "]";
}

}  // namespace

int main(int argc, char** argv) {
  int blocks = kDefaultBlocks;
  if (argc > 2) fail(2, "usage: xcc_probe [BLOCKS]");
  if (argc == 2) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(argv[1], &end, 10);
    if (errno != 0 || end == argv[1] || *end != '\0' || v < 1 || v > (1L << 24))
      fail(2, std::string("BLOCKS must be an integer in 1..16777216, got '") + argv[1] + "'");
    blocks = static_cast<int>(v);
  }

  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) fail(3, std::string("no GPU device (") + hipGetErrorString(e) + ")");
  if (count < 1) fail(3, "no GPU device (device count is 0)");
  check(hipSetDevice(0), "hipSetDevice");
  hipDeviceProp_t prop;
  check(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");

  const size_t n = static_cast<size_t>(blocks);
  int* d_xcc = nullptr;
  int* d_cu = nullptr;
  long long* d_start = nullptr;
  check(hipMalloc(&d_xcc, n * sizeof(int)), "hipMalloc");
  check(hipMalloc(&d_cu, n * sizeof(int)), "hipMalloc");
  check(hipMalloc(&d_start, n * sizeof(long long)), "hipMalloc");
  // 0xFF bytes: -1 everywhere, so a block that never ran is visible.
  check(hipMemset(d_xcc, 0xFF, n * sizeof(int)), "hipMemset");
  check(hipMemset(d_cu, 0xFF, n * sizeof(int)), "hipMemset");
  check(hipMemset(d_start, 0xFF, n * sizeof(long long)), "hipMemset");
  hipLaunchKernelGGL(probe_kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, 0, d_xcc,
                     d_cu, d_start);
  check(hipGetLastError(), "kernel launch");
  check(hipDeviceSynchronize(), "kernel execution");

  std::vector<int> xcc(n), cu(n);
  std::vector<long long> start(n);
  check(hipMemcpy(xcc.data(), d_xcc, n * sizeof(int), hipMemcpyDeviceToHost), "hipMemcpy");
  check(hipMemcpy(cu.data(), d_cu, n * sizeof(int), hipMemcpyDeviceToHost), "hipMemcpy");
  check(hipMemcpy(start.data(), d_start, n * sizeof(long long), hipMemcpyDeviceToHost), "hipMemcpy");
  check(hipFree(d_xcc), "hipFree");
  check(hipFree(d_cu), "hipFree");
  check(hipFree(d_start), "hipFree");

  // Distinct XCC ids, sorted; a block's rank in that list is its logical XCC.
  std::vector<int> ids;
  for (int x : xcc)
    if (x >= 0) ids.push_back(x);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const int seen = static_cast<int>(ids.size());
  long long matches = 0;
  if (seen > 0) {
    for (size_t pid = 0; pid < n; ++pid) {
      if (xcc[pid] < 0) continue;
      const long rank = std::lower_bound(ids.begin(), ids.end(), xcc[pid]) - ids.begin();
      if (rank == static_cast<long>(pid % static_cast<size_t>(seen))) ++matches;
    }
  }
  const char* pattern = seen == 0 ? "unavailable" : (matches == blocks ? "round_robin" : "other");

  // Earliest blocks by start time (when the clock was readable).
  std::vector<int> order;
  for (size_t pid = 0; pid < n; ++pid)
    if (start[pid] >= 0) order.push_back(static_cast<int>(pid));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return start[a] < start[b]; });

  std::printf(
      "{\"probe\":\"xcc\",\"arch\":\"%s\",\"blocks\":%d,\"xcc_of_block\":%s,\"cu_of_block\":%s,"
      "\"xcc_ids\":%s,\"num_xcc_seen\":%d,\"round_robin_matches\":%lld,\"pattern\":\"%s\","
      "\"earliest_blocks\":%s}\n",
      esc(prop.gcnArchName).c_str(), blocks, int_list(xcc, kShown).c_str(),
      int_list(cu, kShown).c_str(), int_list(ids, ids.size()).c_str(), seen, matches, pattern,
      int_list(order, 16).c_str());
  return 0;
}

#else  // not AMD: the probe reads AMD hardware registers; nothing to measure here.

int main() {
  std::printf("{\"probe\":\"xcc\",\"error\":\"AMD only\"}\n");
  std::fprintf(stderr, "error: xcc_probe reads AMD XCC registers; it does nothing on this platform\n");
  return 2;
}

#endif
