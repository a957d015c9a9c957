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

}  // namespace
}  // namespace swz
