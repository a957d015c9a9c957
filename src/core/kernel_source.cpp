// KernelSource: finds the swizzle region by its marker lines and splices new
// regions in. Diffs use Debian's dtl (libdtl-dev): a maintained Myers diff with
// unified-hunk output, which beats hand-writing one.
#include "swizzleperf/core/kernel_source.h"

#include "swizzleperf/core/cuda_scan.h"
#include "swizzleperf/core/triton_scan.h"
#include "swizzleperf/util/text.h"

#include <dtl/dtl.hpp>

#include <cctype>
#include <cstdint>
#include <sstream>
#include <vector>

#include "swizzleperf/util/file_io.h"

namespace swz {

namespace {

constexpr std::string_view kBegin = "// swizzleperf:begin";
constexpr std::string_view kEnd = "// swizzleperf:end";
constexpr std::string_view kPyBegin = "# swizzleperf:begin";
constexpr std::string_view kPyEnd = "# swizzleperf:end";

struct Line {
  std::size_t begin, end;  // [begin, end) excluding the newline
};

std::vector<Line> split_lines(const std::string& text) {
  std::vector<Line> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back({pos, nl});
    pos = nl + 1;
  }
  return lines;
}

std::vector<std::string> to_lines(std::string_view s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t nl = s.find('\n', pos);
    if (nl == std::string_view::npos) nl = s.size();
    out.emplace_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

}  // namespace

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// `swizzle_pid` as a whole word followed by optional whitespace and '('. One pass:
// each candidate's whitespace run is skipped once and the scan resumes after it.
bool names_swizzle_pid_call(std::string_view r) {
  constexpr std::string_view word = "swizzle_pid";
  std::size_t from = 0;
  while (true) {
    const std::size_t at = r.find(word, from);
    if (at == std::string_view::npos) return false;
    std::size_t j = at + word.size();
    from = j;
    if (at > 0 && ident_char(r[at - 1])) continue;
    while (j < r.size() && (blank(r[j]) || r[j] == '\n')) ++j;
    if (j < r.size() && r[j] == '(') return true;
    from = std::max(from, j);
  }
}

// A line whose first non-blank characters are '#', blanks, "include".
bool has_include_line(std::string_view r) {
  std::size_t i = 0;
  while (i < r.size()) {
    while (i < r.size() && blank(r[i])) ++i;
    if (i < r.size() && r[i] == '#') {
      ++i;
      while (i < r.size() && blank(r[i])) ++i;
      if (r.substr(i, 7) == "include") return true;
    }
    const std::size_t nl = r.find('\n', i);
    if (nl == std::string_view::npos) return false;
    i = nl + 1;
  }
  return false;
}

// "// swizzleperf:default-grid MxN" ("# ..." in Python) at the start of a trimmed line, M and N of at
// most 8 digits each; anything else is not the comment.
std::optional<TileGrid> default_grid_comment(std::string_view t, std::string_view prefix) {
  if (t.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::size_t i = prefix.size();
  while (i < t.size() && blank(t[i])) ++i;
  constexpr std::string_view tag = "swizzleperf:default-grid";
  if (t.substr(i, tag.size()) != tag) return std::nullopt;
  i += tag.size();
  if (i >= t.size() || !blank(t[i])) return std::nullopt;
  while (i < t.size() && blank(t[i])) ++i;
  auto number = [&](std::uint64_t& v) {
    const std::size_t start = i;
    v = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && i - start < 9) v = v * 10 + (t[i++] - '0');
    return i > start && i - start <= 8 && !(i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])));
  };
  std::uint64_t m = 0, n = 0;
  if (!number(m)) return std::nullopt;
  while (i < t.size() && blank(t[i])) ++i;
  if (i >= t.size() || (t[i] != 'x' && t[i] != 'X')) return std::nullopt;
  ++i;
  while (i < t.size() && blank(t[i])) ++i;
  if (!number(n)) return std::nullopt;
  if (i < t.size() && ident_char(t[i])) return std::nullopt;
  if (m == 0 || n == 0) return std::nullopt;
  return TileGrid{static_cast<unsigned>(m), static_cast<unsigned>(n)};
}

}  // namespace

