// Templating's scanners (see templating_detail.h): literal constants found line by line in the
// text with comments and string literals blanked (the C++ masker here; the Python one is
// core/triton_scan's), each loop bounded by the text's size.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "swizzleperf/core/cuda_scan.h"
#include "swizzleperf/core/triton_scan.h"
#include "swizzleperf/tune/int_expr.h"
#include "swizzleperf/util/text.h"
#include "templating_detail.h"

namespace swz::templating_detail {

namespace {

// C++ text with comments blanked and the insides of string and character literals blanked
// (quotes kept); same length, newlines kept. Raw strings are read as plain ones (a
// mis-read only hides or shows a few constants; the result stays the text's size).
std::string tpl_mask_cpp(std::string_view text) {
  std::string m(text);
  enum { code, line_comment, block_comment, str, chr } st = code;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const char c = text[i];
    const char n = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (st) {
      case code:
        if (c == '/' && n == '/') { st = line_comment; m[i] = m[i + 1] = ' '; ++i; }
        else if (c == '/' && n == '*') { st = block_comment; m[i] = m[i + 1] = ' '; ++i; }
        else if (c == '"') st = str;
        else if (c == '\'') st = chr;
        break;
      case line_comment:
        if (c == '\n') st = code; else m[i] = ' ';
        break;
      case block_comment:
        if (c == '*' && n == '/') { st = code; m[i] = m[i + 1] = ' '; ++i; }
        else if (c != '\n') m[i] = ' ';
        break;
      case str:
      case chr:
        if (c == '\\' && n != '\n') { m[i] = ' '; if (i + 1 < m.size()) m[i + 1] = ' '; ++i; }
        else if ((st == str && c == '"') || (st == chr && c == '\'') || c == '\n') st = code;
        else m[i] = ' ';
        break;
    }
  }
  return m;
}

std::string tpl_upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

std::int64_t tpl_number(std::string_view s) {
  std::int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// A word BM, BN or BK in the name: "BM", "kBM", "TILE_BK" (any case), not "SUBMIT".
bool tpl_has_bm_word(std::string_view name) {
  const std::string up = tpl_upper(name);
  for (const char* w : {"BM", "BN", "BK"})
    for (std::size_t at = up.find(w); at != std::string::npos; at = up.find(w, at + 1))
      if ((at == 0 || name[at - 1] == '_' || (at == 1 && name[0] == 'k')) && (at + 2 == up.size() || up[at + 2] == '_'))
        return true;
  return false;
}


// The region's lines [first, last] (0-based), or an empty range.
std::pair<std::size_t, std::size_t> tpl_region(const std::vector<std::string_view>& lines, RegionLanguage language) {
  const std::string_view prefix = comment_prefix(language);
  std::size_t first = std::string_view::npos;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i]);
    if (t.compare(0, prefix.size(), prefix) != 0) continue;
    if (first == std::string_view::npos && t.find("swizzleperf:begin") != std::string::npos) first = i;
    else if (first != std::string_view::npos && t.find("swizzleperf:end") != std::string::npos) return {first, i};
  }
  return {1, 0};
}

