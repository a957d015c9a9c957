// The parser, checker and translator of Triton swizzle regions (the contract is
// at the top of py_region.cpp). One pass: recursive descent for statements,
// precedence climbing for expressions (recursion bounded by kMaxNesting; each
// operator chain of one precedence is collected iteratively, so `a + b + c ...`
// does not recurse), static types and definite assignment checked as it goes,
// and the C++ text built at the same time.
//
// THE C++ NESTING COST MODEL. The translation must pass validate_region_code,
// whose parser counts one nesting level per call of statement, block,
// expression, assignment, conditional, binary (including each right-operand
// recursion) and unary (including each prefix/cast recursion) -- primary, call
// and postfix do not count -- and rejects beyond 200. Every C++ expression built
// here is a "unary form" (a name, a literal, a call, a parenthesized expression,
// or a prefix operator / cast applied to a unary form), and carries
//   U = the deepest level its parse reaches, counted from the level at which the
//       C++ parser's unary() that parses it is invoked.
// For an expression E parsed by assignment() invoked at level k, C(E) is the same
// count from k. From the C++ validator's grammar:
//   U(name or literal) = 1          U(f(A1..An)) = 1 + max C(Ai)   (1 with no args)
//   U((E)) = 2 + C(E)               U(!X) = U(~X) = U((T)X) = 1 + U(X)
//   C(X) = 3 + U(X) for a unary form X
//   C(X1 op X2 ... op Xn), one precedence = max(3 + U(X1), 4 + U(Xi), i >= 2)
//   C(Cd ? A : B) = max(3 + U(Cd), 6 + U(A), 5 + U(B))
// Statements, with statement() invoked at level s (s = 1 in a function body; a
// block of an `if` is at s + 2):
//   `x = E;` reaches s + 3 + C(E);  `return E;` and `if (E)` reach s + 2 + C(E).
// Every statement's cost is checked against kMaxCppDepth (< 200: a margin), and
// every expression's U as it is built (so a hostile chain cannot grow its text
// quadratically). The fuzz target checks the model: every translation of a
// validated region must pass validate_region_code.
//
// An elif chain is translated with a flag, not as nested else-ifs (which nest
// one C++ level per elif):
//   if (C1) { f = true; ... }  if (!f && C2) { f = true; ... }  if (!f) { ... }
// C2 is evaluated only when no earlier branch ran, so no branch can have changed
// what it reads.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "py_region_detail.h"

namespace swz::pyregion {

namespace {

class Translator {
 public:
  explicit Translator(const Lexed& lx) : lx_(lx), t_(lx.toks) {}

  std::optional<Reject> run(std::string& out) {
    try {
      region();
    } catch (const Fail& f) {
      return f.r;
    }
    out = std::move(out_);
    return std::nullopt;
  }

 private:
  struct Local {
    std::size_t index = 0;
    bool is_bool = false;
  };
  struct Flow {
    bool reachable = true;
    std::vector<char> assigned;  // by Local::index; missing = not assigned
  };

  const Lexed& lx_;
  const std::vector<Token>& t_;
  Emit em_{lx_};
  std::size_t p_ = 0;
  int depth_ = 0;
  std::string out_;
  std::set<std::string_view> all_funcs_;                 // every name after a `def`
  std::map<std::string_view, std::size_t> defined_;      // functions defined so far -> arity
  // The function being translated.
  std::string_view fname_;
  std::map<std::string_view, Local> locals_;             // parameters and locals
  std::vector<std::string_view> local_order_;            // locals (not parameters) by first assignment
  std::set<std::string_view> assigned_anywhere_;          // names assigned somewhere in the function
  int flags_ = 0;
  Flow flow_;

  const Token& cur() const { return t_[p_]; }
  const Token& peek(std::size_t k = 1) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  static bool op_is(const Token& t, std::string_view s) { return t.kind == Tk::op && t.text == s; }
  static bool name_is(const Token& t, std::string_view s) { return t.kind == Tk::name && t.text == s; }
  bool is_op(std::string_view s) const { return op_is(cur(), s); }
  bool is_kw(std::string_view s) const { return name_is(cur(), s); }

