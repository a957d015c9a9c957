// Tests of cli/port_check: the source findings on planted text, and the program findings
// through the real CudaBackend with a scripted runner playing nvcc and the program's info
// mode (no compiler runs).
#include "swizzleperf/cli/port_check.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "support/scripted_runner.h"
#include "swizzleperf/backend/cuda_backend.h"

namespace swz::cli {
namespace {

using test::exited;
using test::ScriptedRunner;
using test::TempDir;

const char* kRegion =
    "// swizzleperf:begin\n"
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return pid;\n"
    "}\n"
    "// swizzleperf:end\n";

KernelSource source(const std::string& text, const std::string& name = "k.cu") {
  auto k = KernelSource::parse(text, name);
  EXPECT_TRUE(k.ok()) << (k ? "" : k.error().message);
  return *k;
}

// The info line a well-ported program prints at its default size, and at --size.
std::string info_line(unsigned m, unsigned n, long long footprint = 1024) {
  return "{\"kernel\":\"k\",\"size\":[64,64],\"grid\":{\"m\":" + std::to_string(m) + ",\"n\":" + std::to_string(n) +
         "},\"footprint_bytes\":" + std::to_string(footprint) + ",\"verify_sizes\":[[1,1],[7,7]]}\n";
}

// nvcc succeeds; the program answers info from `answer(args)`.
struct Scripted {
  ScriptedRunner runner;
  std::vector<std::vector<std::string>> program_args;
  explicit Scripted(std::function<ProcessResult(const std::vector<std::string>&)> answer, int nvcc_exit = 0) {
    runner.on("nvcc", exited(nvcc_exit, "", nvcc_exit ? "k.cu(3): error: expected a ';'\n" : ""));
    runner.otherwise([this, answer](const ProcessSpec& s) {
      std::vector<std::string> args(s.argv.begin() + 1, s.argv.end());
      program_args.push_back(args);
      return answer(args);
    });
  }
};

ProgramCheckOptions options(const TempDir& tmp) {
  ProgramCheckOptions o;
  o.work_dir = tmp.path();
  return o;
}

ToolOptions nvcc_tools() {
  ToolOptions t;
  t.compiler = "nvcc";
  return t;
}

TEST(PortCheck, TodoMarksAreErrorsAndBlockIndexUsesWarningsUnlessStrict) {
  const std::string text = std::string("// swizzleperf:default-grid 4x4\n") + kRegion +
                           "__global__ void k(float* o, dim3 swz_grid) {\n"
                           "  unsigned t = swizzle_pid(blockIdx.x, gridDim.x, {4, 4});\n"
                           "  o[t] = blockIdx.y;\n"
                           "}\n"
                           "// swizzleperf:TODO the default size\n";
  auto f = source_findings(source(text), false);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_FALSE(f[0].error);
  EXPECT_EQ(f[0].line, 9u);
  EXPECT_NE(f[0].text.find("blockIdx.y does not go through swizzle_pid"), std::string::npos) << f[0].text;
  EXPECT_TRUE(f[1].error);
  EXPECT_EQ(f[1].line, 11u);
  EXPECT_EQ(f[1].text, "swizzleperf:TODO left: the default size");
  auto strict = source_findings(source(text), true);
  ASSERT_EQ(strict.size(), 2u);
  EXPECT_TRUE(strict[0].error);
  EXPECT_EQ(format_finding("k.cu", strict[0]).rfind("k.cu:9: error: blockIdx.y", 0), 0u);
  EXPECT_NE(strict[0].text.find("(use the swizzled one, swz_block_idx.y,"), std::string::npos) << strict[0].text;
}

// The hint names what init writes in place of each spelling.
TEST(PortCheck, EachBypassNamesItsSwizzledSpelling) {
  const std::string text = std::string(kRegion) +
                           "__global__ void k(int* o, dim3 swz_grid) {\n"
                           "  o[0] = gridDim.x + hipGridDim_y + hipBlockIdx_z;\n"
                           "}\n";
  const auto f = source_findings(source(text), false);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_NE(f[0].text.find("gridDim.x does not go through swizzle_pid"), std::string::npos) << f[0].text;
  EXPECT_NE(f[0].text.find("(use the swizzled one, swz_grid.x,"), std::string::npos) << f[0].text;
  EXPECT_NE(f[1].text.find("(use the swizzled one, swz_grid.y,"), std::string::npos) << f[1].text;
  EXPECT_NE(f[2].text.find("(use the swizzled one, swz_block_idx.z,"), std::string::npos) << f[2].text;
}

TEST(PortCheck, AllowCommentAndSwizzlePidArgumentsAreNotFindings) {
  const std::string text = std::string(kRegion) +
                           "__global__ void a() { unsigned t = swizzle_pid(blockIdx.x, gridDim.x, {1, 1}); }\n"
                           "__global__ void b(int* o) { o[blockIdx.x] = 1; }  // swizzleperf:allow-blockidx\n";
  EXPECT_TRUE(source_findings(source(text), true).empty());
}

TEST(PortCheck, AProgramThatAgreesWithItsCommentHasNoFindings) {
  TempDir tmp;
  Scripted s([](const std::vector<std::string>&) { return exited(0, info_line(8, 16)); });
  CudaBackend cuda(s.runner, nvcc_tools());
  auto facts = program_findings(source(std::string("// swizzleperf:default-grid 8x16\n") + kRegion), cuda, options(tmp));
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  EXPECT_TRUE(facts->built);
  EXPECT_TRUE(facts->findings.empty()) << facts->findings.front().text;
  EXPECT_EQ(facts->sizes_checked, 2u);
  ASSERT_EQ(s.program_args.size(), 3u);
  EXPECT_EQ(s.program_args[0], std::vector<std::string>{"info"});
  EXPECT_EQ(s.program_args[2], (std::vector<std::string>{"info", "--size", "7,7"}));
  // The build is the info-only one: PTX at -O0.
  const auto nvcc = s.runner.calls().front().argv;
  EXPECT_TRUE(test::has_arg(nvcc, "-O0"));
  EXPECT_TRUE(test::has_arg(nvcc, "-arch=compute_90"));
}

TEST(PortCheck, ADefaultGridCommentThatDisagreesIsAnErrorOnItsLine) {
  TempDir tmp;
  Scripted s([](const std::vector<std::string>&) { return exited(0, info_line(512, 512)); });
  CudaBackend cuda(s.runner, nvcc_tools());
  auto facts = program_findings(source(std::string("// a blur\n// swizzleperf:default-grid 64x4096\n") + kRegion), cuda, options(tmp));
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->findings.size(), 1u);
  EXPECT_TRUE(facts->findings[0].error);
  EXPECT_EQ(facts->findings[0].line, 2u);
  EXPECT_NE(facts->findings[0].text.find("the default-grid comment says 64x4096 but the program's info says 512x512"),
            std::string::npos)
      << facts->findings[0].text;
}

TEST(PortCheck, NoCommentIsAnErrorThatGivesTheLine) {
  TempDir tmp;
  Scripted s([](const std::vector<std::string>&) { return exited(0, info_line(3, 5)); });
  CudaBackend cuda(s.runner, nvcc_tools());
  auto facts = program_findings(source(kRegion), cuda, options(tmp));
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->findings.size(), 1u);
  EXPECT_NE(facts->findings[0].text.find("add the line // swizzleperf:default-grid 3x5"), std::string::npos)
      << facts->findings[0].text;
}

