// Triton swizzle regions (py_region.h): a validator for a small Python subset and
// a translator of a validated region into the C++ region subset, so that the
// one confined host evaluator (mapping_check) checks both languages.
//
// THE SUBSET. Everything else is rejected with one line naming the line (within
// the region, from 1) and the token.
//  Text: at most kMaxRegionBytes (64 KiB); ASCII outside comments; no control
//    characters anywhere but tab and newline (CR only as CRLF: a lone CR is a line
//    break to Python and would hide code from this lexer); spaces for indentation
//    (a tab there is rejected), dedents that match an outer level; `#` comments
//    (any bytes but control characters; no `coding:`/`coding=`, which on a file's
//    first two lines changes how Python decodes it); blank lines; backslash
//    continuation (a backslash anywhere else is rejected) and implicit
//    continuation inside ( ). Strings (docstrings included) are not in it.
//  Top level: only function definitions, each preceded by exactly the decorator
//    line `@triton.jit`: `def NAME(p1, p2, ...):` with plain parameter names (no
//    defaults, annotations, *args, **kw, `/`, return annotation). One function
//    is swizzle_pid with exactly 4 parameters; function names are unique.
//  Statements: `NAME = expr`; `NAME op= expr` for + - * // % << >> & | ^;
//    if/elif/else; `return expr`; `pass`. A block may be a single simple
//    statement on the line of its `:`. No loops, no import, global, lambda, with,
//    try, raise, assert, del, yield, class, nested def, no tuple or chained
//    assignment, no annotations, no `;`, no expression statements.
//  Expressions: integer literals (decimal, 0x, 0o, 0b, `_` separators) of value
//    at most 2**31 - 1; True/False; names; SWZ_NUM_DIES (the die count, read
//    only); calls by name to functions defined EARLIER in the region (so no
//    recursion, no mutual recursion), with the right arity and no keyword
//    arguments; tl.cdiv(a, b), tl.minimum(a, b), tl.maximum(a, b); unary - + ~
//    and `not`; binary + - * // % << >> & | ^ with Python's precedence; ONE
//    comparison == != < <= > >= (no chains, no is/in); and, or; `a if c else b`;
//    parentheses. No attribute access but those three tl calls, no subscripts,
//    no `/` (true division: use //), no `**`, no `@`, no `:=`, no floats,
//    imaginary literals, None, lists, dicts, tuples.
//  Names: a name containing `__` is rejected (Python mangles and reserves them,
//    and the C++ subset refuses `__` in names); `tl`, `triton`, SWZ_NUM_DIES and
//    the names of the region's functions cannot be assigned or be parameters;
//    keywords cannot be names. A name is a parameter or a local of its function:
//    reading anything else (a global, a builtin) is rejected; calling anything
//    that is not a region function (print, range, eval, __import__, ...) is
//    "call to a function not defined in the region".
//  Types, static: every expression is int (int32) or bool. Arithmetic and bitwise
//    operands, call arguments and return values are int (a comparison result in
//    arithmetic is rejected: Triton's int1 does not promote like C's bool); and,
//    or, not take bools; comparisons take ints; if/elif/ternary conditions take
//    either (an int means != 0); a ternary's arms have one type; a name keeps one
//    type in its function; functions take and return int.
//  Flow: a name read must be a parameter or assigned on every path before the
//    read (both arms of an if/else count); every path through a function ends
//    in `return`. Statements after a return are allowed (never run).
//
// INT32 SEMANTICS of the translation (what Triton does on int32 tensors; the
// division and remainder were checked to be C's on signed int32):
//  + - * and unary - wrap around (computed in unsigned, converted back);
//  a // b truncates toward zero (C's /), a % b has the dividend's sign (C's %);
//  b == -1 gives -a (wrapping: INT_MIN // -1 == INT_MIN) and 0, never the trap;
//  a division or remainder by ZERO is left to trap in the evaluator: the mapping
//  check reports the crash;
//  a << b with b outside 0..31 is 0; a >> b is arithmetic, and with b outside
//  0..31 it is (a < 0 ? -1 : 0) (the PTX clamp);
//  tl.cdiv(a, b) = (a + b - 1) // b with the rules above; tl.minimum/maximum;
//  & | ^ ~ are C's on int; comparisons are signed; and/or/not/ternary are
//  C's && || ! ?: (short-circuit is safe: no operand has an effect).
//  Caveat: Triton folds expressions over Python constants alone (literals) at
//  compile time with Python's rules (floor division, unbounded ints); the
//  translation evaluates them in int32 like the rest. Swizzles compute on pids,
//  so this only matters for constant expressions such as -7 // 2.
//
// LIMITS. 64 KiB of text; kMaxTokens (10,000) tokens; kMaxNesting (200) levels of
// parser recursion: a block, a parenthesis, a conditional expression, a unary
// operator and each operator precedence level entered for a right operand count
// one each (a parenthesized operand costs about three, so about 65 nested
// parentheses), so recursion is bounded and there is no backtracking. The C++
// translation must stay within the C++ validator's own nesting bound of 200
// (kMaxCppDepth = 190 leaves a margin; the cost model is in
// py_region_translate.cpp): that allows about 22 nested conditional
// expressions, 45 nested calls or // or <<, 85 nested ifs; flat chains
// (a + b - c + ..., a and b and ..., long elif chains) do not nest, and deeper
// expressions are rejected ("split the expression over locals"). The
// translation's text must also be at most 64 KiB (else a line-0 rejection).
// The work is linear in the text, but for the definite-assignment state (a byte
// per local) copied at each if: quadratic in the worst case, bounded by the
// token limit.
//
// Also accepted, as Python has them: a trailing comma in a parameter list or a
// call; a one-line block (`if c: return x`). A name starting with '_' becomes
// pyu<name> in C++ (py__x would hold the double underscore the C++ subset
// refuses), every other name py_<name>.
//
// IMPLEMENTATION. The lexer (here) turns the text into Python tokens (NEWLINE,
// INDENT, DEDENT included); what it cannot take becomes one error token that the
// parser reports when it gets there, so the first problem in text order is the
// one reported. The parser (py_region_translate.cpp) is a recursive-descent
// parser with precedence climbing that checks and translates in one pass; a
// rejection unwinds it through an internal exception caught at its entry. The
// API below never throws.
#include "swizzleperf/core/py_region.h"

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

