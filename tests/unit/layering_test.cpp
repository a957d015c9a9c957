// The house's rooms and which may lean on which (docs/architecture.md): every
// `#include "swizzleperf/<folder>/..."` in src/ and include/ is read and checked
// against the allowed lower folders, so a new include that bends the layering
// (e.g. backend/ reaching into probe/) fails here rather than in a later review.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "support/fixtures.h"

namespace swz::test {
namespace {

// folder -> folders its files may include (itself always allowed).
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> table = {
      {"core", {}},
      {"llm", {"core"}},
      {"backend", {"core"}},
      {"proposer", {"core", "llm"}},
      {"probe", {"core", "backend"}},
      {"loop", {"core", "backend", "proposer", "llm"}},
      {"cli", {"core", "backend", "proposer", "llm", "probe", "loop"}},
  };
  return table;
}

struct Violation {
  std::string file, line;
};

std::vector<Violation> violations() {
  std::vector<Violation> out;
  const std::regex inc(R"re(^\s*#\s*include\s+"swizzleperf/([a-z_]+)/)re");
  for (const char* root : {"src", "include/swizzleperf"}) {
    for (const auto& e : fs::recursive_directory_iterator(source_dir() / root)) {
      if (!e.is_regular_file()) continue;
      const auto rel = fs::relative(e.path(), source_dir() / root);
      if (rel.begin() == rel.end() || std::next(rel.begin()) == rel.end()) continue;  // main.cpp
      const std::string folder = rel.begin()->string();
      auto it = allowed().find(folder);
      if (it == allowed().end()) {
        out.push_back({e.path().string(), "folder '" + folder + "' is not in the layering table"});
        continue;
      }
      std::ifstream in(e.path());
      std::string line;
      while (std::getline(in, line)) {
        std::smatch m;
        if (!std::regex_search(line, m, inc)) continue;
        const std::string to = m[1];
        if (to != folder && !it->second.count(to)) out.push_back({e.path().string(), line});
      }
    }
  }
  return out;
}

TEST(Layering, EveryIncludeGoesToAnAllowedLowerFolder) {
  for (const auto& v : violations()) ADD_FAILURE() << v.file << ": " << v.line;
}

TEST(Layering, BackendDoesNotReachIntoProbe) {
  // Why this file exists: hardware-profile assembly lives in core so
  // that backend/ and probe/ do not lean on each other.
  EXPECT_FALSE(allowed().at("backend").count("probe"));
  EXPECT_FALSE(allowed().at("core").count("backend"));
}

}  // namespace
}  // namespace swz::test
