// Tests of process execution: capture of stdout and stderr, exit codes and
// signals, the timeout that kills the whole process group (grandchildren too),
// programs that cannot start, env and cwd, and the small string helpers.
#include "swizzleperf/util/process.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "support/fixtures.h"
#include "support/timing.h"

namespace swz {
namespace {

namespace fs = std::filesystem;

ProcessResult run(std::vector<std::string> argv, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  RealProcessRunner r;
  ProcessSpec s;
  s.argv = std::move(argv);
  s.timeout = timeout;
  return r.run(s);
}

TEST(Process, CapturesStdout) {
  auto r = run({"/bin/echo", "hi"});
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.success()) << r.describe();
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.term_signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_EQ(r.err, "");
  EXPECT_GE(r.seconds, 0.0);
  EXPECT_EQ(r.describe(), "exit code 0");
}

TEST(Process, LooksUpArgv0OnPath) {
  auto r = run({"echo", "a b", "c"});
  EXPECT_TRUE(r.success()) << r.describe();
  EXPECT_EQ(r.out, "a b c\n");
}

TEST(Process, CapturesStderrSeparately) {
  auto r = run({"/bin/sh", "-c", "echo out; echo err >&2"});
  EXPECT_TRUE(r.success()) << r.describe();
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(Process, LargeOutputOnBothStreamsDoesNotDeadlock) {
  // 200 KB on each stream: more than a pipe buffer, so both must be drained together.
  auto r = run({"/bin/sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a; head -c 200000 /dev/zero | tr '\\0' b >&2"});
  EXPECT_TRUE(r.success()) << r.describe();
  EXPECT_EQ(r.out.size(), 200000u);
  EXPECT_EQ(r.err.size(), 200000u);
}

TEST(Process, ExitCode) {
  auto r = run({"/bin/sh", "-c", "exit 3"});
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.success());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.term_signal, 0);
  EXPECT_EQ(r.describe(), "exit code 3");
}

TEST(Process, Signal) {
  auto r = run({"/bin/sh", "-c", "kill -SEGV $$"});
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.success());
  EXPECT_EQ(r.term_signal, SIGSEGV);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.describe().find("killed by signal 11"), std::string::npos) << r.describe();
}

// State letter from /proc/<pid>/stat, or 0 when the process no longer exists.
char proc_state(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return 0;
  std::string line;
  std::getline(in, line);
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return 0;
  return line[close + 2];
}

TEST(Process, TimeoutKillsTheProcessGroupIncludingGrandchildren) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run({"/bin/sh", "-c", "sleep 100 & echo $!; sleep 100"}, std::chrono::milliseconds(300));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.success());
  EXPECT_LT(secs, test::wait_limit(1.5));  // 0.3 s and the kill; not the children's 100 s
  EXPECT_NE(r.describe().find("timed out"), std::string::npos) << r.describe();
  const long grandchild = std::atol(r.out.c_str());
  ASSERT_GT(grandchild, 1) << "no pid printed: '" << r.out << "'";
  // Dead means gone or a zombie waiting for its new parent to reap it.
  char st = proc_state(grandchild);
  for (int i = 0; i < 100 && st != 0 && st != 'Z' && st != 'X'; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    st = proc_state(grandchild);
  }
  EXPECT_TRUE(st == 0 || st == 'Z' || st == 'X') << "grandchild " << grandchild << " still alive in state " << st;
  if (st != 0 && st != 'Z' && st != 'X') ::kill(static_cast<pid_t>(grandchild), SIGKILL);
}

TEST(Process, MissingProgramDoesNotStart) {
  auto r = run({"swz-no-such-program-xyz", "arg"});
  EXPECT_FALSE(r.started);
  EXPECT_FALSE(r.success());
  EXPECT_NE(r.err.find("swz-no-such-program-xyz"), std::string::npos) << r.err;
  EXPECT_EQ(r.describe().rfind("could not start: ", 0), 0u) << r.describe();
}

TEST(Process, EmptyArgvDoesNotStart) {
  RealProcessRunner runner;
  auto r = runner.run(ProcessSpec{});
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.err, "empty command");
}

TEST(Process, EnvIsAddedAndOverrides) {
  RealProcessRunner runner;
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", "printf '%s|%s' \"$SWZ_TEST_VAR\" \"$HOME\""};
  s.env = {{"SWZ_TEST_VAR", "hello world"}, {"HOME", "/swz/home"}};
  s.timeout = std::chrono::seconds(20);
  auto r = runner.run(s);
  EXPECT_TRUE(r.success()) << r.describe();
  EXPECT_EQ(r.out, "hello world|/swz/home");
  // The parent's environment is not changed.
  EXPECT_EQ(std::getenv("SWZ_TEST_VAR"), nullptr);
}

