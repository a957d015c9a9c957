// swizzleperf kernel: matrix transpose, out = in^T, for an M x N fp32 row-major matrix
// (out is N x M, row-major).
// swizzleperf:default-grid 512x704
// Size is M,N (default 32768,45056; not square, so a swizzle that mixes up m and n shows).
// Each block moves one 64 x 64 tile through shared memory (padded to 65 columns, so both the
// row-wise fill and the column-wise drain are free of bank conflicts); the logical tile grid
// is m = ceil(M / 64) by n = ceil(N / 64), tile t = tile_m * n + tile_n covers input rows
// 64*tile_m.. and columns 64*tile_n.., i.e. output rows 64*tile_n.. and columns 64*tile_m...
// One 1-D launch of m * n blocks of 256 threads (64 x 4); block blockIdx.x moves logical tile
// swizzle_pid(blockIdx.x, ...). Each thread reads 16 and writes 16 elements; a 32-wide warp reads and
// writes 128 contiguous bytes per access.
// Sharing between blocks (what a swizzle can exploit): no element is touched twice, so there
// is no data reuse; what blocks share is DRAM pages / L2 lines and sets: blocks of one tile
// row read the same input rows (64 rows x 256 B side by side), blocks of one tile column write
// the same output rows. The paper's swizzle (Fig. 10) keeps a die's reads and transposed
// writes in bands of rows/columns; on MI300X it gave 2.06x. Pure data movement, so the output
// is bit-identical whatever order the blocks run in. Correct for any M, N >= 1.
#include <hip/hip_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

// swizzleperf:footprint-begin
constexpr int kTile = 64;
constexpr int kThreadsX = 64, kThreadsY = 4;
constexpr int kThreads = kThreadsX * kThreadsY;  // 256

// Tile (tm, tn) reads input rows 64*tm.. (64 of them, clamped to M), columns 64*tn.. (clamped
// to N), kThreadsY rows per step, and writes the transposed block: output rows 64*tn..,
// columns 64*tm.., likewise row by row after the barrier.
class TransposeFootprint : public SwzFootprintSpec {
 public:
  enum { kIn, kOut };
  SwzSize default_size() const override { return {32768, 45056}; }
  std::vector<SwzBuffer> buffers(const SwzSize& s) const override {
    const unsigned long long bytes = 4ull * s[0] * s[1];
    return {{"in", bytes}, {"out", bytes}};
  }
  SwzFootprintGrid grid(const SwzSize& s, unsigned) const override {
    return {(s[0] + kTile - 1ull) / kTile, (s[1] + kTile - 1ull) / kTile};
  }
  // 256 threads, the padded 64 x 65 float tile in shared memory; __launch_bounds__(256) alone
  // bounds registers at 256, no tighter than the per-thread maximum: 0 (unknown).
  SwzBlockUse block(const SwzSize&, unsigned) const override {
    return {kThreads, 4ull * kTile * (kTile + 1), 0};
  }
  // Sizes must fit the kernel's int indexing and a 1-D grid.
  const char* size_error(const SwzSize& s) const override {
    if (s[0] >= (1ll << 31) - kTile || s[1] >= (1ll << 31) - kTile)
      return "M and N must be below 2^31 - 64";
    if ((s[0] + kTile - 1) / kTile * ((s[1] + kTile - 1) / kTile) >= (1ll << 31))
      return "tiles_m * tiles_n must be below 2^31";
    return nullptr;
  }
  void tile(const SwzSize& s, unsigned, unsigned long long tm, unsigned long long tn,
            SwzTileFootprint& out) const override {
    const unsigned long long M = s[0], N = s[1];
    const unsigned long long r0 = tm * kTile, c0 = tn * kTile;
    const unsigned long long rows = swz_fp_clamp(r0, kTile, M), cols = swz_fp_clamp(c0, kTile, N);
    out.read(kIn, 4 * (r0 * N + c0), 4 * cols, 4 * N, rows, SwzWalk::runs);
    out.write(kOut, 4 * (c0 * M + r0), 4 * rows, 4 * M, cols, SwzWalk::runs);
  }
};
const SwzFootprintSpec& swz_footprint_spec() {
  static const TransposeFootprint spec;
  return spec;
}
// swizzleperf:footprint-end

