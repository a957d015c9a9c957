// swizzleperf kernel: row softmax, out[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r),
// over an R x C fp32 row-major matrix, split into SEVERAL blocks per row (two passes).
// swizzleperf:default-grid 32768x8
// Size is R,C (default 32768,32768). Each row is cut into chunks of kChunk = 4096 columns;
// the logical tile grid is m = R rows by n = ceil(C / 4096) chunks, so tile t = row * n + chunk
// (the chunks of one row are consecutive tile ids). Both kernels launch a 1-D grid of m * n
// blocks of 256 threads; block blockIdx.x works on logical tile swizzle_pid(blockIdx.x, ...).
//   pass 1, softmax_partials_kernel: the block loads its chunk (16 floats per thread, as four
//     coalesced float4 slots), reduces the chunk's max m_k and sum s_k = sum exp(x - m_k), and
//     writes (m_k, s_k) to part[row * n + chunk];
//   pass 2, softmax_normalize_kernel: the block combines its row's n partials in chunk order
//     (M = max m_k, S = sum_k s_k * exp(m_k - M)), re-reads its chunk and writes
//     exp(x - M) / S.
// Sharing between blocks (what a swizzle can exploit): in pass 2 the n blocks of a row all read
// that row's n partials, and each block re-reads the x chunk that pass 1 read; the blocks of
// one row are the natural group to keep on one die (paper Fig. 7). x is read once per pass,
// so at the default size (4 GiB of x, far above a 50 MB L2) pass 2 finds little of x in L2
// whatever the order: only the partials (8 floats x 2 per row) are reused within a pass.
// Reductions are fixed shared-memory trees and a fixed chunk order, so the output is
// bit-identical whatever order the blocks run in. Correct for any R, C >= 1 (bounds-checked).
#include <hip/hip_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

// swizzleperf:footprint-begin
constexpr int kThreads = 256;
constexpr int kSlots = 4;                         // float4 slots per thread
constexpr int kPerThread = 4 * kSlots;            // 16 floats per thread
constexpr int kChunk = kThreads * kPerThread;     // 4096 columns per block

// Two launches, both over the tile grid m = R rows by n = ceil(C / kChunk) chunks. Tile
// (row, k) covers columns [k * kChunk, +kChunk) of its row, clamped to C.
//   launch 0 (partials): loads its x chunk at the start, writes its float2 partial
//     part[row * n + k] at the end;
//   launch 1 (normalize): loads its x chunk and its row's n partials (thread 0) at the start,
//     writes its out chunk after the barrier.
class SoftmaxFootprint : public SwzFootprintSpec {
 public:
  enum { kX, kPart, kOut };
  SwzSize default_size() const override { return {32768, 32768}; }
  std::vector<SwzBuffer> buffers(const SwzSize& s) const override {
    const unsigned long long mat = 4ull * s[0] * s[1];
    const SwzFootprintGrid g = grid(s, 0);
    return {{"x", mat}, {"part", 8ull * g.m * g.n}, {"out", mat}};
  }
  unsigned launches(const SwzSize&) const override { return 2; }
  SwzFootprintGrid grid(const SwzSize& s, unsigned) const override {
    return {static_cast<unsigned long long>(s[0]), (s[1] + kChunk - 1ull) / kChunk};
  }
  // 256 threads; shared memory: launch 0 the float sh[kThreads] of the block reductions,
  // launch 1 the float stats[2]. __launch_bounds__(256) alone bounds registers at 256, no
  // tighter than the per-thread maximum: 0 (unknown). Each launch names its kernel, so the
  // compiler's count for that kernel applies to it.
  SwzBlockUse block(const SwzSize&, unsigned launch) const override {
    return {kThreads, launch == 0 ? 4ull * kThreads : 4ull * 2, 0,
            launch == 0 ? "softmax_partials_kernel" : "softmax_normalize_kernel"};
  }
  // Sizes must fit the kernels' int indexing and a 1-D grid.
  const char* size_error(const SwzSize& s) const override {
    if (s[0] >= (1ll << 31) || s[1] >= (1ll << 31) - kChunk) return "R and C must be below 2^31 - 4096";
    if (s[0] * ((s[1] + kChunk - 1) / kChunk) >= (1ll << 31)) return "R * chunks must be below 2^31";
    return nullptr;
  }
  void tile(const SwzSize& s, unsigned launch, unsigned long long row, unsigned long long k,
            SwzTileFootprint& out) const override {
    const unsigned long long C = s[1], n = grid(s, launch).n;
    const unsigned long long c0 = k * kChunk, cols = swz_fp_clamp(c0, kChunk, C);
    out.read(kX, 4 * (row * C + c0), 4 * cols, 0, 1, SwzWalk::once);
    if (launch == 0) {
      out.write(kPart, 8 * (row * n + k), 8, 0, 1, SwzWalk::once);
      return;
    }
    out.read(kPart, 8 * row * n, 8 * n, 0, 1, SwzWalk::once);
    out.write(kOut, 4 * (row * C + c0), 4 * cols, 0, 1, SwzWalk::runs);
  }
};
const SwzFootprintSpec& swz_footprint_spec() {
  static const SoftmaxFootprint spec;
  return spec;
}
// swizzleperf:footprint-end

