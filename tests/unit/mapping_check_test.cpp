// Tests of the mapping check: the pure analysis of a pid -> tile table
// (bijection, collisions, missing and out-of-range tiles, per-die load and
// neighbour co-location under a dispatch model), the ragged grid set, and
// check_mapping end to end with the real host compiler and process runner.
#include "swizzleperf/core/mapping_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <set>
#include <utility>

#include "support/fixtures.h"
#include "support/timing.h"

namespace swz {
namespace {

HardwareProfile rr_profile(int dies) {
  HardwareProfile h;
  h.vendor = "amd";
  h.arch = "test";
  h.num_dies = dies;
  h.dispatch = DispatchModel{"round_robin", {}, "documented", "pid % dies"};
  return h;
}

std::vector<std::uint32_t> identity(unsigned n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// ---- analyse_mapping -----------------------------------------------------------

TEST(AnalyseMapping, IdentityIsBijective) {
  const TileGrid g{4, 6};
  auto c = analyse_mapping(g, identity(24), rr_profile(1));
  EXPECT_TRUE(c.bijective);
  EXPECT_EQ(c.collisions, 0u);
  EXPECT_EQ(c.missing, 0u);
  EXPECT_EQ(c.out_of_range, 0u);
  EXPECT_TRUE(c.colliding_pids.empty());
  EXPECT_TRUE(c.missing_tiles.empty());
  EXPECT_EQ(c.tiles_per_die, std::vector<unsigned>{24});
  EXPECT_EQ(c.mapping.size(), 24u);  // kept when bijective
  EXPECT_EQ(c.mapping[5], 5u);
  // One die: every neighbour pair shares it.
  EXPECT_DOUBLE_EQ(c.row_neighbours_same_die, 1.0);
  EXPECT_DOUBLE_EQ(c.col_neighbours_same_die, 1.0);
}

TEST(AnalyseMapping, HalfPidCollidesAndMisses) {
  const TileGrid g{2, 4};
  std::vector<std::uint32_t> m;
  for (unsigned p = 0; p < 8; ++p) m.push_back(p / 2);
  auto c = analyse_mapping(g, m, rr_profile(1));
  EXPECT_FALSE(c.bijective);
  EXPECT_EQ(c.collisions, 4u);  // pids 1, 3, 5, 7 hit a taken tile
  EXPECT_EQ(c.missing, 4u);     // tiles 4..7
  EXPECT_EQ(c.out_of_range, 0u);
  EXPECT_EQ(c.colliding_pids, (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(c.missing_tiles, (std::vector<unsigned>{4, 5, 6, 7}));
  EXPECT_TRUE(c.mapping.empty());  // not kept for a broken mapping
}

TEST(AnalyseMapping, CollisionListIsBoundedButTotalsAreNot) {
  const TileGrid g{64, 64};
  std::vector<std::uint32_t> m(4096, 0);  // every pid to tile 0
  auto c = analyse_mapping(g, m, rr_profile(1));
  EXPECT_EQ(c.collisions, 4095u);
  EXPECT_EQ(c.missing, 4095u);
  EXPECT_LE(c.colliding_pids.size(), 17u);
  EXPECT_LE(c.missing_tiles.size(), 16u);
  EXPECT_EQ(c.missing_tiles.front(), 1u);
}

TEST(AnalyseMapping, OutOfRangeValues) {
  const TileGrid g{2, 4};
  std::vector<std::uint32_t> m = identity(8);
  m[2] = -1;
  m[6] = 8;
  auto c = analyse_mapping(g, m, rr_profile(1));
  EXPECT_FALSE(c.bijective);
  EXPECT_EQ(c.out_of_range, 2u);
  EXPECT_EQ(c.out_of_range_pids, (std::vector<unsigned>{2, 6}));
  EXPECT_EQ(c.missing, 2u);
  EXPECT_EQ(c.missing_tiles, (std::vector<unsigned>{2, 6}));
  EXPECT_EQ(c.collisions, 0u);
}

TEST(AnalyseMapping, ShortTableCountsMissingPidsAsOutOfRange) {
  auto c = analyse_mapping({2, 2}, {0, 1}, rr_profile(1));
  EXPECT_FALSE(c.bijective);
  EXPECT_EQ(c.out_of_range, 2u);
  EXPECT_EQ(c.missing, 2u);
}

TEST(AnalyseMapping, IdentityUnderEightDieRoundRobin) {
  const TileGrid g{8, 8};
  auto c = analyse_mapping(g, identity(64), rr_profile(8));
  ASSERT_TRUE(c.bijective);
  // Tile (i,j) = pid i*8+j lands on die j: a row spreads over all dies, a column stays on one.
  EXPECT_DOUBLE_EQ(c.row_neighbours_same_die, 0.0);
  EXPECT_DOUBLE_EQ(c.col_neighbours_same_die, 1.0);
  EXPECT_EQ(c.tiles_per_die, std::vector<unsigned>(8, 8));
  EXPECT_EQ(c.rows_per_die, std::vector<unsigned>(8, 8));
  EXPECT_EQ(c.cols_per_die, std::vector<unsigned>(8, 1));
}

TEST(AnalyseMapping, DieContiguousMappingUnderEightDies) {
  // pid p runs on die p % 8; give die d the whole tile row d.
  const TileGrid g{8, 8};
  std::vector<std::uint32_t> m(64);
  for (unsigned p = 0; p < 64; ++p) m[p] = (p % 8) * 8 + p / 8;
  auto c = analyse_mapping(g, m, rr_profile(8));
  ASSERT_TRUE(c.bijective);
  EXPECT_DOUBLE_EQ(c.row_neighbours_same_die, 1.0);
  EXPECT_DOUBLE_EQ(c.col_neighbours_same_die, 0.0);
  EXPECT_EQ(c.rows_per_die, std::vector<unsigned>(8, 1));
  EXPECT_EQ(c.cols_per_die, std::vector<unsigned>(8, 8));
}

TEST(AnalyseMapping, IdentityUnderTwoDies) {
  // 8 columns: the tile below is 8 pids later, same parity, same die.
  auto even = analyse_mapping({8, 8}, identity(64), rr_profile(2));
  EXPECT_DOUBLE_EQ(even.row_neighbours_same_die, 0.0);
  EXPECT_DOUBLE_EQ(even.col_neighbours_same_die, 1.0);
  EXPECT_EQ(even.tiles_per_die, (std::vector<unsigned>{32, 32}));
  // 7 columns: the tile below is 7 pids later, the other die.
  auto odd = analyse_mapping({8, 7}, identity(56), rr_profile(2));
  EXPECT_DOUBLE_EQ(odd.row_neighbours_same_die, 0.0);
  EXPECT_DOUBLE_EQ(odd.col_neighbours_same_die, 0.0);
  EXPECT_EQ(odd.tiles_per_die, (std::vector<unsigned>{28, 28}));
}

TEST(AnalyseMapping, TilesPerDieRaggedAndTable) {
  // 10 pids over 4 dies round robin: 3,3,2,2.
  auto rr = analyse_mapping({2, 5}, identity(10), rr_profile(4));
  EXPECT_EQ(rr.tiles_per_die, (std::vector<unsigned>{3, 3, 2, 2}));
  // A measured table: pids 0,1 -> die 0; 2,3 -> die 1; repeating.
  HardwareProfile t = rr_profile(2);
  t.dispatch = DispatchModel{"table", {0, 0, 1, 1}, "measured", ""};
  auto tab = analyse_mapping({2, 4}, identity(8), t);
  EXPECT_EQ(tab.tiles_per_die, (std::vector<unsigned>{4, 4}));
  // Row neighbours (0,1),(2,3) in each row share a die; (1,2) does not: 2 of 3.
  EXPECT_DOUBLE_EQ(tab.row_neighbours_same_die, 4.0 / 6.0);
  // Column neighbours t, t+4: pid t+4 has the same die as pid t.
  EXPECT_DOUBLE_EQ(tab.col_neighbours_same_die, 1.0);
}

TEST(AnalyseMapping, JsonForm) {
  auto c = analyse_mapping({2, 4}, {0, 0, 1, 1, 2, 2, 3, 3}, rr_profile(2));
  nlohmann::json j = c;
  EXPECT_EQ(j["grid"]["m"], 2);
  EXPECT_EQ(j["grid"]["n"], 4);
  EXPECT_EQ(j["num_pids"], 8);
  EXPECT_EQ(j["bijective"], false);
  EXPECT_EQ(j["collisions"], 4);
  EXPECT_EQ(j["missing"], 4);
  EXPECT_FALSE(j.contains("error"));
}

// ---- ragged grids --------------------------------------------------------------

TEST(RaggedGrids, MainFirstNoDuplicatesAndFixedOddShapes) {
  const auto gs = ragged_grids({32, 256});
  ASSERT_FALSE(gs.empty());
  EXPECT_EQ(gs[0].m, 32u);
  EXPECT_EQ(gs[0].n, 256u);
  std::set<std::pair<unsigned, unsigned>> seen;
  for (const auto& g : gs) {
    EXPECT_GT(g.m, 0u);
    EXPECT_GT(g.n, 0u);
    EXPECT_TRUE(seen.insert({g.m, g.n}).second) << "duplicate " << g.m << "x" << g.n;
  }
  for (auto want : std::vector<std::pair<unsigned, unsigned>>{{33, 255}, {31, 259}, {32, 257}, {7, 5}, {1, 13}, {13, 1}, {3, 3}, {1, 1}})
    EXPECT_TRUE(seen.count(want)) << want.first << "x" << want.second;
}

TEST(RaggedGrids, NoDuplicatesWhenMainIsAFixedShape) {
  const auto gs = ragged_grids({7, 5});
  std::set<std::pair<unsigned, unsigned>> seen;
  for (const auto& g : gs) EXPECT_TRUE(seen.insert({g.m, g.n}).second) << g.m << "x" << g.n;
  EXPECT_EQ(gs[0].m, 7u);
  EXPECT_EQ(gs[0].n, 5u);
}

TEST(RaggedGrids, OneDimensionalGetsEveryLengthUpTo256) {
  const auto gs = ragged_grids({1, 1000});
  EXPECT_EQ(gs[0].m, 1u);
  EXPECT_EQ(gs[0].n, 1000u);
  std::set<std::pair<unsigned, unsigned>> seen;
  for (const auto& g : gs) EXPECT_TRUE(seen.insert({g.m, g.n}).second) << g.m << "x" << g.n;
  for (unsigned c = 1; c <= 256; ++c) EXPECT_TRUE(seen.count({1, c})) << "1x" << c;
  EXPECT_TRUE(seen.count({1, 1001}));

  const auto small = ragged_grids({1, 10});
  std::set<std::pair<unsigned, unsigned>> s2;
  for (const auto& g : small) EXPECT_TRUE(s2.insert({g.m, g.n}).second) << g.m << "x" << g.n;
  for (unsigned c = 1; c <= 11; ++c) EXPECT_TRUE(s2.count({1, c})) << "1x" << c;
}

// ---- check_mapping end to end ----------------------------------------------------

const char* kIdentity =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  (void)num_pids; (void)grid;\n"
    "  return pid;\n"
    "}\n";

std::string region_returning(const std::string& expr) {
  return "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
         "  (void)num_pids; (void)grid;\n"
         "  return " + expr + ";\n}\n";
}

class CheckMapping : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
    opts.host_compiler = "c++";
    opts.work_dir = dir / "work";
    opts.timeout = std::chrono::seconds(30);
  }
  test::TempDir dir;
  MappingCheckOptions opts;
  RealProcessRunner runner;
};

TEST_F(CheckMapping, IdentityIsOkOnAllRaggedGrids) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  auto r = check_mapping(kIdentity, ragged_grids({8, 8}), *hw, opts, runner);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->ok) << r->summary();
  EXPECT_TRUE(r->compile_error.empty());
  EXPECT_EQ(r->num_dies, 8);
  ASSERT_EQ(r->grids.size(), ragged_grids({8, 8}).size());
  EXPECT_EQ(r->grids[0].mapping.size(), 64u);  // the main grid keeps its table
  for (std::size_t i = 1; i < r->grids.size(); ++i) EXPECT_TRUE(r->grids[i].mapping.empty());
  EXPECT_DOUBLE_EQ(r->grids[0].col_neighbours_same_die, 1.0);
  EXPECT_NE(r->summary().find("bijection"), std::string::npos) << r->summary();
  EXPECT_NE(r->dispatch_source.find("documented"), std::string::npos);
  nlohmann::json j = *r;
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["grids"].size(), r->grids.size());
}

