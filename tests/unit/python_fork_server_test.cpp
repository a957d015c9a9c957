// PythonForkServer (backend/python_fork_server) with the real server
// (kernels/support/swz_forkserver.py) and the real python3: what a program's run gives
// through the server is what its own process would give, and when the server cannot
// serve, the caller is told to run its own process.
#include "swizzleperf/backend/python_fork_server.h"

#include <gtest/gtest.h>

#include <csignal>

#include "support/fixtures.h"
#include "support/scripted_runner.h"
#include "swizzleperf/backend/backend.h"

namespace swz {
namespace {

using namespace std::chrono_literals;
using test::ScriptedRunner;
using test::TempDir;
using test::write_text;

class PythonForkServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_executable("python3").empty()) GTEST_SKIP() << "python3 not on PATH";
  }
  // A program file in the test's temp dir.
  std::string program(const std::string& name, const std::string& text) {
    write_text(dir_ / name, text);
    return (dir_ / name).string();
  }
  PythonForkServer server(std::vector<std::string> modules = {}) {
    return PythonForkServer(runner_, "python3", support_dir() / "swz_forkserver.py", std::move(modules), 30s);
  }
  static ProcessSpec spec(std::vector<std::string> argv, std::chrono::milliseconds timeout = 30s) {
    ProcessSpec s;
    s.argv = std::move(argv);
    s.timeout = timeout;
    return s;
  }
  TempDir dir_;
  RealProcessRunner runner_;
};

TEST_F(PythonForkServerTest, ARunGivesItsExitCodeOutputsAndArgvAndReadsNoInput) {
  auto fs_ = server();
  const auto p = program("echo.py",
                         "import sys\n"
                         "print('args', sys.argv[1:], __name__)\n"
                         "print('stdin', repr(sys.stdin.read()))\n"
                         "sys.stderr.write('to stderr\\n')\n"
                         "raise SystemExit(3)\n");
  auto r = fs_.run(spec({p, "verify", "--size", "64"}));
  ASSERT_TRUE(r) << fs_.why_disabled();
  EXPECT_TRUE(r->exited_with(3)) << r->describe() << r->err;
  EXPECT_NE(r->out.find("args ['verify', '--size', '64'] __main__"), std::string::npos) << r->out;
  EXPECT_NE(r->out.find("stdin ''"), std::string::npos) << r->out;
  EXPECT_EQ(r->err, "to stderr\n");
}

TEST_F(PythonForkServerTest, ExceptionsSignalsAndPlainEndsAreThoseOfAProcess) {
  auto fs_ = server();
  auto ok = fs_.run(spec({program("ok.py", "x = 1\n")}));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->success());
  auto raised = fs_.run(spec({program("raise.py", "raise RuntimeError('boom')\n")}));
  ASSERT_TRUE(raised);
  EXPECT_TRUE(raised->exited_with(1));
  EXPECT_NE(raised->err.find("RuntimeError: boom"), std::string::npos) << raised->err;
  auto killed = fs_.run(spec({program("segv.py", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")}));
  ASSERT_TRUE(killed);
  EXPECT_EQ(killed->term_signal, SIGSEGV) << killed->describe();
  EXPECT_EQ(fs_.servers_started(), 1);  // three runs, one server
}

TEST_F(PythonForkServerTest, RunsDoNotSeeEachOthersStateInPreloadedModules) {
  auto fs_ = server({"json"});
  const auto p = program("state.py",
                         "import json, sys\n"
                         "print('seen' if hasattr(json, 'swz_mark') else 'fresh')\n"
                         "json.swz_mark = 1\n");
  for (int i = 0; i < 2; ++i) {
    auto r = fs_.run(spec({p}));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->out, "fresh\n");
  }
}

TEST_F(PythonForkServerTest, ATimeoutKillsTheRunAndTheNextRunGetsANewServer) {
  auto fs_ = server();
  auto slow = fs_.run(spec({program("sleep.py", "import time\ntime.sleep(60)\n")}, 500ms));
  ASSERT_TRUE(slow);
  EXPECT_TRUE(slow->timed_out);
  EXPECT_FALSE(slow->success());
  EXPECT_LT(slow->seconds, 20);
  auto next = fs_.run(spec({program("ok.py", "print('after')\n")}));
  ASSERT_TRUE(next);
  EXPECT_TRUE(next->success());
  EXPECT_EQ(next->out, "after\n");
  EXPECT_EQ(fs_.servers_started(), 2);
}

TEST_F(PythonForkServerTest, OutputBeyondTheCapIsDroppedAndSaidSo) {
  auto fs_ = server();
  auto s = spec({program("big.py", "import sys\nsys.stdout.write('x' * 100000)\n")});
  s.max_capture_bytes = 1000;
  auto r = fs_.run(s);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->success());
  EXPECT_EQ(r->out.size(), 1000u);
  EXPECT_TRUE(r->truncated);
}

TEST_F(PythonForkServerTest, AModuleThatDoesNotImportTurnsTheServerOffWithItsReason) {
  auto fs_ = server({"swz_no_such_module"});
  EXPECT_FALSE(fs_.run(spec({program("ok.py", "x = 1\n")})));
  EXPECT_TRUE(fs_.disabled());
  EXPECT_NE(fs_.why_disabled().find("swz_no_such_module"), std::string::npos) << fs_.why_disabled();
  EXPECT_FALSE(fs_.run(spec({program("ok.py", "x = 1\n")})));  // stays off: no second try
  EXPECT_EQ(fs_.servers_started(), 1);
}

TEST_F(PythonForkServerTest, ARunWithItsOwnEnvironmentOrFolderIsNotServed) {
  auto fs_ = server();
  auto s = spec({program("ok.py", "x = 1\n")});
  s.env = {{"A", "1"}};
  EXPECT_FALSE(fs_.run(s));
  s.env.clear();
  s.cwd = dir_.path();
  EXPECT_FALSE(fs_.run(s));
  EXPECT_FALSE(fs_.disabled());
}

TEST(PythonForkServerNoSessions, ARunnerWithoutSessionsTurnsItOff) {
  ScriptedRunner runner;  // holds no sessions
  PythonForkServer fs_(runner, "python3", "swz_forkserver.py", {}, 5s);
  ProcessSpec s;
  s.argv = {"prog.py"};
  EXPECT_FALSE(fs_.run(s));
  EXPECT_TRUE(fs_.disabled());
}

}  // namespace
}  // namespace swz
