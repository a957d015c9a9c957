// The locality model through the real binary: `predict`, `check --predict` and the loop with
// the model on (through the fake toolchain), and every bad input a new user may give them.
// The footprint sections are compiled with the host compiler (c++); the tests skip without it.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "support/fixtures.h"

namespace swz::test {
namespace {

bool one_locality_error_line(const std::string& err) {
  const auto pos = err.find("swizzleperf: error: ");
  return pos != std::string::npos && err.find("swizzleperf: error: ", pos + 1) == std::string::npos &&
         err.find('\n', pos) >= err.size() - 1;
}

std::string kernel(const std::string& rel) { return (source_dir() / "kernels" / rel).string(); }

// Every test gets its own footprint cache (XDG_CACHE_HOME), so nothing leaks between them.
std::vector<std::string> locality_env(const TempDir& tmp) { return {"XDG_CACHE_HOME=" + (tmp / "cache").string()}; }

class LocalityE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_tool("c++")) GTEST_SKIP() << "no host C++ compiler (c++)";
  }
  // optimize's arguments for `kernel` with the locality model on (the default) and the fake
  // nvcc and cuobjdump side by side in tmp/bin, as in a CUDA toolkit.
  std::vector<std::string> optimize_with_fake_cuobjdump(const fs::path& kernel) {
    const fs::path bin = tmp / "bin";
    fs::create_directories(bin);
    fs::create_symlink(fake_dir() / "fake_nvcc", bin / "nvcc");
    fs::create_symlink(fake_dir() / "fake_cuobjdump", bin / "cuobjdump");
    auto args = fake_optimize_args(kernel, tmp / "run", 1);
    args.erase(std::find(args.begin(), args.end(), "--locality-model"), args.end());
    *(std::find(args.begin(), args.end(), "--nvcc") + 1) = (bin / "nvcc").string();
    return args;
  }
  TempDir tmp;
};

TEST_F(LocalityE2E, PredictsEachSideOfAnH100AndEachXcdOfAnMi300x) {
  auto h = run_cli({"predict", kernel("gemm.hip"), "--arch", "sm_90", "--pattern", "grouped_m:8", "--json"}, tmp.path(), locality_env(tmp));
  ASSERT_EQ(h.exit_code, 0) << h.err;
  auto j = nlohmann::json::parse(h.out);
  EXPECT_EQ(j["kind"], "prediction");
  EXPECT_EQ(j["order"], "grouped_m(G=8)");
  EXPECT_EQ(j["dies"].size(), 2u);
  EXPECT_EQ(j["arch"], "sm_90");
  const double grouped = j["l2_hit_pct"].get<double>();
  EXPECT_GT(grouped, 50.0);
  EXPECT_LT(grouped, 100.0);
  EXPECT_GT(j["dram_read_bytes"].get<double>(), 0.0);
  // The row-major order re-reads B from DRAM: lower hit rate, more DRAM bytes.
  auto id = run_cli({"predict", kernel("gemm.hip"), "--arch", "h100", "--pattern", "identity", "--json"}, tmp.path(), locality_env(tmp));
  ASSERT_EQ(id.exit_code, 0) << id.err;
  auto ji = nlohmann::json::parse(id.out);
  EXPECT_LT(ji["l2_hit_pct"].get<double>() + 20, grouped);
  EXPECT_GT(ji["dram_read_bytes"].get<double>(), 2 * j["dram_read_bytes"].get<double>());
  // MI300X: eight XCDs, the paper's GEMM remap keeps each XCD's tiles together.
  auto m = run_cli({"predict", kernel("gemm.hip"), "--arch", "mi300x", "--pattern", "grouped_m_die:8"}, tmp.path(), locality_env(tmp));
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.out.find("predicted (not measured)"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("  7 "), std::string::npos) << "a row per XCD: " << m.out;
  EXPECT_NE(m.out.find("total"), std::string::npos);
}

