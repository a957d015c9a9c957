// swizzleperf device query: prints one JSON line describing device 0.
//   {"name","arch","vendor","compute_units","l2_bytes","total_mem_bytes","clock_khz",
//    "warp_size","max_threads_per_block","shared_mem_per_block","num_xcc","driver_version",
//    "runtime_version","pci_bus_id"}
// arch: gcnArchName on AMD (e.g. "gfx942:sramecc+:xnack-"), "sm_XY" on NVIDIA.
// shared_mem_per_block: the most shared memory (LDS) one block may use, in bytes. NVIDIA: the
// opt-in maximum, hipDeviceAttributeSharedMemPerBlockOptin (CUDA's
// cudaDevAttrMaxSharedMemoryPerBlockOptin; 227 KB on an H100), else the prop's
// sharedMemPerBlock (48 KB) where the runtime does not answer. AMD: the prop's
// sharedMemPerBlock (no opt-in there; 64 KB of LDS on MI300).
// num_xcc: AMD only, from hipDeviceAttributeNumberOfXccs where the HIP runtime knows it;
// -1 when unknown (always on NVIDIA). Values are as the runtime reports them.
// Exit codes: 0 ok, 3 no device or runtime error (message on stderr).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define SWZ_VENDOR "amd"
#define SWZ_IS_AMD 1
#else
#define SWZ_VENDOR "nvidia"
#define SWZ_IS_AMD 0
#endif

#define CHECK(expr)                                                                       \
  do {                                                                                    \
    hipError_t e_ = (expr);                                                               \
    if (e_ != hipSuccess) {                                                               \
      std::fprintf(stderr, "error: %s:%d: %s\n", __FILE__, __LINE__, hipGetErrorString(e_)); \
      std::exit(3);                                                                       \
    }                                                                                     \
  } while (0)

static std::string esc(const char* s) {
  std::string o;
  for (; *s; ++s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}

static int attr_or(hipDeviceAttribute_t a, int fallback) {
  int v = 0;
  if (hipDeviceGetAttribute(&v, a, 0) != hipSuccess) {
    (void)hipGetLastError();  // clear it so a later hipGetLastError does not report it
    return fallback;
  }
  return v;
}

int main() {
  int count = 0;
  hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess || count < 1) {
    std::fprintf(stderr, "error: no GPU device (%s)\n",
                 e != hipSuccess ? hipGetErrorString(e) : "device count is 0");
    return 3;
  }
  CHECK(hipSetDevice(0));
  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));

  int clock_khz = attr_or(hipDeviceAttributeClockRate, -1);

  int num_xcc = -1;
#if SWZ_IS_AMD && defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR >= 6
  // hipDeviceAttributeNumberOfXccs = 10018 (AMD-specific range). Queried by value so this
  // builds with HIP 6.x headers that lack the name; an older runtime answers an error,
  // which leaves -1. Before HIP 6 the value 10018 is not assigned, so it is not queried.
  num_xcc = attr_or(static_cast<hipDeviceAttribute_t>(10018), -1);
  if (num_xcc < 1) num_xcc = -1;
#endif

  int driver = -1, runtime = -1;
  if (hipDriverGetVersion(&driver) != hipSuccess) driver = -1;
  if (hipRuntimeGetVersion(&runtime) != hipSuccess) runtime = -1;
  char bus[64] = {0};
  if (hipDeviceGetPCIBusId(bus, static_cast<int>(sizeof bus), 0) != hipSuccess) bus[0] = '\0';
  (void)hipGetLastError();

#if SWZ_IS_AMD
  const char* arch = p.gcnArchName;
  const long long shared_per_block = static_cast<long long>(p.sharedMemPerBlock);
#else
  char arch[32];
  std::snprintf(arch, sizeof arch, "sm_%d%d", p.major, p.minor);
  // Above 48 KB a kernel opts in (hipFuncSetAttribute; Triton does it itself): the opt-in
  // maximum is what a tuning point may ask for.
  const long long shared_per_block =
      attr_or(hipDeviceAttributeSharedMemPerBlockOptin, static_cast<int>(p.sharedMemPerBlock));
#endif

  std::printf(
      "{\"name\":\"%s\",\"arch\":\"%s\",\"vendor\":\"%s\",\"compute_units\":%d,"
      "\"l2_bytes\":%lld,\"total_mem_bytes\":%llu,\"clock_khz\":%d,\"warp_size\":%d,"
      "\"max_threads_per_block\":%d,\"shared_mem_per_block\":%lld,\"num_xcc\":%d,"
      "\"driver_version\":%d,\"runtime_version\":%d,\"pci_bus_id\":\"%s\"}\n",
      esc(p.name).c_str(), esc(arch).c_str(), SWZ_VENDOR, p.multiProcessorCount,
      static_cast<long long>(p.l2CacheSize), static_cast<unsigned long long>(p.totalGlobalMem),
      clock_khz, p.warpSize, p.maxThreadsPerBlock, shared_per_block, num_xcc, driver, runtime,
      esc(bus).c_str());
  return 0;
}