  [[noreturn]] void fail(const Token& t, std::string why) const { throw Fail{{t.line, shown(lx_, t), std::move(why)}}; }
  [[noreturn]] void fail_text(int line, std::string token, std::string why) const {
    if (token.size() > 40) token = token.substr(0, 37) + "...";
    throw Fail{{line, std::move(token), std::move(why)}};
  }

  // Why the current token cannot be what was expected.
  [[noreturn]] void fail_unexpected(const std::string& expected) const {
    const Token& t = cur();
    if (t.kind == Tk::error) fail(t, lx_.error_reason);
    if (t.kind == Tk::str) fail(t, "string literal: strings are not in the subset");
    if (t.kind == Tk::indent) fail(t, "unexpected indent");
    if (t.kind == Tk::name) {
      if (auto why = keyword_reason(t.text)) fail(t, *why);
      if (t.text == "not") fail(t, "'not' needs parentheses here");
    }
    if (t.kind == Tk::op) {
      const std::string_view o = t.text;
      if (o == ";") fail(t, "one statement per line (';' is not in the subset)");
      if (o == ":=") fail(t, "assignment expressions (':=') are not in the subset");
      if (o == "[" || o == "]") fail(t, "lists and subscripts are not in the subset");
      if (o == "{" || o == "}") fail(t, "dicts and sets are not in the subset");
      if (o == "**") fail(t, "'**' (power) is not in the subset");
      if (o == "/") fail(t, "true division: use //");
      if (o == "@") fail(t, "'@' is only allowed in the decorator line @triton.jit");
      if (o == "->") fail(t, "return annotations are not in the subset");
    }
    fail(t, "expected " + expected);
  }

  struct Depth {
    Depth(Translator& tr, const Token& at) : tr_(tr) {
      if (++tr_.depth_ > kMaxNesting) tr_.fail(at, "nesting too deep (at most " + std::to_string(kMaxNesting) + " levels)");
    }
    ~Depth() { --tr_.depth_; }
    Translator& tr_;
  };

  // ---- names

  void check_function_name(const Token& t) const {
    if (is_keyword(t.text)) fail(t, "a keyword cannot be a name");
    if (t.text.find("__") != std::string_view::npos) fail(t, "names containing '__' are reserved");
    if (t.text == "tl" || t.text == "triton" || t.text == "SWZ_NUM_DIES") fail(t, "reserved name");
  }

  // A parameter or an assignment target.
  void check_variable_name(const Token& t) const {
    if (is_keyword(t.text)) fail(t, "a keyword cannot be assigned or be a parameter");
    if (t.text.find("__") != std::string_view::npos) fail(t, "names containing '__' are reserved");
    if (t.text == "tl" || t.text == "triton" || t.text == "SWZ_NUM_DIES")
      fail(t, "reserved name: it cannot be assigned or be a parameter");
    if (all_funcs_.count(t.text)) fail(t, "a variable must not have the name of a function of the region");
  }

  void mark_assigned(std::size_t index) {
    if (flow_.assigned.size() <= index) flow_.assigned.resize(index + 1, 0);
    flow_.assigned[index] = 1;
  }

  static void merge(Flow& out, const Flow& f) {
    if (!f.reachable) return;
    if (!out.reachable) {
      out = f;
      return;
    }
    const std::size_t n = std::min(out.assigned.size(), f.assigned.size());
    out.assigned.resize(n);
    for (std::size_t i = 0; i < n; ++i) out.assigned[i] = static_cast<char>(out.assigned[i] && f.assigned[i]);
  }

  Ex read_name(const Token& t) const {
    auto it = locals_.find(t.text);
    if (it != locals_.end()) {
      const std::size_t i = it->second.index;
      if (flow_.reachable && !(i < flow_.assigned.size() && flow_.assigned[i]))
        fail(t, "may be used before it is assigned (assign it on every path before)");
      return Ex{cpp_name(t.text), 1, it->second.is_bool};
    }
    if (t.text == "SWZ_NUM_DIES") return Ex{"(int)(SWZ_NUM_DIES)", 7, false};
    if (t.text == "tl") fail(t, "'tl' is only allowed in the calls tl.cdiv, tl.minimum and tl.maximum");
    if (t.text == "triton") fail(t, "'triton' is only allowed in the decorator line @triton.jit");
    if (all_funcs_.count(t.text)) fail(t, "a function of the region can only be called");
    if (assigned_anywhere_.count(t.text)) fail(t, "may be used before it is assigned (assign it on every path before)");
    fail(t, "not a parameter or local of this function (globals and builtins are not allowed)");
  }