void tpl_scan_cpp(const std::vector<std::string_view>& masked, std::pair<std::size_t, std::size_t> region, TplScan& scan) {
  static const std::set<std::string_view> specifiers = {"static", "inline", "constexpr", "const", "__device__", "__host__"};
  static const std::set<std::string_view> types = {"int", "unsigned", "long", "short", "auto", "size_t", "std::size_t",
                                                   "int32_t", "std::int32_t", "uint32_t", "std::uint32_t", "int64_t",
                                                   "std::int64_t", "uint64_t", "std::uint64_t"};
  for (std::size_t i = 0; i < masked.size(); ++i) {
    if (i >= region.first && i <= region.second) continue;
    TplCursor c{masked[i]};
    if (c.take('#')) {
      if (c.ident() != "define") continue;
      const std::string_view name = c.ident();
      if (name.empty() || (c.at < c.s.size() && c.s[c.at] == '(')) continue;  // a function-like macro
      c.blanks();
      const std::size_t written = c.at;  // `(64)` is written back as `64`: the grammar's form
      const bool paren = c.take('(');
      auto d = c.digits();
      if (d && (!paren || c.take(')')) && c.end()) {
        scan.constants.push_back({std::string(name), tpl_number(c.s.substr(d->first, d->second - d->first)),
                                  ConstantForm::cpp_define, i, written, paren ? c.s.find(')', d->second) + 1 : d->second});
      } else if (!tpl_role(name).empty()) {
        scan.skipped.push_back({std::string(name), static_cast<int>(i + 1),
                                "its value is an expression, not a literal: tune what it is made of"});
      }
      continue;
    }
    bool is_const = false, other = false;
    while (true) {
      const auto w = c.peek_ident();
      if (w == "__constant__" || w == "__shared__" || w == "extern") other = true;
      if (!specifiers.count(w)) break;
      is_const = is_const || w == "constexpr" || w == "const";
      c.ident(true);
    }
    if (!is_const || other) continue;
    int type_words = 0;
    while (types.count(c.peek_ident())) {
      c.ident(true);
      ++type_words;
    }
    if (type_words == 0) continue;
    std::vector<TplConstant> found;
    bool ok = true;
    while (ok) {
      const auto name = c.ident();
      auto d = name.empty() || !c.take('=') ? std::nullopt : c.digits();
      if (!d) {
        ok = false;
        break;
      }
      found.push_back({std::string(name), tpl_number(c.s.substr(d->first, d->second - d->first)), ConstantForm::cpp_const, i,
                       d->first, d->second});
      if (c.take(';')) break;
      if (!c.take(',')) ok = false;
    }
    if (ok) scan.constants.insert(scan.constants.end(), found.begin(), found.end());
  }
}

void tpl_scan_py(std::string_view text, const std::vector<std::string_view>& masked,
                 std::pair<std::size_t, std::size_t> region, TplScan& scan) {
  const PySource py(text);
  // Module-level `NAME = 128` and the line lifted constants go before (after the last
  // module-level import ahead of the first function, else at the top).
  bool seen_def = false;
  for (const auto& l : py.lines()) {
    if (l.blank || l.indent != 0) continue;
    const std::size_t i = l.line - 1;
    const std::string_view code = py.line_code(static_cast<std::size_t>(&l - &py.lines()[0]));
    if (code.rfind("def ", 0) == 0 || code.rfind("@", 0) == 0 || code.rfind("class ", 0) == 0) seen_def = true;
    if (!seen_def && (code.rfind("import ", 0) == 0 || code.rfind("from ", 0) == 0)) scan.py_insert_at = i + 1;
    if (i >= masked.size() || (i >= region.first && i <= region.second)) continue;
    TplCursor c{masked[i]};
    const auto name = c.ident();
    if (name.empty() || !c.take('=') || (c.at < c.s.size() && c.s[c.at] == '=')) continue;
    auto d = c.digits();
    if (d && c.end())
      scan.constants.push_back({std::string(name), tpl_number(c.s.substr(d->first, d->second - d->first)), ConstantForm::py_module, i,
                                d->first, d->second});
  }
  if (scan.py_insert_at > masked.size()) scan.py_insert_at = masked.size();
  for (std::size_t i = 0; i < masked.size(); ++i) {
    if (i >= region.first && i <= region.second) continue;
    const std::string_view l = masked[i];
    // `NAME: tl.constexpr = 64` in a signature: noted, not proposed.
    for (std::size_t at = l.find("tl.constexpr"); at != std::string_view::npos; at = l.find("tl.constexpr", at + 1)) {
      TplCursor after{l, at + 12};
      if (!after.take('=') || (after.at < l.size() && l[after.at] == '=') || !after.digits()) continue;
      std::size_t j = at;
      while (j > 0 && l[j - 1] == ' ') --j;
      if (j == 0 || l[j - 1] != ':') continue;
      --j;
      while (j > 0 && l[j - 1] == ' ') --j;
      const std::size_t e = j;
      while (j > 0 && tpl_ident_char(l[j - 1])) --j;
      const std::string name(l.substr(j, e - j));
      if (!name.empty() && !tpl_role(name).empty())
        scan.skipped.push_back({name, static_cast<int>(i + 1),
                                "a default in a @triton.jit signature, not module-level: write `" + name +
                                    " = V` at module level and pass it at the launch to tune it"});
    }
    for (const char* kw : {"num_warps", "num_stages"}) {
      const std::string_view k(kw);
      for (std::size_t at = l.find(k); at != std::string_view::npos; at = l.find(k, at + 1)) {
        if ((at > 0 && (tpl_ident_char(l[at - 1]) || l[at - 1] == '.')) || (at + k.size() < l.size() && tpl_ident_char(l[at + k.size()])))
          continue;
        TplCursor c{l, at + k.size()};
        if (!c.take('=') || (c.at < l.size() && l[c.at] == '=')) continue;
        auto d = c.digits();
        if (!d) continue;
        if (l.find("Config") != std::string_view::npos) {
          scan.skipped.push_back({std::string(k), static_cast<int>(i + 1), "in an autotune config: the autotuner tunes it already"});
          continue;
        }
        scan.launch_kwargs.push_back({std::string(k), tpl_number(l.substr(d->first, d->second - d->first)), ConstantForm::py_launch,
                                      i, d->first, d->second});
      }
    }
  }
}

