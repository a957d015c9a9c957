// Tests of the CUDA/HIP scanner (core/cuda_scan): kernels, launches, blockIdx uses
// and TODO marks found in code and only in code (comments, strings, raw strings and
// preprocessor lines hide them), with exact names, offsets, lines and texts; CRLF
// files; the shipped kernels have no unswizzled block read; hostile inputs finish.
#include "swizzleperf/core/cuda_scan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/fixtures.h"

namespace swz {
namespace {

std::vector<std::string> names(const std::vector<KernelDecl>& ks) {
  std::vector<std::string> out;
  for (const auto& k : ks) out.push_back(k.name);
  return out;
}

std::vector<std::string> texts(const std::vector<SourceUse>& us) {
  std::vector<std::string> out;
  for (const auto& u : us) out.push_back(std::to_string(u.line) + ":" + std::to_string(u.column) + " " + u.text);
  return out;
}

// ---- kernels ------------------------------------------------------------------------------

TEST(CudaScan, FindsAKernelWithExactOffsets) {
  const std::string t = "#include <cuda_runtime.h>\n\n__global__ void blur(const float* in, float* out) {\n  out[0] = in[0];\n}\n";
  const auto ks = find_kernels(t);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].name, "blur");
  EXPECT_FALSE(ks[0].is_template);
  EXPECT_EQ(ks[0].line, 3u);
  EXPECT_EQ(ks[0].name_begin, t.find("blur("));
  EXPECT_EQ(ks[0].params_open, t.find('('));
  EXPECT_EQ(ks[0].params_close, t.find(')'));
  EXPECT_EQ(ks[0].body_open, t.find('{'));
  EXPECT_EQ(ks[0].body_close, t.rfind('}'));
}

TEST(CudaScan, KernelsInCommentsStringsRawStringsAndMacrosAreNotKernels) {
  const std::string t =
      "// __global__ void in_line_comment() {}\n"
      "/* __global__ void in_block_comment() {}\n"
      "   still a comment */\n"
      "const char* s = \"__global__ void in_string() {} \\\" still\";\n"
      "const char* r = R\"x(__global__ void in_raw() { \" )\" }\n)x\";\n"
      "char q = '\"'; char e = '\\'';\n"
      "#define K __global__ void in_macro() {} \\\n"
      "  __global__ void in_macro_continued() {}\n"
      "// a comment that goes on \\\n"
      "__global__ void in_spliced_comment() {}\n"
      "int big = 1'000'000;\n"
      "__global__ void real(int n) { }\n";
  EXPECT_EQ(names(find_kernels(t)), std::vector<std::string>({"real"}));
}

TEST(CudaScan, TemplatesLaunchBoundsExternCStaticAttributesAndVoid) {
  const std::string t =
      "template <typename T, int N = (3 > 2)>\n"
      "__global__ void __launch_bounds__(256, 2) tk(T* p) { p[0] = N; }\n"
      "extern \"C\" __global__ void ck(void) {}\n"
      "static __global__ void sk() {}\n"
      "__global__ void __attribute__((noinline)) [[maybe_unused]] ak(int a) {}\n"
      "template <typename T>\n"
      "static __device__ __global__ void tk2(T a) {}\n"
      "__global__ void fwd(int n);\n"
      "__device__ void helper() {}\n";
  CudaSource src(t);
  ASSERT_EQ(names(src.kernels()), std::vector<std::string>({"tk", "ck", "sk", "ak", "tk2"}));
  EXPECT_TRUE(src.kernels()[0].is_template);
  EXPECT_FALSE(src.kernels()[1].is_template);
  EXPECT_FALSE(src.kernels()[2].is_template);
  EXPECT_FALSE(src.kernels()[3].is_template);
  EXPECT_TRUE(src.kernels()[4].is_template);
  EXPECT_EQ(src.kernels()[0].params_open, t.find("(T* p)"));
  EXPECT_EQ(src.kernels()[1].params_open, t.find("(void)"));
  EXPECT_EQ(src.kernels()[1].line, 3u);
  ASSERT_EQ(src.kernel_prototypes().size(), 1u);
  EXPECT_EQ(src.kernel_prototypes()[0].name, "fwd");
  EXPECT_EQ(src.kernel_prototypes()[0].body_open, kNoOffset);
}