TEST_F(CheckMapping, NumDiesIsVisibleToTheRegion) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  auto r = check_mapping(region_returning("(pid + SWZ_NUM_DIES) % num_pids"), {{4, 4}}, *hw, opts, runner);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok) << r->summary();
  EXPECT_EQ(r->grids[0].mapping[0], 8u);
}

TEST_F(CheckMapping, HalfPidIsNotABijection) {
  auto hw = profile_from_arch("sm_90");
  ASSERT_TRUE(hw);
  auto r = check_mapping(region_returning("pid / 2"), ragged_grids({8, 8}), *hw, opts, runner);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->ok);
  ASSERT_EQ(r->grids.size(), 1u);  // stops at the first failing grid
  const auto& g = r->grids[0];
  EXPECT_FALSE(g.bijective);
  EXPECT_EQ(g.collisions, 32u);
  EXPECT_EQ(g.missing, 32u);
  ASSERT_GE(g.colliding_pids.size(), 2u);
  EXPECT_EQ(g.colliding_pids[0], 0u);
  EXPECT_EQ(g.colliding_pids[1], 1u);
  EXPECT_NE(r->summary().find("NOT a bijection"), std::string::npos) << r->summary();
  EXPECT_NE(r->summary().find("colliding pids 0,1"), std::string::npos) << r->summary();
}

