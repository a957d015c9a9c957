#ifdef __HIPCC__
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif
// swizzleperf:TODO a mark in a comment
template <typename T, int N>
__global__ void __launch_bounds__(256) vol(T* p, int n) {
  const char* s = R"raw(blockIdx.y )" )raw";
  p[hipBlockIdx_z * N + blockIdx.y * n + blockIdx.x] = gridDim.z + hipGridDim_x;
}
extern "C" __global__ void other(void) { int b = blockIdx.x; }
void go(float* p, int n, hipStream_t s) {
  hipLaunchKernelGGL(HIP_KERNEL_NAME(vol<float, 4>), dim3(n, n, 2), dim3(256), 0, s, p, n);
  vol<float, 4><<<dim3(n, n, 2), 256, 0, s>>>(p, n);
}
int main() { go(nullptr, 8, 0); other<<<1, 1>>>(); }
