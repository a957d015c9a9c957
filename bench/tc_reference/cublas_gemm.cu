// Bench-only reference (not a dependency of swizzleperf): cuBLAS on the same problem as
// kernels/tc/gemm_tc.hip — C (M x N, fp32, row-major) = A (M x K, fp16, row-major) times
// Bt^T (Bt: N x K, fp16, row-major), fp32 accumulation (CUBLAS_COMPUTE_32F).
// Timed like the kernel programs' `time` mode: W untimed runs, then N event-timed runs,
// each after writing a 256 MB scratch buffer (L2 flush, untimed). Prints one JSON line.
// Build: nvcc -O3 -arch=sm_90 -o cublas_gemm cublas_gemm.cu -lcublas
// Usage: cublas_gemm M N K [reps=30] [warmup=5]
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e = (x);                                                              \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "error: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return 3;                                                                       \
    }                                                                                 \
  } while (0)
#define CB(x)                                                                         \
  do {                                                                                \
    cublasStatus_t s = (x);                                                           \
    if (s != CUBLAS_STATUS_SUCCESS) {                                                 \
      std::fprintf(stderr, "error: %s:%d: cublas status %d\n", __FILE__, __LINE__, (int)s); \
      return 3;                                                                       \
    }                                                                                 \
  } while (0)

__global__ void fill(__half* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 15; x *= 2246822519u; x ^= x >> 13;
    p[i] = __float2half((x & 0xFFFF) / 32768.0f - 1.0f);
  }
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: cublas_gemm M N K [reps] [warmup]\n");
    return 2;
  }
  const long long M = std::atoll(argv[1]), N = std::atoll(argv[2]), K = std::atoll(argv[3]);
  const int reps = argc > 4 ? std::atoi(argv[4]) : 30, warmup = argc > 5 ? std::atoi(argv[5]) : 5;
  if (M <= 0 || N <= 0 || K <= 0 || reps < 1 || warmup < 0) {
    std::fprintf(stderr, "usage: cublas_gemm M N K [reps>=1] [warmup>=0]\n");
    return 2;
  }
  __half *A, *Bt;
  float* C;
  unsigned char* scratch;
  const size_t flush = size_t(256) << 20;
  CK(cudaMalloc(&A, M * K * sizeof(__half)));
  CK(cudaMalloc(&Bt, N * K * sizeof(__half)));
  CK(cudaMalloc(&C, M * N * sizeof(float)));
  CK(cudaMalloc(&scratch, flush));
  fill<<<1024, 256>>>(A, M * K, 1u);
  fill<<<1024, 256>>>(Bt, N * K, 2u);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  cublasHandle_t h;
  CB(cublasCreate(&h));
  const float alpha = 1.f, beta = 0.f;
  // Row-major C = A Bt^T  <=>  column-major C^T (N x M) = op_T(Bt stored K x N) * A^T (K x M).
  auto gemm = [&]() {
    return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, int(N), int(M), int(K), &alpha, Bt, CUDA_R_16F,
                        int(K), A, CUDA_R_16F, int(K), &beta, C, CUDA_R_32F, int(N),
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  for (int i = 0; i < warmup; ++i) CB(gemm());
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaMemsetAsync(scratch, i & 0xFF, flush, 0));
    CK(cudaEventRecord(a, 0));
    CB(gemm());
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  const double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  std::printf("{\"reference\":\"cublasGemmEx f16 in, f32 out, COMPUTE_32F\",\"size\":[%lld,%lld,%lld],"
              "\"median_ms\":%.6g,\"min_ms\":%.6g,\"tflops\":%.4g,\"reps\":%d}\n",
              M, N, K, med, t.front(), 2.0 * M * N * K / (med * 1e-3) / 1e12, reps);
  return 0;
}