  // ---- top level

  void region() {
    for (std::size_t i = 0; i + 1 < t_.size(); ++i)
      if (name_is(t_[i], "def") && t_[i + 1].kind == Tk::name) all_funcs_.insert(t_[i + 1].text);
    if (cur().kind == Tk::end) fail(cur(), "the region is empty: it must define swizzle_pid(pid, num_pids, grid_m, grid_n)");
    out_ = kPrelude;
    while (cur().kind != Tk::end) top_item();
    if (!defined_.count("swizzle_pid")) fail(cur(), "the region must define swizzle_pid(pid, num_pids, grid_m, grid_n)");
    out_ += kEntry;
  }

  void top_item() {
    const Token& t = cur();
    if (op_is(t, "@")) {
      decorator();
      function();
      return;
    }
    if (name_is(t, "def")) fail(t, "a function needs the decorator line @triton.jit right before its def");
    if (t.kind == Tk::str) fail(t, "a docstring is a string literal: strings are not in the subset");
    if (t.kind == Tk::name)
      if (auto why = keyword_reason(t.text)) fail(t, *why);
    if (t.kind == Tk::error || t.kind == Tk::indent) fail_unexpected("");
    fail(t, "only @triton.jit functions are allowed at the top level of the region");
  }

  void decorator() {
    ++p_;  // '@'
    auto bad = [&]() {
      if (cur().kind == Tk::error || cur().kind == Tk::str) fail_unexpected("");
      fail(cur(), "the decorator must be exactly @triton.jit (no arguments)");
    };
    if (!is_kw("triton")) bad();
    ++p_;
    if (!is_op(".")) bad();
    ++p_;
    if (!is_kw("jit")) bad();
    ++p_;
    if (cur().kind != Tk::newline) bad();
    ++p_;
    if (is_op("@")) fail(cur(), "one decorator per function: exactly @triton.jit");
    if (!is_kw("def")) fail_unexpected("'def' after @triton.jit");
  }

  void function() {
    ++p_;  // def
    if (cur().kind != Tk::name) fail_unexpected("the function name");
    const Token name = cur();
    check_function_name(name);
    if (defined_.count(name.text)) fail(name, "a function of this name is already defined in the region");
    ++p_;
    if (!is_op("(")) fail_unexpected("'(' after the function name");
    ++p_;
    fname_ = name.text;
    locals_.clear();
    local_order_.clear();
    assigned_anywhere_.clear();
    flags_ = 0;
    flow_ = Flow{};
    std::string header = "SWZ_HD int " + cpp_name(name.text) + "(";
    std::size_t params = 0;
    while (!is_op(")")) {
      if (is_op("*") || is_op("**")) fail(cur(), "*args and **kwargs are not in the subset");
      if (is_op("/")) fail(cur(), "positional-only markers ('/') are not in the subset");
      if (cur().kind != Tk::name) fail_unexpected("a parameter name");
      const Token pt = cur();
      check_variable_name(pt);
      if (locals_.count(pt.text)) fail(pt, "duplicate parameter name");
      locals_[pt.text] = Local{params, false};
      mark_assigned(params);
      header += (params ? ", int " : "int ") + cpp_name(pt.text);
      ++params;
      ++p_;
      if (is_op("=")) fail(cur(), "default values are not in the subset");
      if (is_op(":")) fail(cur(), "annotations are not in the subset");
      if (is_op(",")) {
        ++p_;
        continue;
      }
      if (!is_op(")")) fail_unexpected("',' or ')' in the parameter list");
    }
    ++p_;
    if (is_op("->")) fail(cur(), "return annotations are not in the subset");
    if (!is_op(":")) fail_unexpected("':' after the parameters");
    if (name.text == "swizzle_pid" && params != 4)
      fail(name, "swizzle_pid must take exactly 4 parameters (pid, num_pids, grid_m, grid_n)");
    prescan_assignments();
    ++p_;  // ':'
    const std::string body = suite(1, 1);
    if (flow_.reachable) fail(name, "may end without return (every path must end in return)");
    out_ += header + ") {\n";
    for (std::string_view n : local_order_)
      out_ += locals_[n].is_bool ? "  bool " + cpp_name(n) + " = false;\n" : "  int " + cpp_name(n) + " = 0;\n";
    for (int i = 1; i <= flags_; ++i) out_ += "  bool swz_py_e" + std::to_string(i) + " = false;\n";
    out_ += body;
    out_ += "  return 0;  // not reached: every path returns\n}\n";
    defined_[name.text] = params;
    fname_ = {};
  }

