// Tests of `swizzleperf init`'s rewrite (core/kernel_init): the whole program for a
// small 2-D kernel, byte for byte; 1-D and 3-D grids; hipLaunchKernelGGL; launches in
// main, in a wrapper and several; `()`/`(void)` parameters; what init leaves as a TODO
// (a bare blockIdx, a helper reading blockIdx) with its warning; CRLF files; and every
// refusal, each a one-line error.
#include "swizzleperf/core/kernel_init.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

#include <string>

#include "swizzleperf/core/cuda_scan.h"

namespace swz {
namespace {

const std::string kScale =
    "// scale2d: a plain CUDA kernel\n"
    "#include <cuda_runtime.h>\n"
    "\n"
    "__global__ void scale2d(float* out, const float* in, int w, int h) {\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x < w && y < h) out[y * w + x] = 2.f * in[y * w + x] + gridDim.y;\n"
    "}\n"
    "\n"
    "int main() {\n"
    "  const int w = 640, h = 480;\n"
    "  float *in, *out;\n"
    "  dim3 block(32, 8);\n"
    "  dim3 grid((w + 31) / 32, (h + 7) / 8);\n"
    "  scale2d<<<grid, block>>>(out, in, w, h);\n"
    "  return 0;\n"
    "}\n";

const std::string kScaleProgram = R"golden(// swizzleperf program made by 'swizzleperf init scale.cu' from kernel scale2d.
// Next: fill in each TODO marked below, then run 'swizzleperf check --strict scale_swz.cu' (it lists what is left).
// swizzleperf:TODO default-grid: once the sizes are filled in, 'swizzleperf check scale_swz.cu' prints the '// swizzleperf:default-grid MxN' line to put here
// scale2d: a plain CUDA kernel
#include <cuda_runtime.h>
#include "swz_harness.h"

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

__global__ void scale2d(float* out, const float* in, int w, int h, dim3 swz_grid) {
  const SwzBlock swz_block_idx = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);
  if (swz_block_idx.z >= swz_grid.z) return;  // swizzleperf: a broken swizzle leaves this block's tile unwritten (verify reports it)
  int x = swz_block_idx.x * blockDim.x + threadIdx.x;
  int y = swz_block_idx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = 2.f * in[y * w + x] + swz_grid.y;
}

#if 0  // swizzleperf: the original main, kept for reference while you fill in the TODOs; delete it when done
int main() {
  const int w = 640, h = 480;
  float *in, *out;
  dim3 block(32, 8);
  dim3 grid((w + 31) / 32, (h + 7) / 8);
  scale2d<<<grid, block>>>(out, in, w, h);
  return 0;
}
#endif

class Scale2dProgram : public SwzProgram {
 public:
  Scale2dProgram() : SwzProgram("scale", "scale2d") {}
  // swizzleperf:TODO the default problem size: the numbers the launch and the buffers depend on, e.g. {8192, 8192}
  SwzSize default_size() const override { return {}; }
  // swizzleperf:TODO the launch grid at size s, as the original code computed it: dim3 grid((w + 31) / 32, (h + 7) / 8)
  dim3 launch_grid(const SwzSize& s) const override { return dim3(1); }
  // swizzleperf:TODO unique bytes read plus written by one run() at size s, e.g. 8ull * s[0] * s[1] for one float in and one float out per element
  unsigned long long footprint_bytes(const SwzSize& s) const override { return 0; }
  void setup(const SwzSize& s, unsigned long long seed) override {
    size_ = s;
    SwzRng rng(seed);
    // swizzleperf:TODO allocate with swz_alloc<T>(count) and fill inputs: h_in_ = swz_random_f32_device(d_in_, count, rng) (keep host copies for reference())
  }
  void run() override {
    const dim3 grid = launch_grid(size_);
    // swizzleperf:TODO the original launch, rewritten for the 1-D grid: its arguments must be members set in setup(), and its block size the original's
    dim3 block(32, 8);
    scale2d<<<swz_flat_grid(grid), block>>>(out, in, w, h, grid);
    SWZ_CHECK_LAUNCH();
  }
  // swizzleperf:TODO the output buffer: {device pointer, element count, SwzDType::f32 (or f64, i32, u32)}
  SwzOutput output() const override { return {nullptr, 0, SwzDType::f32}; }
  // swizzleperf:TODO the CPU result in double, same element order as output(), from the host copies of the inputs
  std::vector<double> reference(const SwzSize& s) const override { return {}; }

