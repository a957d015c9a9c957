// Tests for NamePattern, the linear-time kernel-name filter that replaces
// std::regex: the supported syntax, the refused syntax and its messages, inputs
// that make a backtracking engine blow up, and a differential test against
// std::regex_search (an oracle only on tiny inputs) over random small patterns.
#include "swizzleperf/util/name_pattern.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <regex>
#include <string>
#include <utility>

#include "support/timing.h"

namespace swz {
namespace {

NamePattern must_compile(std::string_view pattern) {
  auto r = NamePattern::compile(pattern);
  EXPECT_TRUE(r.ok()) << "'" << pattern << "': " << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return NamePattern::compile("").value();
  return std::move(r).value();
}

bool matches(std::string_view pattern, std::string_view text) { return must_compile(pattern).search(text); }

std::string must_fail(std::string_view pattern) {
  auto r = NamePattern::compile(pattern);
  EXPECT_FALSE(r.ok()) << "'" << pattern << "' compiled";
  if (r.ok()) return "";
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  return r.error().message;
}

TEST(NamePattern, Literals) {
  EXPECT_TRUE(matches("gemm_kernel", "gemm_kernel"));
  EXPECT_TRUE(matches("gemm_kernel", "void gemm_kernel<128>(float const*, float*)"));
  EXPECT_FALSE(matches("gemm_kernel", "gemm_tc_kernel"));
  EXPECT_FALSE(matches("gemm_kernel", ""));
  EXPECT_FALSE(matches("Gemm", "gemm"));  // no case folding
}

TEST(NamePattern, EmptyPatternMatchesEverything) {
  EXPECT_TRUE(matches("", ""));
  EXPECT_TRUE(matches("", "anything"));
  EXPECT_TRUE(matches("()", "x"));
  EXPECT_TRUE(matches("a|", "b"));
}

TEST(NamePattern, DotStarAndSearchSemantics) {
  EXPECT_TRUE(matches("layernorm_.*", "void layernorm_rows<float>(float const*, float*, int)"));
  EXPECT_TRUE(matches("softmax_.*", "softmax_"));
  EXPECT_FALSE(matches("softmax_.*", "softmax"));
  EXPECT_TRUE(matches("a.c", "xxabcxx"));
  EXPECT_FALSE(matches("a.c", "ac"));
  // '.' is any byte but a line end, as in ECMAScript.
  EXPECT_FALSE(matches("a.c", "a\nc"));
  EXPECT_FALSE(matches("a.c", "a\rc"));
  EXPECT_TRUE(matches("a.c", std::string("a\0c", 3)));
}

TEST(NamePattern, AlternationInGroups) {
  const auto p = must_compile("fdtd_(ey|ex|hz)_kernel");
  EXPECT_TRUE(p.search("fdtd_ex_kernel"));
  EXPECT_TRUE(p.search("fdtd_ey_kernel"));
  EXPECT_TRUE(p.search("void fdtd_hz_kernel(float*, int)"));
  EXPECT_FALSE(p.search("fdtd_ez_kernel"));
  EXPECT_FALSE(p.search("fdtd__kernel"));
  EXPECT_TRUE(matches("gemm|softmax", "softmax_rows"));
  EXPECT_TRUE(matches("a(b|)c", "ac"));
  EXPECT_TRUE(matches("((a|b)(c|d))+e", "xacbdbce"));
}

TEST(NamePattern, Anchors) {
  EXPECT_TRUE(matches("^gemm", "gemm_kernel"));
  EXPECT_FALSE(matches("^gemm", "void gemm_kernel"));
  EXPECT_TRUE(matches("kernel$", "gemm_kernel"));
  EXPECT_FALSE(matches("kernel$", "gemm_kernel(int)"));
  EXPECT_TRUE(matches("^gemm_kernel$", "gemm_kernel"));
  EXPECT_FALSE(matches("^gemm_kernel$", "gemm_kernel2"));
  EXPECT_TRUE(matches("^$", ""));
  EXPECT_FALSE(matches("^$", "x"));
  EXPECT_TRUE(matches("$", "abc"));
  EXPECT_TRUE(matches("x|$", "abc"));
  EXPECT_FALSE(matches("a$b", "ab"));
  EXPECT_TRUE(matches("(^a|b)c", "bc"));
  EXPECT_TRUE(matches("(^a|b)c", "ac"));
  EXPECT_FALSE(matches("(^a|b)c", "xac"));
  EXPECT_TRUE(matches("(^)*a", "xa"));  // a group of an anchor may repeat
}

TEST(NamePattern, BracketClasses) {
  EXPECT_TRUE(matches("k[0-9]", "k7"));
  EXPECT_FALSE(matches("k[0-9]", "kx"));
  EXPECT_TRUE(matches("^[a-z0-9_]+$", "gemm_tc_kernel2"));
  EXPECT_FALSE(matches("^[a-z0-9_]+$", "gemm<float>"));
  EXPECT_TRUE(matches("[abc]", "xxcxx"));
  EXPECT_TRUE(matches("k[^0-9]", "kx"));
  EXPECT_FALSE(matches("k[^0-9]", "k7"));
  EXPECT_TRUE(matches("[^a]", "\n"));            // a negated class takes line ends
  EXPECT_TRUE(matches("a[-x]b", "a-b"));         // '-' first is literal
  EXPECT_TRUE(matches("a[x-]b", "a-b"));         // '-' last is literal
  EXPECT_TRUE(matches("a[\\-x]b", "a-b"));       // escaped '-'
  EXPECT_TRUE(matches("[\\]]", "]"));            // escaped ']'
  EXPECT_TRUE(matches("[.*+?|()^$]+$", "(*)"));  // metacharacters are literal inside
  EXPECT_TRUE(matches("[!--]", ","));            // a range ending in '-'
}

TEST(NamePattern, Escapes) {
  EXPECT_TRUE(matches("a\\.b", "a.b"));
  EXPECT_FALSE(matches("a\\.b", "axb"));
  EXPECT_TRUE(matches("k\\(int\\)", "k(int)"));
  EXPECT_TRUE(matches("a\\\\b", "a\\b"));
  EXPECT_TRUE(matches("\\*\\+\\?\\|\\[\\]\\{\\}\\^\\$", "*+?|[]{}^$"));
  EXPECT_TRUE(matches("rows<float>", "void rows<float>(float*)"));  // < > , : are plain
  EXPECT_TRUE(matches("ns::k", "ns::k(int, int)"));
}

TEST(NamePattern, Quantifiers) {
  EXPECT_TRUE(matches("^ab+c$", "abbbc"));
  EXPECT_FALSE(matches("^ab+c$", "ac"));
  EXPECT_TRUE(matches("^ab?c$", "ac"));
  EXPECT_TRUE(matches("^ab?c$", "abc"));
  EXPECT_FALSE(matches("^ab?c$", "abbc"));
  EXPECT_TRUE(matches("^ab*c$", "ac"));
  EXPECT_TRUE(matches("^(ab)+$", "ababab"));
  EXPECT_FALSE(matches("^(ab)+$", "ababa"));
  EXPECT_TRUE(matches("^()+$", ""));
  EXPECT_TRUE(matches("^(a*)*$", "aaa"));
  EXPECT_TRUE(matches("^(a|)+b$", "aab"));
}

TEST(NamePattern, RejectedPatternsNameThePositionAndTheReason) {
  struct Case {
    const char* pattern;
    const char* message;
  };
  const Case cases[] = {
      {"gemm(", "'(' at position 4 is not closed with ')'"},
      {"a)", "unmatched ')' at position 1"},
      {"x{2}", "'{' at position 1: repetition counts {n,m} are not supported"},
      {"x}", "unescaped '}' at position 1"},
      {"x]", "unescaped ']' at position 1"},
      {"ab\\", "trailing backslash at position 2"},
      {"(a)\\1", "'\\1' at position 3: escaping a letter or digit is not supported"},
      {"\\d+", "'\\d' at position 0: escaping a letter or digit is not supported"},
      {"(?=a)", "'(?' at position 0: lookaround and non-capturing groups are not supported"},
      {"(?:a)", "'(?' at position 0"},
      {"*a", "'*' at position 0: nothing to repeat"},
      {"a|+b", "'+' at position 2: nothing to repeat"},
      {"(?a)", "'(?' at position 0"},
      {"(*a)", "'*' at position 1: nothing to repeat"},
      {"^*", "'*' at position 1: nothing to repeat (it follows an anchor)"},
      {"a**", "'*' at position 2 follows another quantifier"},
      {"a*?", "'?' at position 2 follows another quantifier"},
      {"[abc", "bracket class at position 0 is not closed with ']'"},
      {"x[]a]", "empty bracket class at position 1"},
      {"[^]", "empty bracket class at position 0"},
      {"[z-a]", "range 'z-a' at position 1 is reversed"},
      {"[a-c-e]", "'-' at position 4 is neither first, last nor in a range"},
      {"[[:alpha:]]", "unescaped '[' at position 1 inside a bracket class"},
      {"[\\w]", "'\\w' at position 1: escaping a letter or digit is not supported"},
      {"[a\\", "trailing backslash at position 2"},
  };
  for (const auto& c : cases) {
    const std::string msg = must_fail(c.pattern);
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.pattern << " -> " << msg;
  }
  // Bytes a message shows are printable.
  const std::string msg = must_fail("[\x7f-\x01]");
  EXPECT_NE(msg.find("range '\\x7f-\\x01' at position 1 is reversed"), std::string::npos) << msg;
}

TEST(NamePattern, PatternLengthLimit) {
  const std::string at_limit(NamePattern::kMaxPatternBytes, 'a');
  EXPECT_TRUE(NamePattern::compile(at_limit).ok());
  EXPECT_TRUE(matches(at_limit, at_limit));
  const std::string msg = must_fail(std::string(NamePattern::kMaxPatternBytes + 1, 'a'));
  EXPECT_EQ(msg, "pattern is 1025 bytes, longer than the 1024-byte limit");
  // Deep nesting within the limit compiles and runs (nothing recurses).
  const std::string deep = std::string(512, '(') + std::string(512, ')');
  EXPECT_TRUE(matches(deep, "x"));
  const std::string stars = std::string(340, '(') + "a" + [] {
    std::string s;
    for (int i = 0; i < 340; ++i) s += ")*";
    return s;
  }();
  ASSERT_LE(stars.size(), NamePattern::kMaxPatternBytes);
  EXPECT_TRUE(matches("^" + stars + "$", std::string(10000, 'a')));
}

// The catastrophic-backtracking cases: a backtracking engine (std::regex) takes
// exponential time or overflows the stack here; the NFA simulation is linear.
TEST(NamePattern, MegabyteTextAgainstPathologicalPatternsIsLinear) {
  const std::string text(1 << 20, 'a');
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(matches("(a|aa)*b", text));
  EXPECT_FALSE(matches("(a*)*b", text));
  EXPECT_FALSE(matches("(a+)+b", text));
  EXPECT_FALSE(matches("^(a|a?)+b$", text));
  EXPECT_TRUE(matches("(a|aa)*$", text));
  EXPECT_TRUE(matches("(a*)*b", text + "b"));
  EXPECT_FALSE(matches("^b", text));
  EXPECT_TRUE(matches("^a*$", text));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, test::time_limit(3.0));  // 0.2 s in Release; backtracking would never finish
}

// Random patterns from the supported subset (a, b, ., [ab], [^a], ^, $, *, +, ?,
// |, groups) compared with std::regex_search on texts over {a, b, c}, inputs small
// enough for std::regex to be trusted.
class PatternGen {
 public:
  explicit PatternGen(unsigned seed) : rng_(seed) {}

