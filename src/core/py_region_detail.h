// Private to py_region.cpp (the lexer and the API) and py_region_translate.cpp
// (the parser, checker and translator); see py_region.cpp for the contract.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace swz::pyregion {

// Bounds (stated in py_region.cpp's header comment).
inline constexpr std::size_t kMaxTokens = 10000;  // every token counts, NEWLINE/INDENT/DEDENT included
inline constexpr int kMaxNesting = 200;           // parser recursion: blocks, parentheses, operators
// The deepest the C++ validator may have to go into the translation. Its own bound
// is 200 (a level per statement, block and expression-grammar step); the rest is a
// margin against miscounting the cost model in py_region_translate.cpp.
inline constexpr int kMaxCppDepth = 190;

enum class Tk { name, number, op, newline, indent, dedent, str, error, end };

struct Token {
  Tk kind = Tk::end;
  std::string_view text;  // into the region text (empty for newline/indent/dedent/end/error)
  int line = 1;
};

// The lexer never fails: what it cannot tokenize becomes ONE error token (its
// text and reason below), after which only `end` follows. So the parser, which
// meets tokens in order, reports the first problem in the text's order.
struct Lexed {
  std::vector<Token> toks;  // always ends with Tk::end
  std::string error_token;  // shown text of the error token, if any
  std::string error_reason;
};

Lexed lex(std::string_view code);

struct Reject {
  int line = 0;
  std::string token;
  std::string reason;
};

// ---- translation building blocks (py_region.cpp)

// A rejection, thrown inside translate() only and caught at its entry.
struct Fail {
  Reject r;
};

// A C++ translation of a Python expression: a C++ "unary form" (see the cost
// model in py_region_translate.cpp), its nesting cost U, and its type.
struct Ex {
  std::string s;
  int u = 1;
  bool b = false;  // bool (else int32)
};

struct Op {
  std::string_view text;  // the operator ("+" for "+=")
  Token at;               // where to report
};

extern const char* const kPrelude;    // the swz_py_* helpers, emitted first
extern const char* const kEntry;      // the C++ swizzle_pid, emitted last
extern const char* const kTooDeep;    // reasons shared by both files
extern const char* const kBoolArith;

bool is_keyword(std::string_view w);
// Keywords rejected wherever they are met, with their reason.
std::optional<std::string> keyword_reason(std::string_view w);
// Python name -> C++ name: py_<name>, or pyu<name> for a name starting with '_'
// (py__x would hold a double underscore, which the C++ subset refuses).
std::string cpp_name(std::string_view n);
bool is_assign_op(std::string_view op);
// An integer literal's value, or why it is not one the subset takes.
std::optional<std::string> int_literal(std::string_view t, long long& value);

// Builds C++ expressions (U as in the cost model) and rejects, with the
// region's tokens, what is too deep or mistyped.
class Emit {
 public:
  explicit Emit(const Lexed& lx) : lx_(lx) {}
  [[noreturn]] void fail(const Token& t, std::string why) const;
  void need_depth(int cost, const Token& at) const;
  Ex made(std::string s, int u, bool b, const Token& at) const;
  Ex call_ex(const std::string& fn, std::vector<Ex>& args, const Token& at) const;
  // (X1 op1 X2 op2 ...) with ops of one C++ precedence.
  Ex chain_ex(std::vector<Ex>& xs, const std::vector<std::string_view>& ops, bool is_bool, const Token& at) const;
  // (int)((unsigned)X1 op1 (unsigned)X2 ...) for + - *: wraps around like int32.
  Ex ring_ex(std::vector<Ex>& xs, const std::vector<std::string_view>& ops, const Token& at) const;
  Ex to_bool(Ex x, const Token& at) const;  // (X != 0)
  // xs[0] op0 xs[1] op1 ... of one Python precedence (1 or .. 10) -> xs = {result}, ops = {}.
  void collapse(int prec, std::vector<Ex>& xs, std::vector<Op>& ops) const;

 private:
  const Lexed& lx_;
};

// Parses, checks and translates; on success `out` is the C++ region text.
std::optional<Reject> translate(const Lexed& lexed, std::string& out);

// A token as the messages show it ("end of line", "indent", the text shortened).
std::string shown(const Lexed& lexed, const Token& t);

}  // namespace swz::pyregion
