// ProcessSession (core/process_session) with real children: cat as an echo server,
// shell one-liners that exit, write to stderr, or never answer.
#include "swizzleperf/util/process_session.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <fstream>
#include <iterator>
#include <thread>

#include "support/timing.h"
namespace swz {
namespace {

using std::chrono::milliseconds;

std::unique_ptr<ProcessSession> session_of(std::vector<std::string> argv) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  auto s = RealProcessRunner().start(spec);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return s ? std::move(*s) : nullptr;
}

TEST(ProcessSession, AnswersLineByLine) {
  auto s = session_of({"cat"});
  ASSERT_TRUE(s);
  for (const std::string line : {"time", "second request", "{\"json\":true}"}) {
    auto got = s->request(line, milliseconds(5000));
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_EQ(*got, line);
  }
  EXPECT_TRUE(s->alive());
}

TEST(ProcessSession, AnExitWithoutAnAnswerSaysHowAndTheLastStderrLine) {
  auto s = session_of({"sh", "-c", "read x; echo 'error: out of memory' >&2; exit 3"});
  ASSERT_TRUE(s);
  auto got = s->request("time", milliseconds(5000));
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("exit code 3"), std::string::npos) << got.error().message;
  EXPECT_NE(got.error().message.find("out of memory"), std::string::npos) << got.error().message;
  EXPECT_FALSE(s->alive());
  // Dead for good: the next request fails at once, and writing to it did not kill us (SIGPIPE).
  EXPECT_FALSE(s->request("time", milliseconds(5000)));
}

TEST(ProcessSession, ReadOnlyRequestsTakeTheGreetingLine) {
  auto s = session_of({"sh", "-c", "echo ready; cat"});
  ASSERT_TRUE(s);
  auto hello = s->request("", milliseconds(5000));
  ASSERT_TRUE(hello) << hello.error().message;
  EXPECT_EQ(*hello, "ready");
  auto echo = s->request("x", milliseconds(5000));
  ASSERT_TRUE(echo);
  EXPECT_EQ(*echo, "x");
}

TEST(ProcessSession, NoAnswerInTimeKillsTheProcessGroup) {
  auto s = session_of({"sh", "-c", "sleep 1000 & echo $!; wait"});
  ASSERT_TRUE(s);
  auto pid_line = s->request("", milliseconds(5000));
  ASSERT_TRUE(pid_line) << pid_line.error().message;
  const pid_t grandchild = static_cast<pid_t>(std::stol(*pid_line));
  const auto t0 = std::chrono::steady_clock::now();
  auto got = s->request("time", milliseconds(300));
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("timed out"), std::string::npos) << got.error().message;
  // 300 ms and the kill, not the grandchild's 1000 s.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), test::wait_limit(2.5));
  // The grandchild went with the group: gone, or a zombie that init has yet to reap
  // (in a container init may never reap it).
  auto dead = [](pid_t pid) {
    if (::kill(pid, 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto paren = text.rfind(')');
    return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
  };
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = dead(grandchild);
    if (!gone) std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_TRUE(gone) << "grandchild " << grandchild << " still running";
}

TEST(ProcessSession, AProgramThatCannotStartIsAnError) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/swizzleperf-program"};
  auto s = RealProcessRunner().start(spec);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("/nonexistent/swizzleperf-program"), std::string::npos);
  spec.argv.clear();
  EXPECT_FALSE(RealProcessRunner().start(spec));
}

}  // namespace
}  // namespace swz
