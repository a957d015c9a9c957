// libFuzzer target for NamePattern (the kernel-name filter that replaced
// std::regex). The input is split at its first NUL byte into a pattern and a text
// (no NUL: all pattern, empty text). Contract: compile() gives a NamePattern or a
// one-line Error naming a position or the length limit, the same way twice;
// search() returns, without recursion, in time linear in the text. For a compiled
// pattern P, "(P)" and "P|P" search the same (when within the length limit), and
// small inputs over a few bytes are compared with std::regex_search, in a child
// process with a deadline because std::regex itself may loop or overflow.
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <string_view>

#include <sys/wait.h>
#include <unistd.h>

#include "swizzleperf/util/name_pattern.h"

namespace {

[[noreturn]] void fail(const char* what, std::string_view pattern, std::string_view text) {
  std::fprintf(stderr, "invariant broken: %s\npattern (%zu bytes): %.*s\ntext (%zu bytes): %.*s\n", what,
               pattern.size(), static_cast<int>(pattern.size()), pattern.data(), text.size(),
               static_cast<int>(std::min<std::size_t>(text.size(), 200)), text.data());
  std::abort();
}

// std::regex_search in a child process: 1 or 0, or -1 when it threw, hung or
// crashed. The child puts the default signal actions back first, so a stack
// overflow or the deadline kills it quietly instead of reaching the sanitizer's
// and libFuzzer's crash handlers (which would report the oracle's crash as ours).
int oracle(std::string_view pattern, std::string_view text) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGALRM, SIGILL, SIGFPE}) std::signal(sig, SIG_DFL);
    ::close(fds[0]);
    ::alarm(2);
    char verdict = '?';
    try {
      const std::regex re{std::string(pattern)};
      verdict = std::regex_search(std::string(text), re) ? '1' : '0';
    } catch (...) {
    }
    [[maybe_unused]] const auto written = ::write(fds[1], &verdict, 1);
    ::_exit(0);
  }
  ::close(fds[1]);
  char verdict = '?';
  if (::read(fds[0], &verdict, 1) != 1) verdict = '?';
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return verdict == '1' ? 1 : verdict == '0' ? 0 : -1;
}

bool plain(std::string_view s, std::string_view alphabet) {
  for (char c : s)
    if (alphabet.find(c) == std::string_view::npos) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view pattern = input.substr(0, nul);
  const std::string_view text = nul == std::string_view::npos ? std::string_view{} : input.substr(nul + 1);

  auto p = swz::NamePattern::compile(pattern);
  auto again = swz::NamePattern::compile(pattern);
  if (p.ok() != again.ok()) fail("compile is not deterministic", pattern, text);
  if (!p) {
    const std::string& m = p.error().message;
    if (m != again.error().message) fail("error message is not deterministic", pattern, text);
    if (m.empty() || m.find('\n') != std::string::npos || m.size() > 200) fail("message is not one short line", pattern, text);
    if (m.find("position") == std::string::npos && m.find("limit") == std::string::npos) {
      fail("message names neither a position nor the limit", pattern, text);
    }
    if (pattern.size() > swz::NamePattern::kMaxPatternBytes && m.find("limit") == std::string::npos) {
      fail("an over-long pattern refused for another reason", pattern, text);
    }
    return 0;
  }
  if (pattern.size() > swz::NamePattern::kMaxPatternBytes) fail("an over-long pattern compiled", pattern, text);

  const bool found = p->search(text);
  if (found != again->search(text)) fail("search is not deterministic", pattern, text);
  if (pattern.empty() && !found) fail("the empty pattern did not match", pattern, text);

  const std::string grouped = "(" + std::string(pattern) + ")";
  if (grouped.size() <= swz::NamePattern::kMaxPatternBytes) {
    auto g = swz::NamePattern::compile(grouped);
    if (!g) fail("(P) does not compile", pattern, text);
    if (g->search(text) != found) fail("(P) searches differently", pattern, text);
  }
  const std::string doubled = std::string(pattern) + "|" + std::string(pattern);
  if (doubled.size() <= swz::NamePattern::kMaxPatternBytes && text.size() <= 4096) {
    auto d = swz::NamePattern::compile(doubled);
    if (!d) fail("P|P does not compile", pattern, text);
    if (d->search(text) != found) fail("P|P searches differently", pattern, text);
  }

  // Differential, on inputs small enough for std::regex and over bytes whose
  // meaning the two engines share.
  if (pattern.size() <= 16 && text.size() <= 16 && plain(pattern, "ab.*+?|()^$[]-") && plain(text, "abc")) {
    const int want = oracle(pattern, text);
    if (want >= 0 && (want == 1) != found) fail("differs from std::regex_search", pattern, text);
  }
  return 0;
}