 private:
  SwzSize size_;
  // swizzleperf:TODO the device buffers and host copies setup() fills, e.g. float* d_in_ = nullptr; std::vector<float> h_in_;
};

int main(int argc, char** argv) {
  Scale2dProgram prog;
  return swz_main(prog, argc, argv);
}
)golden";

InitResult made(const std::string& text, const std::string& name = "k.cu",
                const std::optional<std::string>& kernel = std::nullopt) {
  auto r = make_contract_program(text, name, kernel);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : InitResult{};
}

std::string error_of(const std::string& text, const std::string& name = "k.cu",
                     const std::optional<std::string>& kernel = std::nullopt) {
  auto r = make_contract_program(text, name, kernel);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message;
}

using test::has;

// ---- the whole program ----------------------------------------------------------------------

TEST(KernelInit, TheWholeProgramForATwoDimensionalKernel) {
  const auto r = made(kScale, "scale.cu");
  EXPECT_EQ(r.text, kScaleProgram);
  EXPECT_EQ(r.kernel, "scale2d");
  EXPECT_EQ(r.grid_dims, 2);
  EXPECT_EQ(r.todo_count, 9u);
  EXPECT_EQ(r.warnings, std::vector<std::string>{});
  // Under the contract now: one region, the block read only through swizzle_pid.
  EXPECT_TRUE(unswizzled_block_uses(r.text).empty());
  EXPECT_EQ(todo_marks(r.text).size(), r.todo_count);
}

TEST(KernelInit, TheOutputNameInTheInstructionsFollowsOutput) {
  auto r = make_contract_program(kScale, "dir/scale.cu", std::nullopt, "elsewhere/mine.cu");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(has(r->text, "// swizzleperf program made by 'swizzleperf init scale.cu' from kernel scale2d.\n")) << r->text;
  EXPECT_TRUE(has(r->text, "then run 'swizzleperf check --strict mine.cu'"));
  EXPECT_TRUE(has(r->text, "'swizzleperf check mine.cu' prints"));
  EXPECT_EQ(default_init_output("dir/scale.cu"), std::filesystem::path("dir/scale_swz.cu"));
  EXPECT_EQ(default_init_output("k.hip"), std::filesystem::path("k_swz.hip"));
}

// ---- grids, launches and parameters -------------------------------------------------------------------

TEST(KernelInit, OneDimensionalGridVoidParametersAndAWrapperLaunch) {
  const std::string t =
      "#include <cstdio>\n"
      "__global__ void fill(void) { out[blockIdx.x * 256 + threadIdx.x] = 1; }\n"
      "void go(int n) { fill<<<n / 256, 256>>>(); }\n";
  const auto r = made(t);
  EXPECT_EQ(r.grid_dims, 1);
  EXPECT_TRUE(has(r.text, "__global__ void fill(dim3 swz_grid) {\n  const SwzBlock")) << r.text;
  EXPECT_TRUE(has(r.text, "return;  // swizzleperf: a broken swizzle leaves this block's tile unwritten (verify reports it)\n"
                          " out[swz_block_idx.x * 256 + threadIdx.x] = 1; }\n"))
      << r.text;
  EXPECT_TRUE(has(r.text, "void go(int n) { fill<<<swz_flat_grid(n / 256), 256>>>(n / 256); }\n")) << r.text;
  // No main: the wrapper's launch is what run() copies.
  EXPECT_TRUE(has(r.text, "    fill<<<swz_flat_grid(grid), 256>>>(grid);\n    SWZ_CHECK_LAUNCH();\n")) << r.text;
  EXPECT_TRUE(has(r.text, "as the original code computed it: n / 256\n")) << r.text;
  EXPECT_FALSE(has(r.text, "#if 0"));
  // "fill" would also pick the harness's own fill kernel out of a profile.
  EXPECT_EQ(r.warnings, std::vector<std::string>({"2: the profiler's kernel filter 'fill' also matches the harness's fill "
                                                  "kernel swz_fill_uniform_kernel: make the kernel_regex in the program's "
                                                  "constructor longer"}));
}