TEST(PortCheck, AVerifySizeTheProgramRefusesAndAZeroFootprintAreErrors) {
  TempDir tmp;
  Scripted s([](const std::vector<std::string>& a) {
    if (a.size() == 3 && a[2] == "7,7")
      return exited(2, "{\"mode\":\"info\",\"ok\":false,\"error\":\"--size: value 1 (7) must be a multiple of 16\"}\n");
    return exited(0, info_line(4, 4, 0));
  });
  CudaBackend cuda(s.runner, nvcc_tools());
  auto facts = program_findings(source(std::string("// swizzleperf:default-grid 4x4\n") + kRegion), cuda, options(tmp));
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->findings.size(), 3u);
  EXPECT_NE(facts->findings[0].text.find("info reports footprint_bytes 0"), std::string::npos) << facts->findings[0].text;
  EXPECT_NE(facts->findings[1].text.find("at verify size [1,1]: info reports no positive footprint_bytes"), std::string::npos)
      << facts->findings[1].text;
  EXPECT_NE(facts->findings[2].text.find("verify size [7,7] fails the program's own checks"), std::string::npos)
      << facts->findings[2].text;
  EXPECT_NE(facts->findings[2].text.find("must be a multiple of 16"), std::string::npos) << facts->findings[2].text;
}

