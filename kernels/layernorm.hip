// swizzleperf kernel: layer normalization over the rows of an R x C fp32 row-major matrix,
// out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + 1e-5) * w[c] + b[c], split into SEVERAL
// blocks per row (two passes).
// swizzleperf:default-grid 65536x8
// Size is R,C (default 65536,16384). Each row is cut into chunks of kChunk = 2048 columns;
// the logical tile grid is m = R rows by n = ceil(C / 2048) chunks, so tile t = row * n + chunk
// (the chunks of one row are consecutive tile ids). Both kernels launch a 1-D grid of m * n
// blocks of 256 threads; block blockIdx.x works on logical tile swizzle_pid(blockIdx.x, ...).
//   pass 1, layernorm_partials_kernel: the block loads its chunk (8 floats per thread, as two
//     coalesced float4 slots) and writes the chunk's (sum, M2) to part[row * n + chunk], where
//     M2 = sum (x - chunk mean)^2 (two-level statistics: no E[x^2] - mean^2 cancellation);
//   pass 2, layernorm_normalize_kernel: the block combines its row's n partials in chunk order
//     (Chan et al.: M2 = sum_k M2_k + n_k (mean_k - mean)^2), re-reads its chunk and writes the
//     normalized chunk with the weight/bias chunk.
// Sharing between blocks (what a swizzle can exploit): the n blocks of a row read the same n
// partials in pass 2 and re-read the x chunks pass 1 read; all R blocks of chunk column k read
// the same w/b chunk (16 KB; 128 KB of w and b in all at the default size, so they stay in
// L2 anyway). Paper Fig. 6 routes a row's chunks to one die. x is read once per pass, so at
// the default size (4 GiB of x, far above a 50 MB L2) pass 2 finds little of x in L2 whatever
// the order. Reductions are fixed shared-memory trees and a fixed chunk order, so the output
// is bit-identical whatever order the blocks run in. Correct for any R, C >= 1.
#include <hip/hip_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

// swizzleperf:footprint-begin
constexpr int kThreads = 256;
constexpr int kSlots = 2;                      // float4 slots per thread
constexpr int kPerThread = 4 * kSlots;         // 8 floats per thread
constexpr int kChunk = kThreads * kPerThread;  // 2048 columns per block

// Two launches, both over the tile grid m = R rows by n = ceil(C / kChunk) chunks. Tile
// (row, k) covers columns [k * kChunk, +kChunk) of its row, clamped to C.
//   launch 0 (partials): loads its x chunk at the start, writes its float2 partial
//     part[row * n + k] at the end;
//   launch 1 (normalize): loads its x chunk and its row's n partials (thread 0) at the start,
//     then after the barrier the w and b chunks, and writes its out chunk.
class LayernormFootprint : public SwzFootprintSpec {
 public:
  enum { kX, kW, kB, kPart, kOut };
  SwzSize default_size() const override { return {65536, 16384}; }
  std::vector<SwzBuffer> buffers(const SwzSize& s) const override {
    const unsigned long long mat = 4ull * s[0] * s[1], vec = 4ull * s[1];
    const SwzFootprintGrid g = grid(s, 0);
    return {{"x", mat}, {"w", vec}, {"b", vec}, {"part", 8ull * g.m * g.n}, {"out", mat}};
  }
  unsigned launches(const SwzSize&) const override { return 2; }
  SwzFootprintGrid grid(const SwzSize& s, unsigned) const override {
    return {static_cast<unsigned long long>(s[0]), (s[1] + kChunk - 1ull) / kChunk};
  }
  // 256 threads; shared memory: launch 0 the float sh[kThreads] of block_sum, launch 1 the
  // float stats[2]. __launch_bounds__(256) alone bounds registers at 256, no tighter than the
  // per-thread maximum: 0 (unknown). Each launch names its kernel, so the compiler's count
  // for that kernel applies to it.
  SwzBlockUse block(const SwzSize&, unsigned launch) const override {
    return {kThreads, launch == 0 ? 4ull * kThreads : 4ull * 2, 0,
            launch == 0 ? "layernorm_partials_kernel" : "layernorm_normalize_kernel"};
  }
  // Sizes must fit the kernels' int indexing and a 1-D grid.
  const char* size_error(const SwzSize& s) const override {
    if (s[0] >= (1ll << 31) || s[1] >= (1ll << 31) - kChunk) return "R and C must be below 2^31 - 2048";
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
    out.read(kW, 4 * c0, 4 * cols, 0, 1, SwzWalk::runs);
    out.read(kB, 4 * c0, 4 * cols, 0, 1, SwzWalk::runs);
    out.write(kOut, 4 * (row * C + c0), 4 * cols, 0, 1, SwzWalk::runs);
  }
};
const SwzFootprintSpec& swz_footprint_spec() {
  static const LayernormFootprint spec;
  return spec;
}
// swizzleperf:footprint-end