// The element size of a __shared__ array's type words, or 0.
int tpl_element_bytes(std::string_view type) {
  static const std::map<std::string_view, int> sizes = {
      {"float", 4}, {"int", 4}, {"unsigned", 4}, {"uint32_t", 4}, {"int32_t", 4}, {"double", 8}, {"half", 2},
      {"__half", 2}, {"_Float16", 2}, {"__nv_bfloat16", 2}, {"hip_bfloat16", 2}, {"__hip_bfloat16", 2}, {"short", 2},
      {"char", 1}, {"float2", 8}, {"float4", 16}, {"int4", 16}, {"half2", 4}, {"__half2", 4}};
  auto it = sizes.find(type);
  return it == sizes.end() ? 0 : it->second;
}


}  // namespace

// What a constant's name says it sizes, or "" when it says nothing the tuner knows.
std::string tpl_role(std::string_view name) {
  const std::string up = to_lower(std::string(name));
  if (up.find("warp") != std::string::npos) return "warps";
  if (up.find("stage") != std::string::npos) return "stages";
  if (up.find("thread") != std::string::npos) return "threads";
  if (up.find("group") != std::string::npos) return "group";
  if (up.find("block") != std::string::npos || up.find("tile") != std::string::npos) return "tile";
  return tpl_has_bm_word(name) ? "tile" : "";
}

bool tpl_has_ident(std::string_view masked, std::string_view name) {
  for (std::size_t at = masked.find(name); at != std::string_view::npos; at = masked.find(name, at + 1)) {
    const bool left = at == 0 || !tpl_ident_char(masked[at - 1]);
    const bool right = at + name.size() >= masked.size() || !tpl_ident_char(masked[at + name.size()]);
    if (left && right) return true;
  }
  return false;
}

std::map<std::string, int> tpl_plain_array_sizes(const std::vector<std::string_view>& masked) {
  static const std::set<std::string_view> not_types = {"return", "case", "else", "delete", "throw", "sizeof", "new", "co_return"};
  std::map<std::string, int> first;
  for (std::size_t i = 0; i < masked.size(); ++i) {
    const std::string_view l = masked[i];
    if (l.find('[') == std::string_view::npos || l.find("__shared__") != std::string_view::npos) continue;
    // Each '[' up to its ']', the next search after that ']': linear in the line.
    for (std::size_t open = l.find('['); open != std::string_view::npos;) {
      const std::size_t close = l.find(']', open);
      if (close == std::string_view::npos) break;
      const std::size_t next = l.find('[', close);
      std::size_t j = open;
      while (j > 0 && l[j - 1] == ' ') --j;
      const std::size_t var_end = j;
      while (j > 0 && tpl_ident_char(l[j - 1])) --j;
      bool declares = false;
      if (j != var_end) {
        while (j > 0 && l[j - 1] == ' ') --j;
        const char before = j > 0 ? l[j - 1] : '\0';
        if (before == '*' || before == '&' || before == '>') {
          declares = true;
        } else if (j > 0 && tpl_ident_char(before)) {
          std::size_t w = j;
          while (w > 0 && tpl_ident_char(l[w - 1])) --w;
          declares = !not_types.count(l.substr(w, j - w));
        }
      }
      for (std::size_t k = open + 1; declares && k < close;) {
        if (!tpl_ident_start(l[k])) {
          ++k;
          continue;
        }
        std::size_t e = k;
        while (e < close && tpl_ident_char(l[e])) ++e;
        first.emplace(std::string(l.substr(k, e - k)), static_cast<int>(i + 1));
        k = e;
      }
      open = next;
    }
  }
  return first;
}

