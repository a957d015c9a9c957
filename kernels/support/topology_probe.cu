// swizzleperf topology probe (NVIDIA only, plain CUDA): measures what NVIDIA does not
// document about a GPU with a split L2 (H100: two L2 partitions joined by the "LTC
// fabric"): in what order blocks reach SMs, which SMs share an L2 side, which SMs form
// a GPC. `swizzleperf probe` builds it (nvcc -arch=sm_XY -O2) and runs each mode; every
// mode prints ONE JSON line, last on stdout.
//
//   topology_probe info
//       {"mode":"info","name":...,"num_sms":N,"l2_bytes":...,"smem_per_sm":...}
//   topology_probe order [--blocks-per-sm K] [--waves W] [--spin-us U]
//       W*K*N spinning blocks (K per SM, forced by dynamic shared memory), each records
//       its %smid and its start time (%globaltimer):
//       {"mode":"order","num_sms":N,"blocks_per_sm":K,"waves":W,"records":[[pid,smid,t_ns],...]}
//       t_ns is relative to the earliest start.
//   topology_probe side [--ref A] [--blocks-per-trial G] [--bytes B] [--repeats R]
//       For each target SM b = 0..N-1 (R times): flush (write 2x L2), then probe_writer:
//       the one block that finds itself on SM A reads B bytes (default L2/4) into L2, then
//       probe_reader: the one block on SM b reads the same bytes. Run under
//       `ncu --cache-control none --kernel-name regex:probe_reader --metrics
//       lts__t_sectors_srcunit_ltcfabric.sum,...`, the k-th profiled launch is targets[k]:
//       {"mode":"side","ref_sm":A,"bytes":B,"repeats":R,"wanted":[...],"targets":[...],
//        "writer_ok":true}
//       targets[k] is the SM the k-th reader actually ran on (-1: no block reached it).
//   topology_probe latency [--ref A] [--lines L]
//       ncu-free cross-check: per target SM b, after a flush and a warm-up read by SM A,
//       one thread on SM b times a dependent chain of L2 hits (clock64), one 256-byte
//       line each: {"mode":"latency","ref_sm":A,"lines":L,"targets":[...],
//       "mean_cycles":[...],"median_cycles":[...],"corr_with_ref":[...]}
//       (corr_with_ref: Pearson correlation of the per-line latencies with SM A's own).
//   topology_probe cluster [--spin-us U]
//       Thread-block clusters of 16 (non-portable), 8, 4 and 2 blocks, one block per SM;
//       blocks of one cluster always share a GPC, so SMs that ever share a cluster are
//       grouped: {"mode":"cluster","cluster_size":C,"sizes":[...],
//       "records":[[size,cluster,smid],...],"groups":[[sm,...],...]}
//       C is the largest size that launched; groups join the records of every size.
//
// Exit codes: 0 ok, 2 usage error, 3 no GPU or a CUDA error (message on stderr, and a
// {"mode":"error","error":...} line on stdout).
// Build: nvcc -arch=sm_90 -O2 -o topology_probe topology_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

// ---------------------------------------------------------------- device helpers

__device__ __forceinline__ int sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return static_cast<int>(r);
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void spin_until(unsigned long long t0, unsigned long long ns) {
  while (global_ns() - t0 < ns) {
  }
}

// Thread 0 claims the work when its block sits on `want_sm` and no block of this launch
// has claimed it yet; the answer is shared with the whole block.
__device__ __forceinline__ bool claim_if_on(int want_sm, int* claim, int* where) {
  __shared__ int mine;
  if (threadIdx.x == 0) {
    const int s = sm_id();
    mine = (s == want_sm) && atomicCAS(claim, 0, 1) == 0;
    if (mine) *where = s;
  }
  __syncthreads();
  return mine != 0;
}

