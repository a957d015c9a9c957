// Tests for the RFC 4180 reader, parse_number and parse_whole_number.
#include "swizzleperf/util/csv.h"

#include <climits>
#include <cstdint>
#include <gtest/gtest.h>

namespace swz {
namespace {

using Fields = std::vector<std::string>;

std::vector<CsvRow> must_parse(std::string_view text) {
  auto r = parse_csv(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : std::vector<CsvRow>{};
}

TEST(Csv, PlainFieldsAndLineNumbers) {
  auto rows = must_parse("a,b,c\n1,2,3\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].fields, (Fields{"a", "b", "c"}));
  EXPECT_EQ(rows[1].fields, (Fields{"1", "2", "3"}));
  EXPECT_EQ(rows[0].line, 1u);
  EXPECT_EQ(rows[1].line, 2u);
}

TEST(Csv, QuotedFieldsKeepCommasAndDoubledQuotes) {
  auto rows = must_parse(R"x("void k<float>(float*, int)","say ""hi""",x)x" "\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].fields, (Fields{"void k<float>(float*, int)", R"x(say "hi")x", "x"}));
}

TEST(Csv, CrlfAndLfAndNoFinalNewline) {
  auto rows = must_parse("a,b\r\n1,2\r\n3,4");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].fields, (Fields{"1", "2"}));
  EXPECT_EQ(rows[2].fields, (Fields{"3", "4"}));
}

TEST(Csv, QuotedNewlineStaysInFieldAndLinesStillCount) {
  auto rows = must_parse("\"two\nlines\",x\nnext,y\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].fields[0], "two\nlines");
  EXPECT_EQ(rows[1].line, 3u);
}

TEST(Csv, EmptyFieldsAndBlankLines) {
  auto rows = must_parse("a,,c\n\n,\n\"\"\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].fields, (Fields{"a", "", "c"}));
  EXPECT_EQ(rows[1].fields, (Fields{"", ""}));
  EXPECT_EQ(rows[1].line, 3u);
  EXPECT_EQ(rows[2].fields, (Fields{""}));  // a quoted empty field is a record
}

TEST(Csv, ByteOrderMarkIsNotPartOfFirstField) {
  auto rows = must_parse("\xEF\xBB\xBF\"ID\",x\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].fields[0], "ID");
}

TEST(Csv, EmptyInputHasNoRows) { EXPECT_TRUE(must_parse("").empty()); }

TEST(Csv, UnterminatedQuoteIsAnErrorNamingTheLine) {
  auto r = parse_csv("a,b\n1,\"cut off here\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 2"), std::string::npos) << r.error().message;
}

TEST(Csv, SplitLine) {
  EXPECT_EQ(split_csv_line(R"x("ID","Kernel Name",x,"a,b")x" "\r\n"), (Fields{"ID", "Kernel Name", "x", "a,b"}));
  EXPECT_EQ(split_csv_line(""), (Fields{""}));
  EXPECT_EQ(split_csv_line("\"open, quote"), (Fields{"open, quote"}));
}

TEST(ParseNumber, Plain) {
  EXPECT_EQ(parse_number("0"), 0.0);
  EXPECT_EQ(parse_number("43.72"), 43.72);
  EXPECT_EQ(parse_number("-2"), -2.0);
  EXPECT_EQ(parse_number("+5"), 5.0);
  EXPECT_EQ(parse_number(" 7 "), 7.0);
  EXPECT_EQ(parse_number(".5"), 0.5);
}

TEST(ParseNumber, ThousandsSeparators) {
  EXPECT_EQ(parse_number("8,085,788,928"), 8085788928.0);
  EXPECT_EQ(parse_number("1,234.5"), 1234.5);
  EXPECT_EQ(parse_number("999"), 999.0);
  EXPECT_EQ(parse_number("1,000"), 1000.0);
}

TEST(ParseNumber, Exponents) {
  EXPECT_EQ(parse_number("1.5e+03"), 1500.0);
  EXPECT_EQ(parse_number("0.00000000e+00"), 0.0);
  EXPECT_EQ(parse_number("2E-2"), 0.02);
  EXPECT_EQ(parse_number("16384.000000"), 16384.0);
}

TEST(ParseNumber, RejectsWhatIsNotANumber) {
  for (const char* s : {"", "n/a", "N/A", "abc", "inf", "nan", "1,23", "12,3456", ",123", "1,,000", "1.2.3x",
                        "1e", "-", ".", "0x10", "1 2", "1,234,5"}) {
    EXPECT_FALSE(parse_number(s).has_value()) << "'" << s << "'";
  }
}

TEST(ParseWholeNumber, WholeNumbersInsideTheRange) {
  EXPECT_EQ(parse_whole_number("12", 0, 100), 12);
  EXPECT_EQ(parse_whole_number("1.5e+03", 0, 10000), 1500);
  EXPECT_EQ(parse_whole_number("-3", -3, 3), -3);
  EXPECT_EQ(parse_whole_number("2147483647", INT32_MIN, INT32_MAX), 2147483647);
  EXPECT_EQ(parse_whole_number("9,007,199,254,740,992", 0, 1ll << 53), 1ll << 53);
}

TEST(ParseWholeNumber, RefusesFractionsAndValuesOutsideTheRange) {
  for (const char* s : {"2.5", "101", "-1", "6.66667e+100", "-1e300", "n/a", ""})
    EXPECT_FALSE(parse_whole_number(s, 0, 100).has_value()) << "'" << s << "'";
  EXPECT_FALSE(parse_whole_number("2147483648", INT32_MIN, INT32_MAX).has_value());
  // The widest range: 2^63 is one past it and must not be converted.
  EXPECT_FALSE(parse_whole_number("9.3e18", LLONG_MIN, LLONG_MAX).has_value());
  EXPECT_EQ(parse_whole_number("4e18", LLONG_MIN, LLONG_MAX), 4000000000000000000ll);
}

}  // namespace
}  // namespace swz
