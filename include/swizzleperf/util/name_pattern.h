// NamePattern: the kernel-name filter of a kernel program ("kernel_regex") applied
// to the kernel names a profiler printed. Both are untrusted text, and std::regex
// backtracks and recurses without bound (a 1 MB name against "(a|aa)*b" overflows
// the stack), so this is a small regex engine that cannot: the pattern is compiled
// without recursion into a Thompson NFA, and search() simulates that NFA with two
// state lists (Pike VM), in O(len(text) * len(program)) time and O(len(program))
// memory whatever the text, with no recursion and no backtracking.
//
// Contract: search(text) is std::regex_search(text, std::regex(pattern)) (ECMAScript)
// for the subset below; compile() rejects everything else with a one-line Error
// that names the 0-based byte position and what is wrong, e.g.
//   "'{' at position 4: repetition counts {n,m} are not supported (write \{ for a literal '{')"
// Supported (a subset of ECMAScript and POSIX ERE, enough for kernel-name filters):
//   c        a literal byte: anything but the metacharacters ^ $ \ . * + ? ( ) [ ] { } |
//   \c       c literally, for c a punctuation or other non-alphanumeric byte (\. \( \\ \[ ...);
//            \ before a letter or digit is refused (\d \w \b \1 mean other things elsewhere)
//   .        any byte but '\n' and '\r' (as ECMAScript)
//   [abc] [a-z0-9_] [^...]   a bracket class of bytes; '-' is literal first or last,
//            \ escapes as outside; an empty class "[]", an unescaped '[' inside one
//            ([:alpha:]) and a reversed range are refused
//   x* x+ x? repetition of the preceding atom or group (one quantifier: no x*?, no x**)
//   x|y (x)  alternation and grouping; empty alternatives and "()" match the empty string
//   ^ $      start and end of the whole text (no multiline)
// An empty pattern matches every text. Patterns longer than kMaxPatternBytes are refused.
// Bytes are compared as they are (no case folding, no UTF-8 decoding).
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "swizzleperf/util/result.h"

namespace swz {

class NamePattern {
 public:
  static constexpr std::size_t kMaxPatternBytes = 1024;

  static Result<NamePattern> compile(std::string_view pattern);

  // True when the pattern matches some substring of text (search, not full match).
  bool search(std::string_view text) const;

 private:
  enum class Op : std::uint8_t { Char, Any, Class, Split, Jmp, Match, AssertBegin, AssertEnd };
  struct Inst {
    Op op = Op::Match;
    unsigned char c = 0;   // Char: the byte
    std::uint32_t x = 0;   // next instruction (Split: the first branch)
    std::uint32_t y = 0;   // Split: the second branch; Class: index into classes_
  };

  NamePattern() = default;

  std::vector<Inst> prog_;
  std::vector<std::bitset<256>> classes_;
  std::uint32_t start_ = 0;
};

}  // namespace swz