// ---- launches -------------------------------------------------------------------------------

TEST(CudaScan, SplitsALaunchAtItsTopLevelCommas) {
  const std::string t =
      "void f() {\n"
      "  k<float, 4><<<dim3(a, b), dim3{16, 16}, smem * sizeof(float), stream>>>(x, std::max<int>(a, b), g(c, d));\n"
      "  k<<<make_grid<16, 16>(n), 256>>>(p /* the input */,\n"
      "      q);\n"
      "  ns::k2<<<(n + 255) >> 8, 256>>>();\n"
      "}\n";
  const auto ls = find_launches(t);
  ASSERT_EQ(ls.size(), 3u);
  EXPECT_EQ(ls[0].kernel, "k");
  EXPECT_EQ(ls[0].kernel_expr, "k<float, 4>");
  EXPECT_EQ(ls[0].grid, "dim3(a, b)");
  EXPECT_EQ(ls[0].block, "dim3{16, 16}");
  EXPECT_EQ(ls[0].rest, ", smem * sizeof(float), stream");
  EXPECT_EQ(ls[0].args, "x, std::max<int>(a, b), g(c, d)");
  EXPECT_TRUE(ls[0].triple_chevron);
  EXPECT_EQ(ls[0].line, 2u);
  EXPECT_EQ(ls[0].begin, t.find("k<float"));
  EXPECT_EQ(ls[0].end, t.find(";\n  k<<<"));
  EXPECT_EQ(ls[0].grid_begin, t.find("dim3(a, b)"));
  EXPECT_EQ(ls[0].grid_end, t.find("dim3(a, b)") + 10);
  EXPECT_EQ(ls[0].append_at, t.find("));\n  k<<<") + 1);
  EXPECT_TRUE(ls[0].append_comma);
  EXPECT_EQ(ls[0].enclosing_function, "f");

  EXPECT_EQ(ls[1].grid, "make_grid<16, 16>(n)");
  EXPECT_EQ(ls[1].block, "256");
  EXPECT_EQ(ls[1].rest, "");
  EXPECT_EQ(ls[1].args, "p, q");
  EXPECT_EQ(ls[1].append_at, t.find("q);") + 1);

  EXPECT_EQ(ls[2].kernel, "k2");
  EXPECT_EQ(ls[2].kernel_expr, "ns::k2");
  EXPECT_EQ(ls[2].grid, "(n + 255) >> 8");
  EXPECT_EQ(ls[2].args, "");
  EXPECT_FALSE(ls[2].append_comma);
  EXPECT_EQ(ls[2].append_at, t.find("();") + 1);
}

TEST(CudaScan, HipLaunchKernelGGLWithAndWithoutArguments) {
  const std::string t =
      "void run() {\n"
      "  hipLaunchKernelGGL(HIP_KERNEL_NAME(k<T, 2>), dim3(g.m * g.n), dim3(256), 0, 0, a, b);\n"
      "  hipLaunchKernelGGL(plain, grid, block, smem, stream);\n"
      "  hipLaunchKernelGGL(cmp, i < n, j > m, 0, 0);\n"
      "  hipLaunchKernelGGL(too_few, grid, block, 0);\n"
      "}\n";
  const auto ls = find_launches(t);
  ASSERT_EQ(ls.size(), 3u);
  EXPECT_EQ(ls[0].kernel, "k");
  EXPECT_EQ(ls[0].kernel_expr, "HIP_KERNEL_NAME(k<T, 2>)");
  EXPECT_EQ(ls[0].grid, "dim3(g.m * g.n)");
  EXPECT_EQ(ls[0].block, "dim3(256)");
  EXPECT_EQ(ls[0].rest, ", 0, 0");
  EXPECT_EQ(ls[0].args, "a, b");
  EXPECT_FALSE(ls[0].triple_chevron);
  EXPECT_EQ(ls[0].enclosing_function, "run");
  EXPECT_EQ(ls[1].kernel, "plain");
  EXPECT_EQ(ls[1].args, "");
  EXPECT_EQ(ls[1].rest, ", smem, stream");
  EXPECT_TRUE(ls[1].append_comma);
  EXPECT_EQ(ls[1].append_at, t.find("stream);") + 6);
  // A comparison is not template arguments: i < n and j > m are two arguments.
  EXPECT_EQ(ls[2].kernel, "cmp");
  EXPECT_EQ(ls[2].grid, "i < n");
  EXPECT_EQ(ls[2].block, "j > m");
}

