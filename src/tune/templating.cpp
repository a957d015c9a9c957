// Templating (see the header): one pass over the program's lines with comments and string
// literals blanked (the C++ masker below; the Python one is core/triton_scan's), then one
// rewrite pass that applies per-line edits. Every loop is bounded by the text's size.
#include "swizzleperf/tune/templating.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "swizzleperf/core/cuda_scan.h"
#include "swizzleperf/core/triton_scan.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace {

constexpr std::int64_t kTplMaxValue = 1 << 20;  // a tile, block or group size above this is not one

bool tpl_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool tpl_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string_view> tpl_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

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

std::int64_t tpl_number(std::string_view s) {
  std::int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// The words of a name, split at '_' and at a lower-case -> upper-case step, upper-cased,
// a leading `k` of kCamel dropped: "kBM" -> {BM}, "TILE_BK" -> {TILE, BK}.
std::vector<std::string> tpl_name_words(std::string_view name) {
  std::vector<std::string> words;
  std::string cur;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '_') {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
      continue;
    }
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0 && std::islower(static_cast<unsigned char>(name[i - 1])) && !cur.empty()) {
      words.push_back(cur);
      cur.clear();
    }
    cur.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  if (!cur.empty()) words.push_back(cur);
  if (words.size() > 1 && words[0] == "K") words.erase(words.begin());
  return words;
}

// What a constant's name says it sizes, or "" when it says nothing the tuner knows.
std::string tpl_role(std::string_view name) {
  const std::string up = to_lower(std::string(name));
  if (up.find("warp") != std::string::npos) return "warps";
  if (up.find("stage") != std::string::npos) return "stages";
  if (up.find("thread") != std::string::npos) return "threads";
  if (up.find("group") != std::string::npos) return "group";
  if (up.find("block") != std::string::npos || up.find("tile") != std::string::npos) return "tile";
  for (const auto& w : tpl_name_words(name))
    if (w == "BM" || w == "BN" || w == "BK") return "tile";
  return "";
}

