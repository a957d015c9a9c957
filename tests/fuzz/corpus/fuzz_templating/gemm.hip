// swizzleperf kernel: fp32 SGEMM, C = A * B, row-major (A is MxK, B is KxN, C is MxN).
// swizzleperf:default-grid 32x256
// Size is M,N,K. Each block computes one 128x128 tile of C; the grid is 1-D with
// tiles_m * tiles_n blocks and block blockIdx.x computes logical tile
// swizzle_pid(blockIdx.x, ...) (row-major over the tile grid). Register-tiled: 256
// threads, 8x8 outputs per thread, BK = 8, shared memory, fp32 FMA, no tensor cores.
// Correct for any M, N, K >= 1 (bounds-checked loads and stores).
#include <hip/hip_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

// swizzleperf:footprint-begin
constexpr int kBM = 128, kBN = 128, kBK = 8, kThreads = 256;

// Tile (tm, tn) reads A's row panel (kBM rows of K, k-slice by k-slice) and B's column panel
// (K rows of kBN columns, row by row) and writes its kBM x kBN block of C once, at the end.
class GemmFootprint : public SwzFootprintSpec {
 public:
  enum { kA, kB, kC };
  SwzSize default_size() const override { return {4096, 32768, 1024}; }
  std::vector<SwzBuffer> buffers(const SwzSize& s) const override {
    return {{"A", 4ull * s[0] * s[2]}, {"B", 4ull * s[2] * s[1]}, {"C", 4ull * s[0] * s[1]}};
  }
  SwzFootprintGrid grid(const SwzSize& s, unsigned) const override {
    return {(s[0] + kBM - 1ull) / kBM, (s[1] + kBN - 1ull) / kBN};
  }
  // 256 threads, As + Bs in shared memory, __launch_bounds__(256, 2): at most 128 registers.
  SwzBlockUse block(const SwzSize&, unsigned) const override {
    return {kThreads, 4ull * kBK * (kBM + 4) + 4ull * kBK * kBN, 128};
  }
  void tile(const SwzSize& s, unsigned, unsigned long long tm, unsigned long long tn,
            SwzTileFootprint& out) const override {
    const unsigned long long M = s[0], N = s[1], K = s[2];
    const unsigned long long r0 = tm * kBM, c0 = tn * kBN;
    const unsigned long long rows = swz_fp_clamp(r0, kBM, M), cols = swz_fp_clamp(c0, kBN, N);
    out.read(kA, 4 * r0 * K, 4 * K, 4 * K, rows, SwzWalk::parallel);
    out.read(kB, 4 * c0, 4 * cols, 4 * N, K, SwzWalk::runs);
    out.write(kC, 4 * (r0 * N + c0), 4 * cols, 4 * N, rows, SwzWalk::once);
  }
};
const SwzFootprintSpec& swz_footprint_spec() {
  static const GemmFootprint spec;
  return spec;
}
// swizzleperf:footprint-end

// Four consecutive elements (r, c..c+3) of a rows x cols row-major matrix; zeros outside.
// vec: cols % 4 == 0, so (r, c) with c % 4 == 0 is 16-byte aligned and c < cols implies
// c + 3 < cols.
__device__ __forceinline__ float4 load4(const float* __restrict__ p, int rows, int cols, int r,
                                        int c, bool vec) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (r >= rows) return v;
  const float* q = p + static_cast<size_t>(r) * cols + c;
  if (vec) {
    if (c < cols) v = *reinterpret_cast<const float4*>(q);
  } else {
    if (c < cols) v.x = q[0];
    if (c + 1 < cols) v.y = q[1];
    if (c + 2 < cols) v.z = q[2];
    if (c + 3 < cols) v.w = q[3];
  }
  return v;
}