TEST(KernelInit, ThreeDimensionalGridAndEmptyParameters) {
  const std::string t =
      "__global__ void vol() {\n"
      "  int z = blockIdx.z, y = blockIdx.y, x = blockIdx.x;\n"
      "  int depth = gridDim.z * gridDim.y;\n"
      "}\n"
      "int main() { vol<<<dim3(4, 4, 4), dim3(8, 8, 8)>>>(); }\n";
  const auto r = made(t);
  EXPECT_EQ(r.grid_dims, 3);
  EXPECT_TRUE(has(r.text, "__global__ void vol(dim3 swz_grid) {")) << r.text;
  EXPECT_TRUE(has(r.text, "  int z = swz_block_idx.z, y = swz_block_idx.y, x = swz_block_idx.x;\n"
                          "  int depth = swz_grid.z * swz_grid.y;\n"))
      << r.text;
  EXPECT_TRUE(has(r.text, "#if 0  // swizzleperf: the original main, kept for reference while you fill in the TODOs; "
                          "delete it when done\nint main() { vol<<<dim3(4, 4, 4), dim3(8, 8, 8)>>>(); }\n#endif\n"))
      << r.text;
  EXPECT_TRUE(has(r.text, "    vol<<<swz_flat_grid(grid), dim3(8, 8, 8)>>>(grid);\n")) << r.text;
  EXPECT_TRUE(has(r.text, "as the original code computed it: dim3(4, 4, 4)\n")) << r.text;
}

TEST(KernelInit, HipLaunchKernelGGLInAWrapperAndInMain) {
  const std::string t =
      "#include <hip/hip_runtime.h>\n"
      "__global__ void k(float* p, int n) { p[hipBlockIdx_y * n + hipBlockIdx_x] = hipGridDim_x; }\n"
      "void wrap(float* p, int n, hipStream_t s) {\n"
      "  hipLaunchKernelGGL(k, dim3(n, n), dim3(64), 0, s, p, n);\n"
      "}\n"
      "int main() {\n"
      "  hipLaunchKernelGGL(k, dim3(8, 8), dim3(64), 0, 0, nullptr, 8);\n"
      "}\n";
  const auto r = made(t, "k.hip");
  EXPECT_EQ(r.grid_dims, 2);
  EXPECT_TRUE(has(r.text, "p[swz_block_idx.y * n + swz_block_idx.x] = swz_grid.x; }")) << r.text;
  EXPECT_TRUE(has(r.text, "  hipLaunchKernelGGL(k, swz_flat_grid(dim3(n, n)), dim3(64), 0, s, p, n, dim3(n, n));\n")) << r.text;
  EXPECT_TRUE(has(r.text, "    hipLaunchKernelGGL(k, swz_flat_grid(grid), dim3(64), 0, 0, nullptr, 8, grid);\n")) << r.text;
}

