// The CUDA/HIP source scanner (see the header).
//
// How it works. One pass of a hand-written lexer turns the text into code tokens
// (identifiers, numbers, string and character literals, punctuation) and, beside
// them, the spans of comments and preprocessor lines, which are never tokens:
//   - `//` comments run to the end of the line, a backslash-newline continuing them;
//     `/* */` comments to the first `*/` (or the end of the text).
//   - "..." and '...' literals end at their unescaped quote; an unterminated one ends
//     at the end of its line, as compilers recover. Prefixes L, u, U, u8 are part of
//     the literal, and so is a raw string R"delim(...)delim" (delimiter of at most 16
//     characters; a malformed one is read as an ordinary string).
//   - Digit separators (1'000'000) stay inside their number (pp-number rules).
//   - A `#` (or the digraph `%:`) that is the first thing on a line, comments aside,
//     starts a preprocessor line, which runs to an unspliced newline; literals and
//     comments inside it are skipped (a `/* */` may carry it over several lines).
//   - A backslash-newline in code is whitespace; a UTF-8 byte order mark is skipped;
//     other bytes below 0x20 are whitespace, bytes from 0x80 up are identifier
//     characters (UTF-8 identifiers), so every input lexes.
//   - Punctuation is one character, except `::` and `->`. `<<<` and `>>>` are three
//     `<`/`>` tokens with nothing between them, so that `a<b<c<int>>>` still closes
//     its template arguments one by one.
// A second pass matches (), [] and {} with an explicit stack (a closer that does not
// match is dropped; a `}` closes the parentheses left open inside its braces). Every
// later question is answered from the tokens and that table with walks of bounded
// length, or walks that never revisit a token, so the whole scan is linear in the
// text and uses no recursion:
//   - functions: a `{` is a function body when, walking back over specifiers
//     (const, noexcept(...), __attribute__((...)), a trailing return type, a
//     constructor's member initializers), it follows the `)` of a parameter list
//     whose '(' follows a name that is not a keyword (if, for, while, ...). Only
//     bodies not inside another function body are kept (lambdas are not functions).
//   - kernels: from each `__global__`, forward to the first '(' that follows a name
//     other than an attribute (`__launch_bounds__(...)`, `__attribute__((...))`,
//     `[[...]]` are stepped over), then past its ')' to a '{' (a definition) or ';'
//     (a declaration); back from it over specifiers to see a `template<...>`.
//   - launches: three adjacent '<' after a name (or after a name's template
//     arguments), a configuration up to three adjacent '>' at bracket depth 0, then
//     the argument list; or `hipLaunchKernelGGL(` with at least five arguments.
//     A launch's arguments are not searched for other launches (no real code
//     has one there, and reading them would make nested input quadratic).
//     Arguments split at top-level commas: commas inside brackets, and inside a
//     '<' ... '>' that follows a name and is followed by '(', '{', '::', ',', ')',
//     '>', ']', ';' or the end (a template argument list), do not split.
// Limits, by design: the preprocessor is not run, so a kernel or launch written
// through a macro is not seen, and both branches of an #if are read as code (braces
// unbalanced across branches confuse the function finder for the rest of the file);
// a `<` that is a comparison but looks like template arguments (`f(a<b, c>(d))`) is
// read as template arguments; a function whose name comes from a macro, an operator
// function and a lambda have no name here; `a < b` inside a launch's template
// arguments is taken for one. Text past kMaxScanBytes is not scanned, which
// also keeps every offset in 32 bits.
#include "swizzleperf/core/cuda_scan.h"

#include "cuda_scan_detail.h"

#include <algorithm>
#include <unordered_set>

namespace swz {

using namespace cuda_scan_detail;


CudaSource::CudaSource(std::string_view text) : text_(text.substr(0, std::min(text.size(), kMaxScanBytes))) {
  lex();
  match_brackets();
  find_functions();
  find_kernels();
  find_launches();
  find_harness_point();
}

// ---- tokens ------------------------------------------------------------------------------

bool CudaSource::punct(std::size_t i, char c) const {
  if (i >= toks_.size()) return false;
  const Token& t = toks_[i];
  return t.kind == kPunct && t.end - t.begin == 1 && text_[t.begin] == c;
}

bool CudaSource::punct2(std::size_t i, std::string_view two) const {
  if (i >= toks_.size()) return false;
  const Token& t = toks_[i];
  return t.kind == kPunct && t.end - t.begin == 2 && text_.substr(t.begin, 2) == two;
}

bool CudaSource::ident(std::size_t i) const { return i < toks_.size() && toks_[i].kind == kIdent; }

bool CudaSource::ident(std::size_t i, std::string_view word) const { return ident(i) && tok(i) == word; }

bool CudaSource::adjacent(std::size_t i) const {
  return i > 0 && i < toks_.size() && toks_[i].begin == toks_[i - 1].end;
}

bool CudaSource::triple(std::size_t i, char c) const {
  return punct(i, c) && punct(i + 1, c) && punct(i + 2, c) && adjacent(i + 1) && adjacent(i + 2);
}

std::size_t CudaSource::token_at_or_after(std::size_t offset) const {
  auto it = std::lower_bound(toks_.begin(), toks_.end(), offset,
                             [](const Token& t, std::size_t off) { return t.begin < off; });
  return static_cast<std::size_t>(it - toks_.begin());
}

// ---- the lexer -----------------------------------------------------------------------------

void CudaSource::lex() {
  const std::string_view s = text_;
  const std::size_t n = s.size();
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < n; ++i)
    if (s[i] == '\n') line_starts_.push_back(static_cast<std::uint32_t>(i + 1));