// Loads this thread's 16 elements of the chunk starting at column c0 of `row`. Slot s covers
// columns c0 + s * 1024 + threadIdx.x * 4 + 0..3 (coalesced float4 per warp). Elements at
// columns >= C are set to `fill`. vec: C % 4 == 0, so a slot starting below C is whole.
__device__ __forceinline__ void load_chunk(const float* __restrict__ row, int C, int c0, bool vec,
                                           float fill, float (&v)[kPerThread]) {
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const int c = c0 + s * kThreads * 4 + static_cast<int>(threadIdx.x) * 4;
    if (vec && c < C) {
      const float4 q = *reinterpret_cast<const float4*>(row + c);
      v[4 * s + 0] = q.x;
      v[4 * s + 1] = q.y;
      v[4 * s + 2] = q.z;
      v[4 * s + 3] = q.w;
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) v[4 * s + j] = (c + j < C) ? row[c + j] : fill;
    }
  }
}

__device__ __forceinline__ bool in_row(int s, int j, int c0, int C) {
  return c0 + s * kThreads * 4 + static_cast<int>(threadIdx.x) * 4 + j < C;
}

// Fixed-order tree reductions over the block's 256 threads through shared memory: the same
// inputs always give the same bits (no dependence on warp size or scheduling). Every thread
// gets the result.
__device__ __forceinline__ float block_max(float v, float* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (static_cast<int>(threadIdx.x) < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  const float r = sh[0];
  __syncthreads();
  return r;
}

__device__ __forceinline__ float block_sum(float v, float* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (static_cast<int>(threadIdx.x) < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  const float r = sh[0];
  __syncthreads();
  return r;
}

__global__ void __launch_bounds__(kThreads)
softmax_partials_kernel(const float* __restrict__ x, float2* __restrict__ part, int C,
                        SwizzleGrid grid) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  const unsigned tile_m = t / grid.n;
  const unsigned tile_n = t % grid.n;
  if (tile_m >= grid.m) return;  // out-of-range swizzle: tile left unwritten, verify fails

  __shared__ float sh[kThreads];
  const int row = static_cast<int>(tile_m);
  const int c0 = static_cast<int>(tile_n) * kChunk;
  const float* xr = x + static_cast<size_t>(row) * C;
  float v[kPerThread];
  load_chunk(xr, C, c0, C % 4 == 0, -INFINITY, v);

  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) m = fmaxf(m, v[i]);
  m = block_max(m, sh);  // finite: every chunk holds at least one column

  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i)
    if (in_row(i / 4, i % 4, c0, C)) s += expf(v[i] - m);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) part[static_cast<size_t>(row) * grid.n + tile_n] = make_float2(m, s);
}

__global__ void __launch_bounds__(kThreads)
softmax_normalize_kernel(const float* __restrict__ x, const float2* __restrict__ part,
                         float* __restrict__ out, int C, SwizzleGrid grid) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  const unsigned tile_m = t / grid.n;
  const unsigned tile_n = t % grid.n;
  if (tile_m >= grid.m) return;  // out-of-range swizzle: tile left unwritten, verify fails

  __shared__ float stats[2];
  const int row = static_cast<int>(tile_m);
  const int c0 = static_cast<int>(tile_n) * kChunk;
  const float* xr = x + static_cast<size_t>(row) * C;
  const bool vec = C % 4 == 0;
  float v[kPerThread];
  load_chunk(xr, C, c0, vec, 0.f, v);  // issued before the barrier: overlaps the combine
  if (threadIdx.x == 0) {  // combine the row's partials in chunk order (deterministic)
    const float2* p = part + static_cast<size_t>(row) * grid.n;
    float M = -INFINITY;
    for (unsigned k = 0; k < grid.n; ++k) M = fmaxf(M, p[k].x);
    float S = 0.f;
    for (unsigned k = 0; k < grid.n; ++k) S += p[k].y * expf(p[k].x - M);
    stats[0] = M;
    stats[1] = S;
  }
  __syncthreads();
  const float M = stats[0], S = stats[1];

  float* orow = out + static_cast<size_t>(row) * C;
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const int c = c0 + s * kThreads * 4 + static_cast<int>(threadIdx.x) * 4;
    float e[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) e[j] = expf(v[4 * s + j] - M) / S;
    if (vec && c < C) {
      *reinterpret_cast<float4*>(orow + c) = make_float4(e[0], e[1], e[2], e[3]);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (c + j < C) orow[c + j] = e[j];
    }
  }
}

