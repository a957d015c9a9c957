// The conformance suite's kernel program on the C++ harness (kernels/support/swz_harness.h),
// built with the host C++ compiler against the HIP emulator in tests/conformance/host_hip, so
// every mode of the real harness runs here without a GPU. Its kernel is the fake Triton
// program's (tests/fakes/fake_triton/fake_matmul.py): size M,N,K (default 1024,1024,512), 64x64
// tiles, pid p computes tile swizzle_pid(p) and writes one f32 per tile, tile_value(t); a tile no
// pid maps to stays poisoned. So both harnesses answer `info` with the same numbers.
// Environment (read by this program, not by the harness):
//   SWZ_FAKE_WRONG=1          one wrong output value: verify fails, exit 1
//   SWZ_FAKE_OUTPUT_FILE=F    the output is F's bytes (u32 elements; F's size a multiple of 4),
//                             so hash digests given bytes (the suite's digest vectors)
//   SWZ_FAKE_NO_DEVICE=1      read by the HIP emulator: no GPU device, exit 3
#include "swz_harness.h"

#include <fstream>
#include <iterator>

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

// output[t], exact in f32 (fake_matmul.py's tile_value).
SWZ_HD float conformance_tile_value(unsigned t) {
  return static_cast<float>((static_cast<unsigned long long>(t) * 2654435761ull) % 65521ull) / 64.0f + 1.0f;
}

__global__ void conformance_kernel(float* out, SwizzleGrid grid, int wrong) {
  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, grid);
  if (t >= grid.m * grid.n) return;
  out[t] = conformance_tile_value(t) + (wrong && t == 0 ? 1.0f : 0.0f);
}

class ConformanceProgram : public SwzProgram {
 public:
  ConformanceProgram() : SwzProgram("fake_matmul", "fake_matmul_kernel") {
    const char* w = std::getenv("SWZ_FAKE_WRONG");
    wrong_ = w && *w && std::strcmp(w, "0") != 0;
    if (const char* f = std::getenv("SWZ_FAKE_OUTPUT_FILE")) {
      std::ifstream in(f, std::ios::binary);
      bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      fixed_output_ = true;
    }
  }
  SwzSize default_size() const override { return {1024, 1024, 512}; }
  SwizzleGrid grid(const SwzSize& s) const override {
    return {swz_ceil_div(s[0], kTile), swz_ceil_div(s[1], kTile)};
  }
  unsigned long long footprint_bytes(const SwzSize& s) const override {
    return 4ull * (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]);
  }
  long long reduction_length(const SwzSize& s) const override { return s[2]; }
  void setup(const SwzSize& s, unsigned long long) override {
    grid_ = grid(s);
    count_ = fixed_output_ ? bytes_.size() / 4 : size_t(grid_.m) * grid_.n;
    out_ = swz_alloc<float>(count_);
  }
  void run() override {
    if (fixed_output_) {
      SWZ_CHECK(hipMemcpy(out_, bytes_.data(), count_ * 4, hipMemcpyHostToDevice));
      return;
    }
    hipLaunchKernelGGL(conformance_kernel, dim3(grid_.m * grid_.n), dim3(1), 0, 0, out_, grid_, wrong_ ? 1 : 0);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {out_, count_, fixed_output_ ? SwzDType::u32 : SwzDType::f32}; }
  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> r(count_);
    for (size_t t = 0; t < count_; ++t) r[t] = conformance_tile_value(static_cast<unsigned>(t));
    return r;
  }

 private:
  static constexpr unsigned kTile = 64;
  bool wrong_ = false, fixed_output_ = false;
  std::vector<char> bytes_;
  SwizzleGrid grid_{0, 0};
  size_t count_ = 0;
  float* out_ = nullptr;
};

int main(int argc, char** argv) {
  ConformanceProgram p;
  return swz_main(p, argc, argv);
}