TEST(CudaScan, LaunchesInCommentsAndStringsAreNotLaunches) {
  const std::string t =
      "// k<<<g, b>>>(x);\n"
      "/* hipLaunchKernelGGL(k, g, b, 0, 0, x); */\n"
      "const char* s = \"k<<<g, b>>>(x)\";\n"
      "int v = a << 2 < b;\n"
      "void f() { k<<<g, b>>>(x); }\n";
  const auto ls = find_launches(t);
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].line, 5u);
}

TEST(CudaScan, EnclosingFunctionOfEachLaunch) {
  const std::string t =
      "struct Runner {\n"
      "  Runner(int n) : n_(n), v_{0} {}\n"
      "  void run() const { k<<<g, b>>>(1); }\n"
      "  int n_, v_;\n"
      "};\n"
      "static auto wrap(int n) -> void {\n"
      "  if (n) { k<<<g, b>>>(2); }\n"
      "  auto lam = [&](int m) { k<<<g, b>>>(3); };\n"
      "}\n"
      "int main(int argc, char** argv) {\n"
      "  for (int i = 0; i < 2; ++i) {\n"
      "    k<<<g, b>>>(4);\n"
      "  }\n"
      "}\n";
  CudaSource src(t);
  std::vector<std::string> where;
  for (const auto& l : src.launches()) where.push_back(l.args + "@" + l.enclosing_function);
  EXPECT_EQ(where, std::vector<std::string>({"1@run", "2@wrap", "3@wrap", "4@main"}));
  std::vector<std::string> fns;
  for (const auto& f : src.functions()) fns.push_back(f.name + ":" + std::to_string(f.line));
  EXPECT_EQ(fns, std::vector<std::string>({"Runner:2", "run:3", "wrap:6", "main:10"}));
  EXPECT_EQ(src.functions()[2].decl_begin, t.find("static auto wrap"));
  EXPECT_EQ(src.functions()[3].decl_begin, t.find("int main"));
}

// ---- block uses ---------------------------------------------------------------------------------

TEST(CudaScan, BlockUsesInOneTwoAndThreeDimensions) {
  const std::string t =
      "__global__ void k1(float* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = gridDim.x; }\n"
      "__global__ void k2(float* p) { int r = blockIdx . y; int c = blockIdx.x; }\n"
      "__global__ void k3(float* p) { int z = blockIdx.z + gridDim.z * hipBlockIdx_y + hipGridDim_x; }\n"
      "__global__ void k4(S s) { int a = s.blockIdx.x; dim3 b = blockIdx; int c = gridDim.w; }\n";
  EXPECT_EQ(texts(unswizzled_block_uses(t)),
            std::vector<std::string>({"1:34 blockIdx.x", "1:75 gridDim.x", "2:40 blockIdx.y", "2:62 blockIdx.x",
                                      "3:40 blockIdx.z", "3:53 gridDim.z", "3:65 hipBlockIdx_y", "3:81 hipGridDim_x",
                                      "4:58 blockIdx", "4:76 gridDim"}));
  const auto uses = CudaSource(t).block_uses();
  EXPECT_EQ(uses[2].member, 'y');
  EXPECT_FALSE(uses[2].grid);
  EXPECT_EQ(uses[2].end - uses[2].begin, std::string("blockIdx . y").size());
  EXPECT_TRUE(uses[7].grid);
  EXPECT_EQ(uses[7].member, 'x');
  EXPECT_EQ(uses[8].member, 0);
}

