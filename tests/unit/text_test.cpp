// core/text: the shared string helpers.
#include "swizzleperf/util/text.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

TEST(Text, TrimAndLower) {
  EXPECT_EQ(trim("  a b \t\n"), "a b");
  EXPECT_EQ(trim(" \n\t "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(to_lower("Content-TYPE"), "content-type");
}

TEST(Text, OneLineReplacesEveryControlCharacter) {
  EXPECT_EQ(one_line("a\nb\r\tc\x1b[31m\x7f"), "a b  c [31m ");
}

TEST(Text, OneLineWithALimitTrimsAndCuts) {
  EXPECT_EQ(one_line("  <html>\n<body>oops</body>\n", 100), "<html> <body>oops</body>");
  EXPECT_EQ(one_line(std::string(10, 'x'), 4), "xxxx...");
  EXPECT_EQ(one_line("abcd", 4), "abcd");
}

TEST(Text, FormatOr) {
  EXPECT_EQ(format_or(1.23456, "n/a"), "1.23");
  EXPECT_EQ(format_or(1.23456, "n/a", "{:.3f}x"), "1.235x");
  EXPECT_EQ(format_or(std::nullopt, "n/a"), "n/a");
  EXPECT_EQ(format_or(std::nullopt, ""), "");
}

TEST(Text, UtcNow) {
  const std::string iso = utc_now("%Y-%m-%dT%H:%M:%SZ");
  ASSERT_EQ(iso.size(), 20u) << iso;
  EXPECT_EQ(iso[4], '-');
  EXPECT_EQ(iso.back(), 'Z');
  EXPECT_EQ(utc_now("%Y%m%d-%H%M%S").size(), 15u);
}

// Commands the tool suggests are pasted into a shell: a path with spaces must stay one word.
TEST(Text, ShellQuoteLeavesPlainWordsAndQuotesTheRest) {
  EXPECT_EQ(shell_quote("kernels/blur_swz.cu"), "kernels/blur_swz.cu");
  EXPECT_EQ(shell_quote("dir with spaces/plain blur_swz.cu"), "'dir with spaces/plain blur_swz.cu'");
  EXPECT_EQ(shell_quote("it's.cu"), "'it'\\''s.cu'");
  EXPECT_EQ(shell_quote("$HOME;rm"), "'$HOME;rm'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Text, PositiveListSaysOutOfRangeApartFromNotANumber) {
  auto v = parse_positive_list("4096,32768,1", 1LL << 30);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(*v, (std::vector<long long>{4096, 32768, 1}));
  auto big = parse_positive_list("999999999999", 1LL << 30);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message, "999999999999 is out of range (at most 1,073,741,824)");
  // Past what a long long holds: out of range too, never a wrapped number.
  auto huge = parse_positive_list("1,99999999999999999999999999", 1LL << 62);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("is out of range"), std::string::npos) << huge.error().message;
  EXPECT_TRUE(parse_positive_list("1073741824", 1LL << 30));
  for (const char* bad : {"", "1,,2", "x", "-3", "0", "1.5", "1, 2"}) {
    auto r = parse_positive_list(bad, 1LL << 30);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("is not a positive integer"), std::string::npos) << bad << ": " << r.error().message;
  }
}

TEST(Text, CollapseSpacesJoinsEveryRunOfWhitespaceIntoOneSpace) {
  EXPECT_EQ(collapse_spaces("  a \t b\n\n  c\r\n"), "a b c");
  EXPECT_EQ(collapse_spaces("f(x,\n      y)"), "f(x, y)");
  EXPECT_EQ(collapse_spaces(" \n\t\v\f "), "");
  EXPECT_EQ(collapse_spaces("abc"), "abc");
}

}  // namespace
}  // namespace swz

namespace swz {
namespace {

TEST(TextLines, SplitLinesViewKeepsEmptyLinesAndJoinsBackToTheText) {
  for (const std::string text : {"", "a", "a\n", "a\n\nb", "\n\n", "x\r\ny"}) {
    const auto lines = split_lines_view(text);
    std::string joined;
    for (std::size_t i = 0; i < lines.size(); ++i) joined += std::string(lines[i]) + (i + 1 < lines.size() ? "\n" : "");
    EXPECT_EQ(joined, text);
  }
  EXPECT_EQ(split_lines_view("a\n").size(), 2u);
  EXPECT_EQ(split_lines_view("a\n\nb")[1], "");
  EXPECT_EQ(split_lines_view("x\r\ny")[0], "x\r");
}

}  // namespace
}  // namespace swz
