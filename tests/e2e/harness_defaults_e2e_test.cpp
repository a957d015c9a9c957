// End-to-end: a kernel program written on the harness's defaults (kernels/support/
// swz_harness.h), as `swizzleperf init` ports a 2-D CUDA kernel: it includes only
// "swz_harness.h" and uses the CUDA runtime directly (cudaMalloc, cudaMemcpy, <<<>>>), launches
// its 2-D grid flattened (swz_flat_grid, swz_tile_grid, swz_block), names itself through
// SwzProgram's constructor and defines launch_grid(), size_multiple() and reduction_length()
// but no grid(), verify_sizes(), tolerance() or launch footprints.
//   - built with the real nvcc, PTX only at -O0 (no GPU needed, a few seconds), and run:
//     `info` prints the tile grid of launch_grid() and the default verify sizes
//     (swz_default_verify_sizes); a --size that breaks size_multiple() or the 1-D launch
//     limit exits 2 naming the value; a program with neither grid() nor launch_grid(), or
//     with no name, fails every mode clearly; with a GPU, verify passes with the default
//     tolerance (4 * L * 2^-24 * R) and reports it resolved;
//   - the same program written against the HIP API builds with hipcc for gfx940.
// Each test skips (with the reason) when its compiler is not installed: CI has neither.
#include <gtest/gtest.h>

#include <unistd.h>

#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../../kernels/support/swz_sizes.h"
#include "support/fixtures.h"
#include "support/shared_build.h"
#include "swizzleperf/util/process.h"

namespace swz::test {
namespace {

using nlohmann::json;

// ---- the programs ------------------------------------------------------------------------

// The region, the kernel and the geometry both programs share.
const char* const kBox3Common = R"cu(// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end

__global__ void box3_kernel(const float* in, float* out, int M, int N, dim3 swz_grid) {
  const SwzBlock swz_block_idx = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);
  if (swz_block_idx.z >= swz_grid.z) return;
  const int x = static_cast<int>(swz_block_idx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(swz_block_idx.y * blockDim.y + threadIdx.y);
  if (x >= N || y >= M) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int yy = y + dy, xx = x + dx;
      if (yy >= 0 && yy < M && xx >= 0 && xx < N) s += in[static_cast<size_t>(yy) * N + xx];
    }
  out[static_cast<size_t>(y) * N + x] = s;
}

class Box3Program : public SwzProgram {
 public:
  Box3Program() : SwzProgram("box3", "box3_kernel") {}
  SwzSize default_size() const override { return {4096, 8192}; }
  SwzSize size_multiple() const override { return {1, 4}; }
  dim3 launch_grid(const SwzSize& s) const override {
    return dim3(swz_ceil_div(s[1], 16), swz_ceil_div(s[0], 16));
  }
  unsigned long long footprint_bytes(const SwzSize& s) const override { return 8ull * s[0] * s[1]; }
  long long reduction_length(const SwzSize&) const override { return 9; }
)cu";

// 3x3 box sum of an M x N fp32 matrix (zero outside), 16x16 threads per 16x16 tile, over the
// CUDA runtime. SWZ_TEST_VARIANT=nogrid runs a program with neither grid() nor launch_grid(),
// SWZ_TEST_VARIANT=noname one that gives no name.
const std::string kBox3Cu = std::string(R"cu(// box3: a 2-D program on the harness defaults.
#include "swz_harness.h"

#include <cstdlib>
#include <cstring>

)cu") + kBox3Common + R"cu(
  void setup(const SwzSize& s, unsigned long long seed) override {
    M_ = static_cast<int>(s[0]), N_ = static_cast<int>(s[1]);
    const size_t bytes = sizeof(float) * M_ * N_;
    if (dIn_) SWZ_CHECK(cudaFree(dIn_));
    if (dOut_) SWZ_CHECK(cudaFree(dOut_));
    SWZ_CHECK(cudaMalloc(&dIn_, bytes));
    SWZ_CHECK(cudaMalloc(&dOut_, bytes));
    SwzRng rng(seed);
    hIn_ = swz_random_f32(size_t(M_) * N_, rng);
    SWZ_CHECK(cudaMemcpy(dIn_, hIn_.data(), bytes, cudaMemcpyHostToDevice));
  }
  void run() override {
    const dim3 g = launch_grid({M_, N_});
    box3_kernel<<<swz_flat_grid(g), dim3(16, 16)>>>(dIn_, dOut_, M_, N_, g);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {dOut_, size_t(M_) * N_, SwzDType::f32}; }
  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> o(size_t(M_) * N_);
    for (int y = 0; y < M_; ++y)
      for (int x = 0; x < N_; ++x) {
        double s = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int yy = y + dy, xx = x + dx;
            if (yy >= 0 && yy < M_ && xx >= 0 && xx < N_) s += hIn_[size_t(yy) * N_ + xx];
          }
        o[size_t(y) * N_ + x] = s;
      }
    return o;
  }

 private:
  int M_ = 0, N_ = 0;
  std::vector<float> hIn_;
  float *dIn_ = nullptr, *dOut_ = nullptr;
};