TEST(CudaScan, SwizzlePidArgumentsAllowCommentsAndNonCodeAreNotUnswizzled) {
  const std::string t =
      "// blockIdx.y in a comment\n"
      "#define ROW blockIdx.y\n"
      "const char* s = \"blockIdx.y\";\n"
      "__global__ void k(float* p, SwizzleGrid g) {\n"
      "  const unsigned t = swizzle_pid(blockIdx.x, gridDim.x, g);\n"
      "  const unsigned u = swizzle_pid(f(blockIdx.x), (gridDim.x), g) + blockIdx.y;\n"
      "  if (blockIdx.x == 0) p[0] = 1;  // swizzleperf:allow-blockidx (only block 0 writes the flag)\n"
      "  /* blockIdx.z */ p[1] = gridDim.y;\n"
      "}\n";
  EXPECT_EQ(texts(unswizzled_block_uses(t)), std::vector<std::string>({"6:67 blockIdx.y", "8:27 gridDim.y"}));
}

// A port where one halo load still reads blockIdx.y: exactly that read is reported.
TEST(CudaScan, FindsExactlyThePlantedBlockIdxInAPort) {
  std::string t =
      "#include <hip/hip_runtime.h>\n"
      "#include \"swz_harness.h\"\n"
      "// swizzleperf:begin\n"
      "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
      "  return pid;\n"
      "}\n"
      "// swizzleperf:end\n"
      "__global__ void stencil(const float* in, float* out, int w, int h, dim3 swz_grid) {\n"
      "  const SwzBlock b = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);\n"
      "  __shared__ float tile[18][18];\n"
      "  const int x = b.x * 16 + threadIdx.x, y = b.y * 16 + threadIdx.y;\n"
      "  tile[threadIdx.y + 1][threadIdx.x + 1] = in[y * w + x];\n"
      "  if (threadIdx.y == 0) {  // the halo row above\n"
      "    const int hy = max(int(blockIdx.y) * 16 - 1, 0);\n"
      "    tile[0][threadIdx.x + 1] = in[hy * w + x];\n"
      "  }\n"
      "}\n";
  const auto uses = unswizzled_block_uses(t);
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].line, 14u);
  EXPECT_EQ(uses[0].column, 28u);
  EXPECT_EQ(uses[0].text, "blockIdx.y");
  // Fixed, it is clean.
  t.replace(t.find("blockIdx.y"), 10, "b.y");
  EXPECT_TRUE(unswizzled_block_uses(t).empty());
}

TEST(CudaScan, EveryShippedKernelReadsTheBlockOnlyThroughSwizzlePid) {
  int files = 0;
  for (const auto* dir : {"kernels", "kernels/tc"}) {
    for (const auto& e : std::filesystem::directory_iterator(test::source_dir() / dir)) {
      if (e.path().extension() != ".hip") continue;
      ++files;
      const auto text = test::read_text(e.path());
      EXPECT_EQ(texts(unswizzled_block_uses(text)), std::vector<std::string>{}) << e.path();
      EXPECT_FALSE(find_kernels(text).empty()) << e.path();
      EXPECT_FALSE(find_launches(text).empty()) << e.path();
    }
  }
  EXPECT_GE(files, 12);
}

// ---- TODO marks -----------------------------------------------------------------------------------

