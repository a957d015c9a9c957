// Tests of KernelSource: finding the one swizzle region by its marker lines,
// the errors for files that break the contract, splicing a new region in with
// every byte outside it untouched, the default-grid comment, and unified_diff.
#include "swizzleperf/core/kernel_source.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/fixtures.h"

namespace swz {
namespace {

const std::string kPrefix =
    "// gemm: a test kernel\n"
    "// swizzleperf:default-grid 16x32\n"
    "#include <hip/hip_runtime.h>\n"
    "\n"
    "// swizzleperf:begin\n";
const std::string kRegion =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return pid;\n"
    "}\n";
const std::string kSuffix =
    "// swizzleperf:end\n"
    "\n"
    "__global__ void k(float* x) { x[swizzle_pid(blockIdx.x, gridDim.x, {1, 1})] = 0; }\n"
    "int main() { return 0; }\n";

std::string kernel_text() { return kPrefix + kRegion + kSuffix; }

const std::string kNewRegion =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return num_pids - 1 - pid;\n"
    "}\n";

// ---- parse ---------------------------------------------------------------------

TEST(KernelSourceParse, FindsTheRegion) {
  auto k = KernelSource::parse(kernel_text(), "/some/dir/gemm.hip");
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->region(), kRegion);
  EXPECT_EQ(k->text(), kernel_text());
  EXPECT_EQ(k->name(), "gemm");
  EXPECT_EQ(k->path(), "/some/dir/gemm.hip");
}

TEST(KernelSourceParse, NameWithoutPathIsKernel) {
  auto k = KernelSource::parse(kernel_text());
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->name(), "kernel");
}

TEST(KernelSourceParse, IndentedMarkersAndTrailingTextAreMarkers) {
  const std::string text = "int a;\n   // swizzleperf:begin (do not edit by hand)\n" + kRegion +
                           "\t// swizzleperf:end\nint b;\n";
  auto k = KernelSource::parse(text);
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->region(), kRegion);
}

TEST(KernelSourceParse, CrlfLineEndings) {
  const std::string text =
      "int a;\r\n// swizzleperf:begin\r\nunsigned swizzle_pid(unsigned pid) { return pid; }\r\n// swizzleperf:end\r\n";
  auto k = KernelSource::parse(text);
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->region(), "unsigned swizzle_pid(unsigned pid) { return pid; }\r\n");
}

TEST(KernelSourceParse, NoRegion) {
  auto k = KernelSource::parse("int main() {}\n", "plain.hip");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("no swizzle region"), std::string::npos) << k.error().message;
  EXPECT_NE(k.error().message.find("plain.hip"), std::string::npos) << k.error().message;
}

TEST(KernelSourceParse, TwoRegions) {
  auto k = KernelSource::parse(kernel_text() + "// swizzleperf:begin\n" + kRegion + "// swizzleperf:end\n");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("more than one swizzle region"), std::string::npos) << k.error().message;
}

TEST(KernelSourceParse, BeginWithoutEnd) {
  auto k = KernelSource::parse(kPrefix + kRegion + "int main() {}\n");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("has no '// swizzleperf:end'"), std::string::npos) << k.error().message;
  // The begin marker is on line 5 of kPrefix.
  EXPECT_NE(k.error().message.find("line 5"), std::string::npos) << k.error().message;
}

TEST(KernelSourceParse, EndBeforeBegin) {
  auto k = KernelSource::parse("// swizzleperf:end\n" + kRegion + "// swizzleperf:begin\nint x;\n");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("has no '// swizzleperf:end'"), std::string::npos) << k.error().message;
}

// parse() judges structure only: what a region contains is its users' judgement
// (check reports it as a failed check, exit 1), so these parse and then fail
// validate_region.
TEST(KernelSourceParse, RegionWithoutSwizzlePid) {
  auto k = KernelSource::parse("// swizzleperf:begin\nunsigned other(unsigned pid) { return pid; }\n// swizzleperf:end\n");
  ASSERT_TRUE(k) << k.error().message;
  auto st = validate_region(k->region());
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("does not define swizzle_pid"), std::string::npos) << st.error().message;
}

TEST(KernelSourceParse, RegionWithInclude) {
  auto k = KernelSource::parse("// swizzleperf:begin\n  #include <cmath>\n" + kRegion + "// swizzleperf:end\n");
  ASSERT_TRUE(k) << k.error().message;
  auto st = validate_region(k->region());
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("#include"), std::string::npos) << st.error().message;
  EXPECT_FALSE(validate_region("unsigned swizzle_pid(unsigned p, unsigned n, SwizzleGrid g) { return p; }\n#\t include <x>\n"));
}