TEST_F(CheckMapping, CompileErrorIsReported) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  opts.unsafe_skip_region_validator_for_tests = true;  // the validator would refuse the unknown name first
  auto r = check_mapping(region_returning("no_such_identifier_xyz"), {{4, 4}}, *hw, opts, runner);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->compile_error.find("no_such_identifier_xyz"), std::string::npos) << r->compile_error;
  EXPECT_TRUE(r->grids.empty());
  EXPECT_NE(r->summary().find("does not compile"), std::string::npos);
}

// `--host-cxx /bin/false` once made every region "no grid checked" (exit 1, a verdict on the
// kernel): a compiler that compiles nothing is an Error naming it (exit 2).
TEST_F(CheckMapping, ACompilerThatCompilesNothingIsAnErrorNamingIt) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  opts.host_compiler = "/bin/false";
  auto r = check_mapping(kIdentity, {{4, 4}}, *hw, opts, runner);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "the host C++ compiler '/bin/false' does not compile a one-line program (exit code 1, no message): the mapping "
            "check compiles the region with it; install g++ or pass --host-cxx a working C++ compiler");
}

TEST_F(CheckMapping, RejectedRegionIsReportedWithoutRunningTheCompiler) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  opts.host_compiler = "/nonexistent/compiler";  // would fail if it were run
  auto r = check_mapping("#include <cstdio>\n" + std::string(kIdentity), {{4, 4}}, *hw, opts, runner);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->region_error, "line 1: '#': preprocessor directive or operator");
  EXPECT_EQ(r->summary(), "swizzle region rejected: line 1: '#': preprocessor directive or operator");
  EXPECT_FALSE(std::filesystem::exists(opts.work_dir / "mapping_eval.cpp"));  // nothing was even written
  nlohmann::json j = *r;
  EXPECT_EQ(j["region_error"], r->region_error);
}