TEST(CudaScan, TodoMarksInCommentsOnly) {
  const std::string t =
      "// swizzleperf:TODO   the size   \n"
      "int a; /* swizzleperf:TODO a block\n"
      "   comment */\n"
      "const char* s = \"// swizzleperf:TODO not a comment\";\n"
      "#define X 1 // swizzleperf:TODO in a directive\n"
      "// swizzleperf:TODO\n"
      "// TODO without the marker\n"
      "//swizzleperf:TODO " + std::string(200, 'x') + "\n";
  const auto marks = todo_marks(t);
  ASSERT_EQ(marks.size(), 5u);
  EXPECT_EQ(marks[0].line, 1u);
  EXPECT_EQ(marks[0].text, "the size");
  EXPECT_EQ(marks[1].line, 2u);
  EXPECT_EQ(marks[1].text, "a block    comment");
  EXPECT_EQ(marks[2].line, 5u);
  EXPECT_EQ(marks[2].text, "in a directive");
  EXPECT_EQ(marks[3].line, 6u);
  EXPECT_EQ(marks[3].text, "");
  EXPECT_EQ(marks[4].line, 8u);
  EXPECT_EQ(marks[4].text, std::string(160, 'x'));
}

// ---- line endings, the include block, helpers ----------------------------------------------------------

TEST(CudaScan, CrlfLinesAndColumns) {
  const std::string t =
      "#include <cuda_runtime.h>\r\n"
      "__global__ void k(int* p) {\r\n"
      "  p[0] = blockIdx.y; // swizzleperf:TODO check\r\n"
      "}\r\n"
      "int main() {\r\n"
      "  k<<<dim3(2, 2), 1>>>(nullptr);\r\n"
      "}\r\n";
  CudaSource src(t);
  ASSERT_EQ(src.kernels().size(), 1u);
  EXPECT_EQ(src.kernels()[0].line, 2u);
  ASSERT_EQ(src.launches().size(), 1u);
  EXPECT_EQ(src.launches()[0].line, 6u);
  EXPECT_EQ(src.launches()[0].enclosing_function, "main");
  EXPECT_EQ(texts(unswizzled_block_uses(t)), std::vector<std::string>({"3:10 blockIdx.y"}));
  const auto marks = todo_marks(t);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].text, "check");
  EXPECT_EQ(src.harness_include_at(), t.find("__global__"));
}

TEST(CudaScan, HarnessGoesAfterTheLastTopIncludeAndOutsideConditionals) {
  EXPECT_EQ(CudaSource("// c\n#include <a>\n#include \"b.h\" // b\n\nint x;\n#include <late>\n").harness_include_at(),
            std::string("// c\n#include <a>\n#include \"b.h\" // b\n").size());
  const std::string cond = "#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n#define N 4\nint x;\n";
  EXPECT_EQ(CudaSource(cond).harness_include_at(), cond.find("#define N"));
  const std::string guard = "#ifndef K_CUH\n#define K_CUH\n#include <cuda_runtime.h>\n  int x;\n#endif\n";
  EXPECT_EQ(CudaSource(guard).harness_include_at(), guard.find("  int x;"));
  EXPECT_EQ(CudaSource("/* x */ int y;").harness_include_at(), std::string("/* x */ ").size());
  EXPECT_EQ(CudaSource("").harness_include_at(), 0u);
  EXPECT_EQ(CudaSource("#include <a>").harness_include_at(), 12u);
}

TEST(CudaScan, CallsLocalDeclarationsAndCodeText) {
  const std::string t =
      "__global__ void k(float* p) {\n"
      "  if (p) p[0] = helper(p) + tmpl<int>(1) + s.method(2) + sizeof(int);\n"
      "}\n"
      "void host(int w) {\n"
      "  dim3 grid((w + 15) / 16, /* rows */ 4);\n"
      "  const int threads = 256;\n"
      "  grid = dim3(1);\n"
      "  k<<<grid, threads>>>(nullptr);\n"
      "}\n";
  CudaSource src(t);
  const auto& k = src.kernels().at(0);
  EXPECT_EQ(src.calls_in(k.body_open, k.body_close), std::vector<std::string>({"helper", "tmpl"}));
  const auto& host = src.functions().at(1);
  const auto launch = src.launches().at(0);
  EXPECT_EQ(src.local_declaration("grid", host.body_open, launch.begin), "dim3 grid((w + 15) / 16, 4)");
  EXPECT_EQ(src.local_declaration("threads", host.body_open, launch.begin), "const int threads = 256");
  EXPECT_EQ(src.local_declaration("missing", host.body_open, launch.begin), "");
  EXPECT_EQ(src.code_text(t.find("dim3 grid"), t.find(";\n  const")), "dim3 grid((w + 15) / 16, 4)");
}

