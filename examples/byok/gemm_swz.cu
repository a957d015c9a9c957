// swizzleperf program made by 'swizzleperf init gemm.cu' from kernel sgemm_tiled.
// Next: fill in each TODO marked below, then run 'swizzleperf check --strict gemm_swz.cu' (it lists what is left).
// swizzleperf:default-grid 128x128
// C = A * B for row-major fp32 A (M x K), B (K x N), C (M x N): 64 x 64 output tiles, 256
// threads of 4 x 4 outputs each, K in steps of 16 through shared memory. Launched as the
// textbook does: dim3 grid(N / BN, M / BM), so blockIdx.x walks the columns of C.
#include <cstdio>
#include <cuda_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

constexpr int BM = 64, BN = 64, BK = 16;

__global__ void __launch_bounds__(256) sgemm_tiled(const float* A, const float* B, float* C, int M,
                                                   int N, int K, dim3 swz_grid) {
  const SwzBlock swz_block_idx = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);
  if (swz_block_idx.z >= swz_grid.z) return;  // swizzleperf: a broken swizzle leaves this block's tile unwritten (verify reports it)
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int row0 = swz_block_idx.y * BM, col0 = swz_block_idx.x * BN;
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

#if 0  // swizzleperf: the original main, kept for reference while you fill in the TODOs; delete it when done
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
#endif

class SgemmTiledProgram : public SwzProgram {
 public:
  SgemmTiledProgram() : SwzProgram("gemm", "sgemm_tiled") {}
  SwzSize default_size() const override { return {8192, 8192, 2048}; }  // M, N, K
  dim3 launch_grid(const SwzSize& s) const override { return dim3((s[1] + BN - 1) / BN, (s[0] + BM - 1) / BM); }
  unsigned long long footprint_bytes(const SwzSize& s) const override { return 4ull * (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]); }
  void setup(const SwzSize& s, unsigned long long seed) override {
    size_ = s;
    SwzRng rng(seed);
    M = static_cast<int>(s[0]), N = static_cast<int>(s[1]), K = static_cast<int>(s[2]);
    A = swz_alloc<float>(size_t(M) * K);
    B = swz_alloc<float>(size_t(K) * N);
    C = swz_alloc<float>(size_t(M) * N);
    hA = swz_random_f32_device(A, size_t(M) * K, rng);
    hB = swz_random_f32_device(B, size_t(K) * N, rng);
  }
  void run() override {
    const dim3 grid = launch_grid(size_);
    sgemm_tiled<<<swz_flat_grid(grid), 256>>>(A, B, C, M, N, K, grid);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {C, size_t(M) * N, SwzDType::f32}; }
  long long reduction_length(const SwzSize& s) const override { return s[2]; }
  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> c(size_t(M) * N);
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) c[size_t(i) * N + j] += double(hA[size_t(i) * K + k]) * hB[size_t(k) * N + j];
    return c;
  }

 private:
  SwzSize size_;
  int M = 0, N = 0, K = 0;
  float *A = nullptr, *B = nullptr, *C = nullptr;
  std::vector<float> hA, hB;
};

int main(int argc, char** argv) {
  SgemmTiledProgram prog;
  return swz_main(prog, argc, argv);
}
