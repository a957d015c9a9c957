// JUnit XML: the test-report format CI systems display (GitLab, Jenkins, GitHub
// actions that publish test results). One <testsuite> with one <testcase> per
// checked item; a failing case carries its one-line reason as the failure
// message and optional details as the element text. Every string is escaped
// for XML, and bytes XML 1.0 cannot carry (control characters, invalid UTF-8,
// as an LLM-written label may hold) become U+FFFD, so the file always parses.
// Used by `check`, `compare` and `gate`.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/util/result.h"

namespace swz {

struct JUnitCase {
  std::string name;               // e.g. the kernel file
  std::string classname;          // e.g. "swizzleperf.check"
  double seconds = 0;
  bool failed = false;
  std::string message;            // one line: why it failed
  std::string details;            // optional, multi-line
  std::string type = "failure";   // the failure's type attribute (e.g. "regression")
};

struct JUnitSuite {
  std::string name;               // e.g. "swizzleperf check"
  std::string timestamp;          // ISO-8601; now when empty
  std::vector<JUnitCase> cases;
  int failures() const;
  double seconds() const;
};

// Text safe inside an XML element or a double-quoted attribute.
std::string xml_escape(std::string_view text);

std::string render_junit(const JUnitSuite& suite);
// render_junit written with write_file_atomic.
Status write_junit(const std::filesystem::path& path, const JUnitSuite& suite);

}  // namespace swz
