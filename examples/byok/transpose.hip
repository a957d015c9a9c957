// A HIP tiled matrix transpose (out = in^T, in is rows x cols, row-major) through shared memory:
// 32 x 32 tiles, 32 x 8 threads, a 2-D grid of (cols / 32) x (rows / 32) blocks.
#include <cstdio>
#include <vector>
#include <hip/hip_runtime.h>

#define TILE 32
#define ROWS 8

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows,
                                int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;  // input column
  int y = blockIdx.y * TILE + threadIdx.y;  // input row
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;  // output column = input row
  y = blockIdx.x * TILE + threadIdx.y;  // output row = input column
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

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