#include "py_region_detail.h"
#include "swizzleperf/core/kernel_source.h"

namespace swz {
namespace pyregion {

namespace {

const char* const kPyOps[] = {"**=", "//=", ">>=", "<<=", "->", "**", "//", "<<", ">>", "<=", ">=", "==", "!=",
                              "+=",  "-=",  "*=",  "/=",  "%=", "&=", "|=", "^=", "@=", ":=", "(",  ")",  "[",
                              "]",   "{",   "}",   ",",   ":",  ".",  ";",  "@",  "=",  "+",  "-",  "*",  "/",
                              "%",   "&",   "|",   "^",   "~",  "<",  ">"};

std::string py_printable(unsigned char c) {
  static const char* hex = "0123456789abcdef";
  if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
  return std::string("\\x") + hex[c >> 4] + hex[c & 15];
}

bool py_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool py_ident_char(char c) { return py_ident_start(c) || (c >= '0' && c <= '9'); }
bool py_digit(char c) { return c >= '0' && c <= '9'; }

bool py_string_prefix(std::string_view w) {
  if (w.empty() || w.size() > 2) return false;
  for (char c : w)
    if (c != 'r' && c != 'R' && c != 'b' && c != 'B' && c != 'u' && c != 'U' && c != 'f' && c != 'F') return false;
  return true;
}

class PyLexer {
 public:
  explicit PyLexer(std::string_view s) : s_(s) {}

