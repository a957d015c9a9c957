// End-to-end: every subcommand's --help, from the real binary, says each default
// once (no "(default: X)" repeated after a description that already names its
// default, no empty "(default: "")"), exits 0 and fits the terminal.
#include <gtest/gtest.h>

#include <sstream>

#include "support/fixtures.h"
#include "swizzleperf/cli/app.h"

namespace swz::test {
namespace {

// Option entries of a --help text: an indented line starting with '-' opens one,
// deeper-indented lines that do not start with '-' continue it.
std::vector<std::string> option_entries(const std::string& help) {
  std::vector<std::string> entries;
  std::stringstream ss(help);
  std::string line;
  while (std::getline(ss, line)) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    if (first >= 2 && line[first] == '-') entries.push_back(line);
    else if (!entries.empty() && first >= 6) entries.back() += " " + line;
  }
  return entries;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(HelpE2E, EveryDefaultIsSaidOnce) {
  int checked = 0;
  for (const auto& c : cli::commands()) {
    if (std::string(c.name) == "version") continue;
    auto r = run_cli({c.name, "--help"});
    ASSERT_EQ(r.exit_code, 0) << c.name << ": " << r.err;
    const auto entries = option_entries(r.out);
    EXPECT_FALSE(entries.empty()) << c.name << " --help lists no option:\n" << r.out;
    for (const auto& e : entries) {
      EXPECT_LE(count(e, "(default"), 1u) << c.name << ": " << e;
      EXPECT_EQ(e.find("(default: \"\")"), std::string::npos) << c.name << ": " << e;
    }
    std::stringstream ss(r.out);
    std::string line;
    while (std::getline(ss, line)) EXPECT_LE(line.size(), 100u) << c.name << ": " << line;
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

TEST(HelpE2E, DefaultsStillShownWhereTheDescriptionDoesNotSayThem) {
  auto r = run_cli({"optimize", "--help"});
  ASSERT_EQ(r.exit_code, 0);
  // --run-timeout's 120 s comes only from cxxopts' suffix: it must survive.
  EXPECT_NE(r.out.find("(default: 120)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace swz::test
