// End-to-end: the AMD path as far as a machine without an AMD GPU can take it.
//   - every kernels/*.hip builds with the real hipcc for gfx940 through
//     `swizzleperf build --backend hip` (Debian's hipcc 5.2 predates gfx942),
//     and with the real nvcc for sm_90 through `--backend cuda`;
//   - the support programs (device_query.hip, xcc_probe.hip) compile with hipcc
//     directly, and xcc_probe builds to its "AMD only" stub with nvcc;
//   - the hip backend reads each kernel's registers from the built program's code
//     objects (llvm-readelf --notes), the same counts the compiler's own remarks give;
//   - `swizzleperf optimize --backend hip` with no rocprofv3 (or no hipcc)
//     fails with one clear line.
// Tests that need a compiler skip (with the reason) when it is not installed.
// The kernel list is globbed when the test binary starts; CTest's list of test
// names is refreshed when the test binary is rebuilt.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/fixtures.h"
#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/model/footprint_source.h"
#include "swizzleperf/util/csv.h"
#include "swizzleperf/util/process.h"

namespace swz::test {
namespace {

// ---- helpers ---------------------------------------------------------------------------

std::vector<fs::path> kernel_files() {
  std::vector<fs::path> out;
  std::error_code ec;
  // The paper's suite (kernels/*.hip) and the tensor-core kernels (kernels/tc/*.hip).
  for (const char* dir : {"kernels", "kernels/tc"})
    for (const auto& e : fs::directory_iterator(source_dir() / dir, ec))
      if (e.is_regular_file() && e.path().extension() == ".hip") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string test_name_of(const fs::path& kernel) {
  std::string s = kernel.stem().string();
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}


bool have_rocprofv3() { return have_tool("rocprofv3") || ::access("/opt/rocm/bin/rocprofv3", X_OK) == 0; }

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

ProcessResult run_tool(std::vector<std::string> argv, int timeout_s = 300) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = std::chrono::seconds(timeout_s);
  RealProcessRunner runner;
  return runner.run(spec);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

std::string last_line(const std::string& text) {
  auto l = lines_of(text);
  return l.empty() ? "" : l.back();
}

// ---- every kernel, both compilers -------------------------------------------------------

TEST(AmdBuild, KernelsDirHoldsGemm) {
  const auto kernels = kernel_files();
  EXPECT_NE(std::find(kernels.begin(), kernels.end(), source_dir() / "kernels" / "gemm.hip"), kernels.end());
  EXPECT_NE(std::find(kernels.begin(), kernels.end(), source_dir() / "kernels" / "tc" / "gemm_tc.hip"), kernels.end());
  EXPECT_NE(std::find(kernels.begin(), kernels.end(), source_dir() / "kernels" / "tc" / "attention_fwd.hip"), kernels.end());
}

class KernelBuild : public ::testing::TestWithParam<fs::path> {};
using AmdKernelBuild = KernelBuild;
using CudaKernelBuild = KernelBuild;

TEST_P(AmdKernelBuild, BuildsForGfx940WithHipcc) {
  const auto compiler = hipcc_path();
  if (compiler.empty()) GTEST_SKIP() << "hipcc not found on PATH or in /opt/rocm/bin";
  TempDir tmp;
  const auto kernel = GetParam();
  const auto out = tmp / kernel.stem().string();
  auto r = run_cli({"build", kernel.string(), "--backend", "hip", "--hipcc", compiler, "--arch", "gfx940", "-o",
                    out.string()},
                   tmp.path(), {}, 600);
  ASSERT_EQ(r.exit_code, 0) << kernel.filename().string() << " does not build for gfx940:\n" << r.err;
  EXPECT_TRUE(is_executable_file(out)) << out;
  EXPECT_NE(r.out.find("(hip, SWZ_NUM_DIES=8)"), std::string::npos) << r.out;
}

TEST_P(CudaKernelBuild, BuildsForSm90WithNvcc) {
  const auto compiler = nvcc_path();
  if (compiler.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  TempDir tmp;
  const auto kernel = GetParam();
  const auto out = tmp / kernel.stem().string();
  auto r = run_cli({"build", kernel.string(), "--backend", "cuda", "--nvcc", compiler, "--arch", "sm_90", "-o",
                    out.string()},
                   tmp.path(), {}, 600);
  ASSERT_EQ(r.exit_code, 0) << kernel.filename().string() << " does not build for sm_90:\n" << r.err;
  EXPECT_TRUE(is_executable_file(out)) << out;
  EXPECT_NE(r.out.find("(cuda, SWZ_NUM_DIES=2)"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Kernels, AmdKernelBuild, ::testing::ValuesIn(kernel_files()),
                         [](const auto& info) { return test_name_of(info.param); });
INSTANTIATE_TEST_SUITE_P(Kernels, CudaKernelBuild, ::testing::ValuesIn(kernel_files()),
                         [](const auto& info) { return test_name_of(info.param); });

// ---- support programs ---------------------------------------------------------------------

fs::path support(const std::string& file) { return source_dir() / "kernels" / "support" / file; }

// hipcc FILE for gfx940 with warnings on; the compile must be clean.
void expect_clean_hipcc_compile(const std::string& file, const fs::path& out) {
  auto r = run_tool({hipcc_path(), "--offload-arch=gfx940", "-O2", "-Wall", "-Wextra", support(file).string(), "-o",
                     out.string()});
  ASSERT_TRUE(r.success()) << file << ": hipcc " << r.describe() << "\n" << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("warning"), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(is_executable_file(out)) << out;
}

// The registers the locality model takes on AMD: read back from the built gemm's code
// object, they must equal VGPRs + AGPRs in the compiler's own remarks for that kernel
// (-Rpass-analysis=kernel-resource-usage, a second and independent report).
TEST(AmdBuild, RegistersReadFromTheProgramMatchTheCompilersRemarks) {
  const auto compiler = hipcc_path();
  if (compiler.empty()) GTEST_SKIP() << "hipcc not found on PATH or in /opt/rocm/bin";
  RealProcessRunner runner;
  ToolOptions tools;
  tools.compiler = compiler;
  HipBackend backend(runner, tools);
  if (backend.readelf_path().empty()) GTEST_SKIP() << "llvm-readelf not found";
  TempDir tmp;
  const auto gemm = source_dir() / "kernels" / "gemm.hip";
  const auto exe = tmp / "gemm";
  const std::vector<std::string> common = {compiler, "-std=c++17", "-O3", "--offload-arch=gfx940",
                                           "-I" + (source_dir() / "kernels" / "support").string(), "-DSWZ_NUM_DIES=8"};
  auto build = common;
  build.insert(build.end(), {"-o", exe.string(), gemm.string()});
  auto b = run_tool(build, 600);
  ASSERT_TRUE(b.success()) << b.describe() << "\n" << b.err;
  auto remarks = common;
  remarks.insert(remarks.end(), {"-Rpass-analysis=kernel-resource-usage", "-c", "-o", (tmp / "gemm.o").string(), gemm.string()});
  auto r = run_tool(remarks, 600);
  ASSERT_TRUE(r.success()) << r.describe() << "\n" << r.err;
  // "remark: Function Name: _Z11gemm_kernel...", then "remark:     VGPRs: N", "AGPRs: N".
  long long vgprs = -1, agprs = -1;
  bool in_gemm = false;
  for (const auto& line : lines_of(r.err)) {
    if (line.find("remark: Function Name: ") != std::string::npos) in_gemm = line.find("gemm_kernel") != std::string::npos;
    if (!in_gemm) continue;
    for (auto [key, out] : {std::pair{"VGPRs: ", &vgprs}, std::pair{"AGPRs: ", &agprs}}) {
      const auto at = line.find(key);
      if (at == std::string::npos) continue;
      const auto num = line.substr(at + std::strlen(key), line.find(' ', at + std::strlen(key)) - at - std::strlen(key));
      *out = parse_whole_number(num, 0, 1 << 20).value_or(-1);
    }
  }
  ASSERT_GT(vgprs, 0) << "no VGPRs remark for gemm_kernel:\n" << r.err.substr(0, 4000);
  ASSERT_GE(agprs, 0);
  auto report = backend.resource_usage(exe);
  ASSERT_TRUE(report) << report.error().message;
  const auto k = std::find_if(report->begin(), report->end(), [](const KernelResources& x) { return x.function.find("gemm_kernel") != std::string::npos; });
  ASSERT_NE(k, report->end());
  EXPECT_EQ(k->registers, static_cast<unsigned>(vgprs + agprs));
  EXPECT_GT(k->shared_bytes, 0u);  // gemm's tiles are in LDS
  EXPECT_FALSE(fs::exists(exe.string() + ".amdgcn-0.co"));  // the extracted object is removed
  // A program with no device code: one clear error.
  auto host_only = backend.resource_usage(fs::path("/bin/true"));
  ASSERT_FALSE(host_only);
  EXPECT_NE(host_only.error().message.find("no AMD code object"), std::string::npos) << host_only.error().message;
}

// Every kernel a shipped program's footprint names is in the real compiler's report of its
// build (hipcc for gfx940 with llvm-readelf, and nvcc for sm_90 with cuobjdump where
// installed): a misspelt name would silently give that launch the pattern's count instead.
TEST(AmdBuild, EveryKernelAShippedFootprintNamesIsInTheCompilersReport) {
  if (!have_tool("c++")) GTEST_SKIP() << "no host C++ compiler for the footprint sections";
  RealProcessRunner runner;
  struct Compiler {
    std::string name, path, arch;
  };
  std::vector<Compiler> compilers;
  if (const auto h = hipcc_path(); !h.empty()) compilers.push_back({"hip", h, "gfx940"});
  if (const auto n = nvcc_path(); !n.empty()) compilers.push_back({"cuda", n, "sm_90"});
  if (compilers.empty()) GTEST_SKIP() << "neither hipcc nor nvcc is installed";
  TempDir tmp;
  FootprintSourceOptions fo;
  fo.support_dir = source_dir() / "kernels" / "support";
  fo.cache_dir = tmp / "cache";
  fo.max_launches = 3;
  fo.middle = false;
  int named = 0;
  for (const auto& kernel : kernel_files()) {
    auto source = KernelSource::load(kernel);
    ASSERT_TRUE(source) << source.error().message;
    auto fp = load_footprint(*source, {}, fo, runner);
    if (!fp) continue;  // a program without a footprint section
    std::vector<std::string> names;
    for (const auto& l : fp->launches)
      if (!l.block.kernel.empty()) names.push_back(l.block.kernel);
    if (names.empty()) continue;
    for (const auto& c : compilers) {
      ToolOptions tools;
      tools.compiler = c.path;
      std::unique_ptr<Backend> backend;
      if (c.name == "hip") backend = std::make_unique<HipBackend>(runner, tools);
      else backend = std::make_unique<CudaBackend>(runner, tools);
      if (c.name == "hip" && static_cast<HipBackend&>(*backend).readelf_path().empty()) continue;
      const auto exe = tmp / (kernel.stem().string() + "-" + c.name);
      auto b = run_cli({"build", kernel.string(), "--backend", c.name, "--" + std::string(c.name == "hip" ? "hipcc" : "nvcc"),
                        c.path, "--arch", c.arch, "-o", exe.string()},
                       tmp.path(), {}, 600);
      ASSERT_EQ(b.exit_code, 0) << kernel << " " << c.name << ":\n" << b.err;
      auto report = backend->resource_usage(exe);
      if (!report && c.name == "cuda" && report.error().message.find("cuobjdump not found") != std::string::npos) continue;
      ASSERT_TRUE(report) << kernel << " " << c.name << ": " << report.error().message;
      for (const auto& n : names) {
        const auto k = registers_of_kernel(*report, n);
        ASSERT_TRUE(k) << kernel.filename() << " names kernel " << n << ", which " << c.name << "'s report lacks";
        EXPECT_GT(k->registers, 0u) << n;
        ++named;
      }
    }
  }
  EXPECT_GE(named, 7) << "fdtd_2d (3), layernorm (2) and softmax (2) name their kernels";
}

TEST(AmdBuild, DeviceQueryCompilesForGfx940) {
  if (hipcc_path().empty()) GTEST_SKIP() << "hipcc not found on PATH or in /opt/rocm/bin";
  TempDir tmp;
  expect_clean_hipcc_compile("device_query.hip", tmp / "device_query");
}

TEST(AmdBuild, XccProbeCompilesForGfx940AndAnswersWithOrWithoutAGpu) {
  if (hipcc_path().empty()) GTEST_SKIP() << "hipcc not found on PATH or in /opt/rocm/bin";
  TempDir tmp;
  const auto exe = tmp / "xcc_probe";
  expect_clean_hipcc_compile("xcc_probe.hip", exe);
  if (HasFatalFailure()) return;
  // Without an AMD GPU (the usual case here): exit 3 and an error line. With one
  // (gfx940 code object only, so an MI300A/X in gfx940 mode): the probe's JSON.
  auto r = run_tool({exe.string(), "64"}, 60);
  ASSERT_TRUE(r.started) << r.err;
  auto j = nlohmann::json::parse(last_line(r.out), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j.value("probe", ""), "xcc");
  if (r.exit_code == 3) {
    EXPECT_NE(j.value("error", "").find("GPU"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
  } else {
    ASSERT_EQ(r.exit_code, 0) << r.describe() << "\n" << r.out << r.err;
    EXPECT_EQ(j.value("blocks", 0), 64);
    EXPECT_TRUE(j.contains("round_robin_matches"));
    EXPECT_TRUE(j.contains("num_xcc_seen"));
  }
  // A bad block count is a usage error.
  auto bad = run_tool({exe.string(), "zero"}, 60);
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
}

TEST(CudaBuild, XccProbeIsAnAmdOnlyStubUnderNvcc) {
  const auto compiler = nvcc_path();
  if (compiler.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  TempDir tmp;
  const auto exe = tmp / "xcc_probe";
  auto b = run_tool({compiler, "-x", "cu", "-std=c++17", "-O3", "-arch=sm_90",
                     "-I" + support("hip_on_cuda").string(), "-I" + support("").string(),
                     support("xcc_probe.hip").string(), "-o", exe.string()});
  ASSERT_TRUE(b.success()) << "nvcc " << b.describe() << "\n" << b.out << b.err;
  // The stub touches no GPU, so it runs anywhere.
  auto r = run_tool({exe.string()}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(last_line(r.out), R"({"probe":"xcc","error":"AMD only"})");
}

// The device query through the HIP-on-CUDA mapping (how the cuda backend builds it), clean
// with warnings on: it reads the opt-in shared memory per block by its HIP attribute name.
TEST(CudaBuild, DeviceQueryCompilesThroughTheHipOnCudaMapping) {
  const auto compiler = nvcc_path();
  if (compiler.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  TempDir tmp;
  const auto exe = tmp / "device_query";
  auto b = run_tool({compiler, "-x", "cu", "-std=c++17", "-O2", "-arch=sm_90", "-Xcompiler", "-Wall,-Wextra",
                     "-I" + support("hip_on_cuda").string(), support("device_query.hip").string(), "-o",
                     exe.string()});
  ASSERT_TRUE(b.success()) << "nvcc " << b.describe() << "\n" << b.out << b.err;
  EXPECT_EQ((b.out + b.err).find("warning"), std::string::npos) << b.out << b.err;
  EXPECT_TRUE(is_executable_file(exe)) << exe;
}

// ---- optimize on a machine without ROCm's profiler -----------------------------------------

void expect_one_error_line(const CliRun& r, const std::string& must_name) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("swizzleperf: error: ", 0), 0u) << r.err;
  EXPECT_NE(lines[0].find(must_name), std::string::npos) << r.err;
}

fs::path gemm() { return source_dir() / "kernels" / "gemm.hip"; }

TEST(AmdOptimizeE2E, NoRocprofv3FailsWithOneLine) {
  if (have_rocprofv3()) GTEST_SKIP() << "rocprofv3 is installed: this test is for machines without it";
  TempDir tmp;
  // Without hipcc the preflight stops at the compiler first; either way one line.
  const std::string missing = hipcc_path().empty() ? "hipcc not found" : "rocprofv3 not found";
  auto r = run_cli({"optimize", gemm().string(), "--backend", "hip", "--proposer", "builtin", "--run-dir",
                    (tmp / "run").string()},
                   tmp.path());
  expect_one_error_line(r, missing);
  EXPECT_FALSE(fs::exists(tmp / "run" / "history.json"));
}

TEST(AmdOptimizeE2E, TheIssueCommandEndsWithOneErrorLine) {
  // Exactly the command a user types; the proposer may add a notice before the error.
  if (have_rocprofv3()) GTEST_SKIP() << "rocprofv3 is installed: this test is for machines without it";
  TempDir tmp;
  const std::string missing = hipcc_path().empty() ? "hipcc not found" : "rocprofv3 not found";
  auto r = run_cli({"optimize", gemm().string(), "--backend", "hip", "--run-dir", (tmp / "run").string()}, tmp.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const auto lines = lines_of(r.err);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().rfind("swizzleperf: error: " + missing, 0), 0u) << r.err;
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.find("error") != std::string::npos; }),
            1)
      << r.err;
}

TEST(AmdOptimizeE2E, MissingHipccFailsWithOneLine) {
  TempDir tmp;
  auto r = run_cli({"optimize", gemm().string(), "--backend", "hip", "--proposer", "builtin", "--hipcc",
                    "/nonexistent/hipcc", "--run-dir", (tmp / "run").string()},
                   tmp.path());
  expect_one_error_line(r, "hipcc not found");
  EXPECT_NE(r.err.find("--hipcc"), std::string::npos) << r.err;
}

TEST(AmdBuild, MissingHipccFailsWithOneLine) {
  TempDir tmp;
  auto r = run_cli({"build", gemm().string(), "--backend", "hip", "--hipcc", "/nonexistent/hipcc", "--arch",
                    "gfx940", "-o", (tmp / "gemm").string()},
                   tmp.path());
  expect_one_error_line(r, "hipcc not found");
  EXPECT_FALSE(fs::exists(tmp / "gemm"));
}

}  // namespace
}  // namespace swz::test