constexpr float kEps = 1e-5f;

// Loads this thread's 8 elements of the chunk starting at column c0. Slot s covers columns
// c0 + s * 1024 + threadIdx.x * 4 + 0..3 (coalesced float4 per warp); columns >= C read as 0.
// vec: C % 4 == 0, so a slot starting below C is whole and 16-byte aligned.
__device__ __forceinline__ void load_chunk(const float* __restrict__ p, int C, int c0, bool vec,
                                           float (&v)[kPerThread]) {
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const int c = c0 + s * kThreads * 4 + static_cast<int>(threadIdx.x) * 4;
    if (vec && c < C) {
      const float4 q = *reinterpret_cast<const float4*>(p + c);
      v[4 * s + 0] = q.x;
      v[4 * s + 1] = q.y;
      v[4 * s + 2] = q.z;
      v[4 * s + 3] = q.w;
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) v[4 * s + j] = (c + j < C) ? p[c + j] : 0.f;
    }
  }
}

__device__ __forceinline__ bool in_row(int i, int c0, int C) {
  return c0 + (i / 4) * kThreads * 4 + static_cast<int>(threadIdx.x) * 4 + i % 4 < C;
}

// Fixed-order tree sum over the block's 256 threads through shared memory: the same inputs
// always give the same bits (independent of warp size and scheduling). All threads get it.
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
layernorm_partials_kernel(const float* __restrict__ x, float2* __restrict__ part, int C,
                          SwizzleGrid grid) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  const unsigned tile_m = t / grid.n;
  const unsigned tile_n = t % grid.n;
  if (tile_m >= grid.m) return;  // out-of-range swizzle: tile left unwritten, verify fails

  __shared__ float sh[kThreads];
  const int row = static_cast<int>(tile_m);
  const int c0 = static_cast<int>(tile_n) * kChunk;
  const int count = min(kChunk, C - c0);
  float v[kPerThread];
  load_chunk(x + static_cast<size_t>(row) * C, C, c0, C % 4 == 0, v);

  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) s += v[i];  // out-of-row elements are 0
  s = block_sum(s, sh);
  const float mean = s / static_cast<float>(count);
  float q = 0.f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const float d = v[i] - mean;
    if (in_row(i, c0, C)) q += d * d;
  }
  q = block_sum(q, sh);
  if (threadIdx.x == 0) part[static_cast<size_t>(row) * grid.n + tile_n] = make_float2(s, q);
}

__global__ void __launch_bounds__(kThreads)
layernorm_normalize_kernel(const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ b, const float2* __restrict__ part,
                           float* __restrict__ out, int C, SwizzleGrid grid) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  const unsigned tile_m = t / grid.n;
  const unsigned tile_n = t % grid.n;
  if (tile_m >= grid.m) return;  // out-of-range swizzle: tile left unwritten, verify fails

  __shared__ float stats[2];
  const int row = static_cast<int>(tile_m);
  const int c0 = static_cast<int>(tile_n) * kChunk;
  const bool vec = C % 4 == 0;
  float v[kPerThread];  // x loads issued before the barrier: they overlap the combine
  load_chunk(x + static_cast<size_t>(row) * C, C, c0, vec, v);
  if (threadIdx.x == 0) {  // combine the row's partials in chunk order (deterministic)
    const float2* p = part + static_cast<size_t>(row) * grid.n;
    float sum = 0.f;
    for (unsigned k = 0; k < grid.n; ++k) sum += p[k].x;
    const float mean = sum / static_cast<float>(C);
    float m2 = 0.f;
    for (unsigned k = 0; k < grid.n; ++k) {
      const float nk = static_cast<float>(min(kChunk, C - static_cast<int>(k) * kChunk));
      const float d = p[k].x / nk - mean;
      m2 += p[k].y + nk * d * d;
    }
    stats[0] = mean;
    stats[1] = 1.0f / sqrtf(m2 / static_cast<float>(C) + kEps);
  }
  __syncthreads();
  const float mean = stats[0], rstd = stats[1];
  float wv[kPerThread], bv[kPerThread];  // w/b chunk: shared by every row, normally L2 hits
  load_chunk(w, C, c0, vec, wv);
  load_chunk(b, C, c0, vec, bv);
  float* orow = out + static_cast<size_t>(row) * C;
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const int c = c0 + s * kThreads * 4 + static_cast<int>(threadIdx.x) * 4;
    float y[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) y[j] = (v[4 * s + j] - mean) * rstd * wv[4 * s + j] + bv[4 * s + j];
    if (vec && c < C) {
      *reinterpret_cast<float4*>(orow + c) = make_float4(y[0], y[1], y[2], y[3]);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (c + j < C) orow[c + j] = y[j];
    }
  }
}

