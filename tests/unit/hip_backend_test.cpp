// Tests of HipBackend through a scripted ProcessRunner: the hipcc and rocprofv3
// command lines it builds, where profile() finds rocprofv3's CSV, its errors,
// and query_device() on an MI300X-shaped device-query answer. No tool runs.
#include "swizzleperf/backend/hip_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "support/fixtures.h"
#include "support/scripted_runner.h"

namespace swz {
namespace {

using test::has_arg;
using test::TempDir;
using test::value_after;

using test::exited;
using test::ScriptedRunner;

ToolOptions fake_hip_tools() {
  ToolOptions t;
  t.compiler = "fake-hipcc";
  t.profiler = "fake-rocprofv3";
  return t;
}

// ---- build -------------------------------------------------------------------------

TEST(HipBackend, BuildArgvShape) {
  ScriptedRunner runner;
  HipBackend hip(runner, fake_hip_tools());
  const auto argv = hip.build_argv({"kernels/gemm.hip", "/tmp/out/gemm", 8, "gfx940"}, "hipcc");
  ASSERT_GE(argv.size(), 6u);
  EXPECT_EQ(argv.front(), "hipcc");
  EXPECT_TRUE(has_arg(argv, "--offload-arch=gfx940"));
  EXPECT_TRUE(has_arg(argv, "-I" + support_dir().string()));
  EXPECT_TRUE(has_arg(argv, "-DSWZ_NUM_DIES=8"));
  BuildRequest point{"kernels/gemm.hip", "/tmp/out/gemm", 8, "gfx940"};
  point.defines = {{"TILE", 32}};
  EXPECT_TRUE(has_arg(hip.build_argv(point, "hipcc"), "-DTILE=32"));
  EXPECT_TRUE(has_arg(argv, "-O3"));
  // ... -o OUTPUT SOURCE, the source last.
  EXPECT_EQ(argv[argv.size() - 3], "-o");
  EXPECT_EQ(argv[argv.size() - 2], "/tmp/out/gemm");
  EXPECT_EQ(argv.back(), "kernels/gemm.hip");
}

// CUDA as written builds with nvcc only: a program that calls the CUDA runtime is a failed
// build naming its first use and the hipify route, and hipcc never runs; HIP names build.
TEST(HipBackend, ACudaRuntimeProgramIsRefusedWithoutRunningHipcc) {
  TempDir tmp;
  ScriptedRunner runner;
  HipBackend hip(runner, fake_hip_tools());
  const auto src = tmp / "blur_swz.cu";
  test::write_text(src, "#include \"swz_harness.h\"\n// cudaMalloc in a comment is fine\nvoid f(float** p) {\n  cudaMalloc(p, 4);\n}\n");
  auto built = hip.build({src, tmp / "blur", 8, "gfx940"});
  ASSERT_TRUE(built.ok());
  EXPECT_FALSE(built->ok);
  EXPECT_NE(built->failure.find("blur_swz.cu:4 uses the CUDA runtime (cudaMalloc)"), std::string::npos) << built->failure;
  EXPECT_NE(built->failure.find("hipify-perl blur_swz.cu > blur_swz.hip"), std::string::npos) << built->failure;
  EXPECT_TRUE(runner.calls().empty());
  auto header = hip.accepts_source("k.cu", "#include <cuda_runtime.h>\nint x;\n");
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.error().message.find("k.cu:1 uses the CUDA runtime (include <cuda_runtime.h>)"), std::string::npos);
  EXPECT_TRUE(hip.accepts_source("k.hip", "#include <hip/hip_runtime.h>\nconst char* s = \"cudaMalloc\";\nint cuda = 1;\n").ok());
}

TEST(HipBackend, BuildArchFromRequestThenToolsThenNone) {
  ScriptedRunner runner;
  auto tools = fake_hip_tools();
  tools.arch = "gfx90a";
  tools.extra_flags = {"-g"};
  HipBackend hip(runner, tools);
  auto argv = hip.build_argv({"k.hip", "k", 1, "gfx940"}, "hipcc");
  EXPECT_TRUE(has_arg(argv, "--offload-arch=gfx940"));
  EXPECT_FALSE(has_arg(argv, "--offload-arch=gfx90a"));
  EXPECT_TRUE(has_arg(argv, "-g"));
  argv = hip.build_argv({"k.hip", "k", 1, ""}, "hipcc");
  EXPECT_TRUE(has_arg(argv, "--offload-arch=gfx90a"));

  HipBackend no_arch(runner, fake_hip_tools());
  argv = no_arch.build_argv({"k.hip", "k", 1, ""}, "hipcc");
  // No arch at all: hipcc asks rocm_agent_enumerator for the installed GPU.
  EXPECT_TRUE(std::none_of(argv.begin(), argv.end(),
                           [](const std::string& a) { return a.rfind("--offload-arch", 0) == 0; }));
}

TEST(HipBackend, BuildRunsTheConfiguredCompiler) {
  ScriptedRunner runner;
  runner.otherwise(exited(0));
  HipBackend hip(runner, fake_hip_tools());
  auto b = hip.build({"src/gemm.hip", "out/gemm", 8, "gfx940"});
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_TRUE(b->ok);
  const auto calls = runner.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].argv, b->argv);
  EXPECT_EQ(calls[0].argv.front(), "fake-hipcc");
  EXPECT_EQ(calls[0].argv, hip.build_argv({"src/gemm.hip", "out/gemm", 8, "gfx940"}, "fake-hipcc"));
}