TEST_F(LocalityE2E, TheKernelsOwnRegionAndARegionFileArePredictedAfterTheMappingCheck) {
  auto own = run_cli({"predict", kernel("tc/gemm_tc.hip"), "--arch", "sm_90", "--json"}, tmp.path(), locality_env(tmp));
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(nlohmann::json::parse(own.out)["order"], "the kernel's own region");
  write_text(tmp / "half.txt", "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n  return pid / 2;\n}\n");
  auto bad = run_cli({"predict", kernel("gemm.hip"), "--arch", "sm_90", "--region", (tmp / "half.txt").string()}, tmp.path(), locality_env(tmp));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(one_locality_error_line(bad.err)) << bad.err;
  EXPECT_NE(bad.err.find("NOT a bijection"), std::string::npos) << bad.err;
  write_text(tmp / "evil.txt", "#include <cstdlib>\nSWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, SwizzleGrid g) { system(\"true\"); return pid; }\n");
  auto evil = run_cli({"predict", kernel("gemm.hip"), "--arch", "sm_90", "--region", (tmp / "evil.txt").string()}, tmp.path(), locality_env(tmp));
  EXPECT_EQ(evil.exit_code, 2);
  EXPECT_TRUE(one_locality_error_line(evil.err)) << evil.err;
  EXPECT_NE(evil.err.find("preprocessor"), std::string::npos) << "the validator refuses it, nothing compiled: " << evil.err;
}

TEST_F(LocalityE2E, EveryBadInputIsOneLineAndExitTwo) {
  const std::string g = kernel("gemm.hip");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"predict"}, "needs a kernel file"},
      {{"predict", (tmp / "nope.hip").string()}, "nope.hip"},
      {{"predict", g, "--pattern", "spiral:3"}, "not a family"},
      {{"predict", g, "--pattern", "grouped_m:0"}, "whole number from 1 to 65536"},
      {{"predict", g, "--pattern", "topo_group:8", "--arch", "sm_90"}, "--probe"},
      {{"predict", g, "--launches", "0"}, "--launches 0"},
      {{"predict", g, "--launch-window", "last"}, "--launch-window 'last'"},
      {{"predict", g, "--size", "0,5,5"}, "--size '0,5,5'"},
      {{"predict", g, "--size", "100,100"}, "expected 3 values"},
      {{"predict", g, "--arch", "sm_99x"}, "unknown arch"},
      {{"predict", g, "--dies", "-1"}, "--dies -1"},
      {{"predict", g, "--region", (tmp / "missing.txt").string()}, "missing.txt"},
      {{"predict", g, "--region", "r", "--pattern", "die_rr"}, "give one"},
      {{"predict", g, "--host-cxx", "/nonexistent/c++"}, "not found"},
      {{"predict", g, "--probe", (tmp / "nope.json").string()}, "nope.json"},
      {{"predict", kernel("triton/matmul.py")}, "cannot be predicted"},
  };
  for (const auto& [args, want] : cases) {
    auto r = run_cli(args, tmp.path(), locality_env(tmp));
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.out << r.err;
    EXPECT_TRUE(one_locality_error_line(r.err)) << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << "want '" << want << "' in: " << r.err;
  }
}

TEST_F(LocalityE2E, AProgramWithoutAFootprintOrWithABrokenOneSaysWhy) {
  std::string text = read_text(source_dir() / "kernels" / "gemm.hip");
  // No section: predict refuses; check --predict passes and says it cannot predict.
  std::string none = text;
  for (const char* m : {"// swizzleperf:footprint-begin\n", "// swizzleperf:footprint-end\n"}) none.replace(none.find(m), std::string(m).size(), "");
  write_text(tmp / "plain.hip", none);
  auto p = run_cli({"predict", (tmp / "plain.hip").string(), "--arch", "sm_90"}, tmp.path(), locality_env(tmp));
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find("declares no footprint"), std::string::npos) << p.err;
  auto c = run_cli({"check", (tmp / "plain.hip").string(), "--predict", "--no-build", "--json"}, tmp.path(), locality_env(tmp));
  ASSERT_EQ(c.exit_code, 0) << c.err << c.out;
  auto cj = nlohmann::json::parse(c.out);
  EXPECT_NE(cj["kernels"][0]["predict_note"].get<std::string>().find("declares no footprint"), std::string::npos);
  EXPECT_TRUE(cj["kernels"][0]["predictions"].empty());
  // A section that does not compile: predict exit 2 naming the line; check --predict fails the kernel.
  std::string broken = text;
  broken.insert(broken.find("// swizzleperf:footprint-end"), "this is not C++;\n");
  write_text(tmp / "broken.hip", broken);
  auto b = run_cli({"predict", (tmp / "broken.hip").string(), "--arch", "sm_90"}, tmp.path(), locality_env(tmp));
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_TRUE(one_locality_error_line(b.err)) << b.err;
  EXPECT_NE(b.err.find("does not compile"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("broken.hip:"), std::string::npos) << "names the line: " << b.err;
  auto bc = run_cli({"check", (tmp / "broken.hip").string(), "--predict", "--no-build"}, tmp.path(), locality_env(tmp));
  EXPECT_EQ(bc.exit_code, 1) << bc.out << bc.err;
  EXPECT_NE(bc.out.find("footprint:"), std::string::npos) << bc.out;
  // Two sections.
  std::string twice = text + "\n// swizzleperf:footprint-begin\n// swizzleperf:footprint-end\n";
  write_text(tmp / "twice.hip", twice);
  auto t = run_cli({"predict", (tmp / "twice.hip").string()}, tmp.path(), locality_env(tmp));
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.err.find("second footprint"), std::string::npos) << t.err;
}