__global__ void __launch_bounds__(kThreads, 2)
gemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
            int M, int N, int K, SwizzleGrid grid) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  const unsigned tile_m = t / grid.n;
  const unsigned tile_n = t % grid.n;
  if (tile_m >= grid.m) return;  // out-of-range swizzle: tile left unwritten, verify fails

  __shared__ __align__(16) float As[kBK][kBM + 4];  // A tile, k-major; +4 avoids bank conflicts
  __shared__ __align__(16) float Bs[kBK][kBN];

  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;            // 16x16 threads, 8x8 outputs each
  const int row0 = static_cast<int>(tile_m) * kBM;
  const int col0 = static_cast<int>(tile_n) * kBN;
  const int a_r = tid / 2, a_c = (tid % 2) * 4;       // A tile: 128 rows x 8 k
  const int b_r = tid / 32, b_c = (tid % 32) * 4;     // B tile: 8 k x 128 cols
  const bool a_vec = K % 4 == 0, b_vec = N % 4 == 0;

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

  float4 ra = load4(A, M, K, row0 + a_r, a_c, a_vec);
  float4 rb = load4(B, K, N, b_r, col0 + b_c, b_vec);
  const int k_tiles = (K + kBK - 1) / kBK;
  for (int kt = 0; kt < k_tiles; ++kt) {
    As[a_c + 0][a_r] = ra.x;
    As[a_c + 1][a_r] = ra.y;
    As[a_c + 2][a_r] = ra.z;
    As[a_c + 3][a_r] = ra.w;
    *reinterpret_cast<float4*>(&Bs[b_r][b_c]) = rb;
    __syncthreads();
    if (kt + 1 < k_tiles) {  // prefetch the next k-tile into registers
      const int k0 = (kt + 1) * kBK;
      ra = load4(A, M, K, row0 + a_r, k0 + a_c, a_vec);
      rb = load4(B, K, N, k0 + b_r, col0 + b_c, b_vec);
    }
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      // Thread rows: ty*4+{0..3} and 64+ty*4+{0..3}; columns likewise with tx.
      const float4 a0 = *reinterpret_cast<const float4*>(&As[kk][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[kk][64 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[kk][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[kk][64 + tx * 4]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int m = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (m >= M) continue;
    float* crow = C + static_cast<size_t>(m) * N;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int n = col0 + h * 64 + tx * 4;
      const float* v = &acc[i][h * 4];
      if (b_vec && n < N) {
        *reinterpret_cast<float4*>(crow + n) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (n + j < N) crow[n + j] = v[j];
      }
    }
  }
}

class GemmProgram : public SwzProgram {
 public:
  GemmProgram() : SwzProgram("gemm", "gemm_kernel") {}
  // 4096 x 32768 x 1024 (an LM-head-like shape): 256 tiles per tile row exceed the
  // ~264 blocks an H100 holds at once, so row-major order re-streams B for every tile
  // row; about 6.6 ms on an H100 (bench/results/2026-11-22-h100-gemm-calibration.md).
  SwzSize default_size() const override { return swz_footprint_spec().default_size(); }
  std::vector<SwzSize> verify_sizes() const override {
    return {{128, 128, 64}, {257, 131, 67}, {1, 300, 5}, {300, 1, 17}, {200, 264, 36},
            {515, 259, 1000}};
  }
  SwizzleGrid grid(const SwzSize& s) const override {
    const SwzFootprintGrid g = swz_footprint_spec().grid(s, 0);
    return {static_cast<unsigned>(g.m), static_cast<unsigned>(g.n)};
  }
  const SwzFootprintSpec* footprint() const override { return &swz_footprint_spec(); }
  unsigned long long footprint_bytes(const SwzSize& s) const override {
    return 4ull * (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]);
  }

  void setup(const SwzSize& s, unsigned long long seed) override {
    M_ = static_cast<int>(s[0]), N_ = static_cast<int>(s[1]), K_ = static_cast<int>(s[2]);
    SwzRng rng(seed);
    dA_ = swz_alloc<float>(size_t(M_) * K_);
    dB_ = swz_alloc<float>(size_t(K_) * N_);
    dC_ = swz_alloc<float>(size_t(M_) * N_);
    hA_ = swz_random_f32_device(dA_, size_t(M_) * K_, rng);
    hB_ = swz_random_f32_device(dB_, size_t(K_) * N_, rng);
  }
  void run() override {
    const SwizzleGrid g = grid({M_, N_, K_});
    hipLaunchKernelGGL(gemm_kernel, dim3(g.m * g.n), dim3(kThreads), 0, 0, dA_, dB_, dC_, M_, N_,
                       K_, g);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {dC_, size_t(M_) * N_, SwzDType::f32}; }

  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> c(size_t(M_) * N_, 0.0);
    for (int m = 0; m < M_; ++m)
      for (int k = 0; k < K_; ++k) {
        const double a = hA_[size_t(m) * K_ + k];
        const float* brow = &hB_[size_t(k) * N_];
        double* crow = &c[size_t(m) * N_];
        for (int n = 0; n < N_; ++n) crow[n] += a * brow[n];
      }
    return c;
  }
  // Inputs are uniform in [-1, 1], so sum_k |a_mk * b_kn| <= K. fp32 accumulation of K
  // terms errs by about sqrt(K) * eps * sum|a*b| (random-walk rounding; the worst case is
  // K * eps * sum|a*b|): tol = sqrt(K) * eps * K. Typical errors are ~K * eps / 3, far
  // below it; a wrong or missing tile, or a dropped k-slice, errs by O(0.1..1).
  SwzTol tolerance(const SwzSize& s) const override {
    const double K = static_cast<double>(s[2]);
    return {std::sqrt(K) * 1.1920928955078125e-7 * K, 0.0};
  }

  // Sizes must fit the kernel's int indexing.
  const char* size_error(const SwzSize& s) const override {
    const long long lim = (1ll << 31) - kBM;
    if (s[0] >= lim || s[1] >= lim || s[2] >= lim) return "M, N and K must be below 2^31 - 128";
    if ((s[0] + kBM - 1) / kBM * ((s[1] + kBN - 1) / kBN) >= (1ll << 31))
      return "tiles_m * tiles_n must be below 2^31";
    return nullptr;
  }

 private:
  int M_ = 0, N_ = 0, K_ = 0;
  std::vector<float> hA_, hB_;
  float *dA_ = nullptr, *dB_ = nullptr, *dC_ = nullptr;
};

int main(int argc, char** argv) {
  GemmProgram prog;
  return swz_main(prog, argc, argv);
}