// The shared-bytes rule when every __shared__ array of a one-kernel file reads only
// tunables and literals in its sizes, else nullopt.
std::optional<std::string> tpl_shared_bytes(std::string_view text, const std::vector<std::string_view>& masked,
                                            const std::map<std::string, std::string>& tunable_of) {
  if (find_kernels(text).size() != 1) return std::nullopt;
  std::string sum;
  bool reads_tunable = false;
  for (std::size_t i = 0; i < masked.size(); ++i) {
    const std::string_view l = masked[i];
    const std::size_t at = l.find("__shared__");
    if (at == std::string_view::npos) continue;
    if (l.substr(0, at).find("extern") != std::string_view::npos) return std::nullopt;
    TplCursor c{l, at + 10};
    int bytes = 0;
    while (true) {
      const auto w = c.ident(true);
      if (w.empty()) return std::nullopt;
      if (w == "__align__" || w == "alignas") {
        if (!c.take('(') || !c.digits() || !c.take(')')) return std::nullopt;
        continue;
      }
      if (w == "static" || w == "volatile") continue;
      bytes = tpl_element_bytes(w);
      break;
    }
    if (bytes == 0 || c.ident().empty()) return std::nullopt;
    std::string term;
    while (c.take('[')) {
      const std::size_t close = l.find(']', c.at);
      if (close == std::string_view::npos) return std::nullopt;
      std::string dim;
      for (std::size_t j = c.at; j < close;) {
        const char ch = l[j];
        if (tpl_ident_start(ch)) {
          std::size_t e = j;
          while (e < close && tpl_ident_char(l[e])) ++e;
          auto t = tunable_of.find(std::string(l.substr(j, e - j)));
          if (t == tunable_of.end()) return std::nullopt;
          dim += t->second;
          reads_tunable = true;
          j = e;
        } else if (std::isdigit(static_cast<unsigned char>(ch)) || ch == ' ' || ch == '+' || ch == '*' || ch == '(' || ch == ')') {
          dim.push_back(ch);
          ++j;
        } else {
          return std::nullopt;
        }
      }
      const std::string d = trim(dim);
      if (d.empty()) return std::nullopt;
      term += (term.empty() ? "" : " * ") + (d.find('+') == std::string::npos ? d : "(" + d + ")");
      c.at = close + 1;
    }
    if (term.empty() || !c.take(';')) return std::nullopt;
    sum += (sum.empty() ? "" : " + ") + term + " * " + std::to_string(bytes);
  }
  if (sum.empty() || !reads_tunable || !IntExpr::parse(sum)) return std::nullopt;
  return sum;
}

Result<TplScan> tpl_scan(std::string_view text, RegionLanguage language, const std::string& name, std::string& masked_text) {
  if (text.size() > kMaxTemplateScanBytes)
    return make_error(fmt::format("{} is {} bytes; the limit is {}", name, with_thousands(text.size()), with_thousands(kMaxTemplateScanBytes)));
  TplScan scan;
  masked_text = language == RegionLanguage::python ? std::string(PySource(text).masked()) : tpl_mask_cpp(text);
  if (masked_text.size() != text.size()) masked_text = std::string(text);  // never: both keep the size
  const auto masked = split_lines_view(masked_text);
  const auto region = tpl_region(split_lines_view(text), language);
  if (language == RegionLanguage::python) tpl_scan_py(text, masked, region, scan);
  else tpl_scan_cpp(masked, region, scan);
  return scan;
}

}  // namespace swz::templating_detail
