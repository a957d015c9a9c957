// IntExpr: a small integer expression over named values, as a kernel program writes its
// tunables' restrictions and resource formulas in a comment
// (`// swizzleperf:restrict BLOCK_M * BLOCK_K * 2 * STAGES <= 98304`).
//
// The text is untrusted (a user's file, an LLM's template), so the parser is iterative
// (shunting-yard into reverse Polish), takes at most kMaxExprTokens tokens and kMaxExprDepth
// nested parentheses, and evaluation is overflow-checked 64-bit arithmetic: an error is a
// value, never undefined behaviour or unbounded work.
//
// Grammar (C and Python spellings both accepted, so one restriction reads the same in a .cu
// and a .py program):
//   integers (decimal), names [A-Za-z_][A-Za-z0-9_]*, parentheses;
//   unary: - + ! not;   binary, loosest first: || or;  && and;  == != < <= > >=;  + -;  * / // %
// Division truncates toward zero and % takes the dividend's sign (C's rules); `//` is the same
// operator (tunables are positive, where C and Python agree). Comparisons and logic give 0/1.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/util/result.h"

namespace swz {

inline constexpr std::size_t kMaxExprTokens = 512;
inline constexpr std::size_t kMaxExprDepth = 32;

class IntExpr {
 public:
  // Parses `text`; the error names the position and what was expected.
  static Result<IntExpr> parse(std::string_view text);

  // The value with `names` bound; an unknown name, division by zero or overflow is an error.
  Result<std::int64_t> eval(const std::map<std::string, std::int64_t>& names) const;

  // Every name the expression reads, sorted, once each.
  std::vector<std::string> names() const;
  const std::string& text() const { return text_; }

 private:
  enum class Op { push_int, push_name, neg, pos, lnot, mul, div, mod, add, sub, lt, le, gt, ge, eq, ne, land, lor };
  struct Step {
    Op op;
    std::int64_t value = 0;  // push_int
    std::string name;        // push_name
  };
  std::vector<Step> rpn_;
  std::string text_;
};

}  // namespace swz