TEST_F(LocalityE2E, AnUnwritableCacheFallsBackToATemporaryDirectory) {
  write_text(tmp / "file", "x");  // XDG_CACHE_HOME under a regular file: nothing can be created there
  auto r = run_cli({"predict", kernel("transpose.hip"), "--arch", "gfx942", "--pattern", "die_rr"}, tmp.path(),
                   {"XDG_CACHE_HOME=" + (tmp / "file" / "sub").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("predicted (not measured)"), std::string::npos) << r.out;
}

TEST_F(LocalityE2E, CheckPredictsEveryShippedKernelForMi300xWithoutAGpu) {
  std::vector<std::string> args = {"check", "--predict", "--arch", "gfx942", "--no-build", "--json"};
  for (const char* k : {"black_scholes", "fdtd_2d", "fused_elementwise", "gemm", "layernorm", "smith_waterman", "softmax",
                        "spmv", "stencil_2d", "transpose"})
    args.push_back(kernel(std::string(k) + ".hip"));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli(args, tmp.path(), locality_env(tmp), 600);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["kernels"].size(), 10u);
  for (const auto& k : j["kernels"]) {
    ASSERT_FALSE(k["predictions"].empty()) << k["kernel"] << ": " << k["predict_note"];
    for (const auto& p : k["predictions"]) {
      EXPECT_EQ(p["kind"], "prediction");
      if (p.contains("error")) continue;
      EXPECT_EQ(p["die_l2_hit_pct"].size(), 8u) << k["kernel"] << " " << p["order"];
    }
  }
  std::printf("check --predict over the paper's ten kernels (gfx942, cold footprint cache, this build): %.1f s\n", s);
}

TEST_F(LocalityE2E, EveryShippedProgramsOwnByteCountsAgreeWithItsFootprint) {
  // Built for `info` (nvcc), check compares each profiled launch's union of spans with the
  // program's launch_footprints_bytes and fails the kernel on a difference: a shipped kernel
  // must pass (fdtd_2d's counts once took whole fields and failed here).
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  std::vector<std::string> args = {"check", "--predict", "--arch", "sm_90"};
  for (const char* k : {"black_scholes", "fdtd_2d", "fused_elementwise", "gemm", "layernorm", "smith_waterman", "softmax",
                        "spmv", "stencil_2d", "transpose", "tc/gemm_tc", "tc/attention_fwd"})
    args.push_back(kernel(std::string(k) + ".hip"));
  auto r = run_cli(args, tmp.path(), locality_env(tmp), 600);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("one of them is wrong"), std::string::npos) << r.out;
  std::size_t passed = 0;
  for (std::size_t pos = 0; (pos = r.out.find("\nPASS ", pos)) != std::string::npos; ++pos) ++passed;
  EXPECT_EQ(passed, 12u) << r.out;
  EXPECT_NE(r.out.find("built for info with nvcc"), std::string::npos) << r.out;
}