TEST(PortCheck, ABuildFailureIsOneFindingAndNothingRuns) {
  TempDir tmp;
  Scripted s([](const std::vector<std::string>&) { return exited(0, info_line(4, 4)); }, 1);
  CudaBackend cuda(s.runner, nvcc_tools());
  auto facts = program_findings(source(kRegion), cuda, options(tmp));
  ASSERT_TRUE(facts.ok());
  EXPECT_FALSE(facts->built);
  ASSERT_EQ(facts->findings.size(), 1u);
  EXPECT_NE(facts->findings[0].text.find("does not build with cuda"), std::string::npos) << facts->findings[0].text;
  EXPECT_TRUE(s.program_args.empty());
}

TEST(PortCheck, AnInfoThatNeedsAGpuIsAFinding) {
  TempDir tmp;
  Scripted s([](const std::vector<std::string>&) {
    return exited(3, "{\"mode\":\"info\",\"ok\":false,\"error\":\"no GPU device (device count is 0)\"}\n", "error: no GPU device\n");
  });
  CudaBackend cuda(s.runner, nvcc_tools());
  auto facts = program_findings(source(kRegion), cuda, options(tmp));
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->findings.size(), 1u);
  EXPECT_NE(facts->findings[0].text.find("info must run without a GPU"), std::string::npos) << facts->findings[0].text;
  EXPECT_FALSE(facts->info.has_value());
}

// ---- issue 39 row 2: wrong ports a host check can catch ------------------------------------

// A filled blur port: x bounded by w = s[0], y by h = s[1]; `launch` is run()'s launch.
std::string port_check_blur_text(const std::string& launch = "blur<<<swz_flat_grid(grid), block>>>(in, out, w, h, grid);") {
  return std::string("// swizzleperf:default-grid 4x4\n") + kRegion +
         "__global__ void blur(const float* in, float* out, int w, int h, dim3 swz_grid) {\n"
         "  const SwzBlock swz_block_idx = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);\n"
         "  int x = swz_block_idx.x * blockDim.x + threadIdx.x;\n"
         "  int y = swz_block_idx.y * blockDim.y + threadIdx.y;\n"
         "  if (x >= w || y >= h) return;\n"
         "  out[(size_t)y * w + x] = in[(size_t)y * w + x];\n"
         "}\n"
         "class P : public SwzProgram {\n"
         "  dim3 launch_grid(const SwzSize& s) const override { return dim3((s[1] + 15) / 16, (s[0] + 15) / 16); }\n"  // line 15
         "  void setup(const SwzSize& s, unsigned long long seed) override { w = s[0]; h = s[1]; }\n"
         "  void run() override {\n"
         "    const dim3 grid = launch_grid(size_);\n"
         "    dim3 block(16, 16);\n"
         "    " + launch + "\n"  // line 20
         "  }\n"
         "};\n";
}

