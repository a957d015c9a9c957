// Page-walk probe (NVIDIA, plain CUDA; a bench tool, not part of swizzleperf): does the L2
// work that Nsight Compute puts in no op class and in no SM source grow with the number of
// memory pages the running blocks touch, as translation (page-table) reads would?
//
// Every launch reads the same amount of data: B blocks of 256 threads, each block one 4 KiB
// chunk (one float4 per thread, coalesced). Only where the chunks lie changes:
//   gap   G KiB: block b reads chunk b, chunks G KiB apart (span = B * G); the blocks that run
//         at the same time then touch about (blocks in flight) * G / page pages;
//   span  S MiB: block b reads chunk (b * P) mod (S / 4 KiB) (P a prime coprime with that
//         count): the running blocks are scattered over the whole span S.
// One launch per configuration, in the order printed; run it under ncu with
// --cache-control all, and the k-th profiled launch is configs[k]. Prints one JSON line:
//   {"blocks":B,"configs":[{"kind":"gap","kib":G,"span_bytes":...},...]}
// Usage: page_walk_probe [--blocks B] [--max-gib M] [--op read|write|copy]
//   (allocates max(span) + 4 KiB, twice for copy, at most M GiB in all; the chunks are read,
//   written, or read from one buffer and written to the same place of another)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "page_walk_probe: %s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

// op 0: read the chunk; 1: write it; 2: read it from src and write it to dst (same place).
__global__ void __launch_bounds__(256) touch(const float4* __restrict__ src, float4* __restrict__ dst,
                                             float* __restrict__ sink, unsigned long long chunks,
                                             unsigned long long mul, unsigned long long stride_f4, int op) {
  const unsigned long long c = (static_cast<unsigned long long>(blockIdx.x) * mul) % chunks;
  const unsigned long long k = c * stride_f4 + threadIdx.x;
  if (op == 1) {
    dst[k] = make_float4(blockIdx.x, threadIdx.x, 1.f, 2.f);
    return;
  }
  const float4 v = src[k];
  if (op == 2) {
    dst[k] = make_float4(v.x + 1.f, v.y, v.z, v.w);
    return;
  }
  const float s = v.x + v.y + v.z + v.w;
  if (s == 1234.5f) sink[blockIdx.x] = s;  // never true for the zeroed buffer; keeps the load
}

static unsigned long long gcd(unsigned long long a, unsigned long long b) {
  while (b) { unsigned long long t = a % b; a = b; b = t; }
  return a;
}
static bool prime(unsigned long long p) {
  if (p < 2) return false;
  for (unsigned long long d = 2; d * d <= p; ++d) if (p % d == 0) return false;
  return true;
}
// The smallest prime >= max(n / 3, 97) coprime with n (1 when n is tiny).
static unsigned long long scatter_mul(unsigned long long n) {
  if (n < 4) return 1;
  unsigned long long p = n / 3 > 97 ? n / 3 : 97;
  while (!prime(p) || gcd(p, n) != 1) ++p;
  return p;
}

int main(int argc, char** argv) {
  unsigned blocks = 16384;
  double max_gib = 40;
  int op = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--blocks")) blocks = static_cast<unsigned>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--max-gib")) max_gib = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--op")) op = !std::strcmp(argv[i + 1], "write") ? 1 : !std::strcmp(argv[i + 1], "copy") ? 2 : 0;
  }
  struct Config { std::string kind; unsigned long long kib_or_mib, chunks, mul, stride_f4, span; };
  std::vector<Config> cfgs;
  const unsigned long long chunk = 4096, f4_per_chunk = chunk / 16;
  const unsigned long long max_bytes = static_cast<unsigned long long>(max_gib * (1ull << 30)) / (op == 2 ? 2 : 1);
  for (unsigned long long g : {4ull, 8ull, 16ull, 32ull, 64ull, 128ull, 256ull, 512ull, 1024ull, 2048ull}) {
    const unsigned long long span = blocks * g * 1024;
    if (span > max_bytes) continue;
    cfgs.push_back({"gap", g, blocks, 1, g * 1024 / 16, span});
  }
  for (unsigned long long s : {8ull, 16ull, 32ull, 64ull, 128ull, 256ull, 512ull, 1024ull, 2048ull, 4096ull, 8192ull, 16384ull, 32768ull}) {
    const unsigned long long span = s << 20;
    if (span > max_bytes) continue;
    const unsigned long long n = span / chunk;
    cfgs.push_back({"span", s, n, scatter_mul(n), f4_per_chunk, span});
  }
  unsigned long long need = 0;
  for (auto& c : cfgs) need = c.span > need ? c.span : need;
  float4* buf = nullptr;
  float4* dst = nullptr;
  float* sink = nullptr;
  CK(cudaMalloc(&buf, need + chunk));
  CK(cudaMemset(buf, 0, need + chunk));
  if (op == 2) {
    CK(cudaMalloc(&dst, need + chunk));
    CK(cudaMemset(dst, 0, need + chunk));
  } else {
    dst = buf;
  }
  CK(cudaMalloc(&sink, blocks * sizeof(float)));
  for (auto& c : cfgs) {
    touch<<<blocks, 256>>>(buf, dst, sink, c.chunks, c.mul, c.stride_f4, op);
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  std::printf("{\"blocks\":%u,\"op\":%d,\"chunk_bytes\":%llu,\"configs\":[", blocks, op, chunk);
  for (size_t i = 0; i < cfgs.size(); ++i)
    std::printf("%s{\"kind\":\"%s\",\"%s\":%llu,\"span_bytes\":%llu,\"chunks\":%llu,\"mul\":%llu}", i ? "," : "",
                cfgs[i].kind.c_str(), cfgs[i].kind == "gap" ? "kib" : "mib", cfgs[i].kib_or_mib, cfgs[i].span,
                cfgs[i].chunks, cfgs[i].mul);
  std::printf("]}\n");
  return 0;
}