TEST_F(LocalityE2E, TheLoopRecordsPredictionsAndRanksByThem) {
  auto k = copy_kernel(tmp, "gemm");
  auto args = fake_optimize_args(k, tmp / "run", 3);
  args.erase(std::find(args.begin(), args.end(), "--locality-model"), args.end());  // the default: on
  args.push_back("--json");
  auto r = run_cli(args, tmp.path(), locality_env(tmp));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto h = nlohmann::json::parse(read_text(tmp / "run" / "history.json"));
  EXPECT_EQ(h["config"]["locality_model"], "on");
  ASSERT_TRUE(h["baseline"].contains("predicted")) << h["baseline"].dump();
  EXPECT_TRUE(h["baseline"]["predicted"]["l2_hit_pct"].is_number());
  ASSERT_FALSE(h["attempts"].empty());
  const auto& first = h["attempts"][0];
  EXPECT_TRUE(first["predicted"]["l2_hit_pct"].is_number()) << first.dump();
  EXPECT_NE(first["proposal"]["reasoning"].get<std::string>().find("ranked 1 of"), std::string::npos) << first["proposal"].dump();
  // The first candidate is the best predicted: no later attempt is predicted higher.
  for (const auto& a : h["attempts"])
    if (a.contains("predicted") && a["predicted"].contains("l2_hit_pct"))
      EXPECT_LE(a["predicted"]["l2_hit_pct"].get<double>(), first["predicted"]["l2_hit_pct"].get<double>() + 1e-9);
  // Off: no predictions; a bad value: one line, exit 2, nothing run.
  auto off = fake_optimize_args(k, tmp / "off", 1);
  auto ro = run_cli(off, tmp.path(), locality_env(tmp));
  ASSERT_EQ(ro.exit_code, 0) << ro.err;
  auto ho = nlohmann::json::parse(read_text(tmp / "off" / "history.json"));
  EXPECT_FALSE(ho["baseline"].contains("predicted"));
  auto bad = fake_optimize_args(k, tmp / "bad", 1);
  bad.back() = "maybe";
  auto rb = run_cli(bad, tmp.path(), locality_env(tmp));
  EXPECT_EQ(rb.exit_code, 2);
  EXPECT_TRUE(one_locality_error_line(rb.err)) << rb.err;
  EXPECT_NE(rb.err.find("--locality-model 'maybe'"), std::string::npos) << rb.err;
}

TEST_F(LocalityE2E, TheLoopTakesRegistersFromTheCompilersReport) {
  auto args = optimize_with_fake_cuobjdump(copy_kernel(tmp, "gemm"));
  auto env = locality_env(tmp);
  env.push_back("SWZ_FAKE_CUOBJDUMP_REG=200");
  // The fake toolchain's program calls its kernel "<file stem>_kernel": kernel_kernel here.
  env.push_back("SWZ_FAKE_CUOBJDUMP_KERNELS=_Z13kernel_kernelPKfS0_Pfiii11SwizzleGrid");
  auto r = run_cli(args, tmp.path(), env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "registers compiler report (cuobjdump): 200 per thread, the most of the 1 kernel(s) matching "
                         "'kernel_kernel'")) << r.err;
  // A report that names none of the program's kernels: the footprint's declaration stands, and says why.
  env.back() = "SWZ_FAKE_CUOBJDUMP_KERNELS=_Z5otherv";
  *(std::find(args.begin(), args.end(), "--run-dir") + 1) = (tmp / "run2").string();
  auto r2 = run_cli(args, tmp.path(), env);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_TRUE(has(r2.err, "registers declared by the footprint section (no compiler report: no kernel in the report "
                          "matches 'kernel_kernel')")) << r2.err;
}

// A program whose launches name their kernels (layernorm: partials, then normalize) gets
// each kernel's own count, not the most of the two.
TEST_F(LocalityE2E, EachLaunchTakesItsOwnKernelsRegisters) {
  auto args = optimize_with_fake_cuobjdump(copy_kernel(tmp, "layernorm"));
  auto env = locality_env(tmp);
  env.push_back("SWZ_FAKE_CUOBJDUMP_KERNELS=_Z25layernorm_partials_kernelPKfP6float2i11SwizzleGrid=32,"
                "_Z26layernorm_normalize_kernelPKfS0_S0_PK6float2Pfi11SwizzleGrid=40,_Z13kernel_kernelv=64");
  auto r = run_cli(args, tmp.path(), env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "registers compiler report (cuobjdump), per launch by its kernel: layernorm_partials_kernel 32, "
                         "layernorm_normalize_kernel 40")) << r.err;
  // Only one of them in the report: the other launch takes the program's pattern's count.
  env.back() = "SWZ_FAKE_CUOBJDUMP_KERNELS=_Z25layernorm_partials_kernelPKfP6float2i11SwizzleGrid=32,_Z13kernel_kernelv=64";
  *(std::find(args.begin(), args.end(), "--run-dir") + 1) = (tmp / "run2").string();
  auto r2 = run_cli(args, tmp.path(), env);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_TRUE(has(r2.err, "per launch by its kernel: layernorm_partials_kernel 32; 1 other launch(es): 64 per thread, "
                          "the most of the 1 kernel(s) matching 'kernel_kernel'; the report has no kernel named "
                          "layernorm_normalize_kernel")) << r2.err;
}

}  // namespace
}  // namespace swz::test
