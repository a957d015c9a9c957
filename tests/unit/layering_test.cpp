// The house's rooms and which may lean on which (docs/architecture.md): every
// `#include "swizzleperf/<folder>/..."` in src/ and include/ is read and checked
// against the allowed lower folders, so a new include that bends the layering
// (e.g. backend/ reaching into probe/) fails here rather than in a later review.
// Inside a folder the same holds file by file: a module (include/swizzleperf/<folder>/
// <stem>.h with src/<folder>/<stem>.cpp) that includes another's header leans on it,
// and no two modules may lean on each other round a cycle, which would leave
// neither testable, or understandable, without the other. The includes are read
// by a small hand scanner (no regex on file text).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/fixtures.h"

namespace swz::test {
namespace {

// folder -> folders its files may include (itself always allowed).
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> table = {
      {"util", {}},
      {"core", {"util"}},
      {"llm", {"util", "core"}},
      {"backend", {"util", "core", "tune"}},
      {"model", {"util", "core"}},
      {"tune", {"util", "core"}},
      {"proposer", {"util", "core", "llm", "model", "tune"}},
      {"probe", {"util", "core", "backend"}},
      {"loop", {"util", "core", "backend", "proposer", "llm", "model", "tune"}},
      {"report", {"util", "core", "backend", "proposer", "llm", "loop", "model", "tune"}},
      {"cli", {"util", "core", "backend", "proposer", "llm", "probe", "loop", "report", "model", "tune"}},
  };
  return table;
}

// ---- reading includes by hand ------------------------------------------------------------

// The path after `swizzleperf/` when `line` is `#include "swizzleperf/..."` (blanks
// allowed before and after '#', as the preprocessor allows), e.g. "core/hardware.h".
std::optional<std::string> swizzleperf_include(const std::string& line) {
  std::size_t i = 0;
  auto skip_blanks = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  auto take = [&](const std::string& word) {
    if (line.compare(i, word.size(), word) != 0) return false;
    i += word.size();
    return true;
  };
  skip_blanks();
  if (!take("#")) return std::nullopt;
  skip_blanks();
  if (!take("include")) return std::nullopt;
  skip_blanks();
  if (!take("\"swizzleperf/")) return std::nullopt;
  const auto close = line.find('"', i);
  if (close == std::string::npos) return std::nullopt;
  return line.substr(i, close - i);
}

TEST(Layering, IncludeScannerReadsOnlyProjectIncludes) {
  EXPECT_EQ(swizzleperf_include("#include \"swizzleperf/core/hardware.h\"").value_or(""), "core/hardware.h");
  EXPECT_EQ(swizzleperf_include("  #  include\t\"swizzleperf/util/text.h\"  // why").value_or(""), "util/text.h");
  EXPECT_FALSE(swizzleperf_include("#include <swizzleperf/core/hardware.h>"));
  EXPECT_FALSE(swizzleperf_include("#include \"support/fixtures.h\""));
  EXPECT_FALSE(swizzleperf_include("// #include \"swizzleperf/core/hardware.h\""));
  EXPECT_FALSE(swizzleperf_include("#include \"swizzleperf/core/unterminated.h"));
  EXPECT_FALSE(swizzleperf_include("#define X \"swizzleperf/core/x.h\""));
}

// A source file: its folder (src/<folder>/... or include/swizzleperf/<folder>/...),
// the stem of its name and every swizzleperf include it names.
struct SourceFile {
  fs::path path;
  std::string root;    // "src" or "include/swizzleperf"
  std::string folder;  // empty: directly in the root (src/main.cpp)
  std::string stem;
  std::vector<std::string> includes;  // "core/hardware.h", ...
};

std::vector<SourceFile> source_files() {
  std::vector<SourceFile> out;
  for (const char* root : {"src", "include/swizzleperf"}) {
    for (const auto& e : fs::recursive_directory_iterator(source_dir() / root)) {
      if (!e.is_regular_file()) continue;
      SourceFile f;
      f.path = e.path();
      f.root = root;
      const auto rel = fs::relative(e.path(), source_dir() / root);
      if (std::next(rel.begin()) != rel.end()) f.folder = rel.begin()->string();
      f.stem = e.path().stem().string();
      std::ifstream in(e.path());
      std::string line;
      while (std::getline(in, line))
        if (auto inc = swizzleperf_include(line)) f.includes.push_back(*inc);
      out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return out;
}

// ---- folders -------------------------------------------------------------------------------

TEST(Layering, EveryFileIsInAFolderOfTheTable) {
  for (const auto& f : source_files()) {
    if (f.folder.empty()) {
      // src/main.cpp is the program above every folder; a header belongs in one.
      if (f.root != "src") ADD_FAILURE() << f.path.string() << ": not in a folder of the layering table";
      continue;
    }
    if (!allowed().count(f.folder))
      ADD_FAILURE() << f.path.string() << ": folder '" << f.folder << "' is not in the layering table";
  }
}

TEST(Layering, EveryIncludeGoesToAnAllowedLowerFolder) {
  for (const auto& f : source_files()) {
    const auto it = allowed().find(f.folder);
    if (it == allowed().end()) continue;  // main.cpp, or a folder the test above reports
    for (const auto& inc : f.includes) {
      const std::string to = inc.substr(0, inc.find('/'));
      if (to != f.folder && !it->second.count(to))
        ADD_FAILURE() << f.path.string() << ": #include \"swizzleperf/" << inc << "\" (" << f.folder
                      << "/ may not include " << to << "/)";
    }
  }
}

TEST(Layering, BackendDoesNotReachIntoProbe) {
  // Why this file exists: hardware-profile assembly lives in core so
  // that backend/ and probe/ do not lean on each other.
  EXPECT_FALSE(allowed().at("backend").count("probe"));
  EXPECT_FALSE(allowed().at("core").count("backend"));
}

TEST(Layering, UtilitiesKnowNothingOfTheDomain) {
  // util/ is what any program could use (files, processes, text, CSV, statistics):
  // it includes nothing of swizzleperf's own folders.
  EXPECT_TRUE(allowed().at("util").empty());
}

TEST(Layering, TheEngineDoesNotIncludeItsViews) {
  // Reports observe the loop (loop/run_observer.h); the loop never includes them.
  EXPECT_FALSE(allowed().at("loop").count("report"));
}

// ---- modules inside a folder -----------------------------------------------------------------

// module -> the modules it includes (every module is a key, even one that includes none).
using Graph = std::map<std::string, std::set<std::string>>;

// The cycles of `g`, one per group of modules that reach each other (a strongly
// connected component of two or more): the shortest cycle through the group's
// first module, in order, without repeating the first at the end. Breaking it and
// running again shows any other cycle the group holds.
std::vector<std::vector<std::string>> find_cycles(const Graph& g) {
  static const std::set<std::string> none;
  auto successors = [&](const std::string& v) -> const std::set<std::string>& {
    const auto it = g.find(v);
    return it == g.end() ? none : it->second;
  };
  // Tarjan's strongly connected components.
  std::map<std::string, int> index, low;
  std::set<std::string> on_stack;
  std::vector<std::string> stack;
  std::vector<std::set<std::string>> groups;
  int next = 0;
  std::function<void(const std::string&)> visit = [&](const std::string& v) {
    index[v] = low[v] = next++;
    stack.push_back(v);
    on_stack.insert(v);
    for (const auto& w : successors(v)) {
      if (!index.count(w)) {
        visit(w);
        low[v] = std::min(low[v], low[w]);
      } else if (on_stack.count(w)) {
        low[v] = std::min(low[v], index[w]);
      }
    }
    if (low[v] != index[v]) return;
    std::set<std::string> group;
    std::string w;
    do {
      w = stack.back();
      stack.pop_back();
      on_stack.erase(w);
      group.insert(w);
    } while (w != v);
    if (group.size() > 1) groups.push_back(std::move(group));
  };
  for (const auto& [v, _] : g)
    if (!index.count(v)) visit(v);

  std::vector<std::vector<std::string>> cycles;
  for (const auto& group : groups) {
    // Breadth-first from the group's first module, inside the group, back to itself.
    const std::string start = *group.begin();
    std::map<std::string, std::string> parent;
    std::deque<std::string> queue{start};
    std::optional<std::string> last;  // the module whose edge closes the cycle
    while (!queue.empty() && !last) {
      const std::string v = queue.front();
      queue.pop_front();
      for (const auto& w : successors(v)) {
        if (!group.count(w)) continue;
        if (w == start) {
          last = v;
          break;
        }
        if (parent.count(w)) continue;
        parent[w] = v;
        queue.push_back(w);
      }
    }
    std::vector<std::string> cycle;
    for (std::string v = *last; v != start; v = parent.at(v)) cycle.push_back(v);
    cycle.push_back(start);
    std::reverse(cycle.begin(), cycle.end());
    cycles.push_back(std::move(cycle));
  }
  return cycles;
}

std::string describe_cycle(const std::vector<std::string>& cycle) {
  std::string s;
  for (const auto& m : cycle) s += m + " -> ";
  return s + cycle.front();
}

// Each folder's modules and their includes of one another ("core/hardware" ->
// "core/kernel_source"); an include of a header with no module of that name is an
// edge too, to a module of its own.
std::map<std::string, Graph> module_graphs() {
  std::map<std::string, Graph> graphs;
  for (const auto& f : source_files()) {
    if (f.folder.empty()) continue;
    const auto ext = f.path.extension();
    if (ext != ".h" && ext != ".cpp") continue;
    Graph& g = graphs[f.folder];
    const std::string self = f.folder + "/" + f.stem;
    g[self];
    for (const auto& inc : f.includes) {
      if (inc.compare(0, f.folder.size() + 1, f.folder + "/") != 0) continue;  // another folder
      if (inc.size() < 2 || inc.compare(inc.size() - 2, 2, ".h") != 0) continue;
      const std::string other = inc.substr(0, inc.size() - 2);
      if (other == self) continue;  // a source including its own header
      g[self].insert(other);
      g[other];
    }
  }
  return graphs;
}

TEST(Layering, CycleFinderFindsACycle) {
  // a -> b -> c -> a, with d hanging off it and e -> f -> e apart; g alone.
  const Graph g = {{"a", {"b", "d"}}, {"b", {"c"}}, {"c", {"a", "d"}}, {"d", {}},
                   {"e", {"f"}},      {"f", {"e"}}, {"g", {}}};
  const auto cycles = find_cycles(g);
  ASSERT_EQ(cycles.size(), 2u);
  const std::set<std::vector<std::string>> got(cycles.begin(), cycles.end());
  EXPECT_TRUE(got.count({"a", "b", "c"}));
  EXPECT_TRUE(got.count({"e", "f"}));
  EXPECT_EQ(describe_cycle({"a", "b", "c"}), "a -> b -> c -> a");
  // A shortcut back: the shortest cycle through a is named.
  EXPECT_EQ(find_cycles({{"a", {"b"}}, {"b", {"c", "a"}}, {"c", {"a"}}}),
            (std::vector<std::vector<std::string>>{{"a", "b"}}));
  // Chains and diamonds are no cycles.
  EXPECT_TRUE(find_cycles({{"a", {"b", "c"}}, {"b", {"d"}}, {"c", {"d"}}, {"d", {}}}).empty());
  EXPECT_TRUE(find_cycles({}).empty());
}

TEST(Layering, ModuleGraphSeesIncludesWithinAFolder) {
  // The scanner and the graph see the tree: folders hold their modules, and modules
  // include one another (so that no cycle below means something).
  const auto graphs = module_graphs();
  ASSERT_TRUE(graphs.count("util"));
  EXPECT_TRUE(graphs.at("util").count("util/process"));
  std::size_t edges = 0;
  for (const auto& [folder, g] : graphs)
    for (const auto& [module, to] : g) edges += to.size();
  EXPECT_GT(edges, 0u);
}

TEST(Layering, NoIncludeCycleBetweenModulesOfAFolder) {
  for (const auto& [folder, g] : module_graphs())
    for (const auto& cycle : find_cycles(g))
      ADD_FAILURE() << "include cycle in " << folder << "/: " << describe_cycle(cycle);
}

}  // namespace
}  // namespace swz::test