  // A backslash-newline (or backslash-CR-LF) at i: its length, else 0.
  auto splice = [&](std::size_t i) -> std::size_t {
    if (i >= n || s[i] != '\\') return 0;
    if (i + 1 < n && s[i + 1] == '\n') return 2;
    if (i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') return 3;
    return 0;
  };
  auto add_comment = [&](std::size_t b, std::size_t e) {
    comments_.push_back({static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e)});
  };
  // From a "//" at i to its newline (not consumed).
  auto line_comment = [&](std::size_t i) {
    std::size_t j = i + 2;
    while (j < n && s[j] != '\n') {
      if (const std::size_t sp = splice(j)) j += sp;
      else ++j;
    }
    add_comment(i, j);
    return j;
  };
  auto block_comment = [&](std::size_t i) {
    const std::size_t close = s.find("*/", i + 2);
    const std::size_t j = close == std::string_view::npos ? n : close + 2;
    add_comment(i, j);
    return j;
  };
  // From the quote at i to just past its closing quote; an unterminated literal ends
  // at its newline (not consumed).
  auto quoted = [&](std::size_t i, char q) {
    std::size_t j = i + 1;
    while (j < n) {
      const char c = s[j];
      if (c == '\\') {
        const std::size_t sp = splice(j);
        j += sp ? sp : 2;
        continue;
      }
      if (c == q) return j + 1;
      if (c == '\n') return j;
      ++j;
    }
    return n;
  };
  // From the '"' of a raw string at i to just past its closing delimiter.
  auto raw = [&](std::size_t i) {
    std::size_t k = i + 1;
    auto delim_char = [](unsigned char c) { return c > ' ' && c < 0x7f && c != '(' && c != ')' && c != '\\'; };
    while (k < n && k - (i + 1) <= 16 && delim_char(static_cast<unsigned char>(s[k]))) ++k;
    if (k >= n || s[k] != '(' || k - (i + 1) > 16) return quoted(i, '"');
    std::string closing = ")";
    closing.append(s.substr(i + 1, k - i - 1));
    closing += '"';
    const std::size_t at = s.find(closing, k + 1);
    return at == std::string_view::npos ? n : at + closing.size();
  };
  auto directive = [&](std::size_t i) {
    std::size_t j = i + (s[i] == '#' ? 1 : 2);
    while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
    const std::size_t w = j;
    while (j < n && ident_char(static_cast<unsigned char>(s[j]))) ++j;
    const std::string_view word = s.substr(w, j - w);
    std::uint8_t kind = kDirOther;
    if (word == "include" || word == "include_next" || word == "import") kind = kDirInclude;
    else if (word == "if" || word == "ifdef" || word == "ifndef") kind = kDirOpen;
    else if (word == "endif") kind = kDirClose;
    while (j < n && s[j] != '\n') {
      if (const std::size_t sp = splice(j)) {
        j += sp;
      } else if (s[j] == '/' && j + 1 < n && s[j + 1] == '/') {
        j = line_comment(j);
      } else if (s[j] == '/' && j + 1 < n && s[j + 1] == '*') {
        j = block_comment(j);
      } else if (s[j] == '"' || s[j] == '\'') {
        j = quoted(j, s[j]);
      } else {
        ++j;
      }
    }
    directives_.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), kind});
    return j;
  };
  auto push = [&](std::size_t b, std::size_t e, std::uint8_t kind) {
    toks_.push_back({static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e), kind});
  };

  std::size_t i = 0;
  if (n >= 3 && s.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  bool line_start = true;  // nothing but blanks and comments since the last newline
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const char next = i + 1 < n ? s[i + 1] : '\0';
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (const std::size_t sp = splice(i)) {
      i += sp;
    } else if (c <= ' ' || c == 0x7f) {
      ++i;
    } else if (c == '/' && next == '/') {
      i = line_comment(i);
    } else if (c == '/' && next == '*') {
      i = block_comment(i);
    } else if (line_start && (c == '#' || (c == '%' && next == ':'))) {
      i = directive(i);
    } else {
      line_start = false;
      if (ident_start(c)) {
        std::size_t j = i;
        while (j < n && ident_char(static_cast<unsigned char>(s[j]))) ++j;
        const std::string_view word = s.substr(i, j - i);
        if (j < n && s[j] == '"' && one_of(word, {"R", "LR", "uR", "UR", "u8R"})) {
          j = raw(j);
          push(i, j, kString);
        } else if (j < n && (s[j] == '"' || s[j] == '\'') && one_of(word, {"L", "u", "U", "u8"})) {
          const char q = s[j];
          j = quoted(j, q);
          push(i, j, q == '"' ? kString : kChar);
        } else {
          push(i, j, kIdent);
        }
        i = j;
      } else if (is_digit(c) || (c == '.' && is_digit(static_cast<unsigned char>(next)))) {
        std::size_t j = i + 1;
        while (j < n) {
          const unsigned char d = static_cast<unsigned char>(s[j]);
          if (ident_char(d) || d == '.') {
            ++j;
          } else if ((d == '+' || d == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E' || s[j - 1] == 'p' || s[j - 1] == 'P')) {
            ++j;
          } else if (d == '\'' && j + 1 < n && ident_char(static_cast<unsigned char>(s[j + 1]))) {
            j += 2;
          } else {
            break;
          }
        }
        push(i, j, kNumber);
        i = j;
      } else if (c == '"' || c == '\'') {
        const std::size_t j = quoted(i, static_cast<char>(c));
        push(i, j, c == '"' ? kString : kChar);
        i = j;
      } else if ((c == ':' && next == ':') || (c == '-' && next == '>')) {
        push(i, i + 2, kPunct);
        i += 2;
      } else {
        push(i, i + 1, kPunct);
        ++i;
      }
    }
  }
}

