// Region validator: a hand-written lexer and recursive-descent parser for the
// accepted C++ subset (see the header and docs/kernel-contract.md §1).
//
// Why a parser and not patterns: what the compiler sees is decided by the
// translation phases (trigraphs, line splices, comments, the preprocessor), so
// the validator first refuses every raw-text feature that could make the
// compiler see something other than what this lexer sees, then accepts a
// token stream only when it parses as the subset. Rules, in order:
//  1. Raw text, everywhere (comments included): NUL, control characters other
//     than tab/newline/CR/FF/VT, any backslash (so no line splice, no escape),
//     `??x` trigraph sequences. Outside comments and quotes also: `#`, the
//     digraphs `%:` `<:` `:>` `<%` `%>`, `` ` ``, `@`, `$` and non-ASCII bytes.
//     Inside a comment, quotes, `#` and UTF-8 prose are harmless: once
//     backslashes are gone, the comment rules here match the compiler's.
//  2. Tokens: identifiers, integer literals (decimal, octal, hex, binary; u/U
//     with l/L/ll/LL suffixes; too-large values refused), punctuators, and
//     string/character literals, which exist only to be rejected where the
//     parser meets them (so `system("...")` is reported at `system`). Any
//     quote outside a comment yields such a token, so a region whose quotes
//     could make this scanner and the compiler disagree on where a comment
//     starts is always rejected. Floating literals are refused.
//  3. Grammar: the region is a sequence of `SWZ_HD <int-type> name(params)`
//     definitions (or prototypes followed later by their definition). Names
//     are checked: every identifier used must be a local, a parameter, a
//     function of the region declared before the call, or SWZ_NUM_DIES, so
//     there is no way to reach a library function, a macro of the including
//     file, a global or memory. The call graph must be acyclic.
// The checks aim at "accepted implies compiles" too (arity, lvalues, const,
// break outside a loop, redeclaration), but that part is best effort: a
// constexpr whose value overflows is accepted and fails to compile later,
// which the mapping check reports.
// A rejection unwinds the parser through an internal exception (Reject), caught
// in Parser::run(); it never leaves this file: the API returns values.
#include "swizzleperf/core/region_validator.h"
#include "swizzleperf/core/kernel_source.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace swz {