bool tpl_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The proposed values for a constant of `role` at `v`, or the reason there are none.
Result<std::vector<std::int64_t>> tpl_range(const std::string& role, std::int64_t v) {
  std::vector<std::int64_t> out;
  if (role == "stages") {
    if (v < 1 || v > 8) return make_error(fmt::format("{} is not a stage count (1..8)", v));
    out = {2, 3, 4, 5, v};
  } else {
    if (!tpl_pow2(v) || v > kTplMaxValue) return make_error(fmt::format("{} is not a power of two", v));
    if (role == "warps") {
      if (v > 32) return make_error(fmt::format("{} warps is more than a block holds", v));
      out = {4, 8, v};
    } else {
      const std::int64_t top = role == "threads" ? std::min<std::int64_t>(v * 2, std::max<std::int64_t>(v, 1024)) : v * 2;
      for (std::int64_t x = std::max<std::int64_t>(1, v / 2); x <= top; x *= 2) out.push_back(x);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string tpl_values_text(const std::vector<std::int64_t>& values) {
  std::string s;
  for (auto v : values) s += (s.empty() ? "" : " ") + std::to_string(v);
  return s;
}

bool tpl_has_ident(std::string_view masked, std::string_view name) {
  for (std::size_t at = masked.find(name); at != std::string_view::npos; at = masked.find(name, at + 1)) {
    const bool left = at == 0 || !tpl_ident_char(masked[at - 1]);
    const bool right = at + name.size() >= masked.size() || !tpl_ident_char(masked[at + name.size()]);
    if (left && right) return true;
  }
  return false;
}

// The first line (1-based) where `name` sizes a plain array in a declaration (`float buf[NAME];`,
// not a __shared__ tile), or 0. The declaration is told by two words before the '['.
// `bracketed`: the lines holding a '[' and no __shared__, found once for every name.
int tpl_sizes_plain_array(const std::vector<std::string_view>& masked, const std::vector<std::size_t>& bracketed,
                          const std::string& name) {
  static const std::set<std::string_view> not_types = {"return", "case", "else", "delete", "throw", "sizeof", "new", "co_return"};
  for (std::size_t i : bracketed) {
    const std::string_view l = masked[i];
    if (l.find(name) == std::string_view::npos) continue;
    for (std::size_t open = l.find('['); open != std::string_view::npos; open = l.find('[', open + 1)) {
      const std::size_t close = l.find(']', open);
      if (close == std::string_view::npos) break;
      if (!tpl_has_ident(l.substr(open + 1, close - open - 1), name)) continue;
      std::size_t j = open;
      while (j > 0 && l[j - 1] == ' ') --j;
      const std::size_t var_end = j;
      while (j > 0 && tpl_ident_char(l[j - 1])) --j;
      if (j == var_end) continue;
      while (j > 0 && l[j - 1] == ' ') --j;
      if (j == 0) continue;
      const char before = l[j - 1];
      if (before == '*' || before == '&' || before == '>') return static_cast<int>(i + 1);
      if (!tpl_ident_char(before)) continue;
      std::size_t w = j;
      while (w > 0 && tpl_ident_char(l[w - 1])) --w;
      if (!not_types.count(l.substr(w, j - w))) return static_cast<int>(i + 1);
    }
  }
  return 0;
}

// A constant written with a literal: what both the proposal and the reply check read.
struct TplConstant {
  std::string name;
  std::int64_t value = 0;
  ConstantForm form = ConstantForm::cpp_define;
  std::size_t line = 0;                // 0-based
  std::size_t v_begin = 0, v_end = 0;  // the literal's bytes in its line
};

// Edits of one line, applied by tpl_apply.
struct TplLineEdit {
  std::vector<std::tuple<std::size_t, std::size_t, std::string>> spans;  // [b, e) -> text
  std::optional<std::size_t> cut;                                        // keep [0, cut), then suffix
  std::string suffix;
  std::vector<std::string> before, after;
};

std::string tpl_apply(const std::vector<std::string_view>& lines, std::map<std::size_t, TplLineEdit>& edits,
                      std::size_t size_hint) {
  std::string out;
  out.reserve(size_hint + 256 * edits.size());
  bool first = true;
  auto emit = [&](std::string_view l) {
    if (!first) out.push_back('\n');
    first = false;
    out.append(l);
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto it = edits.find(i);
    if (it == edits.end()) {
      emit(lines[i]);
      continue;
    }
    TplLineEdit& e = it->second;
    for (const auto& b : e.before) emit(b);
    std::string l(lines[i]);
    if (e.cut) {
      l.resize(std::min(*e.cut, l.size()));
      while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.pop_back();
      l += e.suffix;
    }
    std::sort(e.spans.begin(), e.spans.end(), [](const auto& x, const auto& y) { return std::get<0>(x) > std::get<0>(y); });
    for (const auto& [b, en, t] : e.spans)
      if (b <= en && en <= l.size()) l.replace(b, en - b, t);
    emit(l);
    for (const auto& a : e.after) emit(a);
  }
  return out;
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

struct TplScan {
  std::vector<TplConstant> constants;               // literal constants of any name
  std::vector<SkippedConstant> skipped;             // noted while scanning
  std::vector<TplConstant> launch_kwargs;           // py: num_warps= / num_stages= literals
  std::size_t py_insert_at = 0;                     // py: the line lifted constants go before
};

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

void tpl_scan_py(std::string_view text, std::string_view masked_text, const std::vector<std::string_view>& masked,
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
  (void)masked_text;
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
  const auto masked = tpl_lines(masked_text);
  const auto region = tpl_region(tpl_lines(text), language);
  if (language == RegionLanguage::python) tpl_scan_py(text, masked_text, masked, region, scan);
  else tpl_scan_cpp(masked, region, scan);
  return scan;
}

}  // namespace

const char* constant_form_name(ConstantForm form) {
  switch (form) {
    case ConstantForm::cpp_define: return "#define";
    case ConstantForm::cpp_const: return "constexpr";
    case ConstantForm::py_module: return "module";
    case ConstantForm::py_launch: return "launch";
  }
  return "?";
}

Result<TemplateProposal> propose_template(std::string_view text, RegionLanguage language, const std::string& name) {
  auto declared = parse_tune_space(text, language, name);
  if (!declared) return declared.error();
  std::set<std::string> taken;  // names a new tunable may not take
  for (const auto& t : declared->tunables) taken.insert(t.name);
  std::string masked_text;
  auto scan = tpl_scan(text, language, name, masked_text);
  if (!scan) return scan.error();
  const auto lines = tpl_lines(text);
  const auto masked = tpl_lines(masked_text);
  const bool py = language == RegionLanguage::python;
  const std::string cmt = py ? "  # " : "  // ";

  TemplateProposal out;
  out.skipped = scan->skipped;
  std::map<std::size_t, TplLineEdit> edits;
  std::map<std::string, std::string> tunable_of;  // constant -> its tunable, for the shared-bytes rule
  std::vector<std::size_t> bracketed;
  for (std::size_t i = 0; i < masked.size(); ++i)
    if (masked[i].find('[') != std::string_view::npos && masked[i].find("__shared__") == std::string_view::npos) bracketed.push_back(i);
  std::uint64_t points = 1;  // the space's size so far: kept within kMaxTunePoints
  auto full = [&](int line, const std::string& n) {
    out.skipped.push_back({n, line, fmt::format("more than {} tunables: tune fewer at once", kMaxTunables)});
  };
  for (const auto& k : scan->constants) {
    const std::string role = tpl_role(k.name);
    const int line = static_cast<int>(k.line + 1);
    if (role.empty()) continue;
    if (out.tunables.size() >= kMaxTunables) {
      full(line, k.name);
      continue;
    }
    if (taken.count(k.name)) {
      out.skipped.push_back({k.name, line, "already a tunable"});
      continue;
    }
    auto values = tpl_range(role, k.value);
    if (!values) {
      out.skipped.push_back({k.name, line, values.error().message});
      continue;
    }
    if (role == "tile" || role == "group")
      if (int at = tpl_sizes_plain_array(masked, bracketed, k.name)) {
        out.skipped.push_back({k.name, line, fmt::format("sizes a plain array at line {}, not only tiles: tune it by hand if it is one", at)});
        continue;
      }
    if (points * values->size() > kMaxTunePoints) {
      out.skipped.push_back({k.name, line, fmt::format("the space would span more than {} points: tune fewer at once", with_thousands(kMaxTunePoints))});
      continue;
    }
    const std::string tunable = k.form == ConstantForm::cpp_const ? "SWZ_T_" + k.name : k.name;
    if (k.form == ConstantForm::cpp_const && tpl_has_ident(masked_text, tunable)) {
      out.skipped.push_back({k.name, line, tunable + " is already a name in the program"});
      continue;
    }
    // A trailing comment on the line moves to its own line (the tunable comment must start
    // the line's comment); a block comment that goes on past the line stays, and so does the line.
    const std::string_view orig = lines[k.line];
    const std::size_t code_end = k.form == ConstantForm::cpp_const ? orig.size() : k.v_end;
    const std::string trailing = trim(orig.substr(code_end));
    if (trailing.find("/*") != std::string::npos && trailing.find("*/") == std::string::npos) {
      out.skipped.push_back({k.name, line, "a block comment runs on from its line: move it, then propose again"});
      continue;
    }
    if (edits.count(k.line) && k.form != ConstantForm::cpp_const) continue;
    const std::string tun_comment = cmt + "swizzleperf:tunable " + tpl_values_text(*values);
    TplLineEdit& e = edits[k.line];
    if (k.form == ConstantForm::cpp_define) {
      std::size_t prev = k.line;
      while (prev > 0 && trim(lines[prev - 1]).empty()) --prev;
      bool guarded = false;
      if (prev > 0) {
        TplCursor g{masked[prev - 1]};
        guarded = g.take('#') && g.ident() == "ifndef" && g.ident() == k.name && g.end();
      }
      e.cut = code_end;
      e.suffix = tun_comment;
      e.spans.emplace_back(k.v_begin, k.v_end, std::to_string(k.value));
      if (guarded) {
        if (!trailing.empty()) e.after.push_back(trailing);
      } else {
        if (!trailing.empty()) e.before.push_back(trailing);
        e.before.push_back("#ifndef " + k.name);
        e.after.push_back("#endif");
      }
    } else if (k.form == ConstantForm::cpp_const) {
      e.before.push_back("#ifndef " + tunable);
      e.before.push_back("#define " + tunable + " " + std::to_string(k.value) + tun_comment);
      e.before.push_back("#endif");
      e.spans.emplace_back(k.v_begin, k.v_end, tunable);
    } else {  // py_module
      e.cut = code_end;
      e.suffix = tun_comment;
      if (!trailing.empty()) e.before.push_back(trailing);
    }
    taken.insert(tunable);
    points *= values->size();
    tunable_of[k.name] = tunable;
    out.tunables.push_back({k.name, tunable, k.value, std::move(*values), k.form, role, line});
  }
  // Python: each launch keyword with a literal becomes one module constant.
  std::vector<std::string> lifted;
  for (const char* kw : {"num_warps", "num_stages"}) {
    const std::string k(kw);
    const std::string cname = k == "num_warps" ? "NUM_WARPS" : "NUM_STAGES";
    std::optional<std::int64_t> first;
    std::vector<const TplConstant*> uses;
    for (const auto& u : scan->launch_kwargs) {
      if (u.name != k) continue;
      if (!first) first = u.value;
      if (u.value == *first) uses.push_back(&u);
      else out.skipped.push_back({k, static_cast<int>(u.line + 1), fmt::format("another launch uses {}={}: one constant for both would change it", k, *first)});
    }
    if (!first) continue;
    const int line = static_cast<int>(uses.front()->line + 1);
    if (taken.count(cname) || tpl_has_ident(masked_text, cname)) {
      out.skipped.push_back({k, line, cname + " is already a name in the program: use it at the launch"});
      continue;
    }
    auto values = tpl_range(k == "num_warps" ? "warps" : "stages", *first);
    if (!values) {
      out.skipped.push_back({k, line, values.error().message});
      continue;
    }
    if (out.tunables.size() >= kMaxTunables || points * values->size() > kMaxTunePoints) {
      full(line, k);
      continue;
    }
    points *= values->size();
    for (const auto* u : uses) edits[u->line].spans.emplace_back(u->v_begin, u->v_end, cname);
    lifted.push_back(cname + " = " + std::to_string(*first) + cmt + "swizzleperf:tunable " + tpl_values_text(*values));
    taken.insert(cname);
    out.tunables.push_back({k, cname, *first, std::move(*values), ConstantForm::py_launch, k == "num_warps" ? "warps" : "stages", line});
  }
  if (out.tunables.empty()) {
    out.text = std::string(text);
    return out;
  }
  if (!py) out.shared_bytes = tpl_shared_bytes(text, masked, tunable_of);
  if (!lifted.empty() || out.shared_bytes) {
    std::vector<std::string> block;
    if (!lifted.empty()) {
      block.push_back("# Launch options lifted to module constants by swizzleperf template.");
      block.insert(block.end(), lifted.begin(), lifted.end());
    }
    if (out.shared_bytes) block.push_back("// swizzleperf:shared-bytes " + *out.shared_bytes);
    // Python: after the imports; C++: after the last proposed tunable's lines.
    std::size_t at = py ? scan->py_insert_at : 0;
    if (!py)
      for (const auto& t : out.tunables) at = std::max<std::size_t>(at, static_cast<std::size_t>(t.line));
    if (at >= lines.size()) {
      auto& e = edits[lines.size() - 1];
      e.after.insert(e.after.end(), block.begin(), block.end());
    } else if (!py && at > 0) {
      auto& e = edits[at - 1];
      e.after.insert(e.after.end(), block.begin(), block.end());
    } else {
      auto& e = edits[at];
      e.before.insert(e.before.begin(), block.begin(), block.end());
    }
  }
  out.text = tpl_apply(lines, edits, text.size());
  std::sort(out.tunables.begin(), out.tunables.end(), [](const auto& a, const auto& b) { return a.line < b.line; });

  // The template must read back as a tune space whose own point is the original values.
  auto space = parse_tune_space(out.text, language, name + " (templated)");
  if (!space) return make_error("the proposed template does not parse as a tune space: " + space.error().message);
  const auto own = space->bind(space->own_point());
  for (const auto& t : out.tunables) {
    auto it = own.find(t.tunable);
    if (it == own.end() || it->second != t.value)
      return make_error(fmt::format("the proposed template does not declare {} at {}", t.tunable, t.value));
  }
  return out;
}

Result<TuneSpace> check_template_reply(std::string_view original, std::string_view reply, RegionLanguage language,
                                       const std::string& name) {
  if (reply.size() > kMaxTemplateScanBytes)
    return make_error(fmt::format("the template is {} bytes; the limit is {}", with_thousands(reply.size()), with_thousands(kMaxTemplateScanBytes)));
  auto space = parse_tune_space(reply, language, name);
  if (!space) return make_error("its tunables do not parse: " + space.error().message);
  if (space->empty()) return make_error("it declares no swizzleperf:tunable");
  const bool orig_region = KernelSource::parse(std::string(original)).ok();
  if (orig_region) {
    auto k = KernelSource::parse(std::string(reply));
    if (!k) return make_error("its swizzle region: " + k.error().message);
  }
  auto kernels = [&](std::string_view t) {
    std::vector<std::string> names;
    if (language == RegionLanguage::python) {
      const PySource ps(t);
      for (const auto& f : ps.functions())
        if (f.jit) names.push_back(f.name);
    } else {
      for (const auto& d : find_kernels(t)) names.push_back(d.name);
    }
    return names;
  };
  const auto want = kernels(original), got = kernels(reply);
  if (want != got) {
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
      return s.empty() ? std::string("none") : one_line(s, 200);
    };
    return make_error("its kernels (" + list(got) + ") are not the program's (" + list(want) + ")");
  }
  std::string masked;
  auto scan = tpl_scan(original, language, name, masked);
  if (!scan) return scan.error();
  std::map<std::string, std::int64_t> was;
  for (const auto& c : scan->constants) was.emplace(c.name, c.value);
  for (const auto& c : scan->launch_kwargs) was.emplace(c.name == "num_warps" ? "NUM_WARPS" : "NUM_STAGES", c.value);
  for (const auto& t : space->tunables) {
    const std::string base = t.name.rfind("SWZ_T_", 0) == 0 ? t.name.substr(6) : t.name;
    for (const std::string& n : {t.name, base}) {
      auto it = was.find(n);
      if (it != was.end() && it->second != t.value)
        return make_error(fmt::format("its default {}={} is not the program's {}={}: a template at its defaults must be the program",
                                      t.name, t.value, n, it->second));
    }
  }
  return space;
}

}  // namespace swz