  // The names the function assigns anywhere (to tell "used before it is assigned"
  // from "not a local"): from the ':' at p_ to the end of its body. Each function's
  // tokens are scanned once.
  void prescan_assignments() {
    std::size_t k = p_ + 1;
    const bool block = k < t_.size() && t_[k].kind == Tk::newline;
    int level = 0;
    for (; k + 1 < t_.size(); ++k) {
      const Token& t = t_[k];
      if (t.kind == Tk::indent) {
        ++level;
      } else if (t.kind == Tk::dedent) {
        if (--level <= 0) break;
      } else if (!block && t.kind == Tk::newline) {
        break;
      } else if (t.kind == Tk::name && t_[k + 1].kind == Tk::op && is_assign_op(t_[k + 1].text)) {
        assigned_anywhere_.insert(t.text);
      }
    }
  }

  // ---- statements (s: the C++ statement level; indent: output indentation)

  std::string suite(int s, int indent) {
    Depth d(*this, cur());
    std::string text;
    if (cur().kind == Tk::newline) {
      ++p_;
      if (cur().kind != Tk::indent) fail_unexpected("an indented block");
      ++p_;
      while (cur().kind != Tk::dedent && cur().kind != Tk::end) statement(s, indent, text);
      if (cur().kind == Tk::dedent) ++p_;
    } else {
      if (is_kw("if") || is_kw("def")) fail(cur(), "a compound statement must start on its own line");
      simple_statement(s, indent, text);
    }
    return text;
  }

  void statement(int s, int indent, std::string& text) {
    const Token& t = cur();
    if (t.kind == Tk::indent) fail(t, "unexpected indent");
    if (name_is(t, "if")) return if_chain(s, indent, text);
    if (name_is(t, "elif") || name_is(t, "else")) fail(t, "'" + std::string(t.text) + "' without a matching 'if'");
    if (name_is(t, "def")) fail(t, "nested functions are not in the subset");
    simple_statement(s, indent, text);
  }

  void end_statement() {
    if (is_op(",")) fail(cur(), "tuples are not in the subset");
    if (cur().kind != Tk::newline) fail_unexpected("the end of the line");
    ++p_;
  }

  void simple_statement(int s, int indent, std::string& text) {
    const Token t = cur();
    const std::string ind(2 * static_cast<std::size_t>(indent), ' ');
    if (t.kind == Tk::str) fail(t, "a docstring is a string literal: strings are not in the subset");
    if (t.kind == Tk::name) {
      if (t.text == "return") {
        ++p_;
        if (cur().kind == Tk::newline) fail(t, "return needs a value (functions return int)");
        Ex e = test();
        if (e.b) fail(t, "functions return int: a bool cannot be returned (write 1 if c else 0)");
        em_.need_depth(s + 2 + 3 + e.u, t);
        text += ind + "return " + e.s + ";\n";
        end_statement();
        flow_.reachable = false;
        return;
      }
      if (t.text == "pass") {
        ++p_;
        text += ind + ";\n";
        end_statement();
        return;
      }
      if (auto why = keyword_reason(t.text)) fail(t, *why);
      const Token& n = peek();
      if (n.kind == Tk::op && is_assign_op(n.text)) return assignment(s, ind, text);
      if (op_is(n, ",")) fail(n, "tuple assignment is not in the subset");
      if (op_is(n, ":")) fail(n, "annotations are not in the subset");
    }
    test();
    if (cur().kind == Tk::op && is_assign_op(cur().text)) fail(cur(), "the target of an assignment must be a plain name");
    if (is_op(",")) fail(cur(), "tuples are not in the subset");
    if (cur().kind == Tk::newline)
      fail(t, "an expression statement has no effect (statements: assignment, if, return, pass)");
    end_statement();
  }