  Lexed run() {
    scan();
    int last = out_.toks.empty() ? 1 : out_.toks.back().line;
    out_.toks.push_back({Tk::end, {}, last});
    return std::move(out_);
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
  int paren_ = 0;
  bool line_start_ = true;   // at the start of a logical line (indentation matters)
  bool line_tokens_ = false; // the current logical line has tokens
  std::vector<std::size_t> indents_{0};
  Lexed out_;

  char at(std::size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  // Returns false: stop scanning (an error token was added).
  bool error(std::string token, std::string reason) {
    out_.toks.push_back({Tk::error, {}, line_});
    out_.error_token = std::move(token);
    out_.error_reason = std::move(reason);
    return false;
  }

  bool push(Tk kind, std::string_view text) {
    if (out_.toks.size() >= kMaxTokens)
      return error(kind == Tk::name || kind == Tk::number || kind == Tk::op ? std::string(text.substr(0, 40)) : "token",
                   "too many tokens (a region may have at most " + std::to_string(kMaxTokens) + ")");
    out_.toks.push_back({kind, text, line_});
    return true;
  }

  // A byte that no context accepts (a comment's bytes are checked by comment()).
  std::optional<std::string> bad_control(std::size_t k) const {
    const unsigned char c = static_cast<unsigned char>(s_[k]);
    if (c == 0) return "NUL byte";
    if (c == '\r' && at(k + 1) != '\n') return "carriage return without a line feed (Python reads it as a line break)";
    if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f) return "control character";
    return std::nullopt;
  }

  // Indentation of a logical line that starts at i_; false when scanning stops.
  bool indentation() {
    const std::size_t start = i_;  // the line's first byte, or a blank line's first non-space
    std::size_t j = i_;
    while (j < s_.size() && s_[j] == ' ') ++j;
    if (j < s_.size() && s_[j] == '\t') {
      i_ = j;
      return error("\\t", "tab in indentation (indent with spaces)");
    }
    const char c = at(j);
    i_ = j;
    // Blank and comment-only lines do not count; the main loop skips them.
    if (j >= s_.size() || c == '\n' || c == '#' || (c == '\r' && at(j + 1) == '\n')) return true;
    line_start_ = false;
    const std::size_t col = j - start;
    if (col > indents_.back()) {
      indents_.push_back(col);
      return push(Tk::indent, {});
    }
    while (col < indents_.back()) {
      indents_.pop_back();
      if (!push(Tk::dedent, {})) return false;
    }
    if (col != indents_.back()) return error(std::string(s_.substr(j, 1)), "dedent does not match any outer indentation level");
    return true;
  }

  // A string literal's text for the message: from its prefix at `from` and its
  // quote at `q` to its closing quote on the same line, or to the end of the line.
  std::string_view string_text(std::size_t from, std::size_t q) const {
    const char quote = s_[q];
    const bool triple = at(q + 1) == quote && at(q + 2) == quote;
    std::size_t j = q + (triple ? 3 : 1);
    while (j < s_.size() && s_[j] != '\n' && s_[j] != '\r') {
      if (s_[j] == '\\' && at(j + 1) != '\n' && at(j + 1) != '\r') {
        j += 2;
        continue;
      }
      if (s_[j] == quote && (!triple || (at(j + 1) == quote && at(j + 2) == quote))) {
        j += triple ? 3 : 1;
        break;
      }
      ++j;
    }
    return s_.substr(from, std::min(j, s_.size()) - from);
  }

  bool comment() {
    std::size_t j = i_ + 1;
    for (; j < s_.size() && s_[j] != '\n'; ++j) {
      if (s_[j] == '\r' && at(j + 1) == '\n') break;
      if (auto why = bad_control(j)) {
        i_ = j;
        return error(py_printable(static_cast<unsigned char>(s_[j])), *why + " in a comment");
      }
      if (s_.compare(j, 7, "coding:") == 0 || s_.compare(j, 7, "coding=") == 0) {
        i_ = j;
        return error(std::string(s_.substr(j, 7)), "encoding declaration in a comment (it changes how Python reads the file)");
      }
    }
    i_ = j;
    return true;
  }

  void scan() {
    while (i_ < s_.size()) {
      if (line_start_ && paren_ == 0) {
        if (!indentation()) return;
        if (i_ >= s_.size()) break;
      }
      const char c = s_[i_];
      const unsigned char uc = static_cast<unsigned char>(c);
      if (c == '\n') {
        if (paren_ == 0 && line_tokens_) {
          if (!push(Tk::newline, {})) return;
          line_tokens_ = false;
        }
        if (paren_ == 0) line_start_ = true;
        ++line_;
        ++i_;
        continue;
      }
      if (c == '\r' && at(i_ + 1) == '\n') {
        ++i_;
        continue;
      }
      if (c == ' ' || c == '\t') {
        ++i_;
        continue;
      }
      if (c == '#') {
        if (!comment()) return;
        continue;
      }
      if (c == '\\') {
        std::size_t n = i_ + 1;
        if (at(n) == '\r' && at(n + 1) == '\n') ++n;
        if (at(n) != '\n') {
          error("\\", "backslash outside a line continuation");
          return;
        }
        i_ = n + 1;
        ++line_;
        continue;
      }
      if (auto why = bad_control(i_)) {
        error(py_printable(uc), *why);
        return;
      }
      if (uc >= 0x80) {
        error(py_printable(uc), "non-ASCII byte outside a comment");
        return;
      }
      line_tokens_ = true;
      if (py_ident_start(c)) {
        std::size_t j = i_;
        while (j < s_.size() && py_ident_char(s_[j])) ++j;
        const std::string_view w = s_.substr(i_, j - i_);
        if (py_string_prefix(w) && (at(j) == '\'' || at(j) == '"')) {
          push(Tk::str, string_text(i_, j));
          return;  // the parser rejects the string where it meets it
        }
        if (!push(Tk::name, w)) return;
        i_ = j;
        continue;
      }
      if (c == '\'' || c == '"') {
        push(Tk::str, string_text(i_, i_));
        return;
      }
      if (py_digit(c) || (c == '.' && py_digit(at(i_ + 1)))) {
        // The longest run of [A-Za-z0-9_.]: the parser accepts it only when it is
        // an integer literal, so Python can never split it differently.
        std::size_t j = i_;
        while (j < s_.size() && (py_ident_char(s_[j]) || s_[j] == '.')) ++j;
        if (!push(Tk::number, s_.substr(i_, j - i_))) return;
        i_ = j;
        continue;
      }
      bool matched = false;
      for (const char* op : kPyOps) {
        const std::size_t len = std::char_traits<char>::length(op);
        if (s_.compare(i_, len, op) == 0) {
          if (!push(Tk::op, s_.substr(i_, len))) return;
          if (c == '(') ++paren_;
          if (c == ')' && paren_ > 0) --paren_;
          i_ += len;
          matched = true;
          break;
        }
      }
      if (!matched) {
        error(py_printable(uc), "unexpected character");
        return;
      }
    }
    // What the end of the text closes is reported on the line of the last token.
    if (!out_.toks.empty()) line_ = out_.toks.back().line;
    if (line_tokens_ && !push(Tk::newline, {})) return;
    while (indents_.size() > 1) {
      indents_.pop_back();
      if (!push(Tk::dedent, {})) return;
    }
  }
};

}  // namespace

Lexed lex(std::string_view code) { return PyLexer(code).run(); }

std::string shown(const Lexed& lexed, const Token& t) {
  std::string s;
  switch (t.kind) {
    case Tk::newline: return "end of line";
    case Tk::indent: return "indent";
    case Tk::dedent: return "dedent";
    case Tk::end: return "end of region";
    case Tk::error: s = lexed.error_token; break;
    default:  // a string literal may hold any bytes: show them escaped, on one line
      for (char c : t.text) s += py_printable(static_cast<unsigned char>(c));
      break;
  }
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// ---- translation building blocks (declared in py_region_detail.h)

const char* const kTooDeep =
    "nested too deeply for the C++ translation (its nesting bound is 200 levels): split the expression over locals "
    "or flatten the ifs";
const char* const kBoolArith =
    "bool operand in arithmetic (a comparison result is Triton's int1, which does not promote like C's bool)";

const char* const kPrelude =
    "// Translated by swizzleperf from a Triton swizzle region (py_region.cpp): int32 semantics.\n"
    "SWZ_HD int swz_py_neg(int a) { return (int)(0u - (unsigned)a); }\n"
    "SWZ_HD int swz_py_div(int a, int b) {\n"
    "  if (b == -1) return swz_py_neg(a);\n"
    "  return a / b;\n"
    "}\n"
    "SWZ_HD int swz_py_mod(int a, int b) {\n"
    "  if (b == -1) return 0;\n"
    "  return a % b;\n"
    "}\n"
    "SWZ_HD int swz_py_shl(int a, int b) {\n"
    "  if (b < 0 || b > 31) return 0;\n"
    "  return (int)((unsigned)a << b);\n"
    "}\n"
    "SWZ_HD int swz_py_shr(int a, int b) {\n"
    "  if (b < 0 || b > 31) return a < 0 ? -1 : 0;\n"
    "  return a >> b;\n"
    "}\n"
    "SWZ_HD int swz_py_cdiv(int a, int b) { return swz_py_div((int)((unsigned)a + (unsigned)b - 1u), b); }\n"
    "SWZ_HD int swz_py_min(int a, int b) { return a < b ? a : b; }\n"
    "SWZ_HD int swz_py_max(int a, int b) { return a < b ? b : a; }\n";

const char* const kEntry =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return (unsigned)py_swizzle_pid((int)pid, (int)num_pids, (int)grid.m, (int)grid.n);\n"
    "}\n";

bool is_keyword(std::string_view w) {
  static const std::set<std::string_view> k = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
      "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
  return k.count(w) > 0;
}

// Keywords that are rejected wherever they are met, with their reason.
std::optional<std::string> keyword_reason(std::string_view w) {
  if (w == "for" || w == "while" || w == "break" || w == "continue") return "loops are not in the subset";
  if (w == "import" || w == "from") return "imports are not in the subset";
  if (w == "global" || w == "nonlocal") return "global declarations are not in the subset";
  if (w == "lambda") return "lambda is not in the subset";
  if (w == "class") return "classes are not in the subset";
  if (w == "None") return "None is not in the subset (values are int or bool)";
  if (w == "is") return "identity tests ('is') are not in the subset";
  if (w == "in") return "membership tests ('in') are not in the subset";
  if (w == "with" || w == "try" || w == "except" || w == "finally" || w == "raise" || w == "assert" || w == "del" ||
      w == "yield" || w == "async" || w == "await" || w == "as")
    return "'" + std::string(w) + "' is not in the subset";
  return std::nullopt;
}

// Python name -> C++ name: py_<name>, or pyu<name> for a name starting with '_'
// (py__x would hold a double underscore, which the C++ subset refuses).
std::string cpp_name(std::string_view n) {
  return (n[0] == '_' ? std::string("pyu") : std::string("py_")) + std::string(n);
}

bool is_assign_op(std::string_view op) {
  return op == "=" || op == "+=" || op == "-=" || op == "*=" || op == "//=" || op == "%=" || op == "<<=" ||
         op == ">>=" || op == "&=" || op == "|=" || op == "^=" || op == "/=" || op == "**=" || op == "@=";
}

// An integer literal's value, or why it is not one the subset takes.
std::optional<std::string> int_literal(std::string_view t, long long& value) {
  constexpr long long kMax = 2147483647;
  int base = 10;
  std::size_t i = 0;
  if (t.size() >= 2 && t[0] == '0') {
    const char x = t[1];
    if (x == 'x' || x == 'X') base = 16;
    if (x == 'o' || x == 'O') base = 8;
    if (x == 'b' || x == 'B') base = 2;
    if (base != 10) i = 2;
  }
  bool any = false, after_us = false;
  value = 0;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '_') {
      if (after_us || (!any && base == 10)) return "invalid integer literal ('_' must separate digits)";
      after_us = true;
      continue;
    }
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0 || d >= base || (base == 10 && d > 9)) break;
    any = true;
    after_us = false;
    if (value <= kMax) value = value * base + d;
  }
  if (i < t.size()) {
    const char c = t[i];
    if (base == 10 && (c == '.' || c == 'e' || c == 'E')) return "floating-point literal (the region is int32 arithmetic)";
    if (c == 'j' || c == 'J') return "imaginary literal (the region is int32 arithmetic)";
    return "invalid numeric literal";
  }
  if (!any || after_us) return "invalid integer literal";
  if (base == 10 && t[0] == '0' && value != 0)
    return "leading zeros in a decimal literal are not allowed (use 0o for octal)";
  if (value > kMax) return "integer literal outside int32 (at most 2**31 - 1 = 2147483647)";
  return std::nullopt;
}

void Emit::fail(const Token& t, std::string why) const { throw Fail{{t.line, shown(lx_, t), std::move(why)}}; }

void Emit::need_depth(int cost, const Token& at) const {
  if (cost > kMaxCppDepth) fail(at, kTooDeep);
}

Ex Emit::made(std::string s, int u, bool b, const Token& at) const {
  need_depth(u, at);
  return Ex{std::move(s), u, b};
}

Ex Emit::call_ex(const std::string& fn, std::vector<Ex>& args, const Token& at) const {
  std::string s = fn + "(";
  int m = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) s += ", ";
    s += args[i].s;
    m = std::max(m, args[i].u);
  }
  s += ")";
  return made(std::move(s), args.empty() ? 1 : 4 + m, false, at);
}

