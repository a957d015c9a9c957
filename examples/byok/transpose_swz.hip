// swizzleperf program made by 'swizzleperf init transpose.hip' from kernel transpose_tiled.
// Next: fill in each TODO marked below, then run 'swizzleperf check --strict transpose_swz.hip' (it lists what is left).
// swizzleperf:default-grid 512x512
// A HIP tiled matrix transpose (out = in^T, in is rows x cols, row-major) through shared memory:
// 32 x 32 tiles, 32 x 8 threads, a 2-D grid of (cols / 32) x (rows / 32) blocks.
#include <cstdio>
#include <vector>
#include <hip/hip_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

#define TILE 32
#define ROWS 8

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows,
                                int cols, dim3 swz_grid) {
  const SwzBlock swz_block_idx = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);
  if (swz_block_idx.z >= swz_grid.z) return;  // swizzleperf: a broken swizzle leaves this block's tile unwritten (verify reports it)
  __shared__ float tile[TILE][TILE + 1];
  int x = swz_block_idx.x * TILE + threadIdx.x;  // input column
  int y = swz_block_idx.y * TILE + threadIdx.y;  // input row
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = swz_block_idx.y * TILE + threadIdx.x;  // output column = input row
  y = swz_block_idx.x * TILE + threadIdx.y;  // output row = input column
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

#if 0  // swizzleperf: the original main, kept for reference while you fill in the TODOs; delete it when done
int main(int argc, char** argv) {
  int rows = 16384, cols = 16384;
  size_t n = (size_t)rows * cols;
  float *in, *out;
  hipMalloc(&in, n * sizeof(float));
  hipMalloc(&out, n * sizeof(float));
  hipMemset(in, 0, n * sizeof(float));
  dim3 threads(TILE, ROWS);
  dim3 blocks((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  hipLaunchKernelGGL(transpose_tiled, blocks, threads, 0, 0, in, out, rows, cols);
  hipError_t e = hipDeviceSynchronize();
  printf("%s\n", hipGetErrorString(e));
  hipFree(in);
  hipFree(out);
  return 0;
}
#endif

class TransposeTiledProgram : public SwzProgram {
 public:
  TransposeTiledProgram() : SwzProgram("transpose", "transpose_tiled") {}
  SwzSize default_size() const override { return {16384, 16384}; }  // rows, cols
  dim3 launch_grid(const SwzSize& s) const override { return dim3((s[1] + TILE - 1) / TILE, (s[0] + TILE - 1) / TILE); }
  unsigned long long footprint_bytes(const SwzSize& s) const override { return 8ull * s[0] * s[1]; }
  void setup(const SwzSize& s, unsigned long long seed) override {
    size_ = s;
    SwzRng rng(seed);
    rows = static_cast<int>(s[0]), cols = static_cast<int>(s[1]);
    in = swz_alloc<float>(size_t(rows) * cols);
    out = swz_alloc<float>(size_t(rows) * cols);
    h_in = swz_random_f32_device(in, size_t(rows) * cols, rng);
  }
  void run() override {
    const dim3 grid = launch_grid(size_);
    dim3 threads(TILE, ROWS);
    hipLaunchKernelGGL(transpose_tiled, swz_flat_grid(grid), threads, 0, 0, in, out, rows, cols, grid);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {out, size_t(rows) * cols, SwzDType::f32}; }
  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> o(size_t(rows) * cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) o[size_t(c) * rows + r] = h_in[size_t(r) * cols + c];
    return o;
  }

 private:
  SwzSize size_;
  int rows = 0, cols = 0;
  float *in = nullptr, *out = nullptr;
  std::vector<float> h_in;
};

int main(int argc, char** argv) {
  TransposeTiledProgram prog;
  return swz_main(prog, argc, argv);
}
