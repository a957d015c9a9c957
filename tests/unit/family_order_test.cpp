// Tests of the built-in families' native orders (proposer/family_order.h): for every family
// and parameter the proposer ranks with the locality model, on square, ragged, 1-D and odd
// grids and with 1, 2 and 8 dies, family_order() equals the pid -> tile table that the
// mapping check computes by compiling and running the family's rendered region with the host
// compiler. Without a compiler: hand-computed tables and that every built-in order is a
// bijection.
#include "swizzleperf/proposer/builtin_proposer.h"
#include "swizzleperf/proposer/family_order.h"

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <future>

#include "support/fixtures.h"
#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/util/file_io.h"

namespace swz {
namespace {

namespace fs = std::filesystem;

const std::vector<TileGrid> kGrids = {{32, 256}, {33, 255}, {7, 1}, {1, 9}, {64, 128}, {5, 7}};
const std::vector<int> kDies = {1, 2, 8};

std::vector<int> order_test_topo_table() {
  std::vector<int> t(132);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<int>(((i / 3) % 2) ^ (i % 5 == 0));
  return t;
}

std::vector<FamilyCandidate> candidates() {
  std::vector<FamilyCandidate> out = {{"die_rr", 0},      {"die_chunk", 4},     {"die_chunk", 16}, {"grouped_m", 2},
                                      {"grouped_m", 8},   {"grouped_m", 64},    {"grouped_n", 8},  {"grouped_m_die", 8},
                                      {"col_major", 0},   {"longest_first", 8}};
  FamilyCandidate gqa{"gqa_group", 0};
  gqa.n_group = 4;
  gqa.n_stride = 8;
  out.push_back(gqa);
  out.push_back({"topo_group", 8, order_test_topo_table()});
  return out;
}

HardwareProfile dies_profile(int dies) {
  HardwareProfile h;
  h.vendor = "amd";
  h.arch = "test";
  h.num_dies = dies;
  h.compute_units = 8 * dies;
  h.dispatch = DispatchModel{"round_robin", {}, "documented", "pid % dies"};
  return h;
}

bool is_permutation_of_pids(const std::vector<std::uint32_t>& t) {
  std::vector<bool> seen(t.size(), false);
  for (std::uint32_t v : t) {
    if (v >= t.size() || seen[v]) return false;
    seen[v] = true;
  }
  return true;
}

// A RealProcessRunner that compiles each distinct source once: the mapping check compiles its
// evaluator for every call, and here one region is checked on six grids one at a time (so
// that each grid's table is the report's first). The executable of the first compile is kept
// (hard-linked: this process never opens an executable for writing, which would race with the
// other workers' fork + exec: "Text file busy") and linked in place of later compiles.
class CompileOnceRunner final : public ProcessRunner {
 public:
  explicit CompileOnceRunner(fs::path cache) : cache_(std::move(cache)) { fs::create_directories(cache_); }
  ProcessResult run(const ProcessSpec& spec) override {
    if (spec.argv.empty() || spec.argv[0] != "c++") return real_.run(spec);
    std::string key;
    fs::path out;
    for (std::size_t i = 0; i < spec.argv.size(); ++i) {
      const std::string& a = spec.argv[i];
      if (a == "-o" && i + 1 < spec.argv.size()) out = spec.argv[i + 1];
      if (a.size() > 4 && a.substr(a.size() - 4) == ".cpp") {
        auto text = read_file(a);
        key += text ? *text : a;
        key += '\0';
      }
    }
    const fs::path cached = cache_ / std::to_string(std::hash<std::string>{}(key));
    std::error_code ec;
    if (!out.empty() && fs::exists(cached)) {
      fs::remove(out, ec);
      fs::create_hard_link(cached, out, ec);
      if (!ec) {
        ++hits_;
        ProcessResult r;
        r.started = true;
        r.exit_code = 0;
        return r;
      }
    }
    ProcessResult r = real_.run(spec);
    ++compiles_;
    if (r.success() && !out.empty()) fs::create_hard_link(out, cached, ec);
    return r;
  }
  int compiles() const { return compiles_; }
  int hits() const { return hits_; }

