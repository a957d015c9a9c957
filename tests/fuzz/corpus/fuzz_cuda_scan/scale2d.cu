// scale2d: a plain CUDA kernel
#include <cuda_runtime.h>

__global__ void scale2d(float* out, const float* in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = 2.f * in[y * w + x] + gridDim.y;
}

int main() {
  const int w = 640, h = 480;
  float *in, *out;
  dim3 block(32, 8);
  dim3 grid((w + 31) / 32, (h + 7) / 8);
  scale2d<<<grid, block>>>(out, in, w, h);
  return 0;
}
