// IntExpr (see the header): a tokenizer, then one shunting-yard pass into reverse Polish with
// an explicit operator stack, so nesting costs heap, not C++ stack, and both are bounded.
#include "swizzleperf/tune/int_expr.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include <fmt/format.h>

namespace swz {

namespace {

enum class ExprTok { number, name, lparen, rparen, op, end };

struct ExprToken {
  ExprTok kind = ExprTok::end;
  std::string text;  // the operator or name as written; digits for a number
  std::size_t at = 0;
};

bool expr_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool expr_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

Result<std::vector<ExprToken>> tokenize_expr(std::string_view s) {
  std::vector<ExprToken> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (out.size() >= kMaxExprTokens)
      return make_error(fmt::format("more than {} tokens: write a shorter expression", kMaxExprTokens));
    ExprToken t;
    t.at = i;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && expr_name_char(s[j])) return make_error(fmt::format("column {}: '{}' is not a decimal integer", i + 1, s.substr(i, j + 1 - i)));
      t.kind = ExprTok::number;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (expr_name_start(c)) {
      std::size_t j = i;
      while (j < s.size() && expr_name_char(s[j])) ++j;
      t.text = std::string(s.substr(i, j - i));
      t.kind = (t.text == "and" || t.text == "or" || t.text == "not") ? ExprTok::op : ExprTok::name;
      i = j;
    } else if (c == '(' || c == ')') {
      t.kind = c == '(' ? ExprTok::lparen : ExprTok::rparen;
      t.text = std::string(1, c);
      ++i;
    } else {
      static const char* const two[] = {"||", "&&", "==", "!=", "<=", ">=", "//"};
      t.kind = ExprTok::op;
      for (const char* op : two)
        if (s.substr(i, 2) == op) t.text = op;
      if (t.text.empty()) {
        if (std::string_view("+-*/%<>!").find(c) == std::string_view::npos)
          return make_error(fmt::format("column {}: unexpected character '{}'", i + 1, std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "?"));
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

Result<IntExpr> IntExpr::parse(std::string_view text) {
  auto tokens = tokenize_expr(text);
  if (!tokens) return tokens.error();
  struct Pending {
    Op op;
    int prec;  // 0: a parenthesis
    bool unary;
  };
  auto binary = [](const std::string& t, Op* op, int* prec) {
    static const std::map<std::string, std::pair<Op, int>> table = {
        {"||", {Op::lor, 1}}, {"or", {Op::lor, 1}},  {"&&", {Op::land, 2}}, {"and", {Op::land, 2}}, {"==", {Op::eq, 3}},
        {"!=", {Op::ne, 3}},  {"<", {Op::lt, 4}},    {"<=", {Op::le, 4}},   {">", {Op::gt, 4}},     {">=", {Op::ge, 4}},
        {"+", {Op::add, 5}},  {"-", {Op::sub, 5}},   {"*", {Op::mul, 6}},   {"/", {Op::div, 6}},    {"//", {Op::div, 6}},
        {"%", {Op::mod, 6}}};
    auto it = table.find(t);
    if (it == table.end()) return false;
    *op = it->second.first;
    *prec = it->second.second;
    return true;
  };
  IntExpr e;
  e.text_ = std::string(text);
  std::vector<Pending> stack;
  std::size_t depth = 0;
  bool want_operand = true;
  auto where = [&](const ExprToken& t) { return fmt::format("column {}", t.at + 1); };
  for (const ExprToken& t : *tokens) {
    if (want_operand) {
      if (t.kind == ExprTok::number) {
        std::int64_t v = 0;
        for (char c : t.text) {
          if (v > (std::numeric_limits<std::int64_t>::max() - (c - '0')) / 10)
            return make_error(where(t) + ": " + t.text + " is over 2^63 - 1");
          v = v * 10 + (c - '0');
        }
        e.rpn_.push_back({Op::push_int, v, {}});
        want_operand = false;
      } else if (t.kind == ExprTok::name) {
        e.rpn_.push_back({Op::push_name, 0, t.text});
        want_operand = false;
      } else if (t.kind == ExprTok::lparen) {
        if (++depth > kMaxExprDepth) return make_error(fmt::format("{}: more than {} nested parentheses", where(t), kMaxExprDepth));
        stack.push_back({Op::push_int, 0, false});
      } else if (t.kind == ExprTok::op && (t.text == "-" || t.text == "+" || t.text == "!" || t.text == "not")) {
        if (stack.size() > kMaxExprTokens) return make_error(where(t) + ": too many operators in a row");
        stack.push_back({t.text == "-" ? Op::neg : t.text == "+" ? Op::pos : Op::lnot, 7, true});
      } else {
        return make_error(fmt::format("{}: expected a number, a name or '(' but found '{}'", where(t), t.text));
      }
      continue;
    }
    if (t.kind == ExprTok::rparen) {
      while (!stack.empty() && stack.back().prec != 0) {
        e.rpn_.push_back({stack.back().op, 0, {}});
        stack.pop_back();
      }
      if (stack.empty()) return make_error(where(t) + ": ')' without its '('");
      stack.pop_back();
      --depth;
      continue;
    }
    Op op;
    int prec = 0;
    if (t.kind != ExprTok::op || !binary(t.text, &op, &prec))
      return make_error(fmt::format("{}: expected an operator or ')' but found '{}'", where(t), t.text));
    // Left-associative: pop operators that bind at least as tightly (unary ones bind tighter).
    while (!stack.empty() && stack.back().prec >= prec) {
      e.rpn_.push_back({stack.back().op, 0, {}});
      stack.pop_back();
    }
    stack.push_back({op, prec, false});
    want_operand = true;
  }
  if (tokens->empty()) return make_error("empty expression");
  if (want_operand) return make_error("the expression ends where an operand is expected");
  while (!stack.empty()) {
    if (stack.back().prec == 0) return make_error("a '(' is not closed");
    e.rpn_.push_back({stack.back().op, 0, {}});
    stack.pop_back();
  }
  return e;
}

Result<std::int64_t> IntExpr::eval(const std::map<std::string, std::int64_t>& names) const {
  // A value, or the error that made it: && and || decide without their right side as C and
  // Python do (`K != 0 && N / K > 2` is 0 at K = 0), so an error waits until it is needed.
  struct Value {
    std::int64_t v = 0;
    const char* error = nullptr;  // static text; the message adds the expression
  };
  std::vector<Value> st;
  st.reserve(rpn_.size());
  std::string unknown;
  for (const Step& s : rpn_) {
    if (s.op == Op::push_int) {
      st.push_back({s.value, nullptr});
      continue;
    }
    if (s.op == Op::push_name) {
      auto it = names.find(s.name);
      if (it != names.end()) {
        st.push_back({it->second, nullptr});
      } else {
        if (unknown.empty()) unknown = s.name;
        st.push_back({0, "unknown"});
      }
      continue;
    }
    if (s.op == Op::neg || s.op == Op::pos || s.op == Op::lnot) {
      Value& a = st.back();  // the parser guarantees an operand
      if (a.error) continue;
      if (s.op == Op::neg) {
        if (a.v == std::numeric_limits<std::int64_t>::min()) a.error = "overflow";
        else a.v = -a.v;
      } else if (s.op == Op::lnot) {
        a.v = a.v == 0;
      }
      continue;
    }
    const Value b = st.back();
    st.pop_back();
    Value& a = st.back();
    if (s.op == Op::land || s.op == Op::lor) {
      const bool decided_by_a = !a.error && ((s.op == Op::land) == (a.v == 0));
      if (decided_by_a) {
        a.v = s.op == Op::lor;
      } else if (!a.error && !b.error) {
        a.v = b.v != 0;
      } else if (!a.error && b.error) {
        a = b;
      } else if (a.error && !b.error && ((s.op == Op::land) == (b.v == 0))) {
        a = {s.op == Op::lor, nullptr};  // decided by b
      }
      continue;
    }
    if (a.error) continue;
    if (b.error) {
      a = b;
      continue;
    }
    std::int64_t r = 0;
    switch (s.op) {
      case Op::add:
        if (__builtin_add_overflow(a.v, b.v, &r)) a.error = "overflow";
        break;
      case Op::sub:
        if (__builtin_sub_overflow(a.v, b.v, &r)) a.error = "overflow";
        break;
      case Op::mul:
        if (__builtin_mul_overflow(a.v, b.v, &r)) a.error = "overflow";
        break;
      case Op::div:
      case Op::mod:
        if (b.v == 0) a.error = "division by zero";
        else if (a.v == std::numeric_limits<std::int64_t>::min() && b.v == -1) a.error = "overflow";
        else r = s.op == Op::div ? a.v / b.v : a.v % b.v;
        break;
      case Op::lt: r = a.v < b.v; break;
      case Op::le: r = a.v <= b.v; break;
      case Op::gt: r = a.v > b.v; break;
      case Op::ge: r = a.v >= b.v; break;
      case Op::eq: r = a.v == b.v; break;
      case Op::ne: r = a.v != b.v; break;
      default: break;
    }
    if (!a.error) a.v = r;
  }
  const Value& top = st.back();
  if (!top.error) return top.v;
  if (std::string(top.error) == "unknown") return make_error("'" + unknown + "' is not a tunable of this program");
  return make_error(std::string(top.error) + " in '" + text_ + "'");
}

std::vector<std::string> IntExpr::names() const {
  std::set<std::string> out;
  for (const Step& s : rpn_)
    if (s.op == Op::push_name) out.insert(s.name);
  return {out.begin(), out.end()};
}

}  // namespace swz
