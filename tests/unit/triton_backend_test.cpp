// Tests of TritonBackend: the launcher it writes (run by the real python3: any path and
// any program text survive the trip), the profile window that skips the warm-up run,
// which programs it takes, and build() on a good program, a syntax error and a program
// whose imports fail (the real python3; skipped without one).
#include "swizzleperf/backend/triton_backend.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "support/scripted_runner.h"
#include "swizzleperf/backend/backend_factory.h"

namespace swz {
namespace {

using test::has;
using test::TempDir;

ToolOptions python_tools() {
  ToolOptions t;
  t.build_timeout = std::chrono::seconds(60);
  t.run_timeout = std::chrono::seconds(60);
  return t;
}

TEST(TritonWindow, TheWarmupRunsLaunchesAreSkippedFirst) {
  // every launch of a one-launch run: skip the warm-up launch, profile one
  LaunchWindow w = TritonBackend::window_after_warmup(profile_window(1, 24));
  EXPECT_EQ(w.skip, 1);
  EXPECT_EQ(w.count, 1);
  // a 10-launch run within the limit: skip 10, profile 10
  w = TritonBackend::window_after_warmup(profile_window(10, 24));
  EXPECT_EQ(w.skip, 10);
  EXPECT_EQ(w.count, 10);
  // a 255-launch run: the middle 24 of the profiled run, after the 255 warm-up launches
  const LaunchWindow mid = profile_window(255, 24);
  w = TritonBackend::window_after_warmup(mid);
  EXPECT_EQ(w.skip, 255 + mid.skip);
  EXPECT_EQ(w.count, 24);
  EXPECT_EQ(w.total, 255);
  // launches unknown: one assumed
  w = TritonBackend::window_after_warmup(LaunchWindow{});
  EXPECT_EQ(w.skip, 1);
  EXPECT_EQ(w.count, 1);
}

TEST(TritonBackend, TakesPythonProgramsOnlyAndTheFactoryRoutesThem) {
  test::ScriptedRunner runner;
  TritonBackend b(runner, python_tools());
  EXPECT_TRUE(b.accepts_source("kernels/triton/matmul.py", ""));
  auto st = b.accepts_source("kernels/gemm.hip", "");
  ASSERT_FALSE(st);
  EXPECT_TRUE(has(st.error().message, "--backend cuda or hip"));
  EXPECT_EQ(backend_for_kernel("auto", "m.py").value(), "triton");
  EXPECT_EQ(backend_for_kernel("auto", "m.hip").value(), "auto");
  auto bad = backend_for_kernel("cuda", "m.py");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error().message, "m.py is a Triton program: it runs on --backend triton"));
  EXPECT_FALSE(backend_for_kernel("triton", "m.cu"));
  EXPECT_EQ(backend_for_kernel("triton", "m.py").value(), "triton");
  EXPECT_EQ(backend_for_kernel("hip", "m.hip").value(), "hip");
  auto made = make_backend("triton", runner, python_tools());
  ASSERT_TRUE(made);
  EXPECT_EQ((*made)->name(), "triton");
}

TEST(TritonLauncher, RunsTheProgramTextUnderItsNameWithAnyPathAndText) {
  if (!test::have_tool("python3")) GTEST_SKIP() << "no python3";
  TempDir dir;
  // A path and a text with quotes, backslashes, non-ASCII and a \u escape lookalike.
  const fs::path program = dir / "we'ird \"dir\\" / "prog\\u0041é.py";
  const std::string text =
      "import linecache, os, sys\n"
      "s = 'quote \\' and \" and \\\\ and é and \\\\u0041'\n"
      "print(os.environ['SWZ_NUM_DIES'], __name__, sys.argv[0] == __file__, s)\n"
      "import inspect\n"
      "def f():\n"
      "    return 1\n"
      "print(inspect.getsource(f).strip().splitlines()[0])\n"
      "print(sys.path[0])\n";
  const fs::path launcher = dir / "launcher";
  test::write_text(launcher, TritonBackend::launcher_text("/usr/bin/env python3", "/sup'port", program, text, 2));
  RealProcessRunner runner;
  auto r = runner.run({{"python3", launcher.string()}, {}, {}, std::chrono::seconds(30)});
  ASSERT_TRUE(r.success()) << r.err;
  EXPECT_TRUE(has(r.out, "2 __main__ True quote ' and \" and \\ and é and \\u0041\n")) << r.out;
  EXPECT_TRUE(has(r.out, "def f():")) << r.out;  // inspect finds the source (Triton needs it)
  EXPECT_TRUE(has(r.out, "/sup'port\n")) << r.out;
}

class TritonBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::have_tool("python3")) GTEST_SKIP() << "no python3";
  }
  Result<BuildResult> build(const std::string& program_text, std::map<std::string, std::int64_t> defines = {}) {
    test::write_text(dir_ / "prog.py", program_text);
    TritonBackend b(runner_, python_tools());
    BuildRequest req{dir_ / "prog.py", dir_ / "prog", 2, ""};
    req.defines = std::move(defines);
    return b.build(req);
  }
  TempDir dir_;
  RealProcessRunner runner_;
};

TEST_F(TritonBuild, AProgramWhoseInfoRunsBuildsToAnExecutableLauncher) {
  auto b = build("import sys, os\nif sys.argv[1:] == ['info']:\n    print('{\"ok\": true, \"dies\": ' + os.environ['SWZ_NUM_DIES'] + '}')\n");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->ok) << b->failure << b->log;
  auto r = runner_.run({{(dir_ / "prog").string(), "info"}, {}, {}, std::chrono::seconds(30)});
  EXPECT_TRUE(r.success()) << r.err;
  EXPECT_TRUE(has(r.out, "\"dies\": 2")) << r.out;
}

TEST_F(TritonBuild, ATuningPointRunsWithItsValuesInTheDeclaringLines) {
  const std::string prog =
      "import sys\nBLOCK = 64  # swizzleperf:tunable 32 64 128\nif sys.argv[1:] == ['info']:\n    print('{\"block\": %d}' % BLOCK)\n";
  auto b = build(prog, {{"BLOCK", 128}});
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->ok) << b->failure << b->log;
  auto r = runner_.run({{(dir_ / "prog").string(), "info"}, {}, {}, std::chrono::seconds(30)});
  EXPECT_TRUE(has(r.out, "{\"block\": 128}")) << r.out << r.err;
  EXPECT_EQ(test::read_text(dir_ / "prog.py"), prog);  // the source itself is left alone
  auto bad = build(prog, {{"BLOCK", 96}});
  ASSERT_TRUE(bad);
  EXPECT_FALSE(bad->ok);
  EXPECT_EQ(bad->failure, "tunables: prog.py:2: 96 is not among BLOCK's values");
}

TEST_F(TritonBuild, ASyntaxErrorFailsTheBuildWithPythonsLine) {
  auto b = build("def f(:\n  pass\n");
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->ok);
  EXPECT_TRUE(has(b->failure, "SyntaxError")) << b->failure;
  EXPECT_FALSE(fs::exists(dir_ / "prog"));  // nothing written for a program that does not parse
}

TEST_F(TritonBuild, AMissingModuleFailsTheBuildNamingIt) {
  auto b = build("import swizzleperf_no_such_module\n");
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->ok);
  EXPECT_TRUE(has(b->failure, "prog.py info: ModuleNotFoundError: No module named 'swizzleperf_no_such_module'")) << b->failure;
}

}  // namespace
}  // namespace swz