TEST_F(CheckMapping, MissingCompilerIsAnError) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  opts.host_compiler = "swz-no-such-compiler-xyz";
  auto r = check_mapping(kIdentity, {{4, 4}}, *hw, opts, runner);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("swz-no-such-compiler-xyz"), std::string::npos) << r.error().message;
}

TEST_F(CheckMapping, DivisionByZeroIsAGridErrorWithTheSignal) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  auto r = check_mapping(region_returning("pid / (num_pids - num_pids)"), ragged_grids({4, 4}), *hw, opts, runner);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->ok);
  EXPECT_TRUE(r->compile_error.empty()) << r->compile_error;
  ASSERT_EQ(r->grids.size(), 1u);
  EXPECT_NE(r->grids[0].error.find("signal"), std::string::npos) << r->grids[0].error;
  EXPECT_NE(r->summary().find("failed"), std::string::npos) << r->summary();
  nlohmann::json j = r->grids[0];
  EXPECT_TRUE(j.contains("error"));
}

TEST_F(CheckMapping, InfiniteLoopTimesOut) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  opts.timeout = std::chrono::seconds(2);
  const std::string region =
      "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
      "  (void)num_pids; (void)grid;\n"
      "  unsigned x = pid;\n"  // ~1e11 dependent steps: far beyond the 2 s timeout
      "  for (unsigned long long i = 0; i < 100000000000ull; ++i) x = x * 1664525u + 1013904223u;\n"
      "  if (x == 7u && pid == 0) return 1;\n"
      "  return pid;\n"
      "}\n";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = check_mapping(region, ragged_grids({4, 4}), *hw, opts, runner);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->ok);
  ASSERT_EQ(r->grids.size(), 1u);
  EXPECT_NE(r->grids[0].error.find("timed out"), std::string::npos) << r->grids[0].error;
  EXPECT_LT(secs, test::wait_limit(5.0));  // a compile and the 2 s timeout; the loop runs for minutes
}