// The block reads n uint4 with L1 bypassed (ld.global.cg), 8 loads in flight per thread.
__device__ __forceinline__ unsigned stream_read(const uint4* __restrict__ p, size_t n) {
  unsigned acc = 0;
  const size_t stride = blockDim.x;
  size_t i = threadIdx.x;
  for (; i + 7 * stride < n; i += 8 * stride) {
    uint4 v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) v[u] = __ldcg(p + i + u * stride);
#pragma unroll
    for (int u = 0; u < 8; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n; i += stride) {
    const uint4 v = __ldcg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  return acc;
}

// ---------------------------------------------------------------- kernels

__global__ void order_kernel(int* sm, unsigned long long* start, unsigned long long spin_ns) {
  // Dynamic shared memory is requested only to cap the blocks per SM; it is not used.
  if (threadIdx.x == 0) {
    const unsigned long long t0 = global_ns();
    sm[blockIdx.x] = sm_id();
    start[blockIdx.x] = t0;
    spin_until(t0, spin_ns);
  }
  __syncthreads();
}

__global__ void flush_kernel(uint4* buf, size_t n, unsigned salt) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    buf[i] = make_uint4(salt, static_cast<unsigned>(i), salt ^ 0x5bd1e995u, 0u);
}

__global__ void probe_writer(const uint4* buf, size_t n, int want_sm, int* claim, int* where,
                             unsigned* sink) {
  if (!claim_if_on(want_sm, claim, where)) return;
  const unsigned acc = stream_read(buf, n);
  if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;  // keeps the loads; practically never taken
}

__global__ void probe_reader(const uint4* buf, size_t n, int want_sm, int* claim, int* where,
                             unsigned* sink) {
  if (!claim_if_on(want_sm, claim, where)) return;
  const unsigned acc = stream_read(buf, n);
  if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
}

// chain[j * kLineWords] holds the word index of line j+1 (a dependent chain).
constexpr int kLineWords = 64;  // 256-byte lines of uint32 words

__global__ void latency_warm(const unsigned* chain, int lines, int want_sm, int* claim, int* where,
                             unsigned* sink) {
  if (!claim_if_on(want_sm, claim, where)) return;
  unsigned acc = 0;
  for (int j = threadIdx.x; j < lines; j += blockDim.x) acc ^= __ldcg(chain + static_cast<size_t>(j) * kLineWords);
  if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;
}

__global__ void latency_time(const unsigned* chain, int lines, int want_sm, int* claim, int* where,
                             unsigned* cycles) {
  if (!claim_if_on(want_sm, claim, where)) return;
  __shared__ unsigned seen[32];
  if (threadIdx.x != 0) return;
  unsigned idx = 0;
  for (int j = 0; j < lines; ++j) {
    const long long t0 = clock64();
    idx = __ldcg(chain + idx);
    // Storing idx waits for the load (a warp issues in order), so the clock read after
    // it measures the load's latency.
    seen[j & 31] = idx;
    const long long t1 = clock64();
    cycles[j] = static_cast<unsigned>(t1 - t0);
  }
  if (seen[0] == 0xffffffffu) cycles[0] = 0;
}

__global__ void cluster_kernel(int* rec, unsigned long long spin_ns) {
  if (threadIdx.x == 0) {
    const unsigned long long t0 = global_ns();
    unsigned cid, rank;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    rec[3 * blockIdx.x + 0] = sm_id();
    rec[3 * blockIdx.x + 1] = static_cast<int>(cid);
    rec[3 * blockIdx.x + 2] = static_cast<int>(rank);
    spin_until(t0, spin_ns);
  }
  __syncthreads();
}

// ---------------------------------------------------------------- host helpers