// A 1-D program with nothing GPU-side, for the identity and geometry failures.
class Stub : public SwzProgram {
 public:
  Stub() = default;
  Stub(const char* name, const char* regex) : SwzProgram(name, regex) {}
  SwzSize default_size() const override { return {64}; }
  unsigned long long footprint_bytes(const SwzSize& s) const override { return 4ull * s[0]; }
  void setup(const SwzSize&, unsigned long long) override {}
  void run() override {}
  SwzOutput output() const override { return {nullptr, 0, SwzDType::f32}; }
  std::vector<double> reference(const SwzSize&) const override { return {}; }
};

class NoNameProgram : public Stub {
 public:
  SwizzleGrid grid(const SwzSize& s) const override { return {1u, swz_ceil_div(s[0], 64)}; }
};

int main(int argc, char** argv) {
  const char* v = std::getenv("SWZ_TEST_VARIANT");
  if (v && std::strcmp(v, "nogrid") == 0) {
    Stub p("nogrid", "nogrid_kernel");
    return swz_main(p, argc, argv);
  }
  if (v && std::strcmp(v, "noname") == 0) {
    NoNameProgram p;
    return swz_main(p, argc, argv);
  }
  Box3Program p;
  return swz_main(p, argc, argv);
}
)cu";

// The same program against the HIP API (what hipcc builds): harness allocations, a host
// fill and upload, hipLaunchKernelGGL.
const std::string kBox3Hip = std::string(R"hip(// box3: a 2-D program on the harness defaults, HIP API.
#include "swz_harness.h"

)hip") + kBox3Common + R"hip(
  void setup(const SwzSize& s, unsigned long long seed) override {
    M_ = static_cast<int>(s[0]), N_ = static_cast<int>(s[1]);
    dIn_ = swz_alloc<float>(size_t(M_) * N_);
    dOut_ = swz_alloc<float>(size_t(M_) * N_);
    SwzRng rng(seed);
    hIn_ = swz_random_f32(size_t(M_) * N_, rng);
    swz_upload(dIn_, hIn_);
  }
  void run() override {
    const dim3 g = launch_grid({M_, N_});
    hipLaunchKernelGGL(box3_kernel, swz_flat_grid(g), dim3(16, 16), 0, 0, dIn_, dOut_, M_, N_, g);
    SWZ_CHECK_LAUNCH();
  }
  SwzOutput output() const override { return {dOut_, size_t(M_) * N_, SwzDType::f32}; }
  std::vector<double> reference(const SwzSize&) const override {
    std::vector<double> o(size_t(M_) * N_);
    for (int y = 0; y < M_; ++y)
      for (int x = 0; x < N_; ++x) {
        double s = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int yy = y + dy, xx = x + dx;
            if (yy >= 0 && yy < M_ && xx >= 0 && xx < N_) s += hIn_[size_t(yy) * N_ + xx];
          }
        o[size_t(y) * N_ + x] = s;
      }
    return o;
  }

 private:
  int M_ = 0, N_ = 0;
  std::vector<float> hIn_;
  float *dIn_ = nullptr, *dOut_ = nullptr;
};

int main(int argc, char** argv) {
  Box3Program p;
  return swz_main(p, argc, argv);
}
)hip";

// ---- helpers -----------------------------------------------------------------------------


fs::path support_dir() { return source_dir() / "kernels" / "support"; }

ProcessResult run_defaults_tool(std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> env = {},
                       int timeout_s = 300) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.env = std::move(env);
  spec.timeout = std::chrono::seconds(timeout_s);
  RealProcessRunner runner;
  return runner.run(spec);
}

std::string defaults_last_line(const std::string& text) {
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) last = line;
  return last;
}

json last_json(const ProcessResult& r) { return json::parse(defaults_last_line(r.out), nullptr, false); }

std::vector<SwzSize> sizes_of(const json& j) {
  std::vector<SwzSize> out;
  for (const auto& s : j) out.push_back(s.get<SwzSize>());
  return out;
}

// ---- box3 built once for the suite's tests -------------------------------------------------