Result<TileGrid> parse_tile_grid(std::string_view text) {
  const std::size_t x = text.find_first_of("xX");
  if (x == std::string_view::npos || x == 0 || x + 1 >= text.size())
    return make_error("'" + one_line(std::string(text), 40) + "' is not MxN (e.g. 64x64)");
  std::uint64_t dims[2] = {0, 0};
  const std::string_view parts[2] = {text.substr(0, x), text.substr(x + 1)};
  for (int k = 0; k < 2; ++k) {
    for (char c : parts[k]) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return make_error("'" + one_line(std::string(text), 40) + "' is not MxN with positive integers M and N (e.g. 64x64)");
      dims[k] = dims[k] * 10 + static_cast<unsigned>(c - '0');
      if (dims[k] > kMaxGridPids)
        return make_error("'" + one_line(std::string(text), 40) + "': a side of more than " + with_thousands(kMaxGridPids) +
                          " tiles cannot be numbered by a 32-bit pid");
    }
  }
  // The range rules are make_tile_grid's; the digits above only had to fit.
  return make_tile_grid(static_cast<long long>(dims[0]), static_cast<long long>(dims[1]), "");
}

Result<TileGrid> make_tile_grid(long long m, long long n, const std::string& what) {
  const std::string grid = (what.empty() ? "" : what + " ") + std::to_string(m) + "x" + std::to_string(n);
  if (m < 1 || n < 1 || static_cast<unsigned long long>(m) > kMaxGridPids || static_cast<unsigned long long>(n) > kMaxGridPids)
    return make_error(grid + " is not a grid of positive sides");
  const std::uint64_t tiles = static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n);
  if (tiles > kMaxGridPids)
    return make_error(grid + " has " + with_thousands(tiles) + " tiles: a 32-bit pid numbers at most " + with_thousands(kMaxGridPids));
  return TileGrid{static_cast<unsigned>(m), static_cast<unsigned>(n)};
}

Status check_region_size(std::size_t bytes) {
  if (bytes <= kMaxRegionBytes) return ok_status();
  return make_error("the swizzle region is " + with_thousands(bytes) + " bytes; the limit is " + with_thousands(kMaxRegionBytes) +
                    " (a swizzle is a few lines of integer arithmetic)");
}

RegionLanguage language_of(const std::filesystem::path& path) {
  return path.extension() == ".py" ? RegionLanguage::python : RegionLanguage::cpp;
}

const char* source_extension(RegionLanguage language) { return language == RegionLanguage::python ? ".py" : ".hip"; }

const char* comment_prefix(RegionLanguage language) { return language == RegionLanguage::python ? "#" : "//"; }

Status validate_region(std::string_view r, RegionLanguage language) {
  if (auto st = check_region_size(r.size()); !st) return st;
  const bool py = language == RegionLanguage::python;
  if (!names_swizzle_pid_call(r))
    return make_error(py ? "the swizzle region does not define swizzle_pid(pid, num_pids, grid_m, grid_n)"
                         : "the swizzle region does not define swizzle_pid(pid, num_pids, grid)");
  if (r.find("swizzleperf:begin") != std::string_view::npos || r.find("swizzleperf:end") != std::string_view::npos)
    return make_error("the swizzle region must not contain swizzleperf marker lines");
  if (!py && has_include_line(r))
    return make_error("the swizzle region must not #include anything (it is evaluated on the host as plain C++)");
  return ok_status();
}

Result<KernelSource> KernelSource::parse(std::string text, std::filesystem::path path) {
  KernelSource k;
  k.path_ = std::move(path);
  k.language_ = language_of(k.path_);
  k.text_ = std::move(text);
  const std::string where = k.path_.empty() ? std::string("kernel") : k.path_.string();
  const bool py = k.language_ == RegionLanguage::python;
  const std::string_view begin_marker = py ? kPyBegin : kBegin, end_marker = py ? kPyEnd : kEnd;
  const std::string b = std::string(begin_marker), e = std::string(end_marker);
  int begins = 0, ends = 0;
  std::optional<std::size_t> begin_line_end, end_line_begin;
  int line_no = 0, begin_no = 0;
  for (const auto& line : split_lines(k.text_)) {
    ++line_no;
    std::string t = trim(std::string_view(k.text_).substr(line.begin, line.end - line.begin));
    if (t.rfind(begin_marker, 0) == 0) {
      ++begins;
      begin_no = line_no;
      if (begins == 1) begin_line_end = std::min(line.end + 1, k.text_.size());
    } else if (t.rfind(end_marker, 0) == 0) {
      ++ends;
      if (ends == 1) end_line_begin = line.begin;
    } else if (auto g = default_grid_comment(t, comment_prefix(k.language_))) {
      k.default_grid_ = g;
      k.default_grid_line_ = static_cast<std::size_t>(line_no);
    }
  }
  if (begins == 0)
    return make_error(where + " has no swizzle region: add the lines '" + b + "' and '" + e +
                      "' around swizzle_pid (see docs/kernel-contract.md)");
  if (begins > 1 || ends > 1)
    return make_error(where + " has more than one swizzle region: keep exactly one '" + b + "' ... '" + e + "'");
  if (ends == 0 || *end_line_begin < *begin_line_end)
    return make_error(where + ": '" + b + "' at line " + std::to_string(begin_no) + " has no '" + e + "' after it");
  k.region_begin_ = *begin_line_end;
  k.region_end_ = *end_line_begin;
  // Only the size here: what the region may contain is judged by its users
  // (check reports a rejected region as a failed check, exit 1; optimize, build,
  // gate and sweep refuse it, exit 2), all through region_validator.
  if (auto st = check_region_size(k.region_end_ - k.region_begin_); !st) return make_error(where + ": " + st.error().message);
  return k;
}

