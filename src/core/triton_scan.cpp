// The Triton source scanner (see the header). One pass classifies every byte (code,
// comment, string literal) and cuts logical lines; the rest are bounded walks over the
// masked copy, where no bracket or quote inside a string or comment can mislead them;
// brackets are matched once, up front, so no walk ever rescans the text.
#include "swizzleperf/core/triton_scan.h"

#include <algorithm>

#include "swizzleperf/util/text.h"

namespace swz {

namespace {

bool pyscan_ident_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u == '_' || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u >= 0x80;
}

bool pyscan_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view pyscan_trim(std::string_view s) {
  while (!s.empty() && (pyscan_blank(s.front()) || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (pyscan_blank(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// Whether `s` (a decorator's code, '@' first) is `@<name>` followed by '(' or its end.
bool pyscan_decorator_is(std::string_view s, std::string_view name) {
  std::string squeezed;
  for (const char c : s)
    if (!pyscan_blank(c) && c != '\n') squeezed += c;
  if (squeezed.size() < 1 + name.size() || squeezed[0] != '@' || squeezed.compare(1, name.size(), name) != 0) return false;
  const std::size_t after = 1 + name.size();
  return after == squeezed.size() || squeezed[after] == '(';
}

}  // namespace

PySource::PySource(std::string_view text) : text_(text.substr(0, std::min(text.size(), kMaxScanBytes))) {
  scan();
  match_brackets();
  find_functions();
}

void PySource::scan() {
  const std::string_view t = text_;
  code_.assign(t);
  masked_.assign(t);
  std::size_t depth = 0;
  std::size_t line_begin = 0;
  auto close_line = [&](std::size_t end) {
    PyLine l;
    l.begin = line_begin;
    l.end = end;
    l.line = newlines_.size() + 1;  // newlines before line_begin: filled in below
    lines_.push_back(l);
    line_begin = end + 1;
  };
  std::size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '#') {
      std::size_t e = t.find('\n', i);
      if (e == std::string_view::npos) e = t.size();
      comments_.emplace_back(i, e);
      for (std::size_t k = i; k < e; ++k) code_[k] = masked_[k] = ' ';
      i = e;
      continue;
    }
    if (c == '\'' || c == '"') {
      const bool triple = i + 2 < t.size() && t[i + 1] == c && t[i + 2] == c;
      const std::size_t q = triple ? 3 : 1;
      std::size_t j = i + q;
      while (j < t.size()) {
        if (t[j] == '\\') {
          if (j + 1 < t.size()) masked_[j + 1] = t[j + 1] == '\n' ? '\n' : ' ';
          masked_[j] = ' ';
          j += 2;
          continue;
        }
        if (t[j] == c && (!triple || (j + 2 < t.size() && t[j + 1] == c && t[j + 2] == c))) break;
        if (t[j] == '\n' && !triple) break;  // unterminated: it ends with its line
        if (t[j] != '\n') masked_[j] = ' ';
        ++j;
      }
      j = std::min(j, t.size());
      // Newlines inside a string (triple-quoted, or after a backslash) are the text's, not a line's end.
      for (std::size_t k = i + q; k < j; ++k)
        if (t[k] == '\n') newlines_.push_back(k);
      i = j < t.size() && t[j] == c ? j + q : j;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (c == '\\' && i + 1 < t.size() && (t[i + 1] == '\n' || (t[i + 1] == '\r' && i + 2 < t.size() && t[i + 2] == '\n'))) {
      const std::size_t nl = t[i + 1] == '\n' ? i + 1 : i + 2;
      newlines_.push_back(nl);
      i = nl + 1;
      continue;
    }
    if (c == '\n') {
      newlines_.push_back(i);
      if (depth == 0) close_line(i);
    }
    ++i;
  }
  if (line_begin < t.size()) close_line(t.size());
  std::sort(newlines_.begin(), newlines_.end());
  for (auto& l : lines_) {
    l.line = line_of(l.begin);
    std::size_t k = l.begin, col = 0;
    for (; k < l.end && (t[k] == ' ' || t[k] == '\t' || t[k] == '\f'); ++k) col = t[k] == '\t' ? (col / 8 + 1) * 8 : col + 1;
    l.indent = col;
    l.blank = true;
    for (std::size_t m = k; m < l.end; ++m)
      if (!pyscan_blank(masked_[m]) && masked_[m] != '\n') {
        l.blank = false;
        break;
      }
  }
}

std::string_view PySource::line_code(std::size_t index) const {
  if (index >= lines_.size()) return {};
  const PyLine& l = lines_[index];
  return pyscan_trim(std::string_view(code_).substr(l.begin, l.end - l.begin));
}

std::size_t PySource::line_of(std::size_t offset) const {
  return static_cast<std::size_t>(std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin()) + 1;
}

std::size_t PySource::line_index_of(std::size_t offset) const {
  auto it = std::upper_bound(lines_.begin(), lines_.end(), offset, [](std::size_t off, const PyLine& l) { return off < l.begin; });
  return it == lines_.begin() ? 0 : static_cast<std::size_t>(it - lines_.begin()) - 1;
}

void PySource::find_functions() {
  const std::string_view m = masked_;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const PyLine& l = lines_[i];
    if (l.blank || l.indent != 0) continue;
    std::string_view s = pyscan_trim(m.substr(l.begin, l.end - l.begin));
    if (s.substr(0, 6) == "async ") s = pyscan_trim(s.substr(6));
    if (s.size() < 4 || s.substr(0, 3) != "def" || !pyscan_blank(s[3])) continue;
    std::size_t k = 3;
    while (k < s.size() && pyscan_blank(s[k])) ++k;
    const std::size_t name_at = k;
    while (k < s.size() && pyscan_ident_char(s[k])) ++k;
    if (k == name_at) continue;
    PyFunction f;
    f.name = std::string(s.substr(name_at, k - name_at));
    f.line = l.line;
    f.def = f.first = i;
    // Parameters: the top-level pieces between the parentheses.
    while (k < s.size() && pyscan_blank(s[k])) ++k;
    if (k < s.size() && s[k] == '(') {
      int depth = 0;
      std::size_t piece = k + 1;
      for (std::size_t p = k; p < s.size(); ++p) {
        const char c = s[p];
        if (c == '(' || c == '[' || c == '{') {
          ++depth;
          continue;
        }
        const bool close = c == ')' || c == ']' || c == '}';
        if (close) --depth;
        if ((c == ',' && depth == 1) || (close && depth == 0)) {
          std::string_view pc = pyscan_trim(s.substr(piece, p - piece));
          while (!pc.empty() && pc.front() == '*') pc.remove_prefix(1);
          std::size_t e = 0;
          while (e < pc.size() && pyscan_ident_char(pc[e])) ++e;
          if (e > 0) f.params.emplace_back(pc.substr(0, e));
          piece = p + 1;
        }
        if (close && depth == 0) break;
      }
    }
    // Decorators: the '@' lines just above (blank lines between allowed).
    for (std::size_t j = i; j-- > 0;) {
      if (lines_[j].blank) continue;
      const std::string_view d = pyscan_trim(m.substr(lines_[j].begin, lines_[j].end - lines_[j].begin));
      if (lines_[j].indent != 0 || d.empty() || d.front() != '@') break;
      f.first = j;
      if (pyscan_decorator_is(d, "triton.jit") || pyscan_decorator_is(d, "jit")) f.jit = true;
      if (pyscan_decorator_is(d, "triton.autotune") || pyscan_decorator_is(d, "autotune")) f.autotuned = true;
    }
    // The body: the indented lines below (a one-line def has none).
    std::size_t last = i;
    for (std::size_t j = i + 1; j < lines_.size(); ++j) {
      if (lines_[j].blank) continue;
      if (lines_[j].indent == 0) break;
      last = j;
    }
    f.end = last + 1;
    functions_.push_back(std::move(f));
    i = last;
  }
}

void PySource::match_brackets() {
  // One pass with an explicit stack: every opening bracket of the masked text gets the
  // offset of the one closing it (any closing kind closes the innermost; unclosed: none).
  std::vector<std::size_t> open;  // indices into brackets_
  for (std::size_t p = 0; p < masked_.size(); ++p) {
    const char c = masked_[p];
    if (c == '(' || c == '[' || c == '{') {
      open.push_back(brackets_.size());
      brackets_.emplace_back(p, kNoOffset);
    } else if ((c == ')' || c == ']' || c == '}') && !open.empty()) {
      brackets_[open.back()].second = p;
      open.pop_back();
    }
  }
}

std::size_t PySource::match_bracket(std::size_t open) const {
  const auto it = std::lower_bound(brackets_.begin(), brackets_.end(), std::make_pair(open, std::size_t{0}));
  if (it == brackets_.end() || it->first != open || it->second == kNoOffset || it->second - open > kMaxPyMatchBytes)
    return kNoOffset;
  return it->second + 1;
}

std::vector<std::size_t> PySource::identifier_uses(std::string_view name, std::size_t begin, std::size_t end) const {
  std::vector<std::size_t> out;
  if (name.empty()) return out;
  const std::string_view m = masked_;
  end = std::min(end, m.size());
  for (std::size_t p = m.find(name, begin); p != std::string_view::npos && p + name.size() <= end; p = m.find(name, p + 1)) {
    const bool before_ok = p == 0 || (!pyscan_ident_char(m[p - 1]) && m[p - 1] != '.');
    const std::size_t after = p + name.size();
    const bool after_ok = after >= m.size() || !pyscan_ident_char(m[after]);
    if (before_ok && after_ok) out.push_back(p);
  }
  return out;
}

std::vector<PyProgramId> PySource::program_ids(const PyFunction& f) const {
  std::vector<PyProgramId> out;
  if (f.def + 1 >= f.end || f.end > lines_.size()) return out;
  const std::string_view m = masked_;
  const std::size_t begin = lines_[f.def + 1].begin, end = lines_[f.end - 1].end;
  constexpr std::string_view kName = "program_id";
  for (std::size_t p = m.find(kName, begin); p != std::string_view::npos && p < end; p = m.find(kName, p + 1)) {
    if (p > 0 && pyscan_ident_char(m[p - 1])) continue;
    std::size_t q = p + kName.size();
    if (q < m.size() && pyscan_ident_char(m[q])) continue;
    while (q < end && pyscan_blank(m[q])) ++q;
    if (q >= end || m[q] != '(') continue;
    const std::size_t close = match_bracket(q);
    if (close == kNoOffset || close > end) continue;
    PyProgramId id;
    id.begin = p;
    while (id.begin > begin && (pyscan_ident_char(m[id.begin - 1]) || m[id.begin - 1] == '.')) --id.begin;
    id.end = close;
    id.line_index = line_index_of(p);
    std::string arg;
    for (std::size_t k = q + 1; k + 1 < close; ++k)
      if (!pyscan_blank(m[k]) && m[k] != '\n') arg += m[k];
    if (arg.rfind("axis=", 0) == 0) arg = arg.substr(5);
    if (arg == "0" || arg == "1" || arg == "2") id.axis = arg[0] - '0';
    out.push_back(id);
  }
  return out;
}

std::vector<PyLaunch> PySource::launches(std::string_view kernel) const {
  std::vector<PyLaunch> out;
  const std::string_view m = masked_;
  // The top-level function whose decorators, def or body hold logical line `li`, or null
  // (functions_ are in order and do not overlap).
  auto function_at = [&](std::size_t li) -> const PyFunction* {
    auto it = std::upper_bound(functions_.begin(), functions_.end(), li,
                               [](std::size_t l, const PyFunction& f) { return l < f.first; });
    if (it == functions_.begin()) return nullptr;
    --it;
    return li < it->end ? &*it : nullptr;
  };
  auto in_jit = [&](std::size_t at) {
    const PyFunction* f = function_at(line_index_of(at));
    return f && f->jit;
  };
  for (const std::size_t p : identifier_uses(kernel, 0, m.size())) {
    std::size_t q = p + kernel.size();
    while (q < m.size() && pyscan_blank(m[q])) ++q;
    if (q >= m.size() || m[q] != '[' || in_jit(p)) continue;
    const std::size_t grid_end = match_bracket(q);
    if (grid_end == kNoOffset) continue;
    std::size_t r = grid_end;
    while (r < m.size() && pyscan_blank(m[r])) ++r;
    if (r >= m.size() || m[r] != '(') continue;
    const std::size_t close = match_bracket(r);
    if (close == kNoOffset) continue;
    PyLaunch l;
    l.begin = p;
    l.end = close;
    l.line = line_of(p);
    l.grid = collapse_spaces(std::string_view(code_).substr(q + 1, grid_end - 1 - (q + 1)));
    l.args_begin = r + 1;
    l.args_end = close - 1;
    l.args = collapse_spaces(std::string_view(code_).substr(l.args_begin, l.args_end - l.args_begin));
    const PyFunction* f = function_at(line_index_of(p));
    if (f && line_index_of(p) > f->def) l.enclosing_function = f->name;
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<SourceMark> PySource::todo_marks() const {
  constexpr std::string_view kMarker = "swizzleperf:TODO";
  std::vector<SourceMark> out;
  for (const auto& [b, e] : comments_) {
    const std::string_view body = text_.substr(b, e - b);
    const std::size_t at = body.find(kMarker);
    if (at == std::string_view::npos) continue;
    std::string t(body.substr(at + kMarker.size()));
    for (char& ch : t)
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = ' ';
    std::string_view v = pyscan_trim(t);
    if (v.size() > 160) {
      std::size_t cut = 160;
      while (cut > 0 && (static_cast<unsigned char>(v[cut]) & 0xC0) == 0x80) --cut;  // never cut a UTF-8 sequence
      v = pyscan_trim(v.substr(0, cut));
    }
    out.push_back({line_of(b), std::string(v)});
  }
  return out;
}

std::vector<SourceMark> python_todo_marks(std::string_view text) { return PySource(text).todo_marks(); }

}  // namespace swz