TEST(HipBackend, CompileErrorIsAFailedBuildNotAnError) {
  ScriptedRunner runner;
  runner.otherwise(exited(1, "", "gemm.hip:10:3: error: use of undeclared identifier 'x'\n1 error generated\n"));
  HipBackend hip(runner, fake_hip_tools());
  auto b = hip.build({"gemm.hip", "gemm", 8, "gfx940"});
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->ok);
  EXPECT_NE(b->failure.find("hipcc"), std::string::npos) << b->failure;
  EXPECT_NE(b->failure.find("exit code 1"), std::string::npos) << b->failure;
  EXPECT_NE(b->failure.find("1 error generated"), std::string::npos) << b->failure;
  EXPECT_NE(b->log.find("undeclared identifier"), std::string::npos);
}

TEST(HipBackend, CompilerThatCannotStartIsAnError) {
  ScriptedRunner runner;
  runner.otherwise(test::not_started("execvp fake-hipcc: No such file or directory"));
  HipBackend hip(runner, fake_hip_tools());
  auto b = hip.build({"gemm.hip", "gemm", 8, "gfx940"});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("cannot run hipcc"), std::string::npos) << b.error().message;
  EXPECT_NE(b.error().message.find("--hipcc"), std::string::npos) << b.error().message;
}

// ---- preflight -----------------------------------------------------------------------

TEST(HipBackend, PreflightNamesTheMissingTool) {
  ScriptedRunner runner;
  ToolOptions t;
  t.compiler = "/nonexistent/hipcc";
  t.profiler = "/nonexistent/rocprofv3";
  HipBackend missing_compiler(runner, t);
  auto st = missing_compiler.preflight(false);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message.rfind("hipcc not found", 0), 0u) << st.error().message;
  EXPECT_EQ(st.error().message.find('\n'), std::string::npos);

  t.compiler = "/bin/sh";  // any executable will do as the compiler
  HipBackend missing_profiler(runner, t);
  EXPECT_TRUE(missing_profiler.preflight(false).ok());
  st = missing_profiler.preflight(true);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message.rfind("rocprofv3 not found", 0), 0u) << st.error().message;
  EXPECT_NE(st.error().message.find("--rocprof"), std::string::npos);
  EXPECT_TRUE(runner.calls().empty());  // preflight only looks, it runs nothing
}

// ---- profile -------------------------------------------------------------------------

ProfileRequest gemm_profile_request(const fs::path& out_dir) {
  return {"/runs/r/baseline/kernel", {"profile", "--size", "256,256,64"}, "gemm_kernel", out_dir};
}

TEST(HipBackend, ProfileArgvIsTheDocumentedRocprofv3Command) {
  ScriptedRunner runner;
  HipBackend hip(runner, fake_hip_tools());
  const auto argv = hip.profile_argv(gemm_profile_request("/runs/r/baseline"), "rocprofv3", "/runs/r/baseline/rocprof");
  const std::vector<std::string> want = {
      "rocprofv3", "--pmc", "TCC_HIT_sum", "TCC_MISS_sum", "--kernel-include-regex", "gemm_kernel",
      "--output-format", "csv", "-d", "/runs/r/baseline/rocprof", "-o", "swz", "--",
      "/runs/r/baseline/kernel", "profile", "--size", "256,256,64"};
  EXPECT_EQ(argv, want);
}

TEST(HipBackend, ProfileArgvWithoutRegexProfilesEveryKernel) {
  ScriptedRunner runner;
  HipBackend hip(runner, fake_hip_tools());
  ProfileRequest req{"/x/kernel", {"profile"}, "", "/x"};
  const auto argv = hip.profile_argv(req, "rocprofv3", "/x/rocprof");
  EXPECT_FALSE(has_arg(argv, "--kernel-include-regex"));
  EXPECT_EQ(value_after(argv, "-d"), "/x/rocprof");
  EXPECT_EQ(value_after(argv, "--"), "/x/kernel");
  EXPECT_EQ(argv.back(), "profile");
}