class SoftmaxProgram : public SwzProgram {
 public:
  SoftmaxProgram() : SwzProgram("softmax", "softmax_.*") {}
  SwzSize default_size() const override { return swz_footprint_spec().default_size(); }
  // Small and ragged: 1 row / 1 column, C not a multiple of 4 (scalar path) or of 4096
  // (partial last chunk), C % 4 == 0 but ragged (vector path with a partial chunk).
  std::vector<SwzSize> verify_sizes() const override {
    return {{4, 4096}, {1, 1}, {5, 1}, {1, 9000}, {13, 4097}, {7, 8196}, {3, 100}, {10, 12288},
            {33, 5}};
  }
  // Both launches have the same grid.
  SwizzleGrid grid(const SwzSize& s) const override {
    const SwzFootprintGrid g = swz_footprint_spec().grid(s, 0);
    return {static_cast<unsigned>(g.m), static_cast<unsigned>(g.n)};
  }
  const SwzFootprintSpec* footprint() const override { return &swz_footprint_spec(); }
  // x read (both passes count once), out written, partials written and read.
  unsigned long long footprint_bytes(const SwzSize& s) const override {
    const SwizzleGrid g = grid(s);
    return 4ull * (2ull * s[0] * s[1]) + 8ull * g.m * g.n;
  }
  // Pass 1 reads x, writes the partials; pass 2 reads x and the partials, writes out.
  std::vector<unsigned long long> launch_footprints_bytes(const SwzSize& s) const override {
    const SwizzleGrid g = grid(s);
    const unsigned long long x = 4ull * s[0] * s[1], part = 8ull * g.m * g.n;
    return {x + part, 2 * x + part};
  }

  void setup(const SwzSize& s, unsigned long long seed) override {
    R_ = static_cast<int>(s[0]), C_ = static_cast<int>(s[1]);
    g_ = grid(s);
    SwzRng rng(seed);
    dX_ = swz_alloc<float>(size_t(R_) * C_);
    dPart_ = swz_alloc<float2>(size_t(g_.m) * g_.n);
    dOut_ = swz_alloc<float>(size_t(R_) * C_);
    hX_ = swz_random_f32_device(dX_, size_t(R_) * C_, rng);
    // Partials are an intermediate, not the output: poison them too (NaN) so a pass 2 that
    // reads a partial pass 1 never wrote cannot look right.
    SWZ_CHECK(hipMemset(dPart_, 0xFF, size_t(g_.m) * g_.n * sizeof(float2)));
  }
  void run() override {
    hipLaunchKernelGGL(softmax_partials_kernel, dim3(g_.m * g_.n), dim3(kThreads), 0, 0, dX_,
                       dPart_, C_, g_);
    SWZ_CHECK_LAUNCH();
    hipLaunchKernelGGL(softmax_normalize_kernel, dim3(g_.m * g_.n), dim3(kThreads), 0, 0, dX_,
                       dPart_, dOut_, C_, g_);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {dOut_, size_t(R_) * C_, SwzDType::f32}; }

  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> o(size_t(R_) * C_);
    for (int r = 0; r < R_; ++r) {
      const float* xr = &hX_[size_t(r) * C_];
      double m = xr[0];
      for (int c = 1; c < C_; ++c) m = std::max(m, static_cast<double>(xr[c]));
      double s = 0.0;
      for (int c = 0; c < C_; ++c) s += std::exp(static_cast<double>(xr[c]) - m);
      for (int c = 0; c < C_; ++c) o[size_t(r) * C_ + c] = std::exp(static_cast<double>(xr[c]) - m) / s;
    }
    return o;
  }
  // Relative tolerance from the fp32 arithmetic (eps = 2^-23, inputs in [-1, 1]):
  //   x - M: one rounding of a value <= 2 in magnitude, <= 1.2e-7 absolute, so <= 1.2e-7
  //   relative after exp; expf: <= 2 ulp (2.4e-7 relative);
  //   S: a sum of positive terms (<= 4 serial adds per slot x 4 slots, an 8-level tree, then
  //   <= 8 chunk terms each rescaled by an expf) has relative error <= ~(16 + 8 + 8 + 2 * 8) *
  //   eps / 2 ~ 2.9e-6 worst case; the final division adds 6e-8.
  // Worst case ~3.3e-6 relative: rel_tol = 1e-5 (3x margin). Outputs are >= e^-2 / C > 0, so no
  // absolute part is needed. A wrong row's statistics or a misplaced tile shifts values by
  // O(1) relative (e^(x - x') - 1 for random x), a missing tile is NaN poison.
  SwzTol tolerance(const SwzSize&) const override { return {0.0, 1e-5}; }

  // Sizes must fit the kernels' int indexing and a 1-D grid (the footprint's checks).
  const char* size_error(const SwzSize& s) const override { return swz_footprint_spec().size_error(s); }

 private:
  int R_ = 0, C_ = 0;
  SwizzleGrid g_ = {0, 0};
  std::vector<float> hX_;
  float *dX_ = nullptr, *dOut_ = nullptr;
  float2* dPart_ = nullptr;
};

int main(int argc, char** argv) {
  SoftmaxProgram prog;
  return swz_main(prog, argc, argv);
}