// A region of ~30 KB of whitespace between the name and '(' once overflowed the
// stack of a std::regex; the scan is linear now, whatever the length.
TEST(KernelSourceParse, HugeWhitespaceInARegionIsScannedNotRecursedInto) {
  const std::string ws(60 * 1024, ' ');
  const std::string region = "unsigned swizzle_pid" + ws + "(unsigned p, unsigned n, SwizzleGrid g) { return p; }\n";
  EXPECT_TRUE(validate_region(region));
  auto k = KernelSource::parse("// swizzleperf:begin\n" + region + "// swizzleperf:end\n");
  ASSERT_TRUE(k) << k.error().message;
  const std::string many_names = std::string(20000, 'x') + " swizzle_pid" + std::string(30000, '\n') + ";";
  EXPECT_FALSE(validate_region(many_names));
}

TEST(KernelSourceParse, RegionOverTheSizeLimitIsRefusedWithTheLimit) {
  const std::string big = "unsigned swizzle_pid(unsigned p, unsigned n, SwizzleGrid g) { return p; }\n" +
                          std::string(kMaxRegionBytes, ' ') + "\n";
  auto st = validate_region(big);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("the limit is 65,536"), std::string::npos) << st.error().message;
  auto k = KernelSource::parse("// swizzleperf:begin\n" + big + "// swizzleperf:end\n", "big.hip");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("big.hip: the swizzle region is"), std::string::npos) << k.error().message;
}

TEST(KernelSourceParse, DefaultGridCommentForms) {
  auto grid_of = [&](const std::string& line) {
    auto k = KernelSource::parse(line + "\n// swizzleperf:begin\n" + kRegion + "// swizzleperf:end\n");
    EXPECT_TRUE(k) << line;
    return k ? k->default_grid() : std::nullopt;
  };
  auto g = grid_of("// swizzleperf:default-grid 64x128");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->m, 64u);
  EXPECT_EQ(g->n, 128u);
  g = grid_of("  //swizzleperf:default-grid   3 X 5   (tiles)");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->m, 3u);
  EXPECT_EQ(g->n, 5u);
  g = grid_of("// swizzleperf:default-grid 1x10000000");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->num_pids(), 10000000u);
  EXPECT_FALSE(grid_of("// swizzleperf:default-grid 123456789x2"));  // 9 digits
  EXPECT_FALSE(grid_of("// swizzleperf:default-grid 0x4"));
  EXPECT_FALSE(grid_of("// swizzleperf:default-grid 4x4y"));
  EXPECT_FALSE(grid_of("// swizzleperf:default-grids 4x4"));
  EXPECT_FALSE(grid_of("// swizzleperf:default-grid " + std::string(100000, ' ')));
}

TEST(ParseTileGrid, AcceptsUpToA32BitPidCountAndNamesTheLimitBeyond) {
  auto g = parse_tile_grid("65536x65535");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->num_pids(), 4294901760u);
  auto over = parse_tile_grid("65536x65537");
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().message.find("4,295,032,832 tiles"), std::string::npos) << over.error().message;
  EXPECT_NE(over.error().message.find("4,294,967,295"), std::string::npos) << over.error().message;
  for (const char* bad : {"", "x", "4x", "x4", "0x4", "4x0", "-1x4", "+4x4", "4 x4", "4x4x4", "99999999999999999999x1", "axb"})
    EXPECT_FALSE(parse_tile_grid(bad)) << bad;
  EXPECT_TRUE(parse_tile_grid("7X5"));
}

TEST(KernelSourceParse, IncludeOutsideTheRegionIsFine) {
  // kPrefix itself has an #include before the region.
  auto k = KernelSource::parse(kernel_text());
  ASSERT_TRUE(k) << k.error().message;
}

TEST(KernelSourceLoad, MissingFileAndDirectory) {
  test::TempDir dir;
  auto missing = KernelSource::load(dir / "nope.hip");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
  auto d = KernelSource::load(dir.path());
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("is a directory"), std::string::npos);
}

TEST(KernelSourceLoad, AFileOverTheSizeLimitIsRefusedWithTheLimit) {
  test::TempDir dir;
  const auto path = dir / "huge.hip";
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string(kMaxKernelFileBytes + 1, '\n');
  }
  auto k = KernelSource::load(path);
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("the limit is 16,777,216"), std::string::npos) << k.error().message;
}

TEST(KernelSourceLoad, LoadsFromDisk) {
  test::TempDir dir;
  test::write_text(dir / "stencil.hip", kernel_text());
  auto k = KernelSource::load(dir / "stencil.hip");
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->name(), "stencil");
  EXPECT_EQ(k->region(), kRegion);
}

