// See the header.
#include "swizzleperf/util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>

namespace swz {

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string collapse_spaces(std::string_view s) {
  std::string out;
  bool space = false;
  for (const char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return s;
}

std::string one_line(std::string s, std::size_t max_chars) {
  s = trim(one_line(std::move(s)));
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

std::string now_iso8601() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

std::string utc_now(const char* strftime_format) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  if (std::strftime(buf, sizeof buf, strftime_format, &tm) == 0) return {};
  return buf;
}

std::string format_or(const std::optional<double>& v, std::string_view missing, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string(missing);
}

std::string with_thousands(unsigned long long v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

Result<std::vector<long long>> parse_positive_list(std::string_view list, long long max) {
  std::vector<long long> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string_view item = list.substr(pos, comma - pos);
    const bool digits = !item.empty() && std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) return make_error("'" + one_line(std::string(item), 40) + "' is not a positive integer");
    long long v = 0;
    bool over = false;
    for (char c : item) {
      if (v > (max - (c - '0')) / 10) over = true;
      if (over) break;
      v = v * 10 + (c - '0');
    }
    if (over) return make_error(one_line(std::string(item), 40) + " is out of range (at most " + with_thousands(max) + ")");
    if (v == 0) return make_error("'" + std::string(item) + "' is not a positive integer");
    out.push_back(v);
    if (comma == list.size()) break;
    pos = comma + 1;
  }
  return out;
}

std::string shell_quote(std::string_view word) {
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.' || c == '/' || c == '+' || c == ',' || c == ':' || c == '@' || c == '%' || c == '=';
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string_view> split_lines_view(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

}  // namespace swz