Result<KernelSource> KernelSource::load(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return make_error("kernel file " + path.string() + " does not exist");
  if (std::filesystem::is_directory(path, ec))
    return make_error(path.string() + " is a directory, not a kernel file");
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxKernelFileBytes)
    return make_error("kernel file " + path.string() + " is " + with_thousands(size) + " bytes; the limit is " +
                      with_thousands(kMaxKernelFileBytes) + " (a kernel program is tens of KB)");
  auto text = read_file(path);
  if (!text) return make_error(text.error().message + " (the kernel file)");
  return parse(*text, path);
}

std::optional<std::size_t> KernelSource::declared_size_arity() const {
  // C++: `default_size() const { return {a, b, c}; }`; Python: `def default_size(self): return (a, b, c)`.
  const bool py = language_ == RegionLanguage::python;
  const std::size_t at = text_.find(py ? "def default_size(" : "default_size()");
  if (at == std::string::npos) return std::nullopt;
  const std::size_t ret = text_.find("return", at);
  if (ret == std::string::npos || ret - at > 200) return std::nullopt;
  std::size_t i = ret + 6;
  while (i < text_.size() && blank(text_[i])) ++i;
  if (i >= text_.size() || (py ? (text_[i] != '(' && text_[i] != '[') : text_[i] != '{')) return std::nullopt;
  std::size_t values = 1;
  int depth = 0;
  for (++i; i < text_.size() && i - ret < 400; ++i) {
    const char c = text_[i];
    if (c == '(' || c == '{' || c == '[') ++depth;
    else if ((c == ')' || c == '}' || c == ']') && depth > 0) --depth;
    else if (c == '}' || c == ')' || c == ']') return values;
    else if (c == ',' && depth == 0) ++values;
    else if (c == ';' || c == '\n') return std::nullopt;
  }
  return std::nullopt;
}

std::string KernelSource::name() const { return path_.empty() ? "kernel" : path_.stem().string(); }

std::string KernelSource::region() const { return text_.substr(region_begin_, region_end_ - region_begin_); }

Result<std::string> KernelSource::splice(std::string_view new_region) const {
  if (auto st = validate_region(new_region, language_); !st) return st.error();
  std::string region(new_region);
  if (!region.empty() && region.back() != '\n') region += '\n';
  return text_.substr(0, region_begin_) + region + text_.substr(region_end_);
}

std::string unified_diff(std::string_view a, std::string_view b, const std::string& a_name,
                         const std::string& b_name) {
  if (a == b) return {};
  auto la = to_lines(a), lb = to_lines(b);
  dtl::Diff<std::string, std::vector<std::string>> diff(la, lb);
  diff.compose();
  diff.composeUnifiedHunks();
  std::ostringstream out;
  out << "--- " << a_name << "\n+++ " << b_name << "\n";
  diff.printUnifiedFormat(out);
  return out.str();
}

bool has_region_begin_line(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    if (trim(text.substr(pos, nl - pos)).rfind(kBegin, 0) == 0) return true;
    pos = nl + 1;
  }
  return false;
}

bool is_kernel_file_name(const std::filesystem::path& path) {
  const auto ext = path.extension();
  return ext == ".hip" || ext == ".cu" || ext == ".py";
}

Status check_no_todo(const KernelSource& kernel) {
  const auto marks = kernel.language() == RegionLanguage::python ? python_todo_marks(kernel.text()) : todo_marks(kernel.text());
  if (marks.empty()) return ok_status();
  const std::string where = kernel.path().empty() ? std::string("kernel") : kernel.path().string();
  return make_error(where + ":" + std::to_string(marks.front().line) + ": " + std::to_string(marks.size()) +
                    " swizzleperf:TODO left to fill in (" + one_line(marks.front().text, 80) +
                    "): finish the program, then run swizzleperf check --strict " + shell_quote(where));
}

}  // namespace swz