TEST(KernelInit, AHipLaunchWithNoKernelArgumentsGetsTheGridWithoutAStrayComma) {
  const std::string t =
      "__global__ void k() { int b = blockIdx.x; }\n"
      "void wrap(hipStream_t s) { hipLaunchKernelGGL(k, dim3(4), dim3(64), 0, s); }\n";
  const auto r = made(t, "k.hip");
  EXPECT_TRUE(has(r.text, "hipLaunchKernelGGL(k, swz_flat_grid(dim3(4)), dim3(64), 0, s, dim3(4)); }")) << r.text;
  EXPECT_TRUE(has(r.text, "    hipLaunchKernelGGL(k, swz_flat_grid(grid), dim3(64), 0, s, grid);\n")) << r.text;
}

TEST(KernelInit, TemplateKernelSeveralLaunchesAndAPrototype) {
  const std::string t =
      "template <typename T> __global__ void step(T* p, dim3 extra);\n"
      "template <typename T>\n"
      "__global__ void __launch_bounds__(256) step(T* p, dim3 extra) { p[blockIdx.y] = 0; }\n"
      "void a(float* p) { step<float><<<dim3(2, 3), 256, 0, 0>>>(p, dim3(1)); }\n"
      "int main() {\n"
      "  step<float><<<dim3(2, 3), 256>>>(nullptr, dim3(1));\n"
      "  for (int i = 0; i < 10; ++i) step<float><<<dim3(2, 3), 256>>>(nullptr, dim3(1));\n"
      "  step<double><<<dim3(2, 3), 256>>>(nullptr, dim3(1));\n"
      "}\n";
  const auto r = made(t);
  EXPECT_TRUE(has(r.text, "template <typename T> __global__ void step(T* p, dim3 extra, dim3 swz_grid);\n")) << r.text;
  EXPECT_TRUE(has(r.text, "__global__ void __launch_bounds__(256) step(T* p, dim3 extra, dim3 swz_grid) {")) << r.text;
  EXPECT_TRUE(has(r.text, "step<float><<<swz_flat_grid(dim3(2, 3)), 256, 0, 0>>>(p, dim3(1), dim3(2, 3)); }")) << r.text;
  // main's three launches, two of them the same text: two statements in run().
  EXPECT_TRUE(has(r.text, "    step<float><<<swz_flat_grid(grid), 256>>>(nullptr, dim3(1), grid);\n    SWZ_CHECK_LAUNCH();\n"
                          "    step<double><<<swz_flat_grid(grid), 256>>>(nullptr, dim3(1), grid);\n    SWZ_CHECK_LAUNCH();\n  }\n"))
      << r.text;
  EXPECT_EQ(r.warnings, std::vector<std::string>{});
}

// ---- what init leaves to the user -----------------------------------------------------------------

TEST(KernelInit, AHelperThatReadsBlockIdxGetsATodoAndAWarning) {
  const std::string t =
      "__device__ int row() { return blockIdx.y * 16; }\n"
      "__device__ int halo() { return row() - 1 + gridDim.y * 0; }\n"
      "__device__ int unused() { return blockIdx.z; }\n"
      "__global__ void step(int* p) { p[halo() + blockIdx.x] = 1; }\n"
      "int main() { step<<<dim3(2, 2), 32>>>(nullptr); }\n";
  const auto r = made(t);
  EXPECT_TRUE(has(r.text, "__device__ int row() { return blockIdx.y * 16; } // swizzleperf:TODO row(), called by kernel step, reads "
                          "blockIdx.y directly, which bypasses the swizzle: pass swz_block_idx (and swz_grid) in from the kernel\n"))
      << r.text;
  EXPECT_TRUE(has(r.text, "__device__ int halo() { return row() - 1 + gridDim.y * 0; } // swizzleperf:TODO halo(), called by"))
      << r.text;
  EXPECT_TRUE(has(r.text, "__device__ int unused() { return blockIdx.z; }\n")) << r.text;  // not called: left alone
  EXPECT_EQ(r.warnings, std::vector<std::string>(
                            {"1: row(), called by kernel step, reads blockIdx.y directly, which bypasses the swizzle: pass "
                             "swz_block_idx (and swz_grid) in from the kernel",
                             "2: halo(), called by kernel step, reads gridDim.y directly, which bypasses the swizzle: pass "
                             "swz_block_idx (and swz_grid) in from the kernel"}));
  EXPECT_EQ(r.grid_dims, 2);
  EXPECT_EQ(r.todo_count, 9u + 2u);
  // check flags exactly those reads (and the one in the helper nobody calls).
  std::vector<std::size_t> lines;
  for (const auto& u : unswizzled_block_uses(r.text)) lines.push_back(u.line);
  EXPECT_EQ(lines.size(), 3u);
}