// Several declarators in one statement: each name's declaration is the shared type and its
// own declarator.
TEST(CudaScan, LocalDeclarationOfALaterDeclarator) {
  const std::string t =
      "void host(int w, int h) {\n"
      "  if (w) { w = 1; }\n"
      "  dim3 block(16, 16), grid((w + 15) / 16, f(h, 2));\n"
      "  const int a = g(1, 2), b = 3, c{4};\n"
      "  dim3 p{1, 2}, q{3, 4};\n"
      "  auto x = tmpl<int, 2>(w), y = 5;\n"
      "  use(block), grid2(w);\n"
      "  k<<<grid, block>>>(a, b, c, p, q, x, y);\n"
      "}\n";
  CudaSource src(t);
  const auto& host = src.functions().at(0);
  const std::size_t before = t.find("k<<<");
  EXPECT_EQ(src.local_declaration("block", host.body_open, before), "dim3 block(16, 16)");
  EXPECT_EQ(src.local_declaration("grid", host.body_open, before), "dim3 grid((w + 15) / 16, f(h, 2))");
  EXPECT_EQ(src.local_declaration("a", host.body_open, before), "const int a = g(1, 2)");
  EXPECT_EQ(src.local_declaration("b", host.body_open, before), "const int b = 3");
  EXPECT_EQ(src.local_declaration("c", host.body_open, before), "const int c{4}");
  EXPECT_EQ(src.local_declaration("q", host.body_open, before), "dim3 q{3, 4}");
  EXPECT_EQ(src.local_declaration("x", host.body_open, before), "auto x = tmpl<int, 2>(w)");
  EXPECT_EQ(src.local_declaration("y", host.body_open, before), "auto y = 5");
  // An expression statement with a comma operator declares nothing.
  EXPECT_EQ(src.local_declaration("grid2", host.body_open, before), "");
}

TEST(CudaScan, LiteralsAndUnterminatedInputs) {
  const std::string t = "auto s = R\"(a\nb)\"; int k;";
  CudaSource src(t);
  EXPECT_TRUE(src.in_literal(t.find('\n')));
  EXPECT_FALSE(src.in_literal(t.find("int")));
  for (const std::string& bad : std::vector<std::string>{"__global__ void k(", "/* never closed __global__ void a() {}", "\"never closed\n__global__ void b() {}",
                                "R\"abc(never closed", "k<<<", "k<<<g, b>>>(", "hipLaunchKernelGGL(", "#define X \\",
                                "__global__ void c() {", "}}}{{{)))(((]]][[[", std::string("\0\0__global__\xff\xfe", 14),
                                "\xEF\xBB\xBF#include <a>\n__global__ void d() {}\nint main() { d<<<1, 1>>>(); }"}) {
    CudaSource s(bad);
    (void)s.block_uses();
    (void)s.todo_marks();
  }
  EXPECT_EQ(names(find_kernels("\"never closed\n__global__ void b() {}")), std::vector<std::string>({"b"}));
  EXPECT_EQ(find_launches("\xEF\xBB\xBF#include <a>\n__global__ void d() {}\nint main() { d<<<1, 1>>>(); }").size(), 1u);
}

// ---- a 2-D port's launch path and grid axes --------------------------------------------------

