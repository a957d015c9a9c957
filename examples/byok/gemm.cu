// C = A * B for row-major fp32 A (M x K), B (K x N), C (M x N): 64 x 64 output tiles, 256
// threads of 4 x 4 outputs each, K in steps of 16 through shared memory. Launched as the
// textbook does: dim3 grid(N / BN, M / BM), so blockIdx.x walks the columns of C.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int BM = 64, BN = 64, BK = 16;

__global__ void __launch_bounds__(256) sgemm_tiled(const float* A, const float* B, float* C, int M,
                                                   int N, int K) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int tr = threadIdx.x / 16, tc = threadIdx.x % 16;  // 16 x 16 threads, 4 x 4 outputs each
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = threadIdx.x; i < BM * BK; i += 256) {  // A tile, stored transposed
      int r = i / BK, k = i % BK;
      As[k][r] = (row0 + r < M && k0 + k < K) ? A[(size_t)(row0 + r) * K + k0 + k] : 0.f;
    }
    for (int i = threadIdx.x; i < BK * BN; i += 256) {
      int k = i / BN, c = i % BN;
      Bs[k][c] = (k0 + k < K && col0 + c < N) ? B[(size_t)(k0 + k) * N + col0 + c] : 0.f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += As[k][tr * 4 + i] * Bs[k][tc * 4 + j];
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int r = row0 + tr * 4 + i, c = col0 + tc * 4 + j;
      if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
    }
}

int main() {
  const int M = 8192, N = 8192, K = 2048;
  float *A, *B, *C;
  cudaMalloc(&A, sizeof(float) * M * K);
  cudaMalloc(&B, sizeof(float) * K * N);
  cudaMalloc(&C, sizeof(float) * M * N);
  dim3 grid(N / BN, M / BM);
  sgemm_tiled<<<grid, 256>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