class LayernormProgram : public SwzProgram {
 public:
  LayernormProgram() : SwzProgram("layernorm", "layernorm_.*") {}
  SwzSize default_size() const override { return swz_footprint_spec().default_size(); }
  // Small and ragged: 1 row / 1 column, C not a multiple of 4 (scalar path) or of 2048
  // (partial last chunk), C % 4 == 0 but ragged (vector path with a partial chunk), C = 2, 3.
  std::vector<SwzSize> verify_sizes() const override {
    return {{4, 2048}, {1, 1}, {3, 1}, {1, 5000}, {17, 4099}, {9, 2052}, {33, 6144}, {5, 2},
            {7, 3}, {2, 10241}};
  }
  // Both launches have the same grid.
  SwizzleGrid grid(const SwzSize& s) const override {
    const SwzFootprintGrid g = swz_footprint_spec().grid(s, 0);
    return {static_cast<unsigned>(g.m), static_cast<unsigned>(g.n)};
  }
  const SwzFootprintSpec* footprint() const override { return &swz_footprint_spec(); }
  // x read (both passes count once), out written, w and b read, partials written and read.
  unsigned long long footprint_bytes(const SwzSize& s) const override {
    const SwizzleGrid g = grid(s);
    return 4ull * (2ull * s[0] * s[1] + 2ull * s[1]) + 8ull * g.m * g.n;
  }
  // Pass 1 reads x, writes the partials; pass 2 reads x, w, b and the partials, writes out.
  std::vector<unsigned long long> launch_footprints_bytes(const SwzSize& s) const override {
    const SwizzleGrid g = grid(s);
    const unsigned long long x = 4ull * s[0] * s[1], part = 8ull * g.m * g.n;
    return {x + part, 2 * x + 8ull * s[1] + part};
  }