// A fake rocprofv3 (the handler for every process): when it sees its own argv,
// writes `csv` as -d DIR/<host>/<pid>/swz_counter_collection.csv (a nested layout,
// as some rocprofv3 versions use) plus an agent_info.csv, then exits `code`.
ScriptedRunner::Handler fake_rocprofv3(std::string csv, int code = 0, std::string err = "") {
  return [csv = std::move(csv), code, err = std::move(err)](const ProcessSpec& spec) {
    if (!spec.argv.empty() && spec.argv[0] == "fake-rocprofv3") {
      const fs::path dir = value_after(spec.argv, "-d");
      const std::string prefix = value_after(spec.argv, "-o");
      if (!dir.empty() && !csv.empty()) {
        test::write_text(dir / "gpu-node-7" / "31337" / (prefix + "_counter_collection.csv"), csv);
        test::write_text(dir / "gpu-node-7" / "31337" / (prefix + "_agent_info.csv"),
                         test::read_text(test::fixture_path("rocprof/agent_info.csv")));
      }
    }
    return exited(code, "", err);
  };
}

TEST(HipBackend, ProfileFindsTheNestedCounterCsvAndParsesIt) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.otherwise(fake_rocprofv3(test::read_text(test::fixture_path("rocprof/counters_2025.csv"))));
  HipBackend hip(runner, fake_hip_tools());
  auto m = hip.profile(gemm_profile_request(tmp / "baseline"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  const auto calls = runner.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].argv.front(), "fake-rocprofv3");
  EXPECT_EQ(value_after(calls[0].argv, "-d"), (tmp / "baseline" / "rocprof").string());
  // Only the gemm_kernel dispatches (3 of 4), as the regex asks.
  EXPECT_EQ(m->launches, 3);
  EXPECT_EQ(m->l2_hits, 9000000.0);
  EXPECT_EQ(m->l2_misses, 3000000.0);
  ASSERT_TRUE(m->l2_hit_pct);
  EXPECT_DOUBLE_EQ(*m->l2_hit_pct, 75.0);
  // The command and the profiler's output are kept next to the attempt.
  const auto log = test::read_text(tmp / "baseline" / "rocprof.log");
  EXPECT_NE(log.find("fake-rocprofv3 --pmc TCC_HIT_sum TCC_MISS_sum"), std::string::npos) << log;
}

TEST(HipBackend, ProfileParsesThe2024Header) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.otherwise(fake_rocprofv3(test::read_text(test::fixture_path("rocprof/counters_2024.csv"))));
  HipBackend hip(runner, fake_hip_tools());
  auto m = hip.profile({"/x/kernel", {"profile"}, "addition_kernel", tmp.path()});
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_GT(m->launches, 0);
  EXPECT_TRUE(m->l2_hit_pct.has_value());
  EXPECT_FALSE(m->profiler_time_ns.has_value());  // the 2024 header has no timestamps
}

TEST(HipBackend, ProfilerFailureIsAClearError) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.otherwise(fake_rocprofv3("", 1,
                                  "[rocprofv3] starting\nROCPROFILER_STATUS_ERROR_PROFILE_EXCEEDS_HW_LIMIT: "
                                  "counters do not fit in one pass\n"));
  HipBackend hip(runner, fake_hip_tools());
  auto m = hip.profile(gemm_profile_request(tmp.path()));
  ASSERT_FALSE(m.ok());
  const auto& msg = m.error().message;
  EXPECT_EQ(msg.rfind("rocprofv3 exit code 1", 0), 0u) << msg;
  EXPECT_NE(msg.find("EXCEEDS_HW_LIMIT"), std::string::npos) << msg;  // the last stderr line
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(HipBackend, MissingCounterCsvIsAClearError) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.otherwise(exited(0));  // exits 0, writes nothing
  HipBackend hip(runner, fake_hip_tools());
  auto m = hip.profile(gemm_profile_request(tmp.path()));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("no counter_collection.csv"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find((tmp / "rocprof").string()), std::string::npos) << m.error().message;
}

TEST(HipBackend, CounterCsvWithoutTheL2CountersIsAnError) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.otherwise(fake_rocprofv3(test::read_text(test::fixture_path("rocprof/counters_missing_miss.csv"))));
  HipBackend hip(runner, fake_hip_tools());
  auto m = hip.profile({"/x/kernel", {"profile"}, "", tmp.path()});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("TCC_MISS_sum"), std::string::npos) << m.error().message;
}