namespace {

std::string esc(const char* s) {
  std::string o;
  for (; *s; ++s) {
    const unsigned char c = static_cast<unsigned char>(*s);
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

[[noreturn]] void fail(int code, const std::string& msg) {
  std::fprintf(stderr, "topology_probe: error: %s\n", msg.c_str());
  std::printf("{\"mode\":\"error\",\"error\":\"%s\"}\n", esc(msg.c_str()).c_str());
  std::fflush(stdout);
  std::exit(code);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(3, std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// After a launch: the launch error, then the execution error.
void check_launch(const char* what) {
  check(cudaGetLastError(), what);
  check(cudaDeviceSynchronize(), what);
}

template <class T>
std::string list(const std::vector<T>& v) {
  std::string o = "[";
  for (size_t i = 0; i < v.size(); ++i) o += (i ? "," : "") + std::to_string(v[i]);
  return o + "]";
}

std::string fixed(double v) {
  if (!std::isfinite(v)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.4f", v);
  return b;
}

struct Args {
  std::string mode;
  std::vector<std::pair<std::string, long>> opts;
};

long opt(const Args& a, const char* name, long fallback) {
  for (const auto& o : a.opts)
    if (o.first == name) return o.second;
  return fallback;
}

const char* kUsage =
    "usage: topology_probe info | order [--blocks-per-sm K] [--waves W] [--spin-us U] | "
    "side [--ref A] [--blocks-per-trial G] [--bytes B] [--repeats R] | latency [--ref A] [--lines L] | "
    "cluster [--spin-us U]";

Args parse(int argc, char** argv) {
  if (argc < 2) fail(2, kUsage);
  Args a;
  a.mode = argv[1];
  const char* known[] = {"--blocks-per-sm", "--waves", "--spin-us", "--ref", "--blocks-per-trial",
                         "--bytes", "--repeats", "--lines"};
  for (int i = 2; i < argc; i += 2) {
    const std::string name = argv[i];
    if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return name == k; }) == std::end(known))
      fail(2, "unknown option '" + name + "'; " + kUsage);
    if (i + 1 >= argc) fail(2, name + " needs a value");
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(argv[i + 1], &end, 10);
    if (errno != 0 || end == argv[i + 1] || *end != '\0' || v < 0 || v > (1L << 40))
      fail(2, name + " must be a non-negative integer, got '" + argv[i + 1] + "'");
    a.opts.emplace_back(name.substr(2), v);
  }
  return a;
}

struct Device {
  cudaDeviceProp prop;
  int sms = 0;
  size_t l2 = 0;
};

Device open_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) fail(3, std::string("no CUDA GPU (") + cudaGetErrorString(e) + ")");
  if (count < 1) fail(3, "no CUDA GPU (device count is 0)");
  check(cudaSetDevice(0), "cudaSetDevice");
  Device d;
  check(cudaGetDeviceProperties(&d.prop, 0), "cudaGetDeviceProperties");
  d.sms = d.prop.multiProcessorCount;
  d.l2 = static_cast<size_t>(d.prop.l2CacheSize);
  if (d.sms < 1 || d.l2 == 0) fail(3, "device reports no SMs or no L2");
  return d;
}

// Dynamic shared memory that makes exactly k blocks of `threads` threads fit on one SM:
// the smallest size at which the occupancy calculator allows at most k blocks (with the
// shared-memory carveout at its maximum), checked to allow exactly k.
template <class Kernel>
size_t smem_for_blocks_per_sm(Kernel kernel, const Device& d, int threads, int k) {
  cudaFuncAttributes fa;
  check(cudaFuncGetAttributes(&fa, kernel), "cudaFuncGetAttributes");
  // Static shared memory counts against the per-block opt-in limit.
  const int optin = static_cast<int>(d.prop.sharedMemPerBlockOptin - fa.sharedSizeBytes);
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
        "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                             static_cast<int>(cudaSharedmemCarveoutMaxShared)),
        "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
  auto occ = [&](int s) {
    int n = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, static_cast<size_t>(s)),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return n;
  };
  if (occ(optin) > k) fail(3, "cannot limit the kernel to " + std::to_string(k) + " block(s) per SM with shared memory");
  int lo = 0, hi = optin;  // occ(hi) <= k
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (occ(mid) <= k) hi = mid; else lo = mid + 1;
  }
  if (occ(hi) != k)
    fail(3, "no shared-memory size gives exactly " + std::to_string(k) + " block(s) per SM (got " +
                std::to_string(occ(hi)) + ")");
  return static_cast<size_t>(hi);
}

// ---------------------------------------------------------------- modes

