// Source edits for the init writers (contract: core/source_edits.h).
#include "swizzleperf/core/source_edits.h"

#include <algorithm>

#include "swizzleperf/util/text.h"

namespace swz {

std::string SourceEdits::apply(std::string_view src) const {
  auto sorted = edits_;
  std::sort(sorted.begin(), sorted.end(), [](const Edit& a, const Edit& b) {
    if (a.pos != b.pos) return a.pos < b.pos;
    if ((a.len > 0) != (b.len > 0)) return a.len == 0;
    return a.seq < b.seq;
  });
  std::string out;
  out.reserve(src.size() + 8192);
  std::size_t at = 0;
  for (const auto& e : sorted) {
    if (e.pos < at || e.pos > src.size()) continue;
    out.append(src.substr(at, e.pos - at));
    out += e.text;
    at = e.pos + e.len;
  }
  out.append(src.substr(std::min(at, src.size())));
  return out;
}

std::string eol_of(std::string_view text) {
  const std::size_t nl = text.find('\n');
  return nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r' ? "\r\n" : "\n";
}

std::string comment_excerpt(std::string s, std::size_t max_bytes) {
  s = trim(one_line(std::move(s)));
  if (s.size() > max_bytes) {
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "...";
  }
  return s;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == '_' || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u >= 0x80;
  });
}

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i == 12) return out + ", ...";
    out += (i ? ", " : "") + one_line(names[i], 80);
  }
  return out;
}

std::string program_class_name(const std::string& kernel, const std::function<bool(const std::string&)>& taken) {
  std::string out;
  bool up = true;
  for (char c : kernel) {
    if (c == '_') {
      up = true;
      continue;
    }
    if (up && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    up = false;
    out += c;
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "Swz" + out;
  out += "Program";
  for (int tries = 0; tries < 4 && (out == "SwzProgram" || taken(out)); ++tries) out = "Swz" + out;
  return out;
}

}  // namespace swz