TEST(KernelSourceLoad, EveryShippedKernelParses) {
  const auto dir = test::source_dir() / "kernels";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".hip") continue;
    auto k = KernelSource::load(e.path());
    EXPECT_TRUE(k) << e.path() << ": " << (k ? "" : k.error().message);
    if (k) EXPECT_TRUE(k->default_grid().has_value()) << e.path();
    ++n;
  }
  EXPECT_GT(n, 0);
}

// ---- splice --------------------------------------------------------------------

TEST(KernelSourceSplice, KeepsEveryByteOutsideTheRegion) {
  auto k = KernelSource::parse(kernel_text());
  ASSERT_TRUE(k) << k.error().message;
  auto s = k->splice(kNewRegion);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_GE(s->size(), kPrefix.size() + kSuffix.size());
  EXPECT_EQ(s->substr(0, kPrefix.size()), kPrefix);
  EXPECT_EQ(s->substr(s->size() - kSuffix.size()), kSuffix);
  EXPECT_EQ(*s, kPrefix + kNewRegion + kSuffix);
  // The result parses again and its region is the new one.
  auto again = KernelSource::parse(*s);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->region(), kNewRegion);
}

TEST(KernelSourceSplice, AddsAMissingFinalNewline) {
  auto k = KernelSource::parse(kernel_text());
  ASSERT_TRUE(k);
  std::string region = kNewRegion;
  region.pop_back();
  auto s = k->splice(region);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s, kPrefix + kNewRegion + kSuffix);
}

TEST(KernelSourceSplice, SpliceOfTheSameRegionIsIdentity) {
  auto k = KernelSource::parse(kernel_text());
  ASSERT_TRUE(k);
  auto s = k->splice(k->region());
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, kernel_text());
}

TEST(KernelSourceSplice, RejectsMarkersIncludesAndMissingSwizzlePid) {
  auto k = KernelSource::parse(kernel_text());
  ASSERT_TRUE(k);
  auto m = k->splice("// swizzleperf:end\n" + kNewRegion + "// swizzleperf:begin\n");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("marker"), std::string::npos) << m.error().message;
  auto inc = k->splice("#include <cstdio>\n" + kNewRegion);
  ASSERT_FALSE(inc);
  EXPECT_NE(inc.error().message.find("#include"), std::string::npos) << inc.error().message;
  auto none = k->splice("unsigned f(unsigned p) { return p; }\n");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("swizzle_pid"), std::string::npos) << none.error().message;
}

TEST(ValidateRegion, AcceptsPlainArithmetic) {
  EXPECT_TRUE(validate_region(kNewRegion));
  EXPECT_TRUE(validate_region("unsigned swizzle_pid (unsigned pid) { return pid; }"));
  EXPECT_FALSE(validate_region("unsigned swizzle_pid_x = 0;"));  // no call/definition parenthesis
}

// ---- default grid --------------------------------------------------------------

TEST(KernelSourceDefaultGrid, Parsed) {
  auto k = KernelSource::parse(kernel_text());
  ASSERT_TRUE(k);
  ASSERT_TRUE(k->default_grid().has_value());
  EXPECT_EQ(k->default_grid()->m, 16u);
  EXPECT_EQ(k->default_grid()->n, 32u);
  EXPECT_EQ(k->default_grid()->num_pids(), 512u);
}

TEST(KernelSourceDefaultGrid, SpacesAroundTheX) {
  auto k = KernelSource::parse("//swizzleperf:default-grid 1 x 524288\n// swizzleperf:begin\n" + kRegion + "// swizzleperf:end\n");
  ASSERT_TRUE(k) << k.error().message;
  ASSERT_TRUE(k->default_grid().has_value());
  EXPECT_EQ(k->default_grid()->m, 1u);
  EXPECT_EQ(k->default_grid()->n, 524288u);
}

TEST(KernelSourceDefaultGrid, AbsentOrZero) {
  auto none = KernelSource::parse("// swizzleperf:begin\n" + kRegion + "// swizzleperf:end\n");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->default_grid().has_value());
  auto zero = KernelSource::parse("// swizzleperf:default-grid 0x8\n// swizzleperf:begin\n" + kRegion + "// swizzleperf:end\n");
  ASSERT_TRUE(zero);
  EXPECT_FALSE(zero->default_grid().has_value());
}