  void setup(const SwzSize& s, unsigned long long seed) override {
    R_ = static_cast<int>(s[0]), C_ = static_cast<int>(s[1]);
    g_ = grid(s);
    SwzRng rng(seed);
    dX_ = swz_alloc<float>(size_t(R_) * C_);
    hX_ = swz_random_f32_device(dX_, size_t(R_) * C_, rng);
    hW_ = swz_random_f32(C_, rng, 0.5f, 1.5f);
    hB_ = swz_random_f32(C_, rng, -0.5f, 0.5f);
    dW_ = swz_alloc<float>(C_);
    dB_ = swz_alloc<float>(C_);
    dPart_ = swz_alloc<float2>(size_t(g_.m) * g_.n);
    dOut_ = swz_alloc<float>(size_t(R_) * C_);
    swz_upload(dW_, hW_);
    swz_upload(dB_, hB_);
    // Partials are an intermediate, not the output: poison them too (NaN) so a pass 2 that
    // reads a partial pass 1 never wrote cannot look right.
    SWZ_CHECK(hipMemset(dPart_, 0xFF, size_t(g_.m) * g_.n * sizeof(float2)));
  }
  void run() override {
    hipLaunchKernelGGL(layernorm_partials_kernel, dim3(g_.m * g_.n), dim3(kThreads), 0, 0, dX_,
                       dPart_, C_, g_);
    SWZ_CHECK_LAUNCH();
    hipLaunchKernelGGL(layernorm_normalize_kernel, dim3(g_.m * g_.n), dim3(kThreads), 0, 0, dX_,
                       dW_, dB_, dPart_, dOut_, C_, g_);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {dOut_, size_t(R_) * C_, SwzDType::f32}; }

  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> o(size_t(R_) * C_);
    for (int r = 0; r < R_; ++r) {
      const float* xr = &hX_[size_t(r) * C_];
      double mean = 0, var = 0;
      row_stats(xr, &mean, &var);
      const double rstd = 1.0 / std::sqrt(var + static_cast<double>(kEps));
      for (int c = 0; c < C_; ++c)
        o[size_t(r) * C_ + c] = (xr[c] - mean) * rstd * hW_[c] + hB_[c];
    }
    return o;
  }
  // Absolute tolerance from the fp32 arithmetic, with eps = 2^-23 and d = 16 + n_chunks the
  // depth of the summations (8 serial adds per thread, 8 tree levels per block, then n_chunks
  // serial adds combining the chunks). Error sources in y = (x - mean) * rstd * w + b:
  //   mean: a depth-d sum, |err| <= d * eps * max|x|; times rstd * |w| in y;
  //   rstd: var has relative error <= ~(d + 4) * eps (sums of squares; the Chan terms are
  //     non-negative too), so rstd <= ~(d / 2 + 3) * eps relative; times |z| * |w|, where
  //     z = (x - mean) * rstd is the normalized value;
  //   final ops: a few roundings of values <= |y|.
  // tol = (d + 8) * eps * (max|w| * (2 * rstd_max * max|x| + z_max) + y_max), with rstd_max,
  // z_max and y_max taken from the inputs (in double): rstd is large only for near-constant
  // rows (C = 2 with close values; C = 1 gives y = b exactly). For C = 16384 rows of uniform
  // [-1, 1] data this is ~4e-5 (typical errors ~6e-7); a wrong row's or column's statistics,
  // or a misplaced tile, moves y by O(0.1..1), and a missing tile is NaN poison.
  SwzTol tolerance(const SwzSize& s) const override {
    const double eps = 1.1920928955078125e-7;
    const double d = 16.0 + grid(s).n;
    double max_x = 0, max_w = 0, max_b = 0, rstd_max = 0, z_max = 0;
    for (int c = 0; c < C_; ++c) {
      max_w = std::max(max_w, std::fabs(static_cast<double>(hW_[c])));
      max_b = std::max(max_b, std::fabs(static_cast<double>(hB_[c])));
    }
    for (int r = 0; r < R_; ++r) {
      const float* xr = &hX_[size_t(r) * C_];
      double mean = 0, var = 0;
      row_stats(xr, &mean, &var);
      const double rstd = 1.0 / std::sqrt(var + static_cast<double>(kEps));
      rstd_max = std::max(rstd_max, rstd);
      for (int c = 0; c < C_; ++c) {
        max_x = std::max(max_x, std::fabs(static_cast<double>(xr[c])));
        z_max = std::max(z_max, std::fabs(xr[c] - mean) * rstd);
      }
    }
    const double y_max = max_w * z_max + max_b;
    return {(d + 8.0) * eps * (max_w * (2.0 * rstd_max * max_x + z_max) + y_max), 0.0};
  }

  // Sizes must fit the kernels' int indexing and a 1-D grid (the footprint's checks).
  const char* size_error(const SwzSize& s) const override { return swz_footprint_spec().size_error(s); }

 private:
  void row_stats(const float* xr, double* mean, double* var) const {
    double m = 0;
    for (int c = 0; c < C_; ++c) m += xr[c];
    m /= C_;
    double q = 0;
    for (int c = 0; c < C_; ++c) q += (xr[c] - m) * (xr[c] - m);
    *mean = m;
    *var = q / C_;
  }

  int R_ = 0, C_ = 0;
  SwizzleGrid g_ = {0, 0};
  std::vector<float> hX_, hW_, hB_;
  float *dX_ = nullptr, *dW_ = nullptr, *dB_ = nullptr, *dOut_ = nullptr;
  float2* dPart_ = nullptr;
};

int main(int argc, char** argv) {
  LayernormProgram prog;
  return swz_main(prog, argc, argv);
}