namespace {

// ---- lexer -------------------------------------------------------------------

enum class Tk { ident, number, punct, str, end };

struct Token {
  Tk kind = Tk::end;
  std::string text;
  int line = 0;
};

struct Reject {
  int line;
  std::string token;
  std::string reason;
};

std::string shorten(std::string s) {
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

std::string printable(unsigned char c) {
  static const char* hex = "0123456789abcdef";
  if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
  return std::string("\\x") + hex[c >> 4] + hex[c & 15];
}

bool trigraph_char(char c) {
  return c == '=' || c == '/' || c == '\'' || c == '(' || c == ')' || c == '!' || c == '<' || c == '>' || c == '-';
}

// Phase 1: the raw checks; also strips comments (replaced by a space, newlines kept).
std::optional<Reject> raw_scan(std::string_view s, std::string& code) {
  int line = 1;
  code.clear();
  code.reserve(s.size());
  enum { normal, line_comment, block_comment, quoted } st = normal;
  char quote = 0;
  int comment_line = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const char n = i + 1 < s.size() ? s[i + 1] : '\0';
    if (c == 0) return Reject{line, "\\x00", "NUL byte"};
    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r' && c != '\f' && c != '\v')
      return Reject{line, printable(c), "control character"};
    if (c == 0x7f) return Reject{line, printable(c), "control character"};
    if (c == '\\') return Reject{line, "\\", n == '\n' || n == '\r' ? "line splice (backslash-newline)" : "backslash (escape sequences and line splices are not allowed)"};
    if (c == '?' && n == '?' && i + 2 < s.size() && trigraph_char(s[i + 2]))
      return Reject{line, std::string("??") + s[i + 2], "trigraph"};
    if (st == quoted) {  // kept for the lexer, which turns it into a (rejected) literal token
      code += static_cast<char>(c);
      if (c == quote || c == '\n') st = normal;
      if (c == '\n') ++line;
      continue;
    }
    if (st == line_comment) {
      if (c == '\n') {
        st = normal;
        code += '\n';
        ++line;
      }
      continue;
    }
    if (st == block_comment) {
      if (c == '*' && n == '/') {
        st = normal;
        code += ' ';
        ++i;
      } else if (c == '\n') {
        code += '\n';
        ++line;
      }
      continue;
    }
    if (c == '/' && n == '/') {
      st = line_comment;
      ++i;
      continue;
    }
    if (c == '/' && n == '*') {
      st = block_comment;
      comment_line = line;
      ++i;
      continue;
    }
    if (c >= 0x80) return Reject{line, printable(c), "non-ASCII byte outside a comment"};
    if (c == '#') return Reject{line, "#", "preprocessor directive or operator"};
    if (c == '%' && n == ':') return Reject{line, "%:", "digraph for '#' (preprocessor)"};
    if ((c == '<' && (n == ':' || n == '%')) || (c == ':' && n == '>') || (c == '%' && n == '>'))
      return Reject{line, std::string(1, static_cast<char>(c)) + n, "digraph"};
    if (c == '"' || c == '\'') {
      st = quoted;
      quote = static_cast<char>(c);
      code += static_cast<char>(c);
      continue;
    }
    if (c == '`' || c == '@' || c == '$') return Reject{line, printable(c), "character not used in C++ code"};
    if (c == '\n') ++line;
    code += static_cast<char>(c);
  }
  if (st == block_comment) return Reject{comment_line, "/*", "unterminated comment"};
  return std::nullopt;
}

const char* kPuncts[] = {"<<=", ">>=", "...", "->*", "<=>", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
                         "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", "{", "}", "(", ")", "[",
                         "]", ";", ",", "?", ":", ".", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">",
                         "="};

std::optional<Reject> lex(const std::string& code, std::vector<Token>& out) {
  int line = 1;
  std::size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < code.size() && (isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) ++j;
      out.push_back({Tk::ident, code.substr(i, j - i), line});
      i = j;
      continue;
    }
    if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < code.size() && code[j] != c && code[j] != '\n') ++j;
      if (j < code.size() && code[j] == c) ++j;
      out.push_back({Tk::str, code.substr(i, j - i), line});
      i = j;
      continue;
    }
    if (isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < code.size() && isdigit(static_cast<unsigned char>(code[i + 1])))) {
      // A pp-number: digits, letters, '_', '.', and e+/e-/p+/p- signs.
      std::size_t j = i;
      while (j < code.size()) {
        const char d = code[j];
        if (isalnum(static_cast<unsigned char>(d)) || d == '_' || d == '.') {
          ++j;
        } else if ((d == '+' || d == '-') && (code[j - 1] == 'e' || code[j - 1] == 'E' || code[j - 1] == 'p' || code[j - 1] == 'P')) {
          ++j;
        } else {
          break;
        }
      }
      out.push_back({Tk::number, code.substr(i, j - i), line});
      i = j;
      continue;
    }
    bool matched = false;
    for (const char* p : kPuncts) {
      const std::size_t len = std::char_traits<char>::length(p);
      if (code.compare(i, len, p) == 0) {
        out.push_back({Tk::punct, p, line});
        i += len;
        matched = true;
        break;
      }
    }
    if (!matched) return Reject{line, printable(static_cast<unsigned char>(c)), "unexpected character"};
  }
  // The end is reported on the line of the last token (1 when there is none).
  out.push_back({Tk::end, "end of region", out.empty() ? 1 : out.back().line});
  return std::nullopt;
}

// Integer literal: returns a reason when it is not one the subset accepts.
std::optional<std::string> check_literal(const std::string& t) {
  std::size_t i = 0;
  int base = 10;
  if (t[0] == '.') return "floating-point literal (the region is integer arithmetic)";
  if (t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (t.size() > 1 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) {
    base = 2;
    i = 2;
  } else if (t[0] == '0') {
    base = 8;
  }
  const std::size_t digits_begin = i;
  unsigned __int128 v = 0;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else break;
    if (d >= base) return "invalid digit in an integer literal";
    v = v * base + d;
    if (v > 0xffffffffffffffffull) return "integer literal too large";
  }
  if (i == digits_begin) return base == 8 ? std::optional<std::string>() : "integer literal without digits";
  if (i < t.size() && (t[i] == '.' || t[i] == 'e' || t[i] == 'E' || t[i] == 'p' || t[i] == 'P'))
    return "floating-point literal (the region is integer arithmetic)";
  std::string suffix = t.substr(i);
  std::string lower;
  for (char c : suffix) lower += static_cast<char>(tolower(static_cast<unsigned char>(c)));
  static const std::set<std::string> ok = {"", "u", "l", "ll", "ul", "lu", "ull", "llu"};
  if (!ok.count(lower)) return "integer literal suffix not allowed (use u, l, ll, ul, ull)";
  // ll must not mix cases (lL is invalid C++).
  if (suffix.find("lL") != std::string::npos || suffix.find("Ll") != std::string::npos)
    return "integer literal suffix not allowed (use u, l, ll, ul, ull)";
  return std::nullopt;
}

// ---- parser ------------------------------------------------------------------

enum class Ty { integer, grid, void_ };

