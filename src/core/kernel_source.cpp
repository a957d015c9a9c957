// KernelSource: finds the swizzle region by its marker lines and splices new
// regions in. Diffs use Debian's dtl (libdtl-dev): a maintained Myers diff with
// unified-hunk output, which beats hand-writing one.
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/text.h"

#include <dtl/dtl.hpp>

#include <regex>
#include <sstream>
#include <vector>

#include "swizzleperf/core/file_io.h"

namespace swz {

namespace {

constexpr std::string_view kBegin = "// swizzleperf:begin";
constexpr std::string_view kEnd = "// swizzleperf:end";

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

Status validate_region(std::string_view region) {
  static const std::regex defines(R"(\bswizzle_pid\s*\()");
  std::string r(region);
  if (!std::regex_search(r, defines))
    return make_error("the swizzle region does not define swizzle_pid(pid, num_pids, grid)");
  if (r.find("swizzleperf:begin") != std::string::npos || r.find("swizzleperf:end") != std::string::npos)
    return make_error("the swizzle region must not contain swizzleperf marker lines");
  static const std::regex include(R"((^|\n)\s*#\s*include)");
  if (std::regex_search(r, include))
    return make_error("the swizzle region must not #include anything (it is evaluated on the host as plain C++)");
  return ok_status();
}

Result<KernelSource> KernelSource::parse(std::string text, std::filesystem::path path) {
  KernelSource k;
  k.path_ = std::move(path);
  k.text_ = std::move(text);
  const std::string where = k.path_.empty() ? std::string("kernel") : k.path_.string();
  int begins = 0, ends = 0;
  std::optional<std::size_t> begin_line_end, end_line_begin;
  int line_no = 0, begin_no = 0;
  static const std::regex grid_re(R"(//\s*swizzleperf:default-grid\s+(\d{1,8})\s*x\s*(\d{1,8})\b)");
  for (const auto& line : split_lines(k.text_)) {
    ++line_no;
    std::string t = trim(std::string_view(k.text_).substr(line.begin, line.end - line.begin));
    if (t.rfind(kBegin, 0) == 0) {
      ++begins;
      begin_no = line_no;
      if (begins == 1) begin_line_end = std::min(line.end + 1, k.text_.size());
    } else if (t.rfind(kEnd, 0) == 0) {
      ++ends;
      if (ends == 1) end_line_begin = line.begin;
    } else {
      std::smatch m;
      if (std::regex_search(t, m, grid_re)) {
        TileGrid g{static_cast<unsigned>(std::stoul(m[1])), static_cast<unsigned>(std::stoul(m[2]))};
        if (g.m > 0 && g.n > 0) k.default_grid_ = g;
      }
    }
  }
  if (begins == 0)
    return make_error(where + " has no swizzle region: add the lines '// swizzleperf:begin' and '// swizzleperf:end' around swizzle_pid (see docs/kernel-contract.md)");
  if (begins > 1 || ends > 1)
    return make_error(where + " has more than one swizzle region: keep exactly one '// swizzleperf:begin' ... '// swizzleperf:end'");
  if (ends == 0 || *end_line_begin < *begin_line_end)
    return make_error(where + ": '// swizzleperf:begin' at line " + std::to_string(begin_no) + " has no '// swizzleperf:end' after it");
  k.region_begin_ = *begin_line_end;
  k.region_end_ = *end_line_begin;
  if (auto st = validate_region(k.region()); !st) return make_error(where + ": " + st.error().message);
  return k;
}

Result<KernelSource> KernelSource::load(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return make_error("kernel file " + path.string() + " does not exist");
  if (std::filesystem::is_directory(path, ec))
    return make_error(path.string() + " is a directory, not a kernel file");
  auto text = read_file(path);
  if (!text) return make_error(text.error().message + " (the kernel file)");
  return parse(*text, path);
}

std::string KernelSource::name() const { return path_.empty() ? "kernel" : path_.stem().string(); }

std::string KernelSource::region() const { return text_.substr(region_begin_, region_end_ - region_begin_); }

Result<std::string> KernelSource::splice(std::string_view new_region) const {
  if (auto st = validate_region(new_region); !st) return st.error();
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

}  // namespace swz
