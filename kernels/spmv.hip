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

// swizzleperf:footprint-begin
constexpr int kRowsPerBlock = 256;  // = threads per block, one row per thread
constexpr int kBandMin = 16;        // band nonzeros per row: kBandMin + r % kBandSpread
constexpr int kBandSpread = 17;     //   (16..32)
constexpr int kFar = 2;             // far nonzeros per row

// The matrix's row structure comes from the size alone: row r has band_nnz(r) band nonzeros
// plus kFar far ones, so row_ptr, and which slice of col / val a row block owns, are exact.
// Tile (0, t) owns rows [256 t, +256) (clamped to n), one per thread; it reads row_ptr[r0 ..
// r1] (r1 = its last row + 1) at the start, then each thread walks its row's nonzeros: col
// and val [row_ptr[r0], row_ptr[r1]) (about 100 bytes a row, so the block's first loads
// already touch nearly every line of the slice: `once`), and x[col[j]]; it writes y[r0..r1)
// at the end.
// x: APPROXIMATE. The column of each nonzero is drawn from the seed, so only where it can lie
// is known: a band nonzero of row r lies in r's band window [band_lo(r), band_lo(r) + W')
// (one per equal slot of the window), and the declared x span is the union of the tile's
// rows' windows, [band_lo(r0), band_lo(r1 - 1) + W') (windows move by at most one column
// from row to row, so it is one run, swept slot by slot from its start to its end). It is a
// superset of the band reads: each row reads band_nnz(r) of its W' window entries (all of
// them when band_nnz(r) = W'); at the default size the block's 256 rows read about a third
// of the 16.4K window entries, yet every 128-byte line of it. The kFar = 2 far columns per
// row cannot be known without the seed and are NOT declared: 512 single-float reads per
// tile, uniform over all of x, so about 512 more 128-byte lines, as many as the band window
// itself (at the default size about half of the x lines a tile touches are undeclared).
class SpmvFootprint : public SwzFootprintSpec {
 public:
  enum { kRowPtr, kCol, kVal, kXv, kY };
  SwzSize default_size() const override { return {18874368, 16384}; }
  std::vector<SwzBuffer> buffers(const SwzSize& s) const override {
    const unsigned long long n = static_cast<unsigned long long>(s[0]), nnz = row_start(s, s[0]);
    return {{"row_ptr", 4 * (n + 1)}, {"col", 4 * nnz}, {"val", 4 * nnz}, {"x", 4 * n}, {"y", 4 * n}};
  }
  SwzFootprintGrid grid(const SwzSize& s, unsigned) const override {
    return {1, (static_cast<unsigned long long>(s[0]) + kRowsPerBlock - 1) / kRowsPerBlock};
  }
  // No shared memory; __launch_bounds__(256) alone bounds registers at 256, no tighter than
  // the per-thread maximum: 0 (unknown).
  SwzBlockUse block(const SwzSize&, unsigned) const override { return {kRowsPerBlock, 0, 0}; }
  // The nonzero count must fit the int32 row pointers.
  const char* size_error(const SwzSize& s) const override {
    if (s[0] > 60000000) return "n must be at most 60,000,000 (nonzeros must fit int32)";
    return nullptr;
  }
  void tile(const SwzSize& s, unsigned, unsigned long long, unsigned long long t,
            SwzTileFootprint& out) const override {
    const long long n = s[0], w = band_width(s);
    const long long r0 = static_cast<long long>(t) * kRowsPerBlock;
    const long long rows = static_cast<long long>(swz_fp_clamp(r0, kRowsPerBlock, n)), r1 = r0 + rows;
    if (rows == 0) return;
    const unsigned long long j0 = row_start(s, r0), j1 = row_start(s, r1);
    const unsigned long long x0 = band_lo(s, r0), x1 = band_lo(s, r1 - 1) + w;
    out.read(kRowPtr, 4ull * r0, 4ull * (rows + 1), 0, 1, SwzWalk::once);
    out.read(kCol, 4 * j0, 4 * (j1 - j0), 0, 1, SwzWalk::once);
    out.read(kVal, 4 * j0, 4 * (j1 - j0), 0, 1, SwzWalk::once);
    out.read(kXv, 4 * x0, 4 * (x1 - x0), 0, 1, SwzWalk::runs);
    out.write(kY, 4ull * r0, 4ull * rows, 0, 1, SwzWalk::once);
  }

  // The matrix generator's structure (setup() builds the matrix with these).
  // W' = min(W, n): the band's width.
  static long long band_width(const SwzSize& s) { return s[1] < s[0] ? s[1] : s[0]; }
  // Band nonzeros of row r: min(kBandMin + r % kBandSpread, W').
  static int band_nnz(long long r, long long w) {
    const long long k = kBandMin + r % kBandSpread;
    return static_cast<int>(k < w ? k : w);
  }
  // First column of row r's band window [lo, lo + W'): centred on the diagonal, clamped.
  static long long band_lo(const SwzSize& s, long long r) {
    const long long n = s[0], w = band_width(s), lo = r - w / 2 > 0 ? r - w / 2 : 0;
    return lo < n - w ? lo : n - w;
  }
  // row_ptr[r]: nonzeros of rows [0, r), in closed form (row counts repeat every kBandSpread
  // rows); row_start(s, n) is the matrix's nonzero count.
  static unsigned long long row_start(const SwzSize& s, long long r) {
    const long long w = band_width(s);
    unsigned long long period = 0, part = 0;
    for (int q = 0; q < kBandSpread; ++q) {
      const unsigned long long c = static_cast<unsigned long long>(band_nnz(q, w) + kFar);
      period += c;
      if (q < r % kBandSpread) part += c;
    }
    return static_cast<unsigned long long>(r / kBandSpread) * period + part;
  }
};
const SwzFootprintSpec& swz_footprint_spec() {
  static const SpmvFootprint spec;
  return spec;
}
// swizzleperf:footprint-end

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
long long band_width(const SwzSize& s) { return SpmvFootprint::band_width(s); }
int band_nnz(long long r, long long w) { return SpmvFootprint::band_nnz(r, w); }
// Number of nonzeros of the matrix at size s (depends on the size only).
unsigned long long matrix_nnz(const SwzSize& s) { return SpmvFootprint::row_start(s, s[0]); }
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
  SwzSize default_size() const override { return swz_footprint_spec().default_size(); }
  // Small and ragged: 1 row, band of 1, n not a multiple of 256, band wider than the matrix,
  // band narrower than the row's nonzero count (counts clamp to W').
  std::vector<SwzSize> verify_sizes() const override {
    return {{256, 64}, {1, 1}, {1, 16}, {300, 1}, {1000, 100}, {2049, 777}, {5000, 20000},
            {70000, 4096}, {33, 20}};
  }
  SwizzleGrid grid(const SwzSize& s) const override {
    const SwzFootprintGrid g = swz_footprint_spec().grid(s, 0);
    return {static_cast<unsigned>(g.m), static_cast<unsigned>(g.n)};
  }
  const SwzFootprintSpec* footprint() const override { return &swz_footprint_spec(); }
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
      const long long lo = SpmvFootprint::band_lo(s, r);  // band [lo, lo + w)
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

  // The nonzero count must fit the int32 row pointers (the footprint's check).
  const char* size_error(const SwzSize& s) const override { return swz_footprint_spec().size_error(s); }

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
