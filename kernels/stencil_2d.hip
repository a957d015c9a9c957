// swizzleperf kernel: 2-D 5-point Jacobi stencil, fp32, ping-pong buffers.
// swizzleperf:default-grid 256x256
// Size is ROWS,COLS,STEPS. u is a ROWS x COLS row-major grid (random in [-1, 1]); each step
//   u'[r][c] = 0.2 * (u[r][c] + u[r-1][c] + u[r+1][c] + u[r][c-1] + u[r][c+1])
// with cells outside the grid read as 0 (a zero ghost layer: every cell is updated, so
// even 1-row / 1-column grids exercise the kernel). The sum is evaluated in that fixed
// left-to-right order. One pass = STEPS launches: step 0 reads the pristine input and
// writes buffer A, later steps ping-pong A -> B -> A ...; the output is the buffer the last
// step wrote. Reading the pristine copy in step 0 makes run() repeatable with no copy.
//
// Tile grid: m = ceil(ROWS / 32) by n = ceil(COLS / 32) tiles of 32x32 cells. Every launch
// is a 1-D grid of m * n blocks; block blockIdx.x updates logical tile
// t = swizzle_pid(blockIdx.x, ...), tile row t / n, tile column t % n. 256 threads: thread
// k takes column k % 32 and rows k / 32 + 8j, j = 0..3 (each warp reads one 128-byte row
// segment per load, coalesced).
//
// Data sharing between blocks: a tile reads its own 32x32 input cells plus a 1-cell halo:
// the last row of the tile above, the first row of the tile below (the same cache lines
// those blocks read as their own interior) and one column from the tiles to the left and
// right (whose 128-byte lines start inside the neighbour tiles). So vertically and
// horizontally adjacent tiles share input lines, and a tile's output is next step's input
// for itself and its four neighbours. A swizzle that keeps neighbouring tiles (especially
// vertical neighbours: row-major order puts them n pids apart) on the same die/L2
// partition turns those halo reads into hits. Paper Fig. 9 / A.6.
//
// No atomics, each output cell written by exactly one block per step: bit-identical output
// whatever the block order.
#include <hip/hip_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

// swizzleperf:footprint-begin
constexpr int kTile = 32, kThreads = 256;