// A blur port as init writes it and a user fills it; `launch` is run()'s launch line.
std::string scan_port_text(const std::string& launch, const std::string& setup = "w = static_cast<int>(s[0]), h = static_cast<int>(s[1]);") {
  return "__global__ void blur(const float* in, float* out, int w, int h, dim3 swz_grid) {\n"                       // 1
         "  const SwzBlock swz_block_idx = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);\n"
         "  int x = swz_block_idx.x * blockDim.x + threadIdx.x;\n"
         "  int y = swz_block_idx.y * blockDim.y + threadIdx.y;\n"
         "  if (x >= w || y >= h) return;\n"                                                                           // 5
         "  out[(size_t)y * w + x] = in[(size_t)y * w + x];\n"
         "}\n"
         "#if 0\n"
         "int main() { blur<<<grid, block>>>(in, out, w, h); }\n"                                                       // 9
         "#endif\n"
         "class P : public SwzProgram {\n"
         "  dim3 launch_grid(const SwzSize& s) const override { return dim3((s[0] + 15) / 16, (s[1] + 15) / 16); }\n"  // 12
         "  void setup(const SwzSize& s, unsigned long long seed) override {\n"
         "    size_ = s;\n"
         "    " + setup + "\n"
         "  }\n"
         "  void run() override {\n"
         "    const dim3 grid = launch_grid(size_);\n"
         "    dim3 block(16, 16);\n"
         "    " + launch + "\n"                                                                                         // 20
         "  }\n"
         "};\n";
}

TEST(CudaScanPort, ALeftover2DLaunchInRunIsFoundWithItsLine) {
  const auto ls = unflattened_launches(scan_port_text("blur<<<grid, block>>>(in, out, w, h, grid);"));
  ASSERT_EQ(ls.size(), 1u);  // not the one in the #if 0 main
  EXPECT_EQ(ls[0].line, 20u);
  EXPECT_EQ(ls[0].kernel, "blur");
  EXPECT_EQ(ls[0].grid, "grid");
  EXPECT_EQ(ls[0].enclosing_function, "run");
}

TEST(CudaScanPort, AFlatLaunchDirectOrThroughALocalIsNotALeftover) {
  EXPECT_TRUE(unflattened_launches(scan_port_text("blur<<<swz_flat_grid(grid), block>>>(in, out, w, h, grid);")).empty());
  EXPECT_TRUE(unflattened_launches(scan_port_text("const dim3 flat = swz_flat_grid(grid); blur<<<flat, block>>>(in, out, w, h, grid);"))
                  .empty());
  EXPECT_TRUE(unflattened_launches(scan_port_text("hipLaunchKernelGGL(blur, swz_flat_grid(grid), block, 0, 0, in, out, w, h, grid);"))
                  .empty());
  EXPECT_EQ(unflattened_launches(scan_port_text("hipLaunchKernelGGL(blur, grid, block, 0, 0, in, out, w, h, grid);")).size(), 1u);
}

TEST(CudaScanPort, ALaunchWrapperRunCallsIsOnThePathAndAProgramWithoutLaunchGridIsNot) {
  const std::string wrapper =
      "void launch_grid() {}\n"
      "void go(dim3 g) { k<<<g, 256>>>(g); }\n"
      "struct P { void run() { go(dim3(4, 4)); } };\n";
  ASSERT_EQ(unflattened_launches(wrapper).size(), 1u);
  EXPECT_EQ(unflattened_launches(wrapper)[0].enclosing_function, "go");
  // A 1-D program under the contract launches its num_pids itself.
  EXPECT_TRUE(unflattened_launches("struct P { void run() { k<<<num_pids, 256>>>(a, grid); } };\n").empty());
}