TEST(Process, ChildEnvKeepsTheParentsAndOverridesOnce) {
  ::setenv("SWZ_TEST_INHERITED", "kept", 1);
  ::setenv("SWZ_TEST_OVERRIDDEN", "old", 1);
  ProcessSpec s;
  s.env = {{"SWZ_TEST_OVERRIDDEN", "new"}};
  const ChildEnv env(s);
  int inherited = 0, overridden = 0;
  for (char* const* e = env.envp(); *e; ++e) {
    const std::string kv = *e;
    inherited += kv == "SWZ_TEST_INHERITED=kept";
    overridden += kv.rfind("SWZ_TEST_OVERRIDDEN=", 0) == 0;
    if (kv.rfind("SWZ_TEST_OVERRIDDEN=", 0) == 0) EXPECT_EQ(kv, "SWZ_TEST_OVERRIDDEN=new");
  }
  ::unsetenv("SWZ_TEST_INHERITED");
  ::unsetenv("SWZ_TEST_OVERRIDDEN");
  EXPECT_EQ(inherited, 1);
  EXPECT_EQ(overridden, 1);
}

TEST(Process, CwdIsHonoured) {
  test::TempDir dir;
  RealProcessRunner runner;
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", "pwd -P; echo x > made_here"};
  s.cwd = dir.path();
  s.timeout = std::chrono::seconds(20);
  auto r = runner.run(s);
  EXPECT_TRUE(r.success()) << r.describe();
  EXPECT_EQ(r.out, fs::canonical(dir.path()).string() + "\n");
  EXPECT_TRUE(fs::exists(dir / "made_here"));
}

TEST(Process, MissingCwdDoesNotStart) {
  test::TempDir dir;
  RealProcessRunner runner;
  ProcessSpec s;
  s.argv = {"/bin/echo", "x"};
  s.cwd = dir / "no-such-dir";
  auto r = runner.run(s);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.err.find("No such file"), std::string::npos) << r.err;
}

TEST(Process, CaptureLimitDropsOutputAndSaysSo) {
  RealProcessRunner runner;
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", "head -c 5000 /dev/zero"};
  s.max_capture_bytes = 100;
  s.timeout = std::chrono::seconds(20);
  auto r = runner.run(s);
  EXPECT_TRUE(r.success()) << r.describe();
  EXPECT_LE(r.out.size(), 100u);
  EXPECT_NE(r.err.find("dropped"), std::string::npos) << r.err;
}

// ---- describe / format_argv / tail_lines / find_executable -------------------------

TEST(ProcessDescribe, EveryOutcome) {
  ProcessResult r;
  r.started = false;
  r.err = "first\nnvcc: No such file or directory\n";
  EXPECT_EQ(r.describe(), "could not start: nvcc: No such file or directory");
  r = {};
  r.started = true;
  r.interrupted = true;
  EXPECT_EQ(r.describe(), "interrupted (Ctrl-C)");
  r = {};
  r.started = true;
  r.timed_out = true;
  r.term_signal = SIGKILL;
  r.seconds = 30.7;
  EXPECT_EQ(r.describe(), "timed out after 30 s (process group killed)");
  r = {};
  r.started = true;
  r.term_signal = SIGSEGV;
  EXPECT_EQ(r.describe(), "killed by signal 11 (Segmentation fault)");
  r = {};
  r.started = true;
  r.exit_code = 1;
  EXPECT_EQ(r.describe(), "exit code 1");
  EXPECT_FALSE(r.success());
  r.exit_code = 0;
  EXPECT_TRUE(r.success());
}

TEST(FormatArgv, QuotesOnlyWhereNeeded) {
  EXPECT_EQ(format_argv({"nvcc", "-O3", "-o", "out/k", "--x=a,b:c"}), "nvcc -O3 -o out/k --x=a,b:c");
  EXPECT_EQ(format_argv({"echo", "a b"}), "echo 'a b'");
  EXPECT_EQ(format_argv({"echo", "it's"}), "echo 'it'\\''s'");
  EXPECT_EQ(format_argv({"echo", ""}), "echo ''");
  EXPECT_EQ(format_argv({"echo", "$HOME", "*"}), "echo '$HOME' '*'");
  EXPECT_EQ(format_argv({}), "");
}

TEST(TailLines, LastLines) {
  EXPECT_EQ(tail_lines("a\nb\nc\n", 2), "b\nc");
  EXPECT_EQ(tail_lines("a\nb\nc", 1), "c");
  EXPECT_EQ(tail_lines("a\nb\nc\n\n\n", 1), "c");
  EXPECT_EQ(tail_lines("a\nb\nc\n", 10), "a\nb\nc");
  EXPECT_EQ(tail_lines("a\r\nb\r\n", 1), "b");
  EXPECT_EQ(tail_lines("abc", 0), "");
  EXPECT_EQ(tail_lines("", 3), "");
}

TEST(FindExecutable, PathAndExplicit) {
  EXPECT_FALSE(find_executable("sh").empty());
  EXPECT_EQ(find_executable("/bin/sh"), fs::path("/bin/sh"));
  EXPECT_TRUE(find_executable("swz-no-such-program-xyz").empty());
  EXPECT_TRUE(find_executable("/etc/passwd").empty());  // not executable
  EXPECT_TRUE(find_executable("").empty());
}

TEST(Interrupt, ClearedFlagIsFalse) {
  clear_interrupt_for_tests();
  EXPECT_FALSE(interrupt_requested());
}

}  // namespace
}  // namespace swz
