// crlf
#include <cuda_runtime.h>
__device__ int row() { return blockIdx.y; }
__global__ void k(int* p) {
  dim3 b = blockIdx;
  p[row() + blockIdx.x] = 1;
}
int main() {
  k<<<dim3(4, 4), 32>>>(nullptr);
  k<<<dim3(4, 4), 32>>>(nullptr);
}