void CudaSource::match_brackets() {
  match_.assign(toks_.size(), kNone);
  std::vector<std::uint32_t> open;
  auto opener = [&](std::uint32_t t) { return text_[toks_[t].begin]; };
  auto pair = [&](std::uint32_t a, std::uint32_t b) {
    match_[a] = b;
    match_[b] = a;
  };
  for (std::uint32_t i = 0; i < toks_.size(); ++i) {
    if (punct(i, '(') || punct(i, '[') || punct(i, '{')) {
      open.push_back(i);
    } else if (punct(i, ')') || punct(i, ']')) {
      const char want = punct(i, ')') ? '(' : '[';
      // Parentheses and brackets left open inside this group are abandoned; a '{'
      // is never closed by them (the closer is dropped instead).
      while (!open.empty() && opener(open.back()) != '{' && opener(open.back()) != want) open.pop_back();
      if (!open.empty() && opener(open.back()) == want) {
        pair(open.back(), i);
        open.pop_back();
      }
    } else if (punct(i, '}')) {
      while (!open.empty() && opener(open.back()) != '{') open.pop_back();
      if (!open.empty()) {
        pair(open.back(), i);
        open.pop_back();
      }
    }
  }
}

// ---- bounded token walks -----------------------------------------------------------------------

// The '<' that opens the template arguments closed by the '>' at `close`, walking back
// at most 64 tokens and never below `floor`; kNone when there is none.
std::uint32_t CudaSource::angle_open_before(std::uint32_t close, std::uint32_t floor) const {
  int depth = 0;
  std::uint32_t j = close;
  for (int steps = 0; steps < 64; ++steps) {
    if (punct(j, '>')) {
      ++depth;
    } else if (punct(j, '<')) {
      if (--depth == 0) return j;
    } else if ((punct(j, ')') || punct(j, ']')) && match_[j] != kNone && match_[j] < j) {
      j = match_[j];
    } else if (punct(j, ';') || punct(j, '{') || punct(j, '}')) {
      return kNone;
    }
    if (j == 0 || j <= floor) return kNone;
    --j;
  }
  return kNone;
}

// The name token of the call or declarator whose '(' is at `open`: `f(`, `f<T>(`.
std::uint32_t CudaSource::name_before_paren(std::uint32_t open) const {
  if (open == 0) return kNone;
  const std::uint32_t p = open - 1;
  if (ident(p)) return p;
  if (punct(p, '>')) {
    const std::uint32_t a = angle_open_before(p, 0);
    if (a != kNone && a > 0 && ident(a - 1)) return a - 1;
  }
  return kNone;
}