int mode_info(const Device& d) {
  int driver = -1, runtime = -1;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = -1;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = -1;
  (void)cudaGetLastError();
  std::printf("{\"mode\":\"info\",\"name\":\"%s\",\"arch\":\"sm_%d%d\",\"num_sms\":%d,\"l2_bytes\":%zu,"
              "\"smem_per_sm\":%zu,\"smem_optin\":%zu,\"smem_reserved_per_block\":%zu,"
              "\"driver_version\":%d,\"runtime_version\":%d}\n",
              esc(d.prop.name).c_str(), d.prop.major, d.prop.minor, d.sms, d.l2,
              static_cast<size_t>(d.prop.sharedMemPerMultiprocessor),
              static_cast<size_t>(d.prop.sharedMemPerBlockOptin),
              static_cast<size_t>(d.prop.reservedSharedMemPerBlock), driver, runtime);
  return 0;
}

int mode_order(const Device& d, const Args& a) {
  const int k = static_cast<int>(opt(a, "blocks-per-sm", 1));
  const int waves = static_cast<int>(opt(a, "waves", 3));
  const unsigned long long spin_ns = static_cast<unsigned long long>(opt(a, "spin-us", 30)) * 1000ull;
  if (k < 1 || k > 32) fail(2, "--blocks-per-sm must be 1..32");
  if (waves < 1 || waves > 64) fail(2, "--waves must be 1..64");
  const int threads = 32;
  const size_t smem = smem_for_blocks_per_sm(order_kernel, d, threads, k);
  const int blocks = waves * k * d.sms;
  int* d_sm = nullptr;
  unsigned long long* d_t = nullptr;
  check(cudaMalloc(&d_sm, blocks * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&d_t, blocks * sizeof(unsigned long long)), "cudaMalloc");
  check(cudaMemset(d_sm, 0xFF, blocks * sizeof(int)), "cudaMemset");
  // Warm-up launch (module load, clocks), then the measured one.
  order_kernel<<<k * d.sms, threads, smem>>>(d_sm, d_t, spin_ns);
  check_launch("order_kernel (warm-up)");
  check(cudaMemset(d_sm, 0xFF, blocks * sizeof(int)), "cudaMemset");
  order_kernel<<<blocks, threads, smem>>>(d_sm, d_t, spin_ns);
  check_launch("order_kernel");
  std::vector<int> sm(blocks);
  std::vector<unsigned long long> t(blocks);
  check(cudaMemcpy(sm.data(), d_sm, blocks * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(t.data(), d_t, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaFree(d_sm), "cudaFree");
  check(cudaFree(d_t), "cudaFree");
  const unsigned long long t0 = *std::min_element(t.begin(), t.end());
  std::string recs = "[";
  for (int p = 0; p < blocks; ++p)
    recs += (p ? ",[" : "[") + std::to_string(p) + "," + std::to_string(sm[p]) + "," + std::to_string(t[p] - t0) + "]";
  recs += "]";
  std::printf("{\"mode\":\"order\",\"num_sms\":%d,\"blocks_per_sm\":%d,\"waves\":%d,\"spin_ns\":%llu,"
              "\"smem_per_block\":%zu,\"records\":%s}\n",
              d.sms, k, waves, spin_ns, smem, recs.c_str());
  return 0;
}

struct Scratch {
  int* claim = nullptr;
  int* where = nullptr;
  unsigned* sink = nullptr;
  int slots = 0;
  void alloc(int n) {
    slots = n;
    check(cudaMalloc(&claim, n * sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&where, n * sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&sink, 1024 * sizeof(unsigned)), "cudaMalloc");
    check(cudaMemset(claim, 0, n * sizeof(int)), "cudaMemset");
    check(cudaMemset(where, 0xFF, n * sizeof(int)), "cudaMemset");
  }
  std::vector<int> read_where() const {
    std::vector<int> w(slots);
    check(cudaMemcpy(w.data(), where, slots * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return w;
  }
  void release() {
    check(cudaFree(claim), "cudaFree");
    check(cudaFree(where), "cudaFree");
    check(cudaFree(sink), "cudaFree");
  }
};

int mode_side(const Device& d, const Args& a) {
  const int ref = static_cast<int>(opt(a, "ref", 0));
  const int grid = static_cast<int>(opt(a, "blocks-per-trial", 2L * d.sms));
  const int repeats = static_cast<int>(opt(a, "repeats", 1));
  size_t bytes = static_cast<size_t>(opt(a, "bytes", static_cast<long>(d.l2 / 4)));
  bytes = bytes / (1u << 20) * (1u << 20);
  if (bytes == 0) bytes = 1u << 20;
  if (ref >= d.sms) fail(2, "--ref must be an SM id below " + std::to_string(d.sms));
  if (grid < d.sms) fail(2, "--blocks-per-trial must be at least the SM count (" + std::to_string(d.sms) + ")");
  if (repeats < 1 || repeats > 16) fail(2, "--repeats must be 1..16");
  if (bytes > d.l2) fail(2, "--bytes must not exceed the L2 size");
  const int threads = 1024;
  // One block per SM, so `grid` >= SM count blocks cover every SM at once.
  const size_t smem_w = smem_for_blocks_per_sm(probe_writer, d, threads, 1);
  const size_t smem_r = smem_for_blocks_per_sm(probe_reader, d, threads, 1);
  const size_t flush_n = 2 * d.l2 / sizeof(uint4);
  const size_t n = bytes / sizeof(uint4);
  uint4* flush = nullptr;
  uint4* buf = nullptr;
  check(cudaMalloc(&flush, flush_n * sizeof(uint4)), "cudaMalloc(flush buffer)");
  check(cudaMalloc(&buf, n * sizeof(uint4)), "cudaMalloc(probe buffer)");
  check(cudaMemset(buf, 0x5A, n * sizeof(uint4)), "cudaMemset");
  const int launches = repeats * d.sms;
  Scratch w, r;
  w.alloc(launches);
  r.alloc(launches);
  std::vector<int> wanted;
  for (int rep = 0, k = 0; rep < repeats; ++rep) {
    for (int b = 0; b < d.sms; ++b, ++k) {
      wanted.push_back(b);
      flush_kernel<<<4 * d.sms, 512>>>(flush, flush_n, static_cast<unsigned>(k));
      check_launch("flush_kernel");
      probe_writer<<<grid, threads, smem_w>>>(buf, n, ref, w.claim + k, w.where + k, w.sink);
      check_launch("probe_writer");
      probe_reader<<<grid, threads, smem_r>>>(buf, n, b, r.claim + k, r.where + k, r.sink);
      check_launch("probe_reader");
    }
  }
  const std::vector<int> writer_sm = w.read_where();
  const std::vector<int> targets = r.read_where();
  bool writer_ok = true;
  for (int s : writer_sm) writer_ok = writer_ok && s == ref;
  w.release();
  r.release();
  check(cudaFree(flush), "cudaFree");
  check(cudaFree(buf), "cudaFree");
  std::printf("{\"mode\":\"side\",\"ref_sm\":%d,\"num_sms\":%d,\"bytes\":%zu,\"repeats\":%d,\"wanted\":%s,"
              "\"targets\":%s,\"writer_sms\":%s,\"writer_ok\":%s}\n",
              ref, d.sms, bytes, repeats, list(wanted).c_str(), list(targets).c_str(), list(writer_sm).c_str(),
              writer_ok ? "true" : "false");
  return 0;
}

int mode_latency(const Device& d, const Args& a) {
  const int ref = static_cast<int>(opt(a, "ref", 0));
  const int lines = static_cast<int>(opt(a, "lines", 2048));
  if (ref >= d.sms) fail(2, "--ref must be an SM id below " + std::to_string(d.sms));
  if (lines < 16 || lines > 65536) fail(2, "--lines must be 16..65536");
  const int threads = 256;
  const int grid = 2 * d.sms;
  const size_t smem_w = smem_for_blocks_per_sm(latency_warm, d, threads, 1);
  const size_t smem_t = smem_for_blocks_per_sm(latency_time, d, threads, 1);
  const size_t flush_n = 2 * d.l2 / sizeof(uint4);
  uint4* flush = nullptr;
  unsigned* chain = nullptr;
  unsigned* cycles = nullptr;
  const size_t words = static_cast<size_t>(lines) * kLineWords;
  check(cudaMalloc(&flush, flush_n * sizeof(uint4)), "cudaMalloc(flush buffer)");
  check(cudaMalloc(&chain, words * sizeof(unsigned)), "cudaMalloc(chain)");
  check(cudaMalloc(&cycles, static_cast<size_t>(lines) * (d.sms + 1) * sizeof(unsigned)), "cudaMalloc");
  std::vector<unsigned> host(words, 0u);
  for (int j = 0; j < lines; ++j) host[static_cast<size_t>(j) * kLineWords] = static_cast<unsigned>(((j + 1) % lines) * kLineWords);
  check(cudaMemcpy(chain, host.data(), words * sizeof(unsigned), cudaMemcpyHostToDevice), "cudaMemcpy");
  Scratch w, t;
  w.alloc(d.sms + 1);
  t.alloc(d.sms + 1);
  // Launch 0 measures the reference SM itself (the baseline vector); then every SM.
  for (int k = 0; k <= d.sms; ++k) {
    const int b = k == 0 ? ref : k - 1;
    flush_kernel<<<4 * d.sms, 512>>>(flush, flush_n, static_cast<unsigned>(k));
    check_launch("flush_kernel");
    latency_warm<<<grid, threads, smem_w>>>(chain, lines, ref, w.claim + k, w.where + k, w.sink);
    check_launch("latency_warm");
    latency_time<<<grid, threads, smem_t>>>(chain, lines, b, t.claim + k, t.where + k,
                                            cycles + static_cast<size_t>(k) * lines);
    check_launch("latency_time");
  }
  std::vector<unsigned> cyc(static_cast<size_t>(lines) * (d.sms + 1));
  check(cudaMemcpy(cyc.data(), cycles, cyc.size() * sizeof(unsigned), cudaMemcpyDeviceToHost), "cudaMemcpy");
  const std::vector<int> where = t.read_where();
  const std::vector<int> wwhere = w.read_where();
  bool writer_ok = true;
  for (int s : wwhere) writer_ok = writer_ok && s == ref;
  w.release();
  t.release();
  check(cudaFree(flush), "cudaFree");
  check(cudaFree(chain), "cudaFree");
  check(cudaFree(cycles), "cudaFree");
  auto vec = [&](int k) {
    return std::vector<double>(cyc.begin() + static_cast<long>(k) * lines, cyc.begin() + static_cast<long>(k + 1) * lines);
  };
  // The first line of each chain pays the chain's start-up; leave it out.
  auto mean = [](const std::vector<double>& v) { return std::accumulate(v.begin() + 1, v.end(), 0.0) / (v.size() - 1); };
  const std::vector<double> base = vec(0);
  const double mb = mean(base);
  std::vector<int> targets;
  std::string means = "[", medians = "[", corrs = "[";
  for (int k = 1; k <= d.sms; ++k) {
    std::vector<double> v = vec(k);
    const double mv = mean(v);
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t j = 1; j < v.size(); ++j) {
      sxy += (v[j] - mv) * (base[j] - mb);
      sxx += (v[j] - mv) * (v[j] - mv);
      syy += (base[j] - mb) * (base[j] - mb);
    }
    const double corr = sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : NAN;
    std::vector<double> s(v.begin() + 1, v.end());
    std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
    targets.push_back(where[k]);
    const char* sep = k > 1 ? "," : "";
    means += sep + fixed(mv);
    medians += sep + fixed(s[s.size() / 2]);
    corrs += sep + fixed(corr);
  }
  std::printf("{\"mode\":\"latency\",\"ref_sm\":%d,\"lines\":%d,\"ref_ran_on\":%d,\"writer_ok\":%s,\"targets\":%s,"
              "\"mean_cycles\":%s],\"median_cycles\":%s],\"corr_with_ref\":%s]}\n",
              ref, lines, where[0], writer_ok ? "true" : "false", list(targets).c_str(), means.c_str(),
              medians.c_str(), corrs.c_str());
  return 0;
}

int mode_cluster(const Device& d, const Args& a) {
  const unsigned long long spin_ns = static_cast<unsigned long long>(opt(a, "spin-us", 20)) * 1000ull;
  const int threads = 32;
  const size_t smem = smem_for_blocks_per_sm(cluster_kernel, d, threads, 1);
  // Sizes above 8 are non-portable; ask for them, and skip a size the device refuses.
  if (cudaFuncSetAttribute(cluster_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
    (void)cudaGetLastError();
  const int sizes[] = {16, 8, 4, 2};
  std::vector<int> launched;
  std::string recs = "[";
  bool first = true;
  std::vector<int> parent(4096);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<bool> seen(4096, false);
  int cluster_key = 0;
  for (int c : sizes) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(c);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(static_cast<unsigned>(c));
    int active = 0;
    if (cudaOccupancyMaxActiveClusters(&active, cluster_kernel, &cfg) != cudaSuccess || active < 1) {
      (void)cudaGetLastError();
      continue;
    }
    const int clusters = 3 * active;  // three waves of the clusters that fit at once
    const int blocks = clusters * c;
    cfg.gridDim = dim3(static_cast<unsigned>(blocks));
    int* rec = nullptr;
    check(cudaMalloc(&rec, 3 * blocks * sizeof(int)), "cudaMalloc");
    check(cudaMemset(rec, 0xFF, 3 * blocks * sizeof(int)), "cudaMemset");
    const cudaError_t e = cudaLaunchKernelEx(&cfg, cluster_kernel, rec, spin_ns);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      check(cudaFree(rec), "cudaFree");
      continue;
    }
    check_launch("cluster_kernel");
    std::vector<int> h(3 * blocks);
    check(cudaMemcpy(h.data(), rec, h.size() * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaFree(rec), "cudaFree");
    launched.push_back(c);
    for (int b = 0; b < blocks; ++b) {
      const int sm = h[3 * b];
      const int key = cluster_key + b / c;  // a 1-D grid's clusters are consecutive blocks
      if (h[3 * b + 1] != b / c || h[3 * b + 2] != b % c)
        fail(3, "cluster ids do not follow the grid (block " + std::to_string(b) + ")");
      if (sm < 0 || sm >= 4096) fail(3, "block reported an impossible %smid " + std::to_string(sm));
      recs += (first ? "[" : ",[") + std::to_string(c) + "," + std::to_string(key) + "," + std::to_string(sm) + "]";
      first = false;
      seen[sm] = true;
      const int lead_sm = h[3 * (b - b % c)];
      parent[find(sm)] = find(lead_sm);
    }
    cluster_key += clusters;
  }
  recs += "]";
  if (launched.empty()) fail(3, "no thread-block cluster size (16, 8, 4, 2) could be launched");
  std::vector<std::vector<int>> groups;
  std::vector<int> group_of(4096, -1);
  for (int sm = 0; sm < 4096; ++sm) {
    if (!seen[sm]) continue;
    const int root = find(sm);
    if (group_of[root] < 0) {
      group_of[root] = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[group_of[root]].push_back(sm);
  }
  std::string gs = "[";
  for (size_t i = 0; i < groups.size(); ++i) gs += (i ? "," : "") + list(groups[i]);
  gs += "]";
  std::printf("{\"mode\":\"cluster\",\"num_sms\":%d,\"cluster_size\":%d,\"sizes\":%s,\"records\":%s,\"groups\":%s}\n",
              d.sms, launched.front(), list(launched).c_str(), recs.c_str(), gs.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  if (a.mode != "info" && a.mode != "order" && a.mode != "side" && a.mode != "latency" && a.mode != "cluster")
    fail(2, "unknown mode '" + a.mode + "'; " + kUsage);
  const Device d = open_device();
  if (a.mode == "info") return mode_info(d);
  if (a.mode == "order") return mode_order(d, a);
  if (a.mode == "side") return mode_side(d, a);
  if (a.mode == "latency") return mode_latency(d, a);
  return mode_cluster(d, a);
}
