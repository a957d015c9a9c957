// Private to templating's two files (tune/templating_scan.cpp: the scanners that find literal
// constants in C++ and Python text with comments and strings blanked; tune/templating.cpp: the
// proposal, the rewrite and the reply check): the cursor over a masked line, what a scan finds,
// and the helpers both use.
#pragma once

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swizzleperf/tune/templating.h"

namespace swz::templating_detail {

inline bool tpl_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
inline bool tpl_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

// A cursor over one masked line.
struct TplCursor {
  std::string_view s;
  std::size_t at = 0;
  void blanks() { while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\r')) ++at; }
  bool end() { blanks(); return at >= s.size(); }
  bool take(char c) {
    blanks();
    if (at < s.size() && s[at] == c) { ++at; return true; }
    return false;
  }
  // An identifier, `::` joins allowed when `scoped` (std::size_t).
  std::string_view ident(bool scoped = false) {
    blanks();
    const std::size_t b = at;
    if (at >= s.size() || !tpl_ident_start(s[at])) return {};
    while (at < s.size() && (tpl_ident_char(s[at]) || (scoped && s[at] == ':' && at + 1 < s.size() && s[at + 1] == ':'))) at += s[at] == ':' ? 2 : 1;
    return s.substr(b, at - b);
  }
  std::string_view peek_ident() {
    const std::size_t keep = at;
    auto w = ident(true);
    at = keep;
    return w;
  }
  // Decimal digits not followed by an identifier character or '.': [begin, end) in s.
  std::optional<std::pair<std::size_t, std::size_t>> digits() {
    blanks();
    const std::size_t b = at;
    while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) ++at;
    if (at == b || at - b > 9 || (at < s.size() && (tpl_ident_char(s[at]) || s[at] == '.'))) {
      at = b;
      return std::nullopt;
    }
    return std::make_pair(b, at);
  }
};

// A constant written with a literal: what both the proposal and the reply check read.
struct TplConstant {
  std::string name;
  std::int64_t value = 0;
  ConstantForm form = ConstantForm::cpp_define;
  std::size_t line = 0;                // 0-based
  std::size_t v_begin = 0, v_end = 0;  // the literal's bytes in its line
};

struct TplScan {
  std::vector<TplConstant> constants;               // literal constants of any name
  std::vector<SkippedConstant> skipped;             // noted while scanning
  std::vector<TplConstant> launch_kwargs;           // py: num_warps= / num_stages= literals
  std::size_t py_insert_at = 0;                     // py: the line lifted constants go before
};

// What a constant's name says it sizes (tile | threads | warps | stages | group), or "".
std::string tpl_role(std::string_view name);
// Whether `name` occurs in `masked` as a whole identifier.
bool tpl_has_ident(std::string_view masked, std::string_view name);
// Each name that sizes a plain array in a declaration (`float buf[NAME];`, not a __shared__
// tile: two words before the '['), with the first such line (1-based). Built once, linear.
std::map<std::string, int> tpl_plain_array_sizes(const std::vector<std::string_view>& masked);
// The shared-bytes rule when every __shared__ array of a one-kernel file reads only the
// constants of `tunable_of` (constant -> its tunable) and literals in its sizes, else nullopt.
std::optional<std::string> tpl_shared_bytes(std::string_view text, const std::vector<std::string_view>& masked,
                                            const std::map<std::string, std::string>& tunable_of);
// The constants of `text` (at most kMaxTemplateScanBytes, else an Error naming `name`), and
// the text with comments and string literals blanked into `masked_text` (same length).
Result<TplScan> tpl_scan(std::string_view text, RegionLanguage language, const std::string& name, std::string& masked_text);

}  // namespace swz::templating_detail
