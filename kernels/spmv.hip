// swizzleperf kernel: sparse matrix-vector product y = A x, naive CSR (scalar: one thread per
// row walks its row's nonzeros in order), fp32 values, int32 indices.
// swizzleperf:default-grid 1x73728
// Size is n,W (default 18874368,16384): A is n x n with a banded random pattern. Row r has
// min(16 + r % 17, W') nonzeros (16..32, mean 24) inside the band of W' = min(W, n) columns
// centred on the diagonal (clamped at the matrix edges), one per equal slot of the band (so
// they are distinct and sorted), then 2 "far" columns drawn uniformly from [0, n). Columns
// and values come from the seeded harness RNG, the nonzero counts from the size alone (so
// footprint_bytes needs no data); the matrix is built once on the host in setup().
// Work split: blocks of 256 consecutive rows. The tile grid is 1-D: m = 1, n = ceil(n / 256)
// row blocks, tile t = row block t (tile_m = 0, tile_n = t). One 1-D launch of that many
// blocks; block blockIdx.x computes row block swizzle_pid(blockIdx.x, ...). (A 2-D grouping
// would be artificial: the only structure is the row order, and its locality is 1-D.)
// Sharing between blocks (what a swizzle can exploit): a row block reads x over its band
// window, 256 + W' entries (~66 KB at the default size), so about W' / 256 = 64 consecutive
// row blocks read overlapping parts of x; keeping runs of consecutive row blocks on one die
// keeps each x window in one L2 partition. Values, column indices and row pointers are each
// read by one block only (a stream: 8 bytes per nonzero), and the far columns are random
// gathers over all of x (72 MiB at the default size, ~1.5x the L2). Each row is summed by
// one thread in a fixed order, so the output is bit-identical whatever order the blocks run
// in. Correct for any n, W >= 1.
#include <hip/hip_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

constexpr int kRowsPerBlock = 256;  // = threads per block, one row per thread
constexpr int kBandMin = 16;        // band nonzeros per row: kBandMin + r % kBandSpread
constexpr int kBandSpread = 17;     //   (16..32)
constexpr int kFar = 2;             // far nonzeros per row
constexpr int kMaxRowNnz = kBandMin + kBandSpread - 1 + kFar;  // 34

__global__ void __launch_bounds__(kRowsPerBlock)
spmv_csr_kernel(const int* __restrict__ row_ptr, const int* __restrict__ col,
                const float* __restrict__ val, const float* __restrict__ x,
                float* __restrict__ y, int n, SwizzleGrid grid) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  const unsigned tile_m = t / grid.n;
  const unsigned tile_n = t % grid.n;
  if (tile_m >= grid.m) return;  // out-of-range swizzle: tile left unwritten, verify fails

  const int r = static_cast<int>(tile_n) * kRowsPerBlock + static_cast<int>(threadIdx.x);
  if (r >= n) return;  // no sync in this kernel: idle threads may leave
  const int end = row_ptr[r + 1];
  float acc = 0.f;
  for (int j = row_ptr[r]; j < end; ++j) acc = fmaf(val[j], x[col[j]], acc);
  y[r] = acc;
}

namespace {
long long band_width(const SwzSize& s) { return std::min<long long>(s[1], s[0]); }
int band_nnz(long long r, long long w) { return static_cast<int>(std::min<long long>(kBandMin + r % kBandSpread, w)); }
// Number of nonzeros of the matrix at size s (depends on the size only).
unsigned long long matrix_nnz(const SwzSize& s) {
  const long long n = s[0], w = band_width(s);
  unsigned long long nnz = 0;
  for (long long r = 0; r < n; ++r) nnz += static_cast<unsigned long long>(band_nnz(r, w) + kFar);
  return nnz;
}
// One 64-bit draw per nonzero (the build is ~490M nonzeros at the default size): the high
// 32 bits give the column, uniform in [0, range) for range < 2^32 by multiply-shift; the low
// 24 bits give the value, uniform on the 2^-23 grid of [-1, 1) (exact in fp32).
long long below(unsigned long long z, long long range) {
  return static_cast<long long>(((z >> 32) * static_cast<unsigned long long>(range)) >> 32);
}
float value(unsigned long long z) {
  return static_cast<float>(z & 0xFFFFFFull) * (2.0f / 16777216.0f) - 1.0f;
}
}  // namespace