TEST(KernelInit, ABareBlockIdxGetsATodo) {
  const std::string t =
      "__global__ void step(int* p) {\n"
      "  dim3 b = blockIdx;  // the whole index\n"
      "  p[b.x] = gridDim.x;\n"
      "}\n"
      "int main() { step<<<8, 32>>>(nullptr); }\n";
  const auto r = made(t);
  EXPECT_TRUE(has(r.text, "  dim3 b = blockIdx;  // the whole index // swizzleperf:TODO blockIdx without .x/.y/.z is not "
                          "rewritten here: use swz_block_idx (blockIdx) or swz_grid (gridDim), which the swizzle maps\n"
                          "  p[b.x] = swz_grid.x;\n"))
      << r.text;
  EXPECT_EQ(r.warnings, std::vector<std::string>({"2: blockIdx without .x/.y/.z is not rewritten here: use swz_block_idx "
                                                  "(blockIdx) or swz_grid (gridDim), which the swizzle maps"}));
  EXPECT_EQ(r.todo_count, 10u);
}

TEST(KernelInit, OtherKernelsAreLeftAloneWithAWarning) {
  const std::string t =
      "__global__ void a(int* p) { p[blockIdx.x] = 0; }\n"
      "__global__ void b(int* p) { p[blockIdx.y] = 1; }\n"
      "void go() { a<<<4, 1>>>(nullptr); b<<<dim3(1, 4), 1>>>(nullptr); }\n"
      "void attr() { cudaFuncSetAttribute(b, cudaFuncAttributeMaxDynamicSharedMemorySize, 0); }\n";
  const auto r = made(t, "k.cu", std::string("b"));
  EXPECT_TRUE(has(r.text, "__global__ void a(int* p) { p[blockIdx.x] = 0; }\n")) << r.text;
  EXPECT_TRUE(has(r.text, "a<<<4, 1>>>(nullptr); b<<<swz_flat_grid(dim3(1, 4)), 1>>>(nullptr, dim3(1, 4)); }")) << r.text;
  EXPECT_EQ(r.warnings,
            std::vector<std::string>({"1: kernel a reads blockIdx.x too; init ports only b, so it was left as it was",
                                      "4: b is named here outside a launch init could rewrite: if this launches it, launch "
                                      "swz_flat_grid(G) blocks and pass G, the original grid, as the last argument"}));
}

TEST(KernelInit, CommentsAndStringsAreNotRewritten) {
  const std::string t =
      "// blockIdx.y and k<<<g, b>>>(x) in a comment\n"
      "__global__ void k(const char* s) {\n"
      "  const char* m = \"blockIdx.y\"; /* gridDim.x */ int r = blockIdx.y;\n"
      "}\n"
      "void go() { k<<<dim3(1, 2), 1>>>(\"k<<<1, 1>>>(x)\"); }\n";
  const auto r = made(t);
  EXPECT_TRUE(has(r.text, "// blockIdx.y and k<<<g, b>>>(x) in a comment\n")) << r.text;
  EXPECT_TRUE(has(r.text, "  const char* m = \"blockIdx.y\"; /* gridDim.x */ int r = swz_block_idx.y;\n")) << r.text;
  EXPECT_TRUE(has(r.text, "k<<<swz_flat_grid(dim3(1, 2)), 1>>>(\"k<<<1, 1>>>(x)\", dim3(1, 2)); }")) << r.text;
}