class HarnessDefaults : public ::testing::Test {
 protected:
  // Built once for all the suite's tests, which CTest runs as processes of their own
  // (shared_build.h): keyed by the program's text, nvcc, its flags and the support headers.
  static void SetUpTestSuite() {
    if (nvcc_path().empty()) return;
    dir_ = new TempDir();
    const fs::path src = *dir_ / "box3.cu";
    write_text(src, kBox3Cu);
    const std::vector<std::string> flags = {"-x", "cu", "-std=c++17", "-O0", "-arch=compute_90", "-code=compute_90",
                                            "-I" + (support_dir() / "hip_on_cuda").string(), "-I" + support_dir().string(),
                                            "-DSWZ_NUM_DIES=2"};
    std::string inputs = std::string(kBox3Cu) + "\n" + tool_identity(nvcc_path()) + "\n" + tree_text(support_dir());
    for (const auto& f : flags) inputs += "\n" + f;
    const SharedBuild b = shared_build("box3", inputs, [&](const fs::path& out) {
      std::vector<std::string> argv{nvcc_path()};
      argv.insert(argv.end(), flags.begin(), flags.end());
      argv.insert(argv.end(), {"-o", out.string(), src.string()});
      return run_defaults_tool(argv, {}, 600);
    });
    built_ = b.ok;
    exe_ = b.path.string();
    build_log_ = "nvcc " + b.log;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
    ASSERT_TRUE(built_) << build_log_;
  }

  static ProcessResult box3(std::vector<std::string> args, const std::string& variant = "") {
    args.insert(args.begin(), exe_);
    std::vector<std::pair<std::string, std::string>> env;
    if (!variant.empty()) env.emplace_back("SWZ_TEST_VARIANT", variant);
    return run_defaults_tool(args, env, 300);
  }

  // Exit 2, the message on stderr as `error: <what>...` and in the last stdout line's error.
  static void expect_usage_failure(const ProcessResult& r, const std::string& mode, const std::string& what) {
    EXPECT_TRUE(r.exited_with(2)) << r.describe() << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("error: " + what), std::string::npos) << r.err;
    const json j = last_json(r);
    ASSERT_TRUE(j.is_object()) << r.out;
    EXPECT_EQ(j.value("mode", ""), mode);
    EXPECT_EQ(j.value("ok", true), false);
    EXPECT_EQ(j.value("error", "").rfind(what, 0), 0u) << j.dump();
  }

  static TempDir* dir_;
  static std::string exe_;
  static bool built_;
  static std::string build_log_;
};

TempDir* HarnessDefaults::dir_ = nullptr;
std::string HarnessDefaults::exe_;
bool HarnessDefaults::built_ = false;
std::string HarnessDefaults::build_log_;

TEST_F(HarnessDefaults, InfoReportsTheLaunchGridAsTilesAndTheDefaults) {
  const ProcessResult r = box3({"info"});
  ASSERT_TRUE(r.success()) << r.describe() << "\n" << r.out << r.err;
  const json j = last_json(r);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j.value("kernel", ""), "box3");
  EXPECT_EQ(j.value("kernel_regex", ""), "box3_kernel");
  EXPECT_EQ(j["size"], json({4096, 8192}));
  // launch_grid = (8192/16, 4096/16): tile rows are y, tile columns x.
  EXPECT_EQ(j["grid"], json({{"m", 256}, {"n", 512}}));
  EXPECT_EQ(j.value("num_pids", 0), 131072);
  EXPECT_EQ(j.value("footprint_bytes", 0ull), 268435456ull);
  EXPECT_EQ(j.value("dump_tol", -1.0), 0.0);
  // One launch per run(): launch_footprints_bytes defaults to {footprint_bytes}.
  EXPECT_EQ(j.value("launches", 0), 1);
  EXPECT_EQ(j["launch_footprints_bytes"], json({268435456ull}));
  // The default verify sizes: swz_default_verify_sizes over the default size and multiples.
  const std::vector<SwzSize> want = {{1, 4}, {64, 64}, {3, 8}, {67, 132}, {97, 300}, {1, 300}, {300, 4}, {257, 300}};
  EXPECT_EQ(sizes_of(j["verify_sizes"]), want);
  EXPECT_EQ(want, swz_default_verify_sizes({4096, 8192}, {1, 4}, {}, [](const SwzSize&) { return true; }));
  // Exactly the keys of every program's info line.
  for (const char* key : {"kernel", "kernel_regex", "size", "grid", "num_pids", "footprint_bytes", "num_dies",
                          "dump_tol", "verify_sizes", "launches", "footprint", "launch_footprints_bytes"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["footprint"], false) << "this program declares no footprint section";
  EXPECT_EQ(j.size(), 12u) << j.dump();
}