struct Val {
  Ty ty = Ty::integer;
  bool lvalue = false;     // a modifiable lvalue
  bool constant = true;    // a constant expression (for constexpr initializers)
};

struct Var {
  Ty ty = Ty::integer;
  bool is_const = false;
  bool is_constexpr = false;
};

struct Func {
  std::vector<Ty> params;
  std::string ret;
  bool defined = false;
  int line = 0;
};

const std::set<std::string>& forbidden_keywords() {
  static const std::set<std::string> k = {
      "static", "extern", "thread_local", "volatile", "asm", "__asm", "__asm__", "struct", "class", "union",
      "enum", "template", "typename", "namespace", "using", "typedef", "operator", "new", "delete", "goto",
      "throw", "try", "catch", "sizeof", "alignof", "alignas", "decltype", "auto", "register", "mutable",
      "virtual", "friend", "this", "typeid", "inline", "explicit", "export", "constinit", "consteval",
      "co_await", "co_yield", "co_return", "requires", "concept", "noexcept", "static_assert", "nullptr",
      "switch", "case", "default", "do", "float", "double", "char", "wchar_t", "char8_t", "char16_t",
      "char32_t", "reinterpret_cast", "const_cast", "dynamic_cast", "__attribute__", "__attribute",
      "__declspec", "_Pragma", "__pragma", "__builtin_va_arg", "__extension__", "__restrict__", "__restrict",
      "restrict", "__thread", "__global__", "__device__", "__host__", "__shared__", "__constant__",
      "__managed__", "__forceinline__", "__noinline__", "public", "private", "protected", "final", "override",
      "and", "or", "not", "xor", "bitand", "bitor", "compl", "and_eq", "or_eq", "xor_eq", "not_eq", "int128",
      "__int128", "_Bool", "_Complex", "_Atomic", "_Thread_local", "_Static_assert", "_Alignas", "_Noreturn",
      "_Generic"};
  return k;
}

const std::set<std::string>& type_words() {
  static const std::set<std::string> k = {"signed", "unsigned", "short", "int", "long", "bool"};
  return k;
}

