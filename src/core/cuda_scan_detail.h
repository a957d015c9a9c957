// Private to the scanner's two files (core/cuda_scan.cpp: the lexer and the bounded
// token walks; core/cuda_scan_find.cpp: functions, kernels, launches and the queries):
// token kinds, the "no token" index and the keyword lists both consult.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace swz::cuda_scan_detail {

inline constexpr std::uint32_t kNone = 0xffffffffu;
enum : std::uint8_t { kIdent, kNumber, kString, kChar, kPunct };
enum : std::uint8_t { kDirInclude, kDirOpen, kDirClose, kDirOther };

inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool ident_start(unsigned char c) { return is_alpha(c) || c == '_' || c == '$' || c >= 0x80; }
inline bool ident_char(unsigned char c) { return ident_start(c) || is_digit(c); }

inline bool one_of(std::string_view w, std::initializer_list<std::string_view> words) {
  for (auto x : words)
    if (w == x) return true;
  return false;
}

// Names that look like a call before a '(' but are not a function being defined.
inline bool is_control(std::string_view w) {
  return one_of(w, {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype", "typeid",
                    "static_assert", "new", "delete", "do", "else", "case", "throw", "co_await", "co_return",
                    "co_yield", "defined", "__builtin_expect", "requires"});
}

// Attribute-like calls before a declarator or after a parameter list: stepped over.
inline bool is_specifier_call(std::string_view w) {
  return one_of(w, {"__launch_bounds__", "__attribute__", "__declspec", "alignas", "__align__", "__cluster_dims__",
                    "__maxnreg__", "__block_size__", "noexcept", "throw", "__noinline__", "__forceinline__"});
}

// Words that may stand between a parameter list's ')' and the body's '{'.
inline bool is_trailing_specifier(std::string_view w) {
  return one_of(w, {"const", "override", "final", "noexcept", "mutable", "volatile", "try", "__restrict__"});
}

// Words before a name that make it a use, not a declaration's name.
inline bool is_statement_word(std::string_view w) {
  return one_of(w, {"return", "else", "case", "goto", "throw", "delete", "new", "co_return", "co_yield", "sizeof",
                    "typedef", "using", "do"});
}

}  // namespace swz::cuda_scan_detail