  void assignment(int s, const std::string& ind, std::string& text) {
    const Token name = cur();
    const Token op = peek();
    check_variable_name(name);
    if (op.text == "/=") fail(op, "true division: use //=");
    if (op.text == "**=") fail(op, "'**' (power) is not in the subset");
    if (op.text == "@=") fail(op, "'@' is only allowed in the decorator line @triton.jit");
    Ex value;
    if (op.text == "=") {
      p_ += 2;
      if (cur().kind == Tk::name && op_is(peek(), "=")) fail(peek(), "chained assignment is not in the subset");
      value = test();
      auto it = locals_.find(name.text);
      if (it == locals_.end()) {
        it = locals_.emplace(name.text, Local{locals_.size(), value.b}).first;
        local_order_.push_back(name.text);
      } else if (it->second.is_bool != value.b) {
        fail(name, std::string(it->second.is_bool ? "a bool" : "an int") + " until here: a name keeps one type in its function");
      }
      mark_assigned(it->second.index);
    } else {
      Ex lhs = read_name(name);  // before the right side: Python reads it first
      if (lhs.b) fail(op, kBoolArith);
      p_ += 2;
      Ex rhs = test();
      if (rhs.b) fail(op, kBoolArith);
      const std::string_view o = op.text.substr(0, op.text.size() - 1);
      const int prec = (o == "+" || o == "-") ? 9 : (o == "*" || o == "//" || o == "%") ? 10
                       : (o == "<<" || o == ">>") ? 8 : o == "&" ? 7 : o == "^" ? 6 : 5;
      std::vector<Ex> xs;
      xs.push_back(std::move(lhs));
      xs.push_back(std::move(rhs));
      std::vector<Op> ops{Op{o, op}};
      em_.collapse(prec, xs, ops);
      value = std::move(xs[0]);
    }
    em_.need_depth(s + 3 + 3 + value.u, name);
    text += ind + cpp_name(name.text) + " = " + value.s + ";\n";
    end_statement();
  }

  void if_chain(int s, int indent, std::string& text) {
    struct Branch {
      std::string cond;  // empty: else
      std::string body;
    };
    const Token first = cur();
    // The flag form is the costliest: `if (!f && C)` and `f = true;` in the block.
    em_.need_depth(s + 2 + 3 + 3 + 1 + 3, first);
    const Flow in = flow_;
    Flow out;
    out.reachable = false;
    std::vector<Branch> branches;
    bool has_else = false;
    for (;;) {
      const Token kw = cur();
      ++p_;
      Branch b;
      flow_ = in;
      if (kw.text == "else") {
        has_else = true;
      } else {
        Ex c = test();
        if (!c.b) c = em_.to_bool(std::move(c), kw);
        em_.need_depth(s + 2 + 4 + 2 + c.u, kw);  // `!f && C` inside if ( )
        b.cond = std::move(c.s);
      }
      if (!is_op(":")) fail_unexpected("':'");
      ++p_;
      b.body = suite(s + 2, indent + 1);
      merge(out, flow_);
      branches.push_back(std::move(b));
      if (has_else || !(is_kw("elif") || is_kw("else"))) break;
    }
    if (!has_else) merge(out, in);
    flow_ = std::move(out);
    const std::string ind(2 * static_cast<std::size_t>(indent), ' ');
    if (branches.size() == 1 || (branches.size() == 2 && has_else)) {
      text += ind + "if (" + branches[0].cond + ") {\n" + branches[0].body + ind + "}";
      if (has_else) text += " else {\n" + branches[1].body + ind + "}";
      text += "\n";
      return;
    }
    const std::string flag = "swz_py_e" + std::to_string(++flags_);
    const std::string set = ind + "  " + flag + " = true;\n";
    for (std::size_t i = 0; i < branches.size(); ++i) {
      const Branch& b = branches[i];
      if (i == 0) text += ind + "if (" + b.cond + ") {\n" + set;
      else if (!b.cond.empty()) text += ind + "if (!" + flag + " && " + b.cond + ") {\n" + set;
      else text += ind + "if (!" + flag + ") {\n";
      text += b.body + ind + "}\n";
    }
  }