// STEPS launches of the same kernel over the same tile grid (m = ceil(ROWS / 32) by
// n = ceil(COLS / 32)); launch k reads `src` and writes `dst` as run() does: step 0 reads
// the pristine u0 and writes A, then odd steps read A and write B, even steps read B and
// write A. Tile (tm, tn) covers rows r0 = 32*tm.. and columns c0 = 32*tn.. (clamped); with
// the zero ghost layer it reads, clamped to the grid:
//   the row above its rows (r0 - 1), its own columns only (the `up` of its first row);
//   its rows, its columns plus one column either side (`left`/`right`);
//   the row below its rows, its own columns only (the `down` of its last row);
// never the four corner cells. Rows are swept 8 at a time, top to bottom; it writes
// its own cells of dst as it goes.
class Stencil2dFootprint : public SwzFootprintSpec {
 public:
  enum { kU0, kA, kB };
  SwzSize default_size() const override { return {8192, 8192, 24}; }
  std::vector<SwzBuffer> buffers(const SwzSize& s) const override {
    const unsigned long long bytes = 4ull * s[0] * s[1];
    return {{"u0", bytes}, {"A", bytes}, {"B", bytes}};
  }
  unsigned launches(const SwzSize& s) const override { return static_cast<unsigned>(s[2]); }
  SwzFootprintGrid grid(const SwzSize& s, unsigned) const override {
    return {(s[0] + kTile - 1ull) / kTile, (s[1] + kTile - 1ull) / kTile};
  }
  // No shared memory; __launch_bounds__(256) alone bounds registers at 256, no tighter than
  // the per-thread maximum: 0 (unknown).
  SwzBlockUse block(const SwzSize&, unsigned) const override { return {kThreads, 0, 0}; }
  const char* size_error(const SwzSize& s) const override {
    if (s[0] >= (1ll << 31) - kTile || s[1] >= (1ll << 31) - kTile)
      return "ROWS and COLS must be below 2^31 - 32";
    if (s[2] >= (1ll << 31)) return "STEPS must be below 2^31";
    if ((s[0] + kTile - 1) / kTile * ((s[1] + kTile - 1) / kTile) >= (1ll << 31))
      return "tiles_m * tiles_n must be below 2^31";
    return nullptr;
  }
  void tile(const SwzSize& s, unsigned launch, unsigned long long tm, unsigned long long tn,
            SwzTileFootprint& out) const override {
    const unsigned long long R = s[0], C = s[1];
    const unsigned src = launch == 0 ? kU0 : (launch % 2 ? kA : kB);
    const unsigned dst = launch % 2 ? kB : kA;
    const unsigned long long r0 = tm * kTile, c0 = tn * kTile;
    const unsigned long long rows = swz_fp_clamp(r0, kTile, R), cols = swz_fp_clamp(c0, kTile, C);
    const unsigned long long cl = c0 > 0 ? c0 - 1 : 0;          // left halo column, if any
    const unsigned long long cr = swz_fp_min(c0 + cols + 1, C);  // past the right halo column
    if (r0 > 0) out.read(src, 4 * ((r0 - 1) * C + c0), 4 * cols);
    out.read(src, 4 * (r0 * C + cl), 4 * (cr - cl), 4 * C, rows, SwzWalk::runs);
    if (r0 + rows < R) out.read(src, 4 * ((r0 + rows) * C + c0), 4 * cols);
    out.write(dst, 4 * (r0 * C + c0), 4 * cols, 4 * C, rows, SwzWalk::runs);
  }
};
const SwzFootprintSpec& swz_footprint_spec() {
  static const Stencil2dFootprint spec;
  return spec;
}
// swizzleperf:footprint-end

constexpr int kRowStep = kThreads / kTile;  // 8 rows per sweep

__global__ void __launch_bounds__(kThreads)
stencil_2d_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                  SwizzleGrid grid) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  const unsigned tile_m = t / grid.n;
  const unsigned tile_n = t % grid.n;
  if (tile_m >= grid.m) return;  // out-of-range swizzle: tile left unwritten, verify fails

  const int c = static_cast<int>(tile_n) * kTile + static_cast<int>(threadIdx.x) % kTile;
  if (c >= cols) return;
  const int r0 = static_cast<int>(tile_m) * kTile + static_cast<int>(threadIdx.x) / kTile;
#pragma unroll
  for (int j = 0; j < kTile / kRowStep; ++j) {
    const int r = r0 + j * kRowStep;
    if (r >= rows) break;
    const size_t i = static_cast<size_t>(r) * cols + c;
    const float up = r > 0 ? in[i - cols] : 0.f;
    const float down = r + 1 < rows ? in[i + cols] : 0.f;
    const float left = c > 0 ? in[i - 1] : 0.f;
    const float right = c + 1 < cols ? in[i + 1] : 0.f;
    out[i] = 0.2f * ((((in[i] + up) + down) + left) + right);
  }
}

class Stencil2dProgram : public SwzProgram {
 public:
  Stencil2dProgram() : SwzProgram("stencil_2d", "stencil_2d_kernel") {}
  // 8192 x 8192 fp32 = 256 MiB per buffer (5x the H100's L2): each step streams 256 MiB in
  // and 256 MiB out = 537 MB, ~0.16 ms at 3.35 TB/s and ~0.2 ms in practice (halo re-reads
  // come from L1/L2). 24 steps: ~4.8 ms per pass.
  SwzSize default_size() const override { return swz_footprint_spec().default_size(); }
  std::vector<SwzSize> verify_sizes() const override {
    return {{1, 300, 3}, {300, 1, 3}, {1, 1, 2},   {32, 32, 1},   {37, 45, 2},
            {64, 64, 4}, {100, 33, 6}, {129, 200, 5}, {257, 131, 7}};
  }
  // Every step's launch has the same grid.
  SwizzleGrid grid(const SwzSize& s) const override {
    const SwzFootprintGrid g = swz_footprint_spec().grid(s, 0);
    return {static_cast<unsigned>(g.m), static_cast<unsigned>(g.n)};
  }
  const SwzFootprintSpec* footprint() const override { return &swz_footprint_spec(); }
  unsigned long long footprint_bytes(const SwzSize& s) const override {
    const unsigned long long cells = static_cast<unsigned long long>(s[0]) * s[1];
    return (s[2] == 1 ? 2ull : 3ull) * 4ull * cells;  // pristine input, A, and B if used
  }
  // Every step reads its source buffer and writes its destination: 2 grids of floats.
  std::vector<unsigned long long> launch_footprints_bytes(const SwzSize& s) const override {
    const unsigned long long cells = static_cast<unsigned long long>(s[0]) * s[1];
    return std::vector<unsigned long long>(swz_footprint_spec().launches(s), 8ull * cells);
  }