  std::string pattern() {
    std::string out;
    alternation(out, 0);
    return out;
  }
  std::string text() {
    std::string s;
    const int n = pick(9);
    for (int i = 0; i < n; ++i) s += "abc"[pick(3)];
    return s;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void alternation(std::string& out, int depth) {
    const int n = 1 + (pick(4) == 0);
    for (int i = 0; i < n; ++i) {
      if (i) out += '|';
      sequence(out, depth);
    }
  }
  void sequence(std::string& out, int depth) {
    // No empty alternatives or "()": std::regex (libstdc++) loops without bound on
    // repeated groups that can match empty, e.g. "((|.*)()+b*)+b*(ba+)" against
    // "bcbac" never returns; the hand-written tests cover those.
    const int n = 1 + pick(3);
    for (int i = 0; i < n; ++i) {
      const int kind = pick(depth < 3 ? 12 : 10);
      if (kind < 5) out += "ab"[pick(2)];
      else if (kind == 5) out += '.';
      else if (kind == 6) out += pick(2) ? "[ab]" : "[^a]";
      else if (kind == 7) out += pick(2) ? "^" : "$";
      else if (kind < 10) out += "ab."[pick(3)];
      else {
        out += '(';
        alternation(out, depth + 1);
        out += ')';
      }
      if (kind != 7 && pick(3) == 0) out += "*+?"[pick(3)];
    }
  }

  std::mt19937 rng_;
};

TEST(NamePattern, AgreesWithStdRegexOnRandomSmallPatterns) {
  PatternGen gen(20261123);
  int compared = 0;
  for (int i = 0; i < 400; ++i) {
    const std::string pattern = gen.pattern();
    auto ours = NamePattern::compile(pattern);
    ASSERT_TRUE(ours.ok()) << pattern << ": " << ours.error().message;
    const std::regex oracle(pattern);
    for (int j = 0; j < 12; ++j) {
      const std::string text = gen.text();
      EXPECT_EQ(ours->search(text), std::regex_search(text, oracle))
          << "pattern '" << pattern << "' text '" << text << "'";
      ++compared;
    }
  }
  EXPECT_EQ(compared, 400 * 12);
}

}  // namespace
}  // namespace swz