Ex Emit::chain_ex(std::vector<Ex>& xs, const std::vector<std::string_view>& ops, bool is_bool, const Token& at) const {
  std::string s = "(" + xs[0].s;
  int c = 3 + xs[0].u;
  for (std::size_t i = 1; i < xs.size(); ++i) {
    s.append(" ").append(ops[i - 1]).append(" ").append(xs[i].s);
    c = std::max(c, 4 + xs[i].u);
  }
  s += ")";
  return made(std::move(s), 2 + c, is_bool, at);
}

Ex Emit::ring_ex(std::vector<Ex>& xs, const std::vector<std::string_view>& ops, const Token& at) const {
  std::string s = "(int)((unsigned)" + xs[0].s;
  int c = 3 + 1 + xs[0].u;
  for (std::size_t i = 1; i < xs.size(); ++i) {
    s.append(" ").append(ops[i - 1]).append(" (unsigned)").append(xs[i].s);
    c = std::max(c, 4 + 1 + xs[i].u);
  }
  s += ")";
  return made(std::move(s), 1 + 2 + c, false, at);
}

Ex Emit::to_bool(Ex x, const Token& at) const {
  std::vector<Ex> xs;
  xs.push_back(std::move(x));
  xs.push_back(Ex{"0", 1, false});
  return chain_ex(xs, {"!="}, true, at);
}