  // ---- expressions

  Ex test() {
    Depth d(*this, cur());
    Ex x = climb(0);
    if (!is_kw("if")) return x;
    const Token q = cur();
    ++p_;
    Ex c = climb(0);
    if (!is_kw("else")) fail_unexpected("'else' in the conditional expression");
    ++p_;
    Ex y = test();
    if (x.b != y.b) fail(q, "the two arms of a conditional expression must have the same type (int or bool)");
    if (!c.b) c = em_.to_bool(std::move(c), q);
    const int u = 2 + std::max({3 + c.u, 6 + x.u, 5 + y.u});
    return em_.made("(" + c.s + " ? " + x.s + " : " + y.s + ")", u, x.b, q);
  }

  // The precedence of a binary operator at t (0: none); rejects the ones not in the subset.
  int binary_prec(const Token& t) const {
    if (t.kind == Tk::name) {
      if (t.text == "or") return 1;
      if (t.text == "and") return 2;
      if (t.text == "is" || t.text == "in") fail(t, *keyword_reason(t.text));
      if (t.text == "not") fail(t, "membership tests ('not in') are not in the subset");
      return 0;
    }
    if (t.kind != Tk::op) return 0;
    const std::string_view o = t.text;
    if (o == "==" || o == "!=" || o == "<" || o == "<=" || o == ">" || o == ">=") return 4;
    if (o == "|") return 5;
    if (o == "^") return 6;
    if (o == "&") return 7;
    if (o == "<<" || o == ">>") return 8;
    if (o == "+" || o == "-") return 9;
    if (o == "*" || o == "//" || o == "%") return 10;
    if (o == "/" || o == "@" || o == "**") fail_unexpected("");
    return 0;
  }

  // Operators of precedence >= min_prec; one chain per precedence is collected
  // and translated at once (no recursion along a chain).
  Ex climb(int min_prec) {
    Depth d(*this, cur());
    std::vector<Ex> xs;
    xs.push_back(min_prec <= 3 && is_kw("not") ? not_expr() : unary());
    std::vector<Op> ops;
    int chain = -1;
    for (;;) {
      const Token t = cur();
      const int prec = binary_prec(t);
      if (prec == 0 || prec < min_prec) break;
      if (chain != -1 && prec != chain) em_.collapse(chain, xs, ops);
      if (prec == 4 && !ops.empty()) fail(t, "chained comparisons are not in the subset (use and)");
      chain = prec;
      ops.push_back(Op{t.text, t});
      ++p_;
      xs.push_back(climb(prec + 1));
    }
    if (!ops.empty()) em_.collapse(chain, xs, ops);
    return std::move(xs[0]);
  }

  Ex not_expr() {
    Depth d(*this, cur());
    const Token t = cur();
    ++p_;
    Ex x = is_kw("not") ? not_expr() : climb(4);
    if (!x.b) fail(t, "'not' needs a bool operand (compare an int with == 0)");
    return em_.made("!" + x.s, 1 + x.u, true, t);
  }

  Ex unary() {
    const Token t = cur();
    if (op_is(t, "-") || op_is(t, "+") || op_is(t, "~")) {
      Depth d(*this, t);
      ++p_;
      Ex x = unary();
      if (x.b) fail(t, kBoolArith);
      if (t.text == "+") return x;
      if (t.text == "~") return em_.made("~" + x.s, 1 + x.u, false, t);
      std::vector<Ex> args;
      args.push_back(std::move(x));
      return em_.call_ex("swz_py_neg", args, t);
    }
    Ex x = primary();
    if (is_op("**")) fail(cur(), "'**' (power) is not in the subset");
    return x;
  }

  // `base.attr` (base may be empty: after a parenthesis or a call).
  [[noreturn]] void fail_attribute(int line, std::string_view base, const Token& attr) const {
    fail_text(line, std::string(base) + "." + (attr.kind == Tk::name ? std::string(attr.text) : std::string()),
              "attribute access is not in the subset (only the calls tl.cdiv, tl.minimum and tl.maximum)");
  }