TEST(HipBackend, ProfilerThatCannotStartNamesTheOption) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.otherwise(test::not_started("execvp: No such file or directory"));
  HipBackend hip(runner, fake_hip_tools());
  auto m = hip.profile(gemm_profile_request(tmp.path()));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("cannot run rocprofv3"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("--rocprof"), std::string::npos) << m.error().message;
}

// ---- query_device ----------------------------------------------------------------------

constexpr const char* kMi300xQuery =
    R"({"name":"AMD Instinct MI300X","arch":"gfx942:sramecc+:xnack-","vendor":"amd","compute_units":304,"l2_bytes":4194304,"num_xcc":8})";

TEST(HipBackend, QueryDeviceBuildsRunsAndReadsTheDeviceQuery) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.on("fake-hipcc", exited(0)).otherwise(exited(0, std::string("some runtime chatter\n") + kMi300xQuery + "\n"));
  HipBackend hip(runner, fake_hip_tools());
  auto hw = hip.query_device(tmp.path());
  ASSERT_TRUE(hw.ok()) << hw.error().message;
  const auto calls = runner.calls();
  ASSERT_EQ(calls.size(), 2u);
  // 1: hipcc builds kernels/support/device_query.hip into the work dir.
  const auto& build = calls[0].argv;
  EXPECT_EQ(build.front(), "fake-hipcc");
  EXPECT_EQ(build.back(), (support_dir() / "device_query.hip").string());
  EXPECT_EQ(value_after(build, "-o"), (tmp / "device_query").string());
  // 2: the built program runs with no arguments.
  EXPECT_EQ(calls[1].argv, std::vector<std::string>{(tmp / "device_query").string()});

  EXPECT_EQ(hw->vendor, "amd");
  EXPECT_EQ(hw->name, "AMD Instinct MI300X");
  EXPECT_EQ(hw->arch, "gfx942");  // feature flags stripped
  EXPECT_EQ(hw->compute_units, 304);
  EXPECT_EQ(hw->num_dies, 8);
  EXPECT_EQ(hw->compute_units_per_die(), 38);
  EXPECT_EQ(hw->l2_bytes_per_die, 4 << 20);
  EXPECT_EQ(hw->dispatch.kind, "round_robin");
  EXPECT_EQ(hw->dispatch.source, "documented");
  EXPECT_EQ(hw->dispatch.die_of(13, hw->num_dies), 5);
  EXPECT_NE(hw->provenance.at("num_dies").find("device query"), std::string::npos);
}

TEST(HipBackend, QueryDeviceWithoutXccCountFallsBackToTheArchTable) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.on("fake-hipcc", exited(0))
      .otherwise(exited(
          0, R"({"name":"AMD Instinct MI300X","arch":"gfx942:sramecc+:xnack-","vendor":"amd","compute_units":304,"l2_bytes":4194304,"num_xcc":-1})"
             "\n"));
  HipBackend hip(runner, fake_hip_tools());
  auto hw = hip.query_device(tmp.path());
  ASSERT_TRUE(hw.ok()) << hw.error().message;
  EXPECT_EQ(hw->num_dies, 8);
  EXPECT_NE(hw->provenance.at("num_dies").find("arch table"), std::string::npos);
  EXPECT_EQ(hw->dispatch.kind, "round_robin");
}

TEST(HipBackend, QueryDeviceWithoutAGpuSaysSo) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.on("fake-hipcc", exited(0)).otherwise(exited(3, "", "error: no GPU device (hipErrorNoDevice)\n"));
  HipBackend hip(runner, fake_hip_tools());
  auto hw = hip.query_device(tmp.path());
  ASSERT_FALSE(hw.ok());
  EXPECT_NE(hw.error().message.find("no AMD GPU answered the device query"), std::string::npos) << hw.error().message;
  EXPECT_NE(hw.error().message.find("hipErrorNoDevice"), std::string::npos) << hw.error().message;
}

TEST(HipBackend, QueryDeviceThatDoesNotBuildSaysSo) {
  TempDir tmp;
  ScriptedRunner runner;
  runner.otherwise(exited(1, "", "clang: error: cannot find ROCm device library\n"));
  HipBackend hip(runner, fake_hip_tools());
  auto hw = hip.query_device(tmp.path());
  ASSERT_FALSE(hw.ok());
  EXPECT_NE(hw.error().message.find("cannot build the device query program"), std::string::npos) << hw.error().message;
  EXPECT_NE(hw.error().message.find("ROCm device library"), std::string::npos) << hw.error().message;
  EXPECT_EQ(runner.calls().size(), 1u);  // nothing to run
}

}  // namespace
}  // namespace swz