TEST_F(HarnessDefaults, InfoAtARaggedSize) {
  const ProcessResult r = box3({"info", "--size", "100,204"});
  ASSERT_TRUE(r.success()) << r.describe() << "\n" << r.out << r.err;
  const json j = last_json(r);
  EXPECT_EQ(j["size"], json({100, 204}));
  EXPECT_EQ(j["grid"], json({{"m", 7}, {"n", 13}}));  // ceil(100/16) x ceil(204/16)
  EXPECT_EQ(j.value("num_pids", 0), 91);
  EXPECT_EQ(j["launch_footprints_bytes"], json({163200}));
}

TEST_F(HarnessDefaults, ASizeOffItsMultipleIsAUsageError) {
  const ProcessResult r = box3({"info", "--size", "100,1001"});
  expect_usage_failure(r, "info", "--size: value 2 (1001) must be a multiple of 4");
  // Every mode checks it before touching a GPU.
  expect_usage_failure(box3({"time", "--size", "100,1002"}), "time",
                       "--size: value 2 (1002) must be a multiple of 4");
}

TEST_F(HarnessDefaults, AGridBeyondAOneDLaunchIsAUsageError) {
  // (62500, 62500, 1) = 3.9e9 blocks once flattened.
  expect_usage_failure(box3({"info", "--size", "1000000,1000000"}), "info",
                       "--size: the launch grid (62500, 62500, 1) has more than 2^31 - 1 blocks");
  // Just within: 2^31 - 2^15 blocks.
  const ProcessResult ok = box3({"info", "--size", "524288,1048560"});
  ASSERT_TRUE(ok.success()) << ok.describe() << "\n" << ok.out << ok.err;
  EXPECT_EQ(last_json(ok).value("num_pids", 0ll), 2147450880ll);
}

TEST_F(HarnessDefaults, NeitherGridNorLaunchGridFailsEveryModeClearly) {
  for (const char* mode : {"info", "verify", "time", "profile"})
    expect_usage_failure(box3({mode}, "nogrid"), mode, "the program defines neither grid() nor launch_grid()");
}

TEST_F(HarnessDefaults, AProgramWithoutANameFailsEveryModeClearly) {
  for (const char* mode : {"info", "verify", "time"})
    expect_usage_failure(box3({mode}, "noname"), mode, "the program has no name");
}

TEST_F(HarnessDefaults, VerifyWithTheDefaultToleranceOnAGpu) {
  const ProcessResult r = box3({"verify"});
  const json j = last_json(r);
  ASSERT_TRUE(j.is_object()) << r.describe() << "\n" << r.out << r.err;
  if (r.exited_with(3) && j.value("error", "").find("no GPU device") != std::string::npos)
    GTEST_SKIP() << "no GPU: verify checked its sizes and stopped at the device (" << j.value("error", "") << ")";
  ASSERT_TRUE(r.success()) << r.describe() << "\n" << r.out << r.err;
  EXPECT_EQ(j.value("ok", false), true);
  ASSERT_EQ(j["cases"].size(), 8u) << j.dump();
  for (const auto& c : j["cases"]) {
    // tol = 4 * 9 * 2^-24 * R, R <= 9 (|inputs| < 1): positive, below 2e-5, above the error.
    const double tol = c.value("tol", -1.0);
    EXPECT_GT(tol, 0.0) << c.dump();
    EXPECT_LT(tol, 2e-5) << c.dump();
    EXPECT_EQ(c.value("rel_tol", -1.0), 0.0) << c.dump();
    EXPECT_LE(c.value("max_abs_err", 1.0), tol) << c.dump();
  }
}

// ---- the HIP-API program with hipcc -------------------------------------------------------

TEST(HarnessDefaultsHip, TheHipProgramBuildsForGfx940) {
  const std::string compiler = hipcc_path();
  if (compiler.empty()) GTEST_SKIP() << "hipcc not found on PATH or in /opt/rocm/bin";
  TempDir tmp;
  const fs::path src = tmp / "box3.hip";
  write_text(src, kBox3Hip);
  const ProcessResult b = run_defaults_tool({compiler, "--offload-arch=gfx940", "-O3", "-I" + support_dir().string(),
                                    "-DSWZ_NUM_DIES=8", "-o", (tmp / "box3").string(), src.string()},
                                   {}, 600);
  ASSERT_TRUE(b.success()) << "hipcc " << b.describe() << "\n" << b.out << b.err;
  EXPECT_TRUE(fs::exists(tmp / "box3"));
}

}  // namespace
}  // namespace swz::test