 private:
  RealProcessRunner real_;
  fs::path cache_;
  int compiles_ = 0, hits_ = 0;
};

// ---- against the rendered regions ----------------------------------------------------

class FamilyOrderRegion : public ::testing::TestWithParam<FamilyCandidate> {};

TEST_P(FamilyOrderRegion, EqualsTheMappingCheckOfTheRenderedRegion) {
  if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
  const FamilyCandidate c = GetParam();
  const std::string region = render_family(c);
  test::TempDir dir;
  // One worker per die count (each compiles its own SWZ_NUM_DIES), in parallel.
  auto worker = [&](int dies) {
    std::vector<std::string> failures;
    CompileOnceRunner runner(dir / ("cache" + std::to_string(dies)));
    MappingCheckOptions opts;
    opts.work_dir = dir / ("w" + std::to_string(dies));
    opts.timeout = std::chrono::seconds(60);
    const HardwareProfile hw = dies_profile(dies);
    for (const TileGrid g : kGrids) {
      const std::string where = c.label() + " on " + std::to_string(g.m) + "x" + std::to_string(g.n) + " with " +
                                std::to_string(dies) + " die(s)";
      auto r = check_mapping(region, {g}, hw, opts, runner);
      if (!r) {
        failures.push_back(where + ": " + r.error().message);
        continue;
      }
      if (!r->ok || r->grids.empty()) {
        failures.push_back(where + ": the mapping check fails: " + r->summary() + r->compile_error + r->region_error);
        continue;
      }
      const auto& want = r->grids.front().mapping;
      const auto got = family_order(c, g, dies);
      if (got != want) {
        std::size_t first = 0;
        while (first < got.size() && first < want.size() && got[first] == want[first]) ++first;
        failures.push_back(where + ": family_order differs from the region" +
                           (first < got.size() && first < want.size()
                                ? " first at pid " + std::to_string(first) + ": " + std::to_string(got[first]) + " vs " +
                                      std::to_string(want[first])
                                : " in size: " + std::to_string(got.size()) + " vs " + std::to_string(want.size())));
      }
      if (!is_permutation_of_pids(got)) failures.push_back(where + ": family_order is not a bijection");
    }
    if (runner.compiles() != 1) failures.push_back(c.label() + ": expected one compile, got " + std::to_string(runner.compiles()));
    return failures;
  };
  std::vector<std::future<std::vector<std::string>>> futures;
  for (int d : kDies) futures.push_back(std::async(std::launch::async, worker, d));
  for (auto& f : futures)
    for (const auto& msg : f.get()) ADD_FAILURE() << msg;
}

std::string case_name(const ::testing::TestParamInfo<FamilyCandidate>& info) {
  std::string s = info.param.label();
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(FamilyOrderBuiltIns, FamilyOrderRegion, ::testing::ValuesIn(candidates()), case_name);

// ---- native only (no compiler) ---------------------------------------------------------

TEST(FamilyOrder, EveryBuiltInIsABijectionOnEveryGridAndDieCount) {
  std::vector<TileGrid> grids = kGrids;
  for (TileGrid g : {TileGrid{1, 1}, TileGrid{3, 3}, TileGrid{13, 1}, TileGrid{1, 257}, TileGrid{128, 128}}) grids.push_back(g);
  for (const auto& c : candidates())
    for (const TileGrid g : grids)
      for (int d : {1, 2, 3, 8}) {
        const auto t = family_order(c, g, d);
        EXPECT_EQ(t.size(), g.num_pids()) << c.label();
        EXPECT_TRUE(is_permutation_of_pids(t)) << c.label() << " on " << g.m << "x" << g.n << " with " << d << " dies";
      }
}

TEST(FamilyOrder, HandComputedTables) {
  // col_major on 2x3: all rows of column 0, then column 1, ...
  EXPECT_EQ(family_order({"col_major", 0}, {2, 3}, 1), (std::vector<std::uint32_t>{0, 3, 1, 4, 2, 5}));
  // die_rr on 5 pids over 2 dies: die 0 (pids 0, 2, 4) gets tiles 0..2, die 1 (pids 1, 3) tiles 3..4.
  EXPECT_EQ(family_order({"die_rr", 0}, {1, 5}, 2), (std::vector<std::uint32_t>{0, 3, 1, 4, 2}));
  // With one die die_rr is the identity.
  EXPECT_EQ(family_order({"die_rr", 0}, {1, 5}, 1), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
  // grouped_m(G=2) on 4x3: two rows at a time, column by column.
  EXPECT_EQ(family_order({"grouped_m", 2}, {4, 3}, 1),
            (std::vector<std::uint32_t>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
  // grouped_n(G=2) on 2x4: two columns at a time, row by row.
  EXPECT_EQ(family_order({"grouped_n", 2}, {2, 4}, 1), (std::vector<std::uint32_t>{0, 1, 4, 5, 2, 3, 6, 7}));
  // longest_first(G=1) on 3x2: per column, rows in descending order.
  EXPECT_EQ(family_order({"longest_first", 1}, {3, 2}, 1), (std::vector<std::uint32_t>{4, 2, 0, 5, 3, 1}));
  // die_chunk(C=2) over 2 dies on 8 pids: within 4 pids, die 0 (pids 0, 2) gets tiles 0, 1.
  EXPECT_EQ(family_order({"die_chunk", 2}, {1, 8}, 2), (std::vector<std::uint32_t>{0, 2, 1, 3, 4, 6, 5, 7}));
  // ... and a tail shorter than a block keeps its order.
  EXPECT_EQ(family_order({"die_chunk", 2}, {1, 6}, 2), (std::vector<std::uint32_t>{0, 2, 1, 3, 4, 5}));
  // gqa_group on a grid whose columns do not split into groups: the identity.
  FamilyCandidate gqa{"gqa_group", 0};
  gqa.n_group = 4;
  gqa.n_stride = 8;
  EXPECT_EQ(family_order(gqa, {2, 3}, 1), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
  // An unknown family: the identity; 0 dies count as 1.
  EXPECT_EQ(family_order({"no_such_family", 3}, {2, 2}, 2), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(family_order({"die_rr", 0}, {1, 5}, 0), family_order({"die_rr", 0}, {1, 5}, 1));
}

TEST(FamilyOrder, TopoGroupPutsSideZeroFirstInTheFirstWave) {
  // First wave of 4 pids measured on sides {1, 0, 1, 0}: side-0 pids 1, 3 take logical slots
  // 0, 1 and side-1 pids 0, 2 slots 2, 3; later pids keep theirs. Then grouped-M(G=1) on 1x6
  // is the identity layout, so the table is the slots.
  FamilyCandidate c{"topo_group", 1, {1, 0, 1, 0}};
  EXPECT_EQ(family_order(c, {1, 6}, 2), (std::vector<std::uint32_t>{2, 0, 3, 1, 4, 5}));
}

}  // namespace
}  // namespace swz
