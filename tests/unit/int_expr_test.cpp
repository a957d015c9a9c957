// IntExpr: the grammar (precedence, C and Python spellings), checked arithmetic, the bounds
// that keep untrusted text from costing unbounded work, and errors as one line.
#include "swizzleperf/tune/int_expr.h"

#include <gtest/gtest.h>

#include <string>

namespace swz {
namespace {

std::int64_t expr_value(const std::string& text, const std::map<std::string, std::int64_t>& names = {}) {
  auto e = IntExpr::parse(text);
  EXPECT_TRUE(e.ok()) << text << ": " << (e.ok() ? "" : e.error().message);
  if (!e) return -999;
  auto v = e->eval(names);
  EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
  return v ? *v : -999;
}

std::string expr_error(const std::string& text, const std::map<std::string, std::int64_t>& names = {}) {
  auto e = IntExpr::parse(text);
  if (!e) return "parse: " + e.error().message;
  auto v = e->eval(names);
  return v ? "" : v.error().message;
}

TEST(IntExpr, PrecedenceAndAssociativityFollowC) {
  EXPECT_EQ(expr_value("2 + 3 * 4"), 14);
  EXPECT_EQ(expr_value("(2 + 3) * 4"), 20);
  EXPECT_EQ(expr_value("20 - 5 - 3"), 12);
  EXPECT_EQ(expr_value("64 / 4 / 2"), 8);
  EXPECT_EQ(expr_value("-3 * -2"), 6);
  EXPECT_EQ(expr_value("1 + 2 < 4 == 1"), 1);
  EXPECT_EQ(expr_value("0 || 1 && 0"), 0);
  EXPECT_EQ(expr_value("!0 + 1"), 2);
  EXPECT_EQ(expr_value("7 % 4 + 7 / 4"), 4);
  EXPECT_EQ(expr_value("-7 / 2"), -3);  // truncation toward zero, as C
}

TEST(IntExpr, PythonSpellingsReadTheSame) {
  EXPECT_EQ(expr_value("not 0 and 3 // 2 == 1 or 0"), 1);
  EXPECT_EQ(expr_value("BLOCK_M * BLOCK_K * 2 * STAGES <= 98304", {{"BLOCK_M", 128}, {"BLOCK_K", 128}, {"STAGES", 4}}), 0);
  EXPECT_EQ(expr_value("BLOCK_M * BLOCK_K * 2 * STAGES <= 98304", {{"BLOCK_M", 128}, {"BLOCK_K", 128}, {"STAGES", 3}}), 1);
}

TEST(IntExpr, NamesAreListedOnceSorted) {
  auto e = IntExpr::parse("B * A + B % C");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->names(), (std::vector<std::string>{"A", "B", "C"}));
}

TEST(IntExpr, AndOrDecideWithoutTheirRightSide) {
  EXPECT_EQ(expr_value("K != 0 && N / K > 2", {{"K", 0}, {"N", 8}}), 0);
  EXPECT_EQ(expr_value("K == 0 || N / K > 2", {{"K", 0}, {"N", 8}}), 1);
  EXPECT_EQ(expr_value("N / K > 2 && 0", {{"K", 0}, {"N", 8}}), 0);
  EXPECT_EQ(expr_error("N / K > 2 && 1", {{"K", 0}, {"N", 8}}), "division by zero in 'N / K > 2 && 1'");
}

TEST(IntExpr, ArithmeticErrorsAreValues) {
  EXPECT_EQ(expr_error("9223372036854775807 + 1"), "overflow in '9223372036854775807 + 1'");
  EXPECT_EQ(expr_error("4294967296 * 4294967296"), "overflow in '4294967296 * 4294967296'");
  EXPECT_EQ(expr_error("5 % 0"), "division by zero in '5 % 0'");
  EXPECT_EQ(expr_error("X + 1"), "'X' is not a tunable of this program");
  EXPECT_EQ(expr_error("99999999999999999999"), "parse: column 1: 99999999999999999999 is over 2^63 - 1");
}

TEST(IntExpr, MalformedTextIsRefusedWithItsColumn) {
  EXPECT_EQ(expr_error(""), "parse: empty expression");
  EXPECT_EQ(expr_error("1 +"), "parse: the expression ends where an operand is expected");
  EXPECT_EQ(expr_error("(1 + 2"), "parse: a '(' is not closed");
  EXPECT_EQ(expr_error("1 + 2)"), "parse: column 6: ')' without its '('");
  EXPECT_EQ(expr_error("1 2"), "parse: column 3: expected an operator or ')' but found '2'");
  EXPECT_EQ(expr_error("* 2"), "parse: column 1: expected a number, a name or '(' but found '*'");
  EXPECT_EQ(expr_error("2 ^ 3"), "parse: column 3: unexpected character '^'");
  EXPECT_EQ(expr_error("0x10"), "parse: column 1: '0x' is not a decimal integer");
  EXPECT_EQ(expr_error("a = 1"), "parse: column 3: unexpected character '='");
}

TEST(IntExpr, NestingAndLengthAreBounded) {
  std::string deep(kMaxExprDepth, '(');
  deep += "1" + std::string(kMaxExprDepth, ')');
  EXPECT_EQ(expr_value(deep), 1);
  EXPECT_EQ(expr_error("(" + deep + ")"), "parse: column 33: more than 32 nested parentheses");
  std::string minus(100000, '-');
  EXPECT_EQ(expr_error(minus + "1"), "parse: more than 512 tokens: write a shorter expression");
  std::string sum = "1";
  for (int i = 0; i < 300; ++i) sum += " + 1";
  EXPECT_EQ(expr_error(sum), "parse: more than 512 tokens: write a shorter expression");
  std::string sum_ok = "1";
  for (int i = 0; i < 255; ++i) sum_ok += " + 1";
  EXPECT_EQ(expr_value(sum_ok), 256);
}

}  // namespace
}  // namespace swz
