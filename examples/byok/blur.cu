// A 3x3 box blur of a W x H float image, as a CUDA user writes it: a 2-D grid of 16 x 16
// thread blocks, one output pixel per thread, clamped borders.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void blur3x3(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1);
      int yy = min(max(y + dy, 0), h - 1);
      s += in[(size_t)yy * w + xx];
    }
  out[(size_t)y * w + x] = s / 9.f;
}

int main() {
  const int w = 8192, h = 8192;
  const size_t n = (size_t)w * h;
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = (float)rand() / RAND_MAX;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  blur3x3<<<grid, block>>>(in, out, w, h);
  cudaDeviceSynchronize();
  cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("out[0] = %f\n", host[0]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