TEST(KernelInit, CrlfInputGivesCrlfOutput) {
  std::string t = kScale;
  for (std::size_t p = 0; (p = t.find('\n', p)) != std::string::npos; p += 2) t.replace(p, 1, "\r\n");
  const auto r = made(t, "scale.cu");
  std::string want = kScaleProgram;
  for (std::size_t p = 0; (p = want.find('\n', p)) != std::string::npos; p += 2) want.replace(p, 1, "\r\n");
  EXPECT_EQ(r.text, want);
}

TEST(KernelInit, TheHarnessGoesAfterAConditionalIncludeBlock) {
  const std::string t =
      "#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n"
      "__global__ void k() { int x = blockIdx.x; }\nvoid go() { k<<<1, 1>>>(); }\n";
  const auto r = made(t);
  EXPECT_TRUE(has(r.text, "#include <cuda_runtime.h>\n#endif\n#include \"swz_harness.h\"\n\n// swizzleperf:begin\n")) << r.text;
  EXPECT_TRUE(has(r.text, "// swizzleperf:end\n\n__global__ void k(dim3 swz_grid) {")) << r.text;
}

TEST(KernelInit, NamesInTheProgramAreValidCxx) {
  const std::string t = "__global__ void my_kernel_2(int* p) { p[blockIdx.x] = 0; }\nvoid go() { my_kernel_2<<<1, 1>>>(nullptr); }\n"
                        "struct MyKernel2Program {};\n";
  const auto r = made(t, "we\"ird\\name.cu");
  EXPECT_TRUE(has(r.text, "class SwzMyKernel2Program : public SwzProgram {")) << r.text;
  EXPECT_TRUE(has(r.text, "SwzMyKernel2Program() : SwzProgram(\"we\\\"ird\\\\name\", \"my_kernel_2\") {}")) << r.text;
}

TEST(KernelInit, AByteOrderMarkStaysFirst) {
  const auto r = made("\xEF\xBB\xBF" + kScale, "scale.cu");
  EXPECT_EQ(r.text, "\xEF\xBB\xBF" + kScaleProgram);
}

TEST(KernelInit, BlockDeclarationsAreCopiedOncePerName) {
  const std::string t =
      "__global__ void step(int* p) { p[blockIdx.x] = 0; }\n"
      "int main() {\n"
      "  dim3 block(32);\n"
      "  step<<<4, block>>>(nullptr);\n"
      "  { dim3 block(64); step<<<8, block>>>(nullptr); }\n"
      "}\n";
  const auto r = made(t);
  EXPECT_TRUE(has(r.text, "    // swizzleperf:TODO the original launch, rewritten for the 1-D grid: its arguments must be members set "
                          "in setup(), and its block size the original's\n"
                          "    dim3 block(32);\n"
                          "    step<<<swz_flat_grid(grid), block>>>(nullptr, grid);\n"
                          "    SWZ_CHECK_LAUNCH();\n"
                          "  }\n"))
      << r.text;
  EXPECT_TRUE(has(r.text, "as the original code computed it: 4\n")) << r.text;
}

// `dim3 block(...), grid(...)` in one statement: the hint once ended "computed it: grid".
TEST(KernelInit, AGridDeclaredAfterTheBlockInOneStatementIsTheHint) {
  const std::string t =
      "__global__ void blur(float* p, int w, int h) { p[blockIdx.y * w + blockIdx.x] = 0; }\n"
      "int main() {\n"
      "  int w = 640, h = 480;\n"
      "  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);\n"
      "  blur<<<grid, block>>>(nullptr, w, h);\n"
      "}\n";
  const auto r = made(t);
  EXPECT_TRUE(has(r.text, "as the original code computed it: dim3 grid((w + 15) / 16, (h + 15) / 16)\n")) << r.text;
  // The block's own declarator, without the grid's, is copied into run().
  EXPECT_TRUE(has(r.text, "    dim3 block(16, 16);\n    blur<<<swz_flat_grid(grid), block>>>")) << r.text;
}

