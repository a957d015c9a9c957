// JUnit XML rendering: escaping and UTF-8 repair first, then the document.
#include "swizzleperf/util/junit.h"

#include <fmt/format.h>

#include "swizzleperf/util/text.h"
#include "swizzleperf/util/file_io.h"

namespace swz {

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when invalid.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t len = 0;
  unsigned cp = 0;
  if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  // Overlong forms, surrogates, beyond U+10FFFF, and U+FFFE/U+FFFF are not XML characters.
  if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return 0;
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF || cp == 0xFFFE || cp == 0xFFFF) return 0;
  return len;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\t': out += "&#9;"; break;  // kept literally inside attributes too
        case '\n': out += "&#10;"; break;
        case '\r': out += "&#13;"; break;
        default: out += c < 0x20 || c == 0x7F ? kReplacement : std::string(1, static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const std::size_t len = utf8_sequence(text, i);
    if (len == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

int JUnitSuite::failures() const {
  int n = 0;
  for (const auto& c : cases) n += c.failed;
  return n;
}

double JUnitSuite::seconds() const {
  double s = 0;
  for (const auto& c : cases) s += c.seconds;
  return s;
}

std::string render_junit(const JUnitSuite& suite) {
  const std::string stamp = suite.timestamp.empty() ? now_iso8601() : suite.timestamp;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n",
                     xml_escape(suite.name), suite.cases.size(), suite.failures(), suite.seconds());
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3f}\" timestamp=\"{}\">\n",
                     xml_escape(suite.name), suite.cases.size(), suite.failures(), suite.seconds(), xml_escape(stamp));
  for (const auto& c : suite.cases) {
    out += fmt::format("    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3f}\"", xml_escape(c.name),
                       xml_escape(c.classname), c.seconds);
    if (!c.failed) {
      out += "/>\n";
      continue;
    }
    out += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                       xml_escape(c.message), xml_escape(c.type), xml_escape(c.details.empty() ? c.message : c.details));
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

Status write_junit(const std::filesystem::path& path, const JUnitSuite& suite) {
  if (auto st = write_file_atomic(path, render_junit(suite)); !st)
    return make_error("cannot write the JUnit file: " + st.error().message);
  return ok_status();
}

}  // namespace swz