// info at `--size a,b` of a 16x16-tiled program whose grid columns come from value `cols`.
ProcessResult port_check_blur_info(const std::vector<std::string>& a, int cols) {
  long long v[2] = {64, 64};
  if (a.size() == 3) std::sscanf(a[2].c_str(), "%lld,%lld", &v[0], &v[1]);
  const long long n = (v[cols] + 15) / 16, m = (v[1 - cols] + 15) / 16;
  return exited(0, "{\"kernel\":\"blur\",\"size\":[" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "],\"grid\":{\"m\":" +
                       std::to_string(m) + ",\"n\":" + std::to_string(n) + "},\"footprint_bytes\":1024,\"verify_sizes\":[[16,16]]}\n");
}

TEST(PortCheck, A2DLaunchLeftInRunIsAWarningOnItsLineAndAnErrorUnderStrict) {
  const auto k = source(port_check_blur_text("blur<<<grid, block>>>(in, out, w, h, grid);"));
  const auto loose = source_findings(k, false);
  ASSERT_EQ(loose.size(), 1u);
  EXPECT_FALSE(loose[0].error);
  EXPECT_EQ(loose[0].line, 20u);
  EXPECT_NE(loose[0].text.find("run() launches blur on the grid 'grid', not on swz_flat_grid(...)"), std::string::npos) << loose[0].text;
  EXPECT_NE(loose[0].text.find("blur<<<swz_flat_grid(grid), ...>>>(..., grid)"), std::string::npos) << loose[0].text;
  const auto strict = source_findings(k, true);
  ASSERT_EQ(strict.size(), 1u);
  EXPECT_TRUE(strict[0].error);
  EXPECT_TRUE(source_findings(source(port_check_blur_text()), true).empty());
}

TEST(PortCheck, ALaunchGridWithXAndYSwappedIsFoundAtANonSquareSize) {
  TempDir tmp;
  // The program's grid columns follow value 2 (h): launch_grid's x and y are swapped.
  Scripted s([](const std::vector<std::string>& a) { return port_check_blur_info(a, 1); });
  CudaBackend cuda(s.runner, nvcc_tools());
  auto facts = program_findings(source(port_check_blur_text()), cuda, options(tmp));
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  ASSERT_EQ(facts->findings.size(), 1u);
  const auto& f = facts->findings[0];
  EXPECT_TRUE(f.error);
  EXPECT_EQ(f.line, 15u);
  EXPECT_NE(f.text.find("launch_grid looks swapped: blur bounds its x block index by w (size value 1), yet at size [32,64] "
                        "(value 1 halved) info's grid is 2x4 against 4x4 at the default size [64,64]: its rows moved, not its "
                        "columns"),
            std::string::npos)
      << f.text;
  EXPECT_EQ(s.program_args[1], (std::vector<std::string>{"info", "--size", "32,64"}));
}

TEST(PortCheck, ARightLaunchGridOrAProgramThatRefusesTheSizesHasNoSwapFinding) {
  TempDir tmp;
  Scripted right([](const std::vector<std::string>& a) { return port_check_blur_info(a, 0); });
  CudaBackend cuda(right.runner, nvcc_tools());
  auto facts = program_findings(source(port_check_blur_text()), cuda, options(tmp));
  ASSERT_TRUE(facts.ok());
  EXPECT_TRUE(facts->findings.empty()) << facts->findings.front().text;
  // info at the default size, each axis's value halved once, the verify size.
  EXPECT_EQ(right.program_args.size(), 4u);
  Scripted refuses([](const std::vector<std::string>& a) {
    if (a.size() == 3 && a[2] != "16,16") return exited(2, "{\"mode\":\"info\",\"ok\":false,\"error\":\"--size: no\"}\n");
    return port_check_blur_info(a, 1);
  });
  CudaBackend cuda2(refuses.runner, nvcc_tools());
  auto none = program_findings(source(port_check_blur_text()), cuda2, options(tmp));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->findings.empty()) << none->findings.front().text;
}

}  // namespace
}  // namespace swz::cli