TEST(KernelInit, DefaultArgumentsAndReadsAlreadyMeantAreReported) {
  const std::string t =
      "__global__ void step(int* p, int n = 4) {\n"
      "  if (blockIdx.x == 0 && threadIdx.x == 0) p[0] = n;  // swizzleperf:allow-blockidx\n"
      "  p[blockIdx.x + 1] = 1;\n"
      "}\n"
      "void go() { step<<<4, 32>>>(nullptr); }\n";
  const auto r = made(t);
  EXPECT_TRUE(has(r.text, "__global__ void step(int* p, int n = 4, dim3 swz_grid) {")) << r.text;
  EXPECT_TRUE(has(r.text, "  if (blockIdx.x == 0 && threadIdx.x == 0) p[0] = n;  // swizzleperf:allow-blockidx\n"
                          "  p[swz_block_idx.x + 1] = 1;\n"))
      << r.text;
  EXPECT_EQ(r.warnings, std::vector<std::string>({"1: kernel step has a parameter with a default argument: dim3 swz_grid, "
                                                  "added last, has none, which does not compile; give it one or drop the "
                                                  "defaults"}));
}

// ---- refusals -----------------------------------------------------------------------------------

// C++ written to blur.py would be taken for a Triton program by every command.
TEST(KernelInit, TheOutputsLanguageMustBeTheInputs) {
  auto r = make_contract_program(kScale, "blur2d.cu", std::nullopt, "blur.py");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "-o blur.py names a Python (Triton) program, but init writes a C++ program from blur2d.cu: "
                               "give -o a name ending in .cu or .hip (the tools tell a program's language by its name)");
  EXPECT_TRUE(check_init_output_name("blur2d.cu", "blur_swz.hip"));
  EXPECT_TRUE(check_init_output_name("k.cuh", "k_swz.cuh"));
  EXPECT_FALSE(check_init_output_name("k.hip", "out/k.py"));
}

TEST(KernelInit, Refusals) {
  EXPECT_EQ(error_of("int main() {}\n", "blur.cu"),
            "blur.cu has no __global__ kernel: init needs a CUDA or HIP file that defines one");
  const std::string three =
      "__global__ void a() {}\n__global__ void b() {}\n__global__ void c() {}\n__global__ void a(int) {}\n";
  EXPECT_EQ(error_of(three, "blur.cu"), "blur.cu has 3 kernels (a, b, c): pick one with --kernel NAME");
  EXPECT_EQ(error_of(three, "blur.cu", std::string("d")), "blur.cu has no kernel named 'd' (its kernels: a, b, c)");
  EXPECT_EQ(error_of("__global__ void blur3x3() {}\n// blur3x3<<<g, b>>>();\n", "blur.cu"),
            "no launch of blur3x3 found in blur.cu (looked for blur3x3<<<grid, block>>>(...) and "
            "hipLaunchKernelGGL(blur3x3, ...)): init needs one to rewrite");
  EXPECT_EQ(error_of("#include \"swz_harness.h\"\n  // swizzleperf:begin\n// swizzleperf:end\n", "gemm.hip"),
            "gemm.hip is already a swizzleperf program (it has a '// swizzleperf:begin' line): run swizzleperf check on it");
  EXPECT_EQ(error_of(kScale, "scale.cpp"), "init takes a .cu or .hip file (or a .cuh), or a Triton .py file: scale.cpp is none of these");
  EXPECT_EQ(error_of(std::string(16u * 1024 * 1024 + 1, ' '), "big.cu"),
            "big.cu is 16,777,217 bytes; the limit is 16,777,216 (a kernel file is tens of KB)");
  EXPECT_TRUE(make_contract_program(kScale, "s.cuh", std::nullopt).ok());
  EXPECT_TRUE(make_contract_program(kScale, "s.hip", std::nullopt).ok());
}

}  // namespace
}  // namespace swz