// The name token of the function whose body opens at `brace`, or kNone.
std::uint32_t CudaSource::function_name_before(std::uint32_t brace) const {
  if (brace == 0) return kNone;
  std::uint32_t j = brace - 1;
  for (int steps = 0; steps < 64; ++steps) {
    if (punct(j, ')')) {
      const std::uint32_t open = match_[j];
      if (open == kNone || open > j) return kNone;
      const std::uint32_t name = name_before_paren(open);
      if (name == kNone) return kNone;  // a lambda's ']', a cast, an operator
      const std::string_view w = tok(name);
      if (is_specifier_call(w)) {  // noexcept(...), __attribute__((...)) after the parameters
        if (name == 0) return kNone;
        j = name - 1;
        continue;
      }
      if (is_control(w)) return kNone;
      // A constructor's member initializer `x_(a)`: after ':' or ',' that follows a
      // ')' or '}' (the parameter list or the previous initializer).
      if (name >= 2 && (punct(name - 1, ',') || punct(name - 1, ':')) && (punct(name - 2, ')') || punct(name - 2, '}'))) {
        j = name - 2;
        continue;
      }
      return name;
    }
    if (punct(j, '}')) {  // a member initializer with braces: `x_{a}`
      const std::uint32_t open = match_[j];
      if (open == kNone || open > j || open < 3) return kNone;
      if (ident(open - 1) && (punct(open - 2, ',') || punct(open - 2, ':')) && (punct(open - 3, ')') || punct(open - 3, '}'))) {
        j = open - 3;
        continue;
      }
      return kNone;
    }
    if ((ident(j) && is_trailing_specifier(tok(j))) || punct(j, '&')) {
      if (j == 0) return kNone;
      --j;
      continue;
    }
    // A trailing return type `-> T`: back to the arrow.
    std::uint32_t k = j;
    bool arrow = false;
    for (int back = 0; back < 32; ++back) {
      if (punct2(k, "->")) {
        arrow = true;
        break;
      }
      if (punct(k, ';') || punct(k, '{') || punct(k, '}') || punct(k, ')') || k == 0) break;
      --k;
    }
    if (!arrow || k == 0) return kNone;
    j = k - 1;
  }
  return kNone;
}

// The '>' that closes the template arguments opened by the '<' at `open` (before
// `end`), when what follows it fits a template-id; kNone otherwise. At most 64 tokens.
std::uint32_t CudaSource::template_close_after(std::uint32_t open, std::uint32_t end) const {
  int depth = 1;
  std::uint32_t k = open + 1;
  for (int steps = 0; steps < 64 && k < end; ++steps) {
    if ((punct(k, '(') || punct(k, '[') || punct(k, '{')) && match_[k] != kNone && match_[k] > k && match_[k] < end) {
      k = match_[k] + 1;
      continue;
    }
    if (punct(k, ';') || punct(k, '{') || punct(k, '}') || punct(k, ')') || punct(k, ']')) return kNone;
    if (punct(k, '<') && ident(k - 1)) {
      ++depth;
    } else if (punct(k, '>') && --depth == 0) {
      const std::uint32_t f = k + 1;
      if (f >= end || punct(f, '(') || punct(f, '{') || punct2(f, "::") || punct(f, ',') || punct(f, ')') ||
          punct(f, '>') || punct(f, ']') || punct(f, ';'))
        return k;
      return kNone;
    }
    ++k;
  }
  return kNone;
}

// [begin, end) split at its top-level commas; nothing for an empty range.
std::vector<CudaSource::Span> CudaSource::split_top(std::uint32_t begin, std::uint32_t end) const {
  std::vector<Span> parts;
  if (begin >= end) return parts;
  std::uint32_t seg = begin, j = begin;
  while (j < end) {
    if ((punct(j, '(') || punct(j, '[') || punct(j, '{')) && match_[j] != kNone && match_[j] > j && match_[j] < end) {
      j = match_[j] + 1;
      continue;
    }
    if (punct(j, '<') && j > begin && ident(j - 1) && !(punct(j + 1, '<') && adjacent(j + 1))) {
      const std::uint32_t close = template_close_after(j, end);
      if (close != kNone) {
        j = close + 1;
        continue;
      }
    }
    if (punct(j, ',')) {
      parts.push_back({seg, j});
      seg = j + 1;
    }
    ++j;
  }
  parts.push_back({seg, end});
  return parts;
}

std::string CudaSource::code_tokens(std::uint32_t begin, std::uint32_t end) const {
  std::string out;
  for (std::uint32_t t = begin; t < end && t < toks_.size(); ++t) {
    if (t > begin && toks_[t].begin > toks_[t - 1].end) out += ' ';
    out.append(tok(t));
  }
  return out;
}

std::string CudaSource::enclosing(std::size_t offset) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), offset,
                             [](std::size_t off, const FunctionDef& f) { return off < f.body_open; });
  if (it == functions_.begin()) return "";
  --it;
  return offset < it->body_close ? it->name : "";
}

}  // namespace swz