// ---- confinement: the evaluator holds even when the validator is bypassed ----------

// A hostile region, compiled as the validator would never let it be.
struct Hostile {
  std::string name;
  std::string code;  // MARKER is replaced by the marker file's path
};

std::vector<Hostile> hostile_regions() {
  const std::string decls =
      "extern \"C\" int system(const char*);\nextern \"C\" int fork();\nextern \"C\" int creat(const char*, unsigned);\n"
      "extern \"C\" int open(const char*, int, ...);\n";
  const std::string sig = "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n";
  return {
      {"system() in swizzle_pid", decls + sig + "  system(\"touch MARKER\");\n  return pid;\n}\n"},
      {"fork", decls + sig + "  if (fork() == 0) creat(\"MARKER\", 0644);\n  return pid;\n}\n"},
      {"creat of a file", decls + sig + "  creat(\"MARKER\", 0644);\n  return pid;\n}\n"},
      {"open(O_CREAT)", decls + sig + "  open(\"MARKER\", 0101, 0644);\n  return pid;\n}\n"},
      {"constructor struct", decls + "struct Evil { Evil() { system(\"touch MARKER\"); } } evil;\n" + sig + "  return pid;\n}\n"},
      {"__attribute__((constructor))", decls + "__attribute__((constructor)) void evil() { system(\"touch MARKER\"); }\n" + sig + "  return pid;\n}\n"},
      {"__attribute__((constructor(101)))", decls + "__attribute__((constructor(101))) void evil() { system(\"touch MARKER\"); }\n" + sig + "  return pid;\n}\n"},
      {"file-scope static initializer", decls + "static int evil = system(\"touch MARKER\");\n" + sig + "  return pid;\n}\n"},
  };
}

std::string with_marker(std::string code, const std::filesystem::path& marker) {
  for (std::size_t p; (p = code.find("MARKER")) != std::string::npos;) code.replace(p, 6, marker.string());
  return code;
}