class SpmvProgram : public SwzProgram {
 public:
  SpmvProgram() : SwzProgram("spmv", "spmv_csr_kernel") {}
  // 18874368 = 18 * 2^20 rows (~490M nonzeros): 25165824 rows measured 6.64 ms on an H100
  // (2026-11-22), so this size is ~5.0 ms by linear scaling.
  SwzSize default_size() const override { return {18874368, 16384}; }
  // Small and ragged: 1 row, band of 1, n not a multiple of 256, band wider than the matrix,
  // band narrower than the row's nonzero count (counts clamp to W').
  std::vector<SwzSize> verify_sizes() const override {
    return {{256, 64}, {1, 1}, {1, 16}, {300, 1}, {1000, 100}, {2049, 777}, {5000, 20000},
            {70000, 4096}, {33, 20}};
  }
  SwizzleGrid grid(const SwzSize& s) const override {
    return {1u, swz_ceil_div(s[0], kRowsPerBlock)};
  }
  // row_ptr, col and val read, x read (each entry at least once), y written.
  unsigned long long footprint_bytes(const SwzSize& s) const override {
    const unsigned long long n = static_cast<unsigned long long>(s[0]);
    return 4ull * (n + 1) + 8ull * matrix_nnz(s) + 4ull * n + 4ull * n;
  }

  void setup(const SwzSize& s, unsigned long long seed) override {
    n_ = static_cast<int>(s[0]);
    const long long n = s[0], w = band_width(s);
    const unsigned long long nnz = matrix_nnz(s);
    SwzRng rng(seed);
    hRowPtr_.assign(static_cast<size_t>(n) + 1, 0);
    hCol_.resize(nnz);
    hVal_.resize(nnz);
    size_t j = 0;
    for (long long r = 0; r < n; ++r) {
      hRowPtr_[r] = static_cast<int>(j);
      const int k = band_nnz(r, w);
      const long long lo = std::min(std::max(r - w / 2, 0ll), n - w);  // band [lo, lo + w)
      long long a = lo;
      for (int q = 0; q < k; ++q) {  // one column per slot [a, b) of the band
        const long long b = lo + (q + 1) * w / k;
        const unsigned long long z = rng.next();
        hCol_[j] = static_cast<int>(a + below(z, b - a));
        hVal_[j++] = value(z);
        a = b;
      }
      for (int f = 0; f < kFar; ++f) {
        const unsigned long long z = rng.next();
        hCol_[j] = static_cast<int>(below(z, n));
        hVal_[j++] = value(z);
      }
    }
    hRowPtr_[n] = static_cast<int>(j);
    hX_ = swz_random_f32(static_cast<size_t>(n), rng);
    dRowPtr_ = swz_alloc<int>(hRowPtr_.size());
    dCol_ = swz_alloc<int>(hCol_.size());
    dVal_ = swz_alloc<float>(hVal_.size());
    dX_ = swz_alloc<float>(hX_.size());
    dY_ = swz_alloc<float>(static_cast<size_t>(n));
    swz_upload(dRowPtr_, hRowPtr_);
    swz_upload(dCol_, hCol_);
    swz_upload(dVal_, hVal_);
    swz_upload(dX_, hX_);
  }
  void run() override {
    const SwizzleGrid g = grid({n_, 1});
    hipLaunchKernelGGL(spmv_csr_kernel, dim3(g.m * g.n), dim3(kRowsPerBlock), 0, 0, dRowPtr_,
                       dCol_, dVal_, dX_, dY_, n_, g);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {dY_, static_cast<size_t>(n_), SwzDType::f32}; }

  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> y(static_cast<size_t>(n_));
    for (int r = 0; r < n_; ++r) {
      double acc = 0;
      for (int j = hRowPtr_[r]; j < hRowPtr_[r + 1]; ++j)
        acc += static_cast<double>(hVal_[j]) * hX_[hCol_[j]];
      y[r] = acc;
    }
    return y;
  }
  // Each y[r] is an fp32 fma chain of k <= 34 terms |a * x| <= 1, so its error is at most
  // k * eps * sum |a * x| <= 34 * 34 * eps = 1.4e-4 (eps = 2^-23; the usual gamma_k bound).
  // Typical errors are ~1e-7; a wrong row block (another block's rows) errs by O(1) since
  // |y| ~ 1.7 on average, and a missing block is NaN poison.
  SwzTol tolerance(const SwzSize&) const override {
    return {double(kMaxRowNnz) * kMaxRowNnz * 1.1920928955078125e-7, 0.0};
  }

  // The nonzero count must fit the int32 row pointers.
  const char* size_error(const SwzSize& s) const override {
    if (s[0] > 60000000) return "n must be at most 60,000,000 (nonzeros must fit int32)";
    return nullptr;
  }

 private:
  int n_ = 0;
  std::vector<int> hRowPtr_, hCol_;
  std::vector<float> hVal_, hX_;
  int *dRowPtr_ = nullptr, *dCol_ = nullptr;
  float *dVal_ = nullptr, *dX_ = nullptr, *dY_ = nullptr;
};

int main(int argc, char** argv) {
  SpmvProgram prog;
  return swz_main(prog, argc, argv);
}