// Names the region must not declare: keywords of the subset, macros of the
// including file and the harness, reserved identifiers.
std::optional<std::string> bad_name(const std::string& n) {
  static const std::set<std::string> subset = {"SWZ_HD", "SWZ_NUM_DIES", "SwizzleGrid", "const", "constexpr",
                                               "if", "else", "for", "while", "return", "break", "continue",
                                               "true", "false", "void", "static_cast", "main"};
  static const std::set<std::string> macros = {"assert", "errno", "stdin", "stdout", "stderr", "min", "max",
                                               "NULL", "EOF", "offsetof", "va_start", "va_end", "va_arg",
                                               "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};
  if (type_words().count(n) || subset.count(n) || forbidden_keywords().count(n)) return "reserved word used as a name";
  if (macros.count(n)) return "name of a macro or global of the kernel's headers";
  if (n.find("__") != std::string::npos || (n.size() > 1 && n[0] == '_' && isupper(static_cast<unsigned char>(n[1]))))
    return "reserved identifier (double underscore or underscore + capital)";
  auto starts = [&](const char* p) { return n.rfind(p, 0) == 0; };
  if (starts("SWZ_") || starts("swz_harness") || starts("hip") || starts("HIP") || starts("cuda") || starts("CUDA") ||
      starts("__"))
    return "name reserved for the kernel's headers (SWZ_, hip, cuda prefixes)";
  return std::nullopt;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  std::optional<Reject> run() {
    try {
      region();
    } catch (const Reject& r) {
      return r;
    }
    return std::nullopt;
  }

 private:
  std::vector<Token> t_;
  std::size_t p_ = 0;
  std::map<std::string, Func> funcs_;
  std::string current_;                       // function being defined
  std::map<std::string, std::set<std::string>> calls_;
  std::vector<std::map<std::string, Var>> scopes_;
  int loop_depth_ = 0;
  int depth_ = 0;                             // nesting, to bound recursion on hostile input
  std::vector<std::pair<std::string, int>> var_names_;

  const Token& cur() const { return t_[p_]; }
  const Token& peek(std::size_t k = 1) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool is(const char* s) const { return cur().kind != Tk::end && cur().text == s && cur().kind != Tk::number; }
  bool is_punct(const char* s) const { return cur().kind == Tk::punct && cur().text == s; }

  [[noreturn]] void fail(const Token& tok, const std::string& why) const { throw Reject{tok.line, shorten(tok.text), why}; }
  [[noreturn]] void fail(const std::string& why) const { fail(cur(), why); }

  void expect(const char* s, const char* what) {
    if (!is_punct(s)) fail(std::string("expected ") + what);
    ++p_;
  }

  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > 200) p_.fail("nesting too deep");
    }
    ~Depth() { --p_.depth_; }
    Parser& p_;
  };

  // Why a token cannot start what we expected: forbidden things get their own reason.
  [[noreturn]] void fail_unexpected(const std::string& expected) const {
    const Token& tok = cur();
    if (tok.kind == Tk::str) fail(tok, tok.text[0] == '"' ? "string literal" : "character literal");
    if (tok.kind == Tk::ident) {
      const std::string& n = tok.text;
      if (n == "static") fail(tok, "'static' is not allowed (no static storage in the region)");
      if (n == "extern") fail(tok, "'extern' is not allowed (nothing outside the region can be reached)");
      if (n == "thread_local" || n == "__thread") fail(tok, "thread-local storage is not allowed");
      if (n == "volatile") fail(tok, "'volatile' is not allowed");
      if (n == "asm" || n == "__asm" || n == "__asm__") fail(tok, "inline assembly is not allowed");
      if (n == "__attribute__" || n == "__attribute" || n == "__declspec") fail(tok, "attributes are not allowed");
      if (n == "struct" || n == "class" || n == "union" || n == "enum")
        fail(tok, "type definitions are not allowed (only functions over integers)");
      if (n == "sizeof" || n == "alignof") fail(tok, "'" + n + "' is not allowed");
      if (forbidden_keywords().count(n)) fail(tok, "'" + n + "' is not in the accepted subset");
    }
    if (tok.kind == Tk::punct) {
      if (tok.text == "[" && peek().kind == Tk::punct && peek().text == "[") fail(tok, "attributes are not allowed");
      if (tok.text == "[" || tok.text == "]") fail(tok, "arrays and subscripts are not allowed");
      if (tok.text == "::") fail(tok, "qualified names ('::') are not allowed");
      if (tok.text == "->" || tok.text == "->*" || tok.text == ".*") fail(tok, "pointers are not allowed");
    }
    fail(tok, "expected " + expected);
  }

  // ---- scopes
  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }
  const Var* lookup(const std::string& n) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }
  void declare(const Token& name, Var v) {
    if (auto why = bad_name(name.text)) fail(name, *why);
    if (scopes_.back().count(name.text)) fail(name, "redeclared in the same scope");
    scopes_.back()[name.text] = v;
    var_names_.push_back({name.text, name.line});
  }

  // ---- types
  bool at_type() const { return cur().kind == Tk::ident && type_words().count(cur().text); }

  // Integral type-specifier sequence; returns a canonical spelling.
  std::string int_type() {
    const Token& first = cur();
    int sign = 0, shorts = 0, longs = 0, ints = 0, bools = 0;
    while (at_type()) {
      const std::string& w = cur().text;
      if (w == "signed" || w == "unsigned") ++sign;
      else if (w == "short") ++shorts;
      else if (w == "long") ++longs;
      else if (w == "int") ++ints;
      else if (w == "bool") ++bools;
      ++p_;
    }
    if (sign > 1 || shorts > 1 || longs > 2 || ints > 1 || (shorts && longs) || (bools && (sign || shorts || longs || ints)) ||
        (sign + shorts + longs + ints + bools == 0))
      fail(first, "not a valid integral type");
    if (bools) return "bool";
    return std::to_string(sign) + std::to_string(shorts) + std::to_string(longs);
  }

  // ---- top level
  void region() {
    if (cur().kind == Tk::end) fail("the region is empty: it must define swizzle_pid");
    while (cur().kind != Tk::end) function();
    auto it = funcs_.find("swizzle_pid");
    if (it == funcs_.end()) fail("the region must define swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid)");
    for (const auto& [name, f] : funcs_)
      if (!f.defined) {
        Token tok{Tk::ident, name, f.line};
        fail(tok, "declared but never defined");
      }
    for (const auto& [name, line] : var_names_)
      if (funcs_.count(name)) {
        Token tok{Tk::ident, name, line};
        fail(tok, "a variable must not have the name of a function of the region");
      }
    // No recursion: the call graph must be acyclic (a GPU thread's stack is tiny).
    std::map<std::string, int> state;
    std::function<void(const std::string&)> dfs = [&](const std::string& f) {
      state[f] = 1;
      for (const auto& g : calls_[f]) {
        if (state[g] == 1) {
          Token tok{Tk::ident, g, funcs_[g].line};
          fail(tok, "recursion is not allowed");
        }
        if (state[g] == 0) dfs(g);
      }
      state[f] = 2;
    };
    for (const auto& [name, f] : funcs_)
      if (state[name] == 0) dfs(name);
  }

  void function() {
    if (!(cur().kind == Tk::ident && cur().text == "SWZ_HD")) {
      if (cur().kind == Tk::ident && (at_type() || cur().text == "SwizzleGrid" || cur().text == "const"))
        fail("a declaration outside a function (file-scope variable) or a function without SWZ_HD");
      fail_unexpected("a function definition starting with SWZ_HD");
    }
    ++p_;
    if (is("void")) fail("functions must return an integral type");
    if (is("const") || is("constexpr")) fail("qualifiers on the return type are not allowed");
    if (!at_type()) fail_unexpected("the return type (an integral type)");
    const std::string ret = int_type();
    if (is_punct("*") || is_punct("&") || is_punct("&&")) fail("pointers and references are not allowed");
    if (is_punct("(")) fail("function pointers are not allowed");
    if (cur().kind != Tk::ident) fail_unexpected("the function name");
    const Token name = cur();
    if (auto why = bad_name(name.text)) fail(name, *why);
    ++p_;
    if (!is_punct("(")) {
      if (is_punct("=") || is_punct(";") || is_punct(","))
        fail(name, "file-scope variables are not allowed");
      fail_unexpected("'(' after the function name");
    }
    ++p_;
    push();
    Func f;
    f.ret = ret;
    f.line = name.line;
    if (is("void") && peek().kind == Tk::punct && peek().text == ")") ++p_;
    if (!is_punct(")")) {
      for (;;) {
        bool is_const = false;
        if (is("const")) {
          is_const = true;
          ++p_;
        }
        Ty ty = Ty::integer;
        if (is("SwizzleGrid")) {
          ty = Ty::grid;
          ++p_;
        } else if (at_type()) {
          int_type();
        } else {
          fail_unexpected("a parameter type (an integral type or SwizzleGrid)");
        }
        if (is("const")) fail("put 'const' before the type");
        if (is_punct("*") || is_punct("&") || is_punct("&&")) fail("pointers and references are not allowed");
        if (is_punct("(")) fail("function pointers are not allowed");
        if (cur().kind != Tk::ident) fail_unexpected("a parameter name");
        declare(cur(), Var{ty, is_const, false});
        ++p_;
        if (is_punct("[")) fail("arrays are not allowed");
        if (is_punct("=")) fail("default arguments are not allowed");
        f.params.push_back(ty);
        if (is_punct(",")) {
          ++p_;
          continue;
        }
        break;
      }
    }
    expect(")", "')' after the parameters");
    if (name.text == "swizzle_pid") {
      if (f.params.size() != 3 || f.params[0] != Ty::integer || f.params[1] != Ty::integer || f.params[2] != Ty::grid)
        fail(name, "swizzle_pid must take (unsigned pid, unsigned num_pids, SwizzleGrid grid)");
    }
    auto existing = funcs_.find(name.text);
    if (existing != funcs_.end()) {
      if (existing->second.params != f.params || existing->second.ret != f.ret)
        fail(name, "declared again with another signature (no overloading)");
    }
    if (is_punct(";")) {  // a prototype
      ++p_;
      pop();
      if (existing == funcs_.end()) funcs_[name.text] = f;
      return;
    }
    if (existing != funcs_.end() && existing->second.defined) fail(name, "defined twice");
    f.defined = true;
    funcs_[name.text] = f;  // declared from here on (a call to itself is caught as recursion)
    current_ = name.text;
    calls_[current_];
    if (!is_punct("{")) fail_unexpected("'{' to start the function body");
    block(/*new_scope=*/false);  // the body shares the parameters' scope
    pop();
    current_.clear();
  }

  // ---- statements
  void block(bool new_scope) {
    Depth d(*this);
    expect("{", "'{'");
    if (new_scope) push();
    while (!is_punct("}")) {
      if (cur().kind == Tk::end) fail("missing '}'");
      statement();
    }
    ++p_;
    if (new_scope) pop();
  }

  // A sub-statement (if/else/loop body) is its own scope.
  void sub_statement() {
    push();
    if (is_punct("{")) block(false);
    else statement();
    pop();
  }

  bool at_declaration() const {
    return at_type() || (cur().kind == Tk::ident && (cur().text == "const" || cur().text == "constexpr" || cur().text == "SwizzleGrid"));
  }

  void declaration() {
    bool is_const = false, is_constexpr = false;
    while (is("const") || is("constexpr")) {
      if (is("const")) {
        if (is_const) fail("'const' twice");
        is_const = true;
      } else {
        if (is_constexpr) fail("'constexpr' twice");
        is_constexpr = true;
      }
      ++p_;
    }
    if (is("SwizzleGrid")) fail("SwizzleGrid locals are not allowed (use the parameter and its .m/.n)");
    if (is("static")) fail("'static' is not allowed (no static storage in the region)");
    if (!at_type()) fail_unexpected("an integral type");
    int_type();
    if (is("const") || is("constexpr")) fail("put 'const' before the type");
    for (;;) {
      if (is_punct("*") || is_punct("&") || is_punct("&&")) fail("pointers and references are not allowed");
      if (is_punct("(")) fail("function pointers and nested declarations are not allowed");
      if (cur().kind != Tk::ident) fail_unexpected("a variable name");
      const Token name = cur();
      if (auto why = bad_name(name.text)) fail(name, *why);
      ++p_;
      if (is_punct("[")) fail("arrays are not allowed");
      if (is_punct("(")) fail("a function declaration inside a function is not allowed");
      if (is_punct("{")) fail("brace initialization is not allowed (use '=')");
      if (is_punct("=")) {
        ++p_;
        if (is_punct("{")) fail("brace initialization is not allowed (use '=')");
        Val v = assignment();
        if (v.ty != Ty::integer) fail(name, "initializer is not an integer");
        if (is_constexpr && !v.constant) fail(name, "constexpr needs a constant initializer (literals, SWZ_NUM_DIES, other constexpr names)");
      } else if (is_const || is_constexpr) {
        fail(name, "a const variable needs an initializer");
      }
      // In scope only after its own initializer (C++ scope starts at the declarator,
      // but using a variable in its own initializer is never needed).
      declare(name, Var{Ty::integer, is_const || is_constexpr, is_constexpr});
      if (is_punct(",")) {
        ++p_;
        continue;
      }
      break;
    }
    expect(";", "';' after the declaration");
  }

  void statement() {
    Depth d(*this);
    const Token& tok = cur();
    if (tok.kind == Tk::punct) {
      if (tok.text == "{") return block(true);
      if (tok.text == ";") {
        ++p_;
        return;
      }
    }
    if (tok.kind == Tk::ident) {
      const std::string& w = tok.text;
      if (w == "if") {
        ++p_;
        condition();
        sub_statement();
        if (is("else")) {
          ++p_;
          sub_statement();
        }
        return;
      }
      if (w == "while") {
        ++p_;
        condition();
        ++loop_depth_;
        sub_statement();
        --loop_depth_;
        return;
      }
      if (w == "for") {
        ++p_;
        expect("(", "'(' after for");
        push();
        if (is_punct(";")) ++p_;
        else if (at_declaration()) declaration();
        else {
          expression();
          expect(";", "';' in the for clause");
        }
        if (!is_punct(";")) {
          if (expression().ty != Ty::integer) fail("the loop condition must be an integer expression");
        }
        expect(";", "';' in the for clause");
        if (!is_punct(")")) expression();
        expect(")", "')' to close the for clause");
        ++loop_depth_;
        // The body's outermost block shares the for's scope (C++: redeclaring
        // the loop variable there is an error).
        if (is_punct("{")) block(false);
        else statement();
        --loop_depth_;
        pop();
        return;
      }
      if (w == "return") {
        ++p_;
        if (is_punct(";")) fail("return needs a value (the functions return integers)");
        if (is_punct("{")) fail("brace initialization is not allowed");
        if (expression().ty != Ty::integer) fail("return value is not an integer");
        expect(";", "';' after return");
        return;
      }
      if (w == "break" || w == "continue") {
        if (loop_depth_ == 0) fail("'" + w + "' outside a loop");
        ++p_;
        expect(";", "';'");
        return;
      }
      if (w == "else") fail("'else' without 'if'");
      if (w == "SWZ_HD") fail("a function definition inside a function is not allowed");
      if (at_declaration() || w == "static") return declaration();
      if (w == "void" ) fail("'void' is only allowed as '(void)x;' to mark an unused value");
    }
    if (tok.kind == Tk::punct && tok.text == "(" && peek().kind == Tk::ident && peek().text == "void" &&
        peek(2).kind == Tk::punct && peek(2).text == ")") {
      p_ += 3;  // (void)expr; discards a value
      unary();
      expect(";", "';' after the expression");
      return;
    }
    expression();
    expect(";", "';' after the expression");
  }

  void condition() {
    expect("(", "'('");
    if (at_declaration()) fail("declarations in conditions are not allowed");
    if (expression().ty != Ty::integer) fail("the condition must be an integer expression");
    expect(")", "')'");
  }

  // ---- expressions
  Val need_int(Val v, const Token& at) {
    if (v.ty == Ty::grid) fail(at, "a SwizzleGrid can only be passed on or read through .m/.n");
    if (v.ty == Ty::void_) fail(at, "a void value cannot be used");
    return v;
  }

  Val expression() {
    Depth d(*this);
    Val v = assignment();
    while (is_punct(",")) {
      const Token at = cur();
      ++p_;
      Val r = assignment();
      need_int(v, at);
      v = need_int(r, at);
      v.constant = false;
      v.lvalue = false;
    }
    return v;
  }

  Val assignment() {
    Depth d(*this);
    const Token start = cur();
    Val lhs = conditional();
    static const std::set<std::string> ops = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    if (cur().kind == Tk::punct && ops.count(cur().text)) {
      const Token op = cur();
      if (lhs.ty == Ty::grid) fail(op, "a SwizzleGrid cannot be assigned");
      if (!lhs.lvalue) fail(op, "assignment to something that is not a modifiable variable");
      ++p_;
      if (is_punct("{")) fail("brace initialization is not allowed");
      need_int(assignment(), op);
      return Val{Ty::integer, true, false};
    }
    return lhs;
  }

  Val conditional() {
    Depth d(*this);
    Val c = binary(0);
    if (is_punct("?")) {
      const Token q = cur();
      need_int(c, q);
      ++p_;
      Val a = need_int(expression(), q);
      expect(":", "':' in the conditional expression");
      Val b = need_int(assignment(), q);
      return Val{Ty::integer, false, c.constant && a.constant && b.constant};
    }
    return c;
  }

  static int precedence(const std::string& op) {
    if (op == "||") return 1;
    if (op == "&&") return 2;
    if (op == "|") return 3;
    if (op == "^") return 4;
    if (op == "&") return 5;
    if (op == "==" || op == "!=") return 6;
    if (op == "<" || op == ">" || op == "<=" || op == ">=") return 7;
    if (op == "<<" || op == ">>") return 8;
    if (op == "+" || op == "-") return 9;
    if (op == "*" || op == "/" || op == "%") return 10;
    return 0;
  }

  Val binary(int min_prec) {
    Depth d(*this);
    Val lhs = unary();
    for (;;) {
      if (cur().kind != Tk::punct) break;
      if (cur().text == "<=>") fail("'<=>' is not allowed");
      const int prec = precedence(cur().text);
      if (prec == 0 || prec <= min_prec) break;
      const Token op = cur();
      ++p_;
      need_int(lhs, op);
      Val rhs = need_int(binary(prec), op);
      lhs = Val{Ty::integer, false, lhs.constant && rhs.constant};
    }
    return lhs;
  }

  Val unary() {
    Depth d(*this);
    const Token tok = cur();
    if (tok.kind == Tk::punct) {
      if (tok.text == "++" || tok.text == "--") {
        ++p_;
        Val v = unary();
        if (v.ty != Ty::integer || !v.lvalue) fail(tok, "'" + tok.text + "' needs a modifiable integer variable");
        return Val{Ty::integer, true, false};
      }
      if (tok.text == "+" || tok.text == "-" || tok.text == "!" || tok.text == "~") {
        ++p_;
        Val v = need_int(unary(), tok);
        return Val{Ty::integer, false, v.constant};
      }
      if (tok.text == "*") fail(tok, "pointers are not allowed");
      if (tok.text == "&") fail(tok, "taking an address is not allowed");
      if (tok.text == "&&") fail(tok, "taking an address is not allowed");
      if (tok.text == "(" && peek().kind == Tk::ident && (type_words().count(peek().text) || peek().text == "const")) {
        ++p_;  // C-style cast to an integral type
        if (is("const")) ++p_;
        int_type();
        if (is_punct("*") || is_punct("&")) fail("pointer and reference casts are not allowed");
        expect(")", "')' to close the cast");
        Val v = need_int(unary(), tok);
        return Val{Ty::integer, false, v.constant};
      }
      if (tok.text == "(" && peek().kind == Tk::ident && peek().text == "void")
        fail(peek(), "a cast to void is only allowed as a whole statement: '(void)x;'");
    }
    if (tok.kind == Tk::ident && tok.text == "static_cast") {
      ++p_;
      expect("<", "'<' after static_cast");
      if (!at_type()) fail_unexpected("an integral type in static_cast");
      int_type();
      if (is_punct("*") || is_punct("&")) fail("pointer and reference casts are not allowed");
      expect(">", "'>' after the type");
      expect("(", "'(' after static_cast<...>");
      Val v = need_int(expression(), tok);
      expect(")", "')'");
      return postfix(Val{Ty::integer, false, v.constant});
    }
    return postfix(primary());
  }

  Val postfix(Val v) {
    for (;;) {
      const Token tok = cur();
      if (tok.kind != Tk::punct) return v;
      if (tok.text == "++" || tok.text == "--") {
        if (v.ty != Ty::integer || !v.lvalue) fail(tok, "'" + tok.text + "' needs a modifiable integer variable");
        ++p_;
        v = Val{Ty::integer, false, false};
        continue;
      }
      if (tok.text == ".") {
        if (v.ty != Ty::grid) fail(tok, "'.' is only allowed on a SwizzleGrid (grid.m, grid.n)");
        ++p_;
        if (!(cur().kind == Tk::ident && (cur().text == "m" || cur().text == "n")))
          fail("a SwizzleGrid has only the members m and n");
        ++p_;
        v = Val{Ty::integer, v.lvalue, false};
        continue;
      }
      if (tok.text == "[" ) fail(tok, "arrays and subscripts are not allowed");
      if (tok.text == "->" || tok.text == "->*" || tok.text == ".*") fail(tok, "pointers are not allowed");
      if (tok.text == "(") fail(tok, "only functions of the region can be called, by name");
      if (tok.text == "::") fail(tok, "qualified names ('::') are not allowed");
      return v;
    }
  }

  Val primary() {
    const Token tok = cur();
    if (tok.kind == Tk::str) fail_unexpected("an expression");
    if (tok.kind == Tk::number) {
      if (auto why = check_literal(tok.text)) fail(tok, *why);
      ++p_;
      return Val{Ty::integer, false, true};
    }
    if (tok.kind == Tk::punct && tok.text == "(") {
      ++p_;
      Val v = expression();
      expect(")", "')'");
      return v;  // a parenthesized lvalue stays one
    }
    if (tok.kind == Tk::ident) {
      const std::string& n = tok.text;
      if (n == "SWZ_NUM_DIES" || n == "true" || n == "false") {
        ++p_;
        return Val{Ty::integer, false, true};
      }
      if (peek().kind == Tk::punct && peek().text == "::") fail(peek(), "qualified names ('::') are not allowed");
      if (peek().kind == Tk::punct && peek().text == "(" && !lookup(n)) return call();
      if (const Var* v = lookup(n)) {
        ++p_;
        return Val{v->ty, !v->is_const, v->is_constexpr};
      }
      if (forbidden_keywords().count(n) || type_words().count(n) || n == "SWZ_HD" || n == "SwizzleGrid" || n == "const" ||
          n == "constexpr" || n == "void")
        fail_unexpected("an expression");
      if (funcs_.count(n)) fail(tok, "a function of the region can only be called");
      fail(tok, "not a variable or parameter of this function (globals and library names are not allowed)");
    }
    fail_unexpected("an expression");
  }

  Val call() {
    const Token name = cur();
    auto it = funcs_.find(name.text);
    if (forbidden_keywords().count(name.text)) fail_unexpected("an expression");
    if (it == funcs_.end()) fail(name, "call to a function not defined in the region");
    ++p_;
    expect("(", "'('");
    std::vector<Ty> args;
    if (!is_punct(")")) {
      for (;;) {
        Val a = assignment();
        if (a.ty == Ty::void_) fail(name, "a void value cannot be passed");
        args.push_back(a.ty);
        if (is_punct(",")) {
          ++p_;
          continue;
        }
        break;
      }
    }
    expect(")", "')' to close the call");
    const Func& f = it->second;
    if (args.size() != f.params.size())
      fail(name, "called with " + std::to_string(args.size()) + " argument(s), it takes " + std::to_string(f.params.size()));
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i] != f.params[i])
        fail(name, "argument " + std::to_string(i + 1) + " has the wrong type (integer vs SwizzleGrid)");
    if (!current_.empty()) calls_[current_].insert(name.text);
    return Val{Ty::integer, false, false};
  }
};

}  // namespace

std::string RegionVerdict::message() const {
  if (ok) return {};
  if (line == 0) return reason;  // about the whole region (its size), not a token
  return "line " + std::to_string(line) + ": '" + token + "': " + reason;
}

RegionVerdict validate_region_code(std::string_view code) {
  RegionVerdict v;
  auto rejected = [&](const Reject& r) {
    v.ok = false;
    v.line = r.line;
    v.token = r.token;
    v.reason = r.reason;
    return v;
  };
  // First the size: every later stage is linear, but a region this large is no swizzle.
  if (auto st = check_region_size(code.size()); !st) return rejected({0, "", st.error().message});
  std::string stripped;
  if (auto r = raw_scan(code, stripped)) return rejected(*r);
  std::vector<Token> toks;
  if (auto r = lex(stripped, toks)) return rejected(*r);
  Parser parser(std::move(toks));
  if (auto r = parser.run()) return rejected(*r);
  v.ok = true;
  return v;
}

Status check_region_code(std::string_view code) {
  auto v = validate_region_code(code);
  if (v.ok) return ok_status();
  return make_error("swizzle region rejected: " + v.message());
}

}  // namespace swz
