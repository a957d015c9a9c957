// swizzleperf program made by 'swizzleperf init blur.cu' from kernel blur3x3.
// Next: fill in each TODO marked below, then run 'swizzleperf check --strict blur_swz.cu' (it lists what is left).
// swizzleperf:default-grid 512x512
// A 3x3 box blur of a W x H float image, as a CUDA user writes it: a 2-D grid of 16 x 16
// thread blocks, one output pixel per thread, clamped borders.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

__global__ void blur3x3(const float* in, float* out, int w, int h, dim3 swz_grid) {
  const SwzBlock swz_block_idx = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);
  if (swz_block_idx.z >= swz_grid.z) return;  // swizzleperf: a broken swizzle leaves this block's tile unwritten (verify reports it)
  int x = swz_block_idx.x * blockDim.x + threadIdx.x;
  int y = swz_block_idx.y * blockDim.y + threadIdx.y;
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

#if 0  // swizzleperf: the original main, kept for reference while you fill in the TODOs; delete it when done
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
#endif

class Blur3x3Program : public SwzProgram {
 public:
  Blur3x3Program() : SwzProgram("blur", "blur3x3") {}
  SwzSize default_size() const override { return {8192, 8192}; }  // w, h
  dim3 launch_grid(const SwzSize& s) const override { return dim3((s[0] + 15) / 16, (s[1] + 15) / 16); }
  unsigned long long footprint_bytes(const SwzSize& s) const override { return 8ull * s[0] * s[1]; }
  void setup(const SwzSize& s, unsigned long long seed) override {
    size_ = s;
    SwzRng rng(seed);
    w = static_cast<int>(s[0]), h = static_cast<int>(s[1]);
    in = swz_alloc<float>(size_t(w) * h);
    out = swz_alloc<float>(size_t(w) * h);
    h_in = swz_random_f32_device(in, size_t(w) * h, rng);
  }
  void run() override {
    const dim3 grid = launch_grid(size_);
    dim3 block(16, 16);
    blur3x3<<<swz_flat_grid(grid), block>>>(in, out, w, h, grid);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {out, size_t(w) * h, SwzDType::f32}; }
  long long reduction_length(const SwzSize&) const override { return 9; }
  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> o(size_t(w) * h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int d = 0; d < 9; ++d)
          o[size_t(y) * w + x] += h_in[size_t(std::min(std::max(y + d / 3 - 1, 0), h - 1)) * w + std::min(std::max(x + d % 3 - 1, 0), w - 1)] / 9.0;
    return o;
  }

 private:
  SwzSize size_;
  int w = 0, h = 0;
  float *in = nullptr, *out = nullptr;
  std::vector<float> h_in;
};

int main(int argc, char** argv) {
  Blur3x3Program prog;
  return swz_main(prog, argc, argv);
}