  Ex primary() {
    const Token& t = cur();
    Ex x;
    if (t.kind == Tk::number) {
      long long v = 0;
      if (auto why = int_literal(t.text, v)) fail(t, *why);
      x = Ex{std::to_string(v), 1, false};
      ++p_;
    } else if (t.kind == Tk::name) {
      if (t.text == "True" || t.text == "False") {
        x = Ex{t.text == "True" ? "true" : "false", 1, true};
        ++p_;
      } else if (is_keyword(t.text)) {
        fail_unexpected("an expression");
      } else if (op_is(peek(), ":=")) {
        fail(peek(), "assignment expressions (':=') are not in the subset");
      } else if (t.text == "tl") {
        x = tl_call();
      } else if (op_is(peek(), ".")) {
        fail_attribute(t.line, t.text, peek(2));
      } else if (op_is(peek(), "[")) {
        fail(peek(), "subscripts are not in the subset");
      } else if (op_is(peek(), "(")) {
        x = call();
      } else {
        x = read_name(t);
        ++p_;
      }
    } else if (op_is(t, "(")) {
      const Token open = t;
      Depth d(*this, open);
      ++p_;
      if (is_op(")")) fail(open, "tuples are not in the subset");
      x = test();
      if (is_op(",")) fail(cur(), "tuples are not in the subset");
      if (!is_op(")")) fail_unexpected("')'");
      ++p_;
    } else {
      fail_unexpected("an expression");
    }
    if (is_op("(")) fail(cur(), "only functions of the region (and tl.cdiv, tl.minimum, tl.maximum) can be called, by name");
    if (is_op(".")) fail_attribute(cur().line, "", peek());
    if (is_op("[")) fail(cur(), "subscripts are not in the subset");
    return x;
  }

  std::vector<Ex> arguments() {  // after '('
    std::vector<Ex> args;
    while (!is_op(")")) {
      if (cur().kind == Tk::name && op_is(peek(), "=")) fail(cur(), "keyword arguments are not in the subset");
      if (is_op("*") || is_op("**")) fail(cur(), "argument unpacking is not in the subset");
      args.push_back(test());
      if (is_op(",")) {
        ++p_;
        continue;
      }
      if (!is_op(")")) fail_unexpected("',' or ')' in the call");
    }
    ++p_;
    return args;
  }

  Ex tl_call() {
    const Token t = cur();
    if (!op_is(peek(), ".")) fail(t, "'tl' is only allowed in the calls tl.cdiv, tl.minimum and tl.maximum");
    const Token& a = peek(2);
    const std::string what = "tl." + (a.kind == Tk::name ? std::string(a.text) : std::string());
    if (!(name_is(a, "cdiv") || name_is(a, "minimum") || name_is(a, "maximum")))
      fail_text(t.line, what, "only tl.cdiv, tl.minimum and tl.maximum are in the subset");
    if (!op_is(peek(3), "(")) fail_text(t.line, what, what + " can only be called");
    const std::string helper = a.text == "cdiv" ? "swz_py_cdiv" : a.text == "minimum" ? "swz_py_min" : "swz_py_max";
    p_ += 4;
    std::vector<Ex> args = arguments();
    if (args.size() != 2) fail_text(t.line, what, what + " takes 2 arguments");
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i].b) fail_text(t.line, what, "argument " + std::to_string(i + 1) + " is a bool (functions take int)");
    return em_.call_ex(helper, args, t);
  }

  Ex call() {
    const Token name = cur();
    if (name.text == fname_) fail(name, "recursion is not allowed");
    auto it = defined_.find(name.text);
    if (it == defined_.end()) {
      if (all_funcs_.count(name.text))
        fail(name, "call to a function defined later in the region (define it before its callers: no recursion)");
      fail(name, "call to a function not defined in the region");
    }
    p_ += 2;
    std::vector<Ex> args = arguments();
    if (args.size() != it->second)
      fail(name, "called with " + std::to_string(args.size()) + " argument(s), it takes " + std::to_string(it->second));
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i].b) fail(name, "argument " + std::to_string(i + 1) + " is a bool (functions take int)");
    return em_.call_ex(cpp_name(name.text), args, name);
  }
};

}  // namespace

std::optional<Reject> translate(const Lexed& lexed, std::string& out) { return Translator(lexed).run(out); }

}  // namespace swz::pyregion
