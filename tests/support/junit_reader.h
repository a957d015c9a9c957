// Reads a JUnit XML document back with a real XML parser (libxml2), so tests
// check what a CI system would see rather than substrings of our own output.
#pragma once

#include <string>
#include <vector>

namespace swz::test {

struct ParsedCase {
  std::string name, classname;
  bool failed = false;
  std::string message;  // the failure's message attribute
  std::string text;     // the failure element's text
};

struct ParsedJUnit {
  bool ok = false;       // well-formed and shaped like JUnit
  std::string error;     // the parser's complaint when !ok
  std::string suite_name;
  int tests = 0, failures = 0;  // the <testsuite> attributes
  std::vector<ParsedCase> cases;
};

ParsedJUnit parse_junit(const std::string& xml);

}  // namespace swz::test