__global__ void __launch_bounds__(kThreads)
transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int M, int N,
                 SwizzleGrid grid) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  const unsigned tile_m = t / grid.n;
  const unsigned tile_n = t % grid.n;
  if (tile_m >= grid.m) return;  // out-of-range swizzle: tile left unwritten, verify fails

  __shared__ float tile[kTile][kTile + 1];
  const int tx = static_cast<int>(threadIdx.x) % kThreadsX;
  const int ty = static_cast<int>(threadIdx.x) / kThreadsX;
  const int row0 = static_cast<int>(tile_m) * kTile;  // input rows = output columns
  const int col0 = static_cast<int>(tile_n) * kTile;  // input columns = output rows

  const int c = col0 + tx;
#pragma unroll
  for (int i = 0; i < kTile / kThreadsY; ++i) {
    const int r = ty + i * kThreadsY;
    const int gr = row0 + r;
    if (gr < M && c < N) tile[r][tx] = in[static_cast<size_t>(gr) * N + c];
  }
  __syncthreads();
  const int oc = row0 + tx;  // output column
#pragma unroll
  for (int i = 0; i < kTile / kThreadsY; ++i) {
    const int r = ty + i * kThreadsY;
    const int orow = col0 + r;  // output row
    if (orow < N && oc < M) out[static_cast<size_t>(orow) * M + oc] = tile[tx][r];
  }
}

class TransposeProgram : public SwzProgram {
 public:
  TransposeProgram() : SwzProgram("transpose", "transpose_kernel") {}
  SwzSize default_size() const override { return swz_footprint_spec().default_size(); }
  // Small and ragged: 1x1, one row, one column, sides not multiples of 64 (partial tiles on
  // either or both edges), one side just over a tile.
  std::vector<SwzSize> verify_sizes() const override {
    return {{64, 64}, {1, 1}, {1, 300}, {300, 1}, {129, 67}, {200, 333}, {65, 1000}, {3, 5},
            {256, 192}};
  }
  SwizzleGrid grid(const SwzSize& s) const override {
    const SwzFootprintGrid g = swz_footprint_spec().grid(s, 0);
    return {static_cast<unsigned>(g.m), static_cast<unsigned>(g.n)};
  }
  const SwzFootprintSpec* footprint() const override { return &swz_footprint_spec(); }
  unsigned long long footprint_bytes(const SwzSize& s) const override {
    return 8ull * s[0] * s[1];  // each element read once and written once
  }

  void setup(const SwzSize& s, unsigned long long seed) override {
    M_ = static_cast<int>(s[0]), N_ = static_cast<int>(s[1]);
    SwzRng rng(seed);
    dIn_ = swz_alloc<float>(size_t(M_) * N_);
    dOut_ = swz_alloc<float>(size_t(M_) * N_);
    hIn_ = swz_random_f32_device(dIn_, size_t(M_) * N_, rng);
  }
  void run() override {
    const SwizzleGrid g = grid({M_, N_});
    hipLaunchKernelGGL(transpose_kernel, dim3(g.m * g.n), dim3(kThreads), 0, 0, dIn_, dOut_, M_,
                       N_, g);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {dOut_, size_t(M_) * N_, SwzDType::f32}; }

  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> o(size_t(M_) * N_);
    for (int i = 0; i < M_; ++i)
      for (int j = 0; j < N_; ++j) o[size_t(j) * M_ + i] = hIn_[size_t(i) * N_ + j];
    return o;
  }
  // A transpose only copies bits: every element must match exactly.
  SwzTol tolerance(const SwzSize&) const override { return {0.0, 0.0}; }

  // Sizes must fit the kernel's int indexing and a 1-D grid (the footprint's checks).
  const char* size_error(const SwzSize& s) const override { return swz_footprint_spec().size_error(s); }

 private:
  int M_ = 0, N_ = 0;
  std::vector<float> hIn_;
  float *dIn_ = nullptr, *dOut_ = nullptr;
};

int main(int argc, char** argv) {
  TransposeProgram prog;
  return swz_main(prog, argc, argv);
}