  void setup(const SwzSize& s, unsigned long long seed) override {
    rows_ = static_cast<int>(s[0]), cols_ = static_cast<int>(s[1]), steps_ = static_cast<int>(s[2]);
    SwzRng rng(seed);
    const size_t n = size_t(rows_) * cols_;
    dU0_ = swz_alloc<float>(n);
    dA_ = swz_alloc<float>(n);
    dB_ = swz_alloc<float>(n);
    hU_ = swz_random_f32_device(dU0_, n, rng);
  }
  void run() override {
    const SwizzleGrid g = grid({rows_, cols_, steps_});
    for (int k = 0; k < steps_; ++k) {
      const float* src = k == 0 ? dU0_ : (k % 2 ? dA_ : dB_);
      float* dst = k % 2 ? dB_ : dA_;
      hipLaunchKernelGGL(stencil_2d_kernel, dim3(g.m * g.n), dim3(kThreads), 0, 0, src, dst,
                         rows_, cols_, g);
      SWZ_CHECK_LAUNCH();
    }
  }
  SwzOutput output() const override {
    return {(steps_ - 1) % 2 ? dB_ : dA_, size_t(rows_) * cols_, SwzDType::f32};
  }

  std::vector<double> reference(const SwzSize&) const override {
    const int R = rows_, C = cols_;
    std::vector<double> u(hU_.begin(), hU_.end()), v(u.size());
    for (int k = 0; k < steps_; ++k) {
      for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) {
          const size_t i = size_t(r) * C + c;
          const double up = r > 0 ? u[i - C] : 0.0, down = r + 1 < R ? u[i + C] : 0.0;
          const double left = c > 0 ? u[i - 1] : 0.0, right = c + 1 < C ? u[i + 1] : 0.0;
          v[i] = 0.2 * (u[i] + up + down + left + right);
        }
      u.swap(v);
    }
    return u;
  }
  // |u| <= 1 at every step (weights 0.2 * 5 = 1: max principle), so the four fp32 adds
  // (partial sums <= 5, half an ulp each <= 2.4e-7) and the multiply (<= 6e-8) add at most
  // ~1e-6 * 0.2 + 6e-8 ~ 3e-7 per step; the update averages old errors without growing
  // them (0.2f vs 0.2 scales by 1 + 1.5e-8 per step, negligible). Over STEPS steps the error
  // is <= STEPS * 3e-7: tol = STEPS * 1e-6 (~3x margin). A wrong or missing tile, or a step
  // read from the wrong buffer, errs by O(0.1) at the verify sizes (<= 7 steps).
  SwzTol tolerance(const SwzSize& s) const override {
    return {1e-6 * static_cast<double>(s[2]), 0.0};
  }

  const char* size_error(const SwzSize& s) const override { return swz_footprint_spec().size_error(s); }

 private:
  int rows_ = 0, cols_ = 0, steps_ = 0;
  std::vector<float> hU_;
  float *dU0_ = nullptr, *dA_ = nullptr, *dB_ = nullptr;
};

int main(int argc, char** argv) {
  Stencil2dProgram prog;
  return swz_main(prog, argc, argv);
}