TEST_F(CheckMapping, ValidatorRejectsEveryHostileRegionBeforeCompiling) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  const auto hostile = hostile_regions();
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    const auto& h = hostile[i];
    const auto marker = dir / ("marker-" + std::to_string(i));
    auto r = check_mapping(with_marker(h.code, marker), {{4, 4}}, *hw, opts, runner);
    ASSERT_TRUE(r) << h.name << ": " << r.error().message;
    EXPECT_FALSE(r->ok) << h.name;
    EXPECT_EQ(r->summary().rfind("swizzle region rejected: line ", 0), 0u) << h.name << ": " << r->summary();
    EXPECT_FALSE(std::filesystem::exists(marker)) << h.name;
  }
}

TEST_F(CheckMapping, ConfinementStopsHostileRegionsWithTheValidatorBypassed) {
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  opts.unsafe_skip_region_validator_for_tests = true;
  const auto hostile = hostile_regions();
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    const auto marker = dir / ("marker-" + std::to_string(i));
    auto r = check_mapping(with_marker(hostile[i].code, marker), {{4, 4}}, *hw, opts, runner);
    ASSERT_TRUE(r) << hostile[i].name << ": " << r.error().message;
    EXPECT_TRUE(r->compile_error.empty()) << hostile[i].name << ": " << r->compile_error;  // it compiled and ran
    EXPECT_FALSE(r->ok) << hostile[i].name << ": " << r->summary();
    ASSERT_EQ(r->grids.size(), 1u) << hostile[i].name;
    const std::string& err = r->grids[0].error;
    EXPECT_TRUE(err.find("signal 9") != std::string::npos || err.find("signal 31") != std::string::npos)
        << hostile[i].name << ": " << err;
    EXPECT_FALSE(std::filesystem::exists(marker)) << hostile[i].name << " created " << marker;
  }
}

TEST_F(CheckMapping, HostileRegionWithoutTheConfinementDoesCreateTheMarker) {
  // The control for the test above: the same code, built as a plain program,
  // does create the file, so "no file" above is the confinement's doing.
  const auto marker = dir / "control-marker";
  const std::string code = "#define SWZ_HD\nstruct SwizzleGrid { unsigned m; unsigned n; };\n" +
                           with_marker(hostile_regions()[0].code, marker) +
                           "int main() { return (int)swizzle_pid(0, 1, SwizzleGrid{1, 1}); }\n";
  test::write_text(dir / "control.cpp", code);
  ProcessSpec build;
  build.argv = {"c++", "-std=c++17", "-w", "-o", (dir / "control").string(), (dir / "control.cpp").string()};
  build.timeout = std::chrono::seconds(60);
  auto b = runner.run(build);
  ASSERT_TRUE(b.success()) << b.err;
  ProcessSpec run;
  run.argv = {(dir / "control").string()};
  run.timeout = std::chrono::seconds(30);
  auto r = runner.run(run);
  EXPECT_TRUE(r.success()) << r.describe();
  EXPECT_TRUE(std::filesystem::exists(marker));
}

TEST_F(CheckMapping, EvaluatorCannotReadTheEnvironment) {
  // An API key in the environment must not reach the region: the confinement
  // wipes the environment strings before any region code runs.
  auto hw = profile_from_arch("gfx942");
  ASSERT_TRUE(hw);
  opts.unsafe_skip_region_validator_for_tests = true;
  ::setenv("SWZ_TEST_SECRET_KEY", "sk-secret", 1);
  const std::string region =
      "extern \"C\" char* getenv(const char*);\n"
      "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
      "  return getenv(\"SWZ_TEST_SECRET_KEY\") ? num_pids + 1 : pid;\n}\n";
  auto r = check_mapping(region, {{4, 4}}, *hw, opts, runner);
  ::unsetenv("SWZ_TEST_SECRET_KEY");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->ok) << "the region saw the variable: " << r->summary();
}

}  // namespace
}  // namespace swz
