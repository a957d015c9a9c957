// blur.cu: a 3x3 box blur (plain CUDA)
#include <cstdio>
#include <cuda_runtime.h>

#define TILE 16

__device__ float load_halo(const float* in, int w, int h, int x, int y) {
  // clamp to the image; this reads blockIdx.y on purpose (a bad port)
  int by = blockIdx.y;
  return in[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)];
}

__global__ void blur3x3(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) s += load_halo(in, w, h, x + dx, y + dy);
  out[y * w + x] = s / 9.f;  /* gridDim.x is not used */
}

void launch_blur(const float* in, float* out, int w, int h, cudaStream_t st) {
  dim3 block(TILE, TILE);
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  blur3x3<<<grid, block, 0, st>>>(in, out, w, h);
}

int main(int argc, char** argv) {
  int w = 1024, h = 768;
  float *d_in, *d_out;
  cudaMalloc(&d_in, w * h * sizeof(float));
  cudaMalloc(&d_out, w * h * sizeof(float));
  dim3 block(TILE, TILE);
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  blur3x3<<<grid, block>>>(d_in, d_out, w, h);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