void Emit::collapse(int prec, std::vector<Ex>& xs, std::vector<Op>& ops) const {
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const Token& at = ops[i == 0 ? 0 : i - 1].at;
    if (prec <= 2 && !xs[i].b)
      fail(at, "'" + std::string(ops[0].text) + "' needs bool operands (compare an int with != 0)");
    if (prec == 4 && xs[i].b) fail(at, "comparisons take ints (a bool cannot be compared)");
    if (prec > 4 && xs[i].b) fail(at, kBoolArith);
  }
  std::vector<std::string_view> texts;
  for (const Op& o : ops) texts.push_back(o.text == "or" ? "||" : o.text == "and" ? "&&" : o.text);
  const Token at = ops[0].at;
  Ex r;
  if (prec <= 7) {
    r = chain_ex(xs, texts, prec <= 4, at);
  } else if (prec == 8) {
    r = std::move(xs[0]);
    for (std::size_t i = 1; i < xs.size(); ++i) {
      std::vector<Ex> args;
      args.push_back(std::move(r));
      args.push_back(std::move(xs[i]));
      r = call_ex(texts[i - 1] == "<<" ? "swz_py_shl" : "swz_py_shr", args, ops[i - 1].at);
    }
  } else if (prec == 9) {
    r = ring_ex(xs, texts, at);
  } else {
    // * groups wrap around in one ring expression; // and % close the group.
    std::vector<Ex> group;
    std::vector<std::string_view> group_ops;
    group.push_back(std::move(xs[0]));
    for (std::size_t i = 1; i < xs.size(); ++i) {
      if (texts[i - 1] == "*") {
        group.push_back(std::move(xs[i]));
        group_ops.push_back("*");
        continue;
      }
      std::vector<Ex> args;
      args.push_back(group.size() == 1 ? std::move(group[0]) : ring_ex(group, group_ops, ops[i - 1].at));
      args.push_back(std::move(xs[i]));
      Ex q = call_ex(texts[i - 1] == "//" ? "swz_py_div" : "swz_py_mod", args, ops[i - 1].at);
      group.clear();
      group_ops.clear();
      group.push_back(std::move(q));
    }
    r = group.size() == 1 ? std::move(group[0]) : ring_ex(group, group_ops, at);
  }
  xs.clear();
  xs.push_back(std::move(r));
  ops.clear();
}

}  // namespace pyregion