TEST(CudaScanPort, TheSizeValuesBoundingEachAxisComeFromTheKernelRunAndSetup) {
  const auto a = launch_axis_sizes(scan_port_text("blur<<<swz_flat_grid(grid), block>>>(in, out, w, h, grid);"));
  EXPECT_EQ(a.x, 0);
  EXPECT_EQ(a.y, 1);
  EXPECT_EQ(a.x_bound, "w");
  EXPECT_EQ(a.y_bound, "h");
  EXPECT_EQ(a.kernel, "blur");
  EXPECT_EQ(a.launch_grid_line, 12u);
  // Swapped members in setup swap the axes; arguments read from the size directly count too.
  const auto b = launch_axis_sizes(scan_port_text("blur<<<swz_flat_grid(grid), block>>>(in, out, w, h, grid);",
                                                  "h = static_cast<int>(s[0]); w = static_cast<int>(s[1]);"));
  EXPECT_EQ(b.x, 1);
  EXPECT_EQ(b.y, 0);
  const auto c = launch_axis_sizes(scan_port_text("blur<<<swz_flat_grid(grid), block>>>(in, out, size_[1], size_[0], grid);"));
  EXPECT_EQ(c.x, 1);
  EXPECT_EQ(c.y, 0);
  // Both bounds from one value, or one not found: no answer rather than a guess.
  EXPECT_EQ(launch_axis_sizes(scan_port_text("blur<<<swz_flat_grid(grid), block>>>(in, out, w, w, grid);")).x, -1);
  EXPECT_EQ(launch_axis_sizes(scan_port_text("blur<<<swz_flat_grid(grid), block>>>(in, out, w, h, grid);", "w = 64; h = 64;")).x, -1);
}

TEST(CudaScanPort, TheShippedPortsHaveNoLeftoverLaunchAndKnownAxes) {
  struct Want {
    const char* file;
    int x, y;
  };
  for (const Want w : {Want{"blur_swz.cu", 0, 1}, Want{"gemm_swz.cu", 1, 0}, Want{"transpose_swz.hip", 1, 0}}) {
    const std::string text = test::read_text(test::source_dir() / "examples" / "byok" / w.file);
    EXPECT_TRUE(unflattened_launches(text).empty()) << w.file;
    const auto a = launch_axis_sizes(text);
    EXPECT_EQ(a.x, w.x) << w.file;
    EXPECT_EQ(a.y, w.y) << w.file;
  }
}

// Inputs built to make a careless scanner quadratic (or recurse): each must finish
// (ctest's timeout would catch one that does not).
TEST(CudaScan, HostileInputsOfAMegabyteFinish) {
  const std::size_t mb = 1u << 20;
  std::vector<std::string> inputs;
  auto repeat = [&](const std::string& unit) {
    std::string s;
    while (s.size() < mb) s += unit;
    return s;
  };
  inputs.push_back(repeat("<<<"));
  inputs.push_back(repeat("k<<<"));
  inputs.push_back(repeat(">"));
  inputs.push_back(repeat("k<a<"));
  inputs.push_back(repeat("(") + repeat(")"));
  inputs.push_back(repeat("{"));
  inputs.push_back(repeat("__global__ "));
  inputs.push_back(repeat("( __global__ "));
  inputs.push_back(repeat("f() {"));
  inputs.push_back(repeat("k<<<g,b>>>(") + repeat(")"));
  inputs.push_back(repeat("hipLaunchKernelGGL(k,"));
  inputs.push_back(repeat("swizzle_pid(blockIdx.x,"));
  inputs.push_back(repeat("/*"));
  inputs.push_back(repeat("a<b,"));
  inputs.push_back(repeat("R\"("));
  inputs.push_back("void launch_grid() {} void setup() {} struct P { void run() {" + repeat("k<<<g,b>>>(a);") + "} };");
  inputs.push_back("void launch_grid() {} void setup() {" + repeat("w = s[0] + ") + "} void run() {" + repeat("f(") + "}");
  inputs.push_back("__global__ void k(int w) { int x = swz_block_idx.x;" + repeat("x < w (") + "}");
  for (const auto& in : inputs) {
    (void)unflattened_launches(in);
    (void)launch_axis_sizes(in);
    CudaSource s(in);
    (void)s.block_uses();
    (void)s.todo_marks();
    for (const auto& k : s.kernels()) (void)s.calls_in(k.body_open, k.body_close);
  }
}

}  // namespace
}  // namespace swz