TEST(KernelSourceDefaultGrid, HugeNumberIsAnErrorNotAnException) {
  // std::stoul throws std::out_of_range on a number that does not fit; parse()
  // must report bad input through Result, not throw (exceptions are for aborting).
  const std::string text = "// swizzleperf:default-grid 1x99999999999999999999999999\n// swizzleperf:begin\n" +
                           kRegion + "// swizzleperf:end\n";
  bool threw = false;
  try {
    auto k = KernelSource::parse(text);
    (void)k;
  } catch (const std::exception&) {
    threw = true;
  }
  if (threw)
    GTEST_SKIP() << "BUG: KernelSource::parse throws std::out_of_range (std::stoul) on an oversized "
                    "'// swizzleperf:default-grid' number instead of returning an Error or ignoring it";
  SUCCEED();
}

// ---- unified diff --------------------------------------------------------------

TEST(UnifiedDiff, EmptyWhenEqual) {
  EXPECT_EQ(unified_diff(kRegion, kRegion, "a", "b"), "");
  EXPECT_EQ(unified_diff("", "", "a", "b"), "");
}

TEST(UnifiedDiff, ShowsRemovedAndAddedLines) {
  const std::string d = unified_diff(kRegion, kNewRegion, "original", "proposed");
  EXPECT_EQ(d.rfind("--- original\n+++ proposed\n", 0), 0u) << d;
  EXPECT_NE(d.find("@@"), std::string::npos) << d;
  EXPECT_NE(d.find("\n-  return pid;\n"), std::string::npos) << d;
  EXPECT_NE(d.find("\n+  return num_pids - 1 - pid;\n"), std::string::npos) << d;
  // The unchanged first line is context, not a change.
  EXPECT_EQ(d.find("-SWZ_HD"), std::string::npos) << d;
  EXPECT_EQ(d.find("+SWZ_HD"), std::string::npos) << d;
}

TEST(UnifiedDiff, PureAddition) {
  const std::string d = unified_diff("a\nb\n", "a\nb\nc\n", "x", "y");
  EXPECT_NE(d.find("\n+c\n"), std::string::npos) << d;
  EXPECT_EQ(d.find("\n-"), std::string::npos) << d;
}

// ---- Triton programs (.py): '#' markers and comments, the Python region ----------------

const std::string kPyProgram =
    "# swizzleperf kernel (Triton)\n"
    "# swizzleperf:default-grid 32x128\n"
    "import triton\n"
    "# swizzleperf:begin\n"
    "@triton.jit\n"
    "def swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
    "    return pid\n"
    "# swizzleperf:end\n"
    "class P:\n"
    "    def default_size(self):\n"
    "        return (4096, 32768, 1024)\n";

TEST(KernelSourcePython, HashMarkersCommentsAndSizeArity) {
  auto k = KernelSource::parse(kPyProgram, "matmul.py");
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->language(), RegionLanguage::python);
  EXPECT_EQ(k->region(), "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return pid\n");
  ASSERT_TRUE(k->default_grid());
  EXPECT_EQ(k->default_grid()->m, 32u);
  EXPECT_EQ(k->default_grid()->n, 128u);
  EXPECT_EQ(k->default_grid_line(), 2u);
  EXPECT_EQ(k->declared_size_arity(), 3u);
  EXPECT_TRUE(is_kernel_file_name("matmul.py"));
  EXPECT_EQ(language_of("a.hip"), RegionLanguage::cpp);
  EXPECT_EQ(std::string(source_extension(RegionLanguage::python)), ".py");
}

TEST(KernelSourcePython, CppMarkersDoNotCountInAPythonFileAndTheErrorNamesHashMarkers) {
  auto k = KernelSource::parse("// swizzleperf:begin\nx = 1\n// swizzleperf:end\n", "m.py");
  ASSERT_FALSE(k);
  EXPECT_TRUE(test::has(k.error().message, "'# swizzleperf:begin' and '# swizzleperf:end'")) << k.error().message;
}

TEST(KernelSourcePython, SpliceKeepsEverythingElseAndChecksThePythonSignature) {
  auto k = KernelSource::parse(kPyProgram, "matmul.py");
  ASSERT_TRUE(k);
  const std::string r = "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return num_pids - 1 - pid\n";
  auto out = k->splice(r);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, kPyProgram.substr(0, kPyProgram.find("@triton")) + r + kPyProgram.substr(kPyProgram.find("# swizzleperf:end")));
  auto none = validate_region("x = 1\n", RegionLanguage::python);
  ASSERT_FALSE(none);
  EXPECT_TRUE(test::has(none.error().message, "swizzle_pid(pid, num_pids, grid_m, grid_n)"));
  // A Python comment that reads like an #include is no include.
  EXPECT_TRUE(validate_region("# include the grid\n" + r, RegionLanguage::python));
  EXPECT_FALSE(validate_region("# include the grid\n" + r, RegionLanguage::cpp));
}

}  // namespace
}  // namespace swz