namespace {

// Both API functions: the verdict, and the translation when it validates.
RegionVerdict run_py_region(std::string_view code, std::string& out) {
  RegionVerdict v;
  auto rejected = [&](int line, std::string token, std::string reason) {
    v.ok = false;
    v.line = line;
    v.token = std::move(token);
    v.reason = std::move(reason);
    return v;
  };
  try {
    if (auto st = check_region_size(code.size()); !st) return rejected(0, "", st.error().message);
    const pyregion::Lexed lexed = pyregion::lex(code);
    if (auto r = pyregion::translate(lexed, out)) return rejected(r->line, std::move(r->token), std::move(r->reason));
    if (out.size() > kMaxRegionBytes)
      return rejected(0, "",
                      "the region's C++ translation would be " + std::to_string(out.size()) + " bytes; the limit is " +
                          std::to_string(kMaxRegionBytes) + " (a swizzle is a few lines of integer arithmetic)");
  } catch (const std::exception& e) {  // allocation failure: nothing else throws
    return rejected(0, "", std::string("the region could not be checked: ") + e.what());
  }
  v.ok = true;
  return v;
}

}  // namespace

RegionVerdict validate_py_region(std::string_view code) {
  std::string out;
  return run_py_region(code, out);
}

Result<std::string> translate_py_region(std::string_view code) {
  std::string out;
  const RegionVerdict v = run_py_region(code, out);
  if (!v.ok) return make_error("swizzle region rejected: " + v.message());
  return out;
}

}  // namespace swz
