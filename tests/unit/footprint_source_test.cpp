// Tests of the footprint source (model/footprint_source.h): finding the footprint section
// in a program's text (markers with // or #, blanks around them, the errors for a missing end,
// a stray end and two sections), and load_footprint end to end with the real host compiler:
// a small program's section compiled, run and parsed, the compiled program cached (a second
// load compiles nothing), and every refusal (no section, a section that does not compile, no
// compiler, a size the program refuses, a Triton program).
#include "swizzleperf/model/footprint_source.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include <unistd.h>

#include "support/fixtures.h"

namespace swz {
namespace {

namespace fs = std::filesystem;

// ---- find_footprint_section -----------------------------------------------------------

TEST(FootprintSource, NoSection) {
  auto r = find_footprint_section("int main() {}\n// swizzleperf:begin\n// swizzleperf:end\n", "k.hip");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->has_value());
  auto empty = find_footprint_section("", "k.hip");
  ASSERT_TRUE(empty);
  EXPECT_FALSE(empty->has_value());
}

TEST(FootprintSource, OneSectionWithItsFirstLine) {
  const std::string text =
      "// header\n"
      "int x;\n"
      "// swizzleperf:footprint-begin\n"
      "class A {};\n"
      "int y;\n"
      "// swizzleperf:footprint-end\n"
      "int z;\n";
  auto r = find_footprint_section(text, "k.hip");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->text, "class A {};\nint y;\n");
  EXPECT_EQ((*r)->first_line, 4u);
  // An empty section.
  auto e = find_footprint_section("// swizzleperf:footprint-begin\n// swizzleperf:footprint-end\n", "k.hip");
  ASSERT_TRUE(e && e->has_value());
  EXPECT_EQ((*e)->text, "");
  EXPECT_EQ((*e)->first_line, 2u);
  // The end marker on the last line without a newline.
  auto n = find_footprint_section("// swizzleperf:footprint-begin\nint a;\n// swizzleperf:footprint-end", "k.hip");
  ASSERT_TRUE(n && n->has_value());
  EXPECT_EQ((*n)->text, "int a;\n");
}

TEST(FootprintSource, MarkersWithHashAndBlanks) {
  const std::string text =
      "x = 1\n"
      "   #   swizzleperf:footprint-begin  \t\n"
      "body\n"
      "\t//swizzleperf:footprint-end\r\n";
  auto r = find_footprint_section(text, "k.py");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->text, "body\n");
  EXPECT_EQ((*r)->first_line, 3u);
  // Not markers: text after the marker, a longer word, a comment of three slashes, no comment.
  for (const char* not_marker : {"// swizzleperf:footprint-begin here", "// swizzleperf:footprint-beginning",
                                 "/// swizzleperf:footprint-begin", "swizzleperf:footprint-begin",
                                 "int a; // swizzleperf:footprint-begin"}) {
    auto q = find_footprint_section(std::string(not_marker) + "\n", "k.hip");
    ASSERT_TRUE(q) << not_marker << ": " << q.error().message;
    EXPECT_FALSE(q->has_value()) << not_marker;
  }
}

TEST(FootprintSource, BeginWithoutEnd) {
  auto r = find_footprint_section("a\n// swizzleperf:footprint-begin\nb\n", "k.hip");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("k.hip:2: footprint-begin without footprint-end"), std::string::npos) << r.error().message;
}

TEST(FootprintSource, EndWithoutBegin) {
  auto r = find_footprint_section("a\nb\n// swizzleperf:footprint-end\n", "k.hip");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("k.hip:3: footprint-end without footprint-begin"), std::string::npos) << r.error().message;
}

TEST(FootprintSource, TwoSectionsOrTwoBegins) {
  const std::string two =
      "// swizzleperf:footprint-begin\na\n// swizzleperf:footprint-end\n"
      "// swizzleperf:footprint-begin\nb\n// swizzleperf:footprint-end\n";
  auto r = find_footprint_section(two, "k.hip");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("k.hip:4: a second footprint section"), std::string::npos) << r.error().message;
  auto b = find_footprint_section("// swizzleperf:footprint-begin\n// swizzleperf:footprint-begin\n", "k.hip");
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("a second footprint-begin before footprint-end (line 1)"), std::string::npos)
      << b.error().message;
}

// ---- load_footprint ----------------------------------------------------------------------

// A program with a region and a footprint section: a 3x2 grid (size {3, 2}), two launches,
// tile t reads 64 bytes of X at 64 t and writes 32 bytes of Y at 64 t. `extra` goes at the
// end of the section (e.g. a line that does not compile); `launches` is the launch count.
std::string small_program(const std::string& extra = "", int launches = 2) {
  return "// a test program\n"
         "// swizzleperf:begin\n"
         "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) { return pid; }\n"
         "// swizzleperf:end\n"
         "// swizzleperf:footprint-begin\n"
         "class Small : public SwzFootprintSpec {\n"
         " public:\n"
         "  SwzSize default_size() const override { return {3, 2}; }\n"
         "  std::vector<SwzBuffer> buffers(const SwzSize& s) const override {\n"
         "    return {SwzBuffer(\"X\", 64ull * s[0] * s[1]), SwzBuffer(\"Y\", 64ull * s[0] * s[1])};\n"
         "  }\n"
         "  unsigned launches(const SwzSize&) const override { return " +
         std::to_string(launches) +
         "; }\n"
         "  SwzFootprintGrid grid(const SwzSize& s, unsigned) const override { return SwzFootprintGrid(s[0], s[1]); }\n"
         "  SwzBlockUse block(const SwzSize&, unsigned) const override { return SwzBlockUse(128, 512, 32); }\n"
         "  bool swizzled(const SwzSize&, unsigned launch) const override { return launch == 0; }\n"
         "  void tile(const SwzSize& s, unsigned, unsigned long long m, unsigned long long n, SwzTileFootprint& out) const override {\n"
         "    const unsigned long long t = m * s[1] + n;\n"
         "    out.read(0, 64 * t, 64);\n"
         "    out.write(1, 64 * t, 32, 0, 1, SwzWalk::once);\n"
         "  }\n"
         "};\n"
         "const SwzFootprintSpec& swz_footprint_spec() {\n"
         "  static const Small spec;\n"
         "  return spec;\n"
         "}\n" +
         extra +
         "// swizzleperf:footprint-end\n";
}

// Counts the compiles (the host compiler's runs) and the footprint program's runs.
class CountingRunner final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    bool compile = false;
    for (const auto& a : spec.argv) compile = compile || a == "-std=c++17";
    (compile ? compiles : runs)++;
    return real_.run(spec);
  }
  std::atomic<int> compiles{0}, runs{0};

 private:
  RealProcessRunner real_;
};

class FootprintLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
    opts_.support_dir = test::source_dir() / "kernels" / "support";
    opts_.cache_dir = tmp_ / "cache";
  }
  KernelSource kernel(const std::string& text, const std::string& file = "small.hip") {
    auto k = KernelSource::parse(text, tmp_ / file);
    EXPECT_TRUE(k) << (k ? "" : k.error().message);
    return std::move(k.value());
  }
  std::vector<fs::path> cache_files() {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(opts_.cache_dir, ec)) out.push_back(e.path().filename());
    return out;
  }

  test::TempDir tmp_;
  FootprintSourceOptions opts_;
  CountingRunner runner_;
};

TEST(FootprintSourceLoad, TritonProgramsCannotBePredicted) {
  auto k = KernelSource::parse("# swizzleperf:begin\n@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
                               "    return pid\n# swizzleperf:end\n",
                               "k.py");
  ASSERT_TRUE(k) << k.error().message;
  FootprintSourceOptions opts;
  CountingRunner runner;
  auto r = load_footprint(*k, {}, opts, runner);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("k.py declares no footprint"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("cannot be predicted"), std::string::npos) << r.error().message;
  EXPECT_EQ(runner.compiles + runner.runs, 0);
}

TEST_F(FootprintLoad, CompilesRunsAndParsesTheSection) {
  auto r = load_footprint(kernel(small_program()), {}, opts_, runner_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->size, (std::vector<long long>{3, 2}));
  EXPECT_EQ(r->launches_total, 2u);
  ASSERT_EQ(r->launches.size(), 2u);
  EXPECT_EQ(r->launch_ids, (std::vector<unsigned>{0, 1}));
  ASSERT_EQ(r->buffers.size(), 2u);
  EXPECT_EQ(r->buffers[0].name, "X");
  EXPECT_EQ(r->buffers[0].bytes, 64u * 6);
  const LaunchFootprint& l = r->launches[0];
  EXPECT_EQ(l.grid.m, 3u);
  EXPECT_EQ(l.grid.n, 2u);
  EXPECT_EQ(l.tiles(), 6u);
  EXPECT_EQ(l.block.threads, 128u);
  EXPECT_EQ(l.block.shared_bytes, 512u);
  EXPECT_EQ(l.block.registers, 32u);
  EXPECT_TRUE(l.swizzled);
  EXPECT_FALSE(r->launches[1].swizzled);
  ASSERT_EQ(l.spans.size(), 12u);
  // Tile 5 = (2, 1): read X[320, 384), write Y[320, 352) once.
  const FootprintSpan& rd = l.spans[l.tile_begin[5]];
  const FootprintSpan& wr = l.spans[l.tile_begin[5] + 1];
  EXPECT_EQ(rd.buffer, 0u);
  EXPECT_EQ(rd.offset, 320u);
  EXPECT_EQ(rd.bytes, 64u);
  EXPECT_FALSE(rd.write);
  EXPECT_EQ(rd.walk, SpanWalk::runs);
  EXPECT_EQ(wr.buffer, 1u);
  EXPECT_EQ(wr.bytes, 32u);
  EXPECT_TRUE(wr.write);
  EXPECT_EQ(wr.walk, SpanWalk::once);
  EXPECT_EQ(runner_.compiles, 1);
  EXPECT_EQ(runner_.runs, 1);
}

TEST_F(FootprintLoad, ASizeAndALaunchWindowAreGivenToTheProgram) {
  // 3 launches, 1 simulated: by default the one in the middle of the run (as a profiler's
  // window over a long run sees), else the first.
  opts_.max_launches = 1;
  const KernelSource k = kernel(small_program("", 3));
  auto r = load_footprint(k, {4, 5}, opts_, runner_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->size, (std::vector<long long>{4, 5}));
  EXPECT_EQ(r->launches_total, 3u);  // the program's count ...
  ASSERT_EQ(r->launches.size(), 1u);  // ... of which one
  EXPECT_EQ(r->launch_ids, (std::vector<unsigned>{1}));
  EXPECT_FALSE(r->launches[0].swizzled);  // launch 1 of this program ignores swizzle_pid
  EXPECT_EQ(r->launches[0].grid.m, 4u);
  EXPECT_EQ(r->launches[0].grid.n, 5u);
  EXPECT_EQ(r->launches[0].tiles(), 20u);
  opts_.middle = false;
  auto f = load_footprint(k, {4, 5}, opts_, runner_);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->launch_ids, (std::vector<unsigned>{0}));
  EXPECT_TRUE(f->launches[0].swizzled);
  EXPECT_EQ(runner_.compiles, 1);  // one program for both
}

TEST_F(FootprintLoad, ASecondLoadCompilesNothing) {
  const KernelSource k = kernel(small_program());
  auto t0 = std::chrono::steady_clock::now();
  auto a = load_footprint(k, {}, opts_, runner_);
  const double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_EQ(runner_.compiles, 1);
  t0 = std::chrono::steady_clock::now();
  auto b = load_footprint(k, {4, 4}, opts_, runner_);
  const double second = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(runner_.compiles, 1) << "the cached footprint program should be run, not compiled again";
  EXPECT_EQ(runner_.runs, 3);  // a given size: its launch headers first (--tiles 0:0), then the footprint
  EXPECT_EQ(b->launches[0].tiles(), 16u);
  std::printf("[          ] first load %.3f s (compile + run), second %.3f s (run)\n", first, second);
  EXPECT_LT(second, first);
  // The cache holds exactly the one program: no sources or partial outputs left behind.
  const auto files = cache_files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].string().rfind("footprint-", 0), 0u) << files[0];
  // A different section is another program.
  auto c = load_footprint(kernel(small_program("// another comment\n")), {}, opts_, runner_);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(runner_.compiles, 2);
  EXPECT_EQ(cache_files().size(), 2u);
}

// A size whose grid the model cannot take is refused from the launch headers alone: the
// footprint itself (10^10 tiles to list) is never run.
TEST_F(FootprintLoad, ASizeOverTwoToThe32TilesIsRefusedBeforeAnyTileIsListed) {
  auto r = load_footprint(kernel(small_program()), {100000, 100000}, opts_, runner_);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "small.hip's footprint: line 2: launch 0: grid 100000x100000 is empty or has 2^32 tiles or "
                               "more (at size 100000,100000): give a smaller --size");
  EXPECT_EQ(runner_.runs, 1);
}

TEST_F(FootprintLoad, WithoutACacheDirTheTemporaryProgramIsRemoved) {
  opts_.cache_dir.clear();
  auto a = load_footprint(kernel(small_program()), {}, opts_, runner_);
  ASSERT_TRUE(a) << a.error().message;
  const std::string mine = "swizzleperf-footprint-" + std::to_string(::getpid()) + "-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec))
    EXPECT_NE(e.path().filename().string().rfind(mine, 0), 0u) << "left behind: " << e.path();
}

TEST_F(FootprintLoad, ASectionThatDoesNotCompileNamesTheFileAndLine) {
  // The section starts at line 6 of the file; the bad line is its 21st line: line 26.
  auto r = load_footprint(kernel(small_program("int broken = undeclared_name;\n")), {}, opts_, runner_);
  ASSERT_FALSE(r);
  const std::string& msg = r.error().message;
  EXPECT_NE(msg.find("the footprint section of small.hip does not compile"), std::string::npos) << msg;
  EXPECT_NE(msg.find("small.hip:26"), std::string::npos) << msg;
  EXPECT_NE(msg.find("undeclared_name"), std::string::npos) << msg;
  EXPECT_TRUE(cache_files().empty()) << "nothing is cached for a failed compile";
}

TEST_F(FootprintLoad, AMissingCompilerIsNamed) {
  opts_.host_compiler = "/nonexistent/c++";
  auto r = load_footprint(kernel(small_program()), {}, opts_, runner_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("host C++ compiler '/nonexistent/c++' not found"), std::string::npos) << r.error().message;
  EXPECT_EQ(runner_.compiles + runner_.runs, 0);
}

TEST_F(FootprintLoad, AProgramWithoutASectionDeclaresNoFootprint) {
  const std::string text =
      "// swizzleperf:begin\nSWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) { return pid; }\n"
      "// swizzleperf:end\n";
  auto r = load_footprint(kernel(text), {}, opts_, runner_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("small.hip declares no footprint"), std::string::npos) << r.error().message;
  EXPECT_EQ(runner_.compiles + runner_.runs, 0);
  // A broken section is refused before anything is compiled.
  auto b = load_footprint(kernel(text + "// swizzleperf:footprint-begin\n"), {}, opts_, runner_);
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("footprint-begin without footprint-end"), std::string::npos) << b.error().message;
}

TEST_F(FootprintLoad, ASizeOfTheWrongArityGivesTheProgramsOwnMessage) {
  auto r = load_footprint(kernel(small_program()), {4}, opts_, runner_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("the program says: --size: expected 2 values, got 1"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("exit code 2"), std::string::npos) << r.error().message;
  auto z = load_footprint(kernel(small_program()), {4, 0}, opts_, runner_);
  ASSERT_FALSE(z);
  EXPECT_NE(z.error().message.find("--size: value 2 must be positive"), std::string::npos) << z.error().message;
}

TEST_F(FootprintLoad, AProgramNamingAnUnknownBufferIsRefused) {
  // A tile that names buffer 5 of 2: the footprint program itself stops with its reason.
  std::string text = small_program();
  const std::string from = "out.read(0, 64 * t, 64);";
  text.replace(text.find(from), from.size(), "out.read(5, 64 * t, 64);");
  auto r = load_footprint(kernel(text), {}, opts_, runner_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("tile 0 names buffer 5 of 2"), std::string::npos) << r.error().message;
}

TEST_F(FootprintLoad, AMissingSupportDirIsNamed) {
  opts_.support_dir = tmp_ / "no-support";
  auto r = load_footprint(kernel(small_program()), {}, opts_, runner_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("swz_footprint.h"), std::string::npos) << r.error().message;
}

TEST(FootprintSource, DefaultCacheDirFollowsXdgThenHome) {
  {
    test::ScopedEnv xdg("XDG_CACHE_HOME", "/x/cache");
    test::ScopedEnv home("HOME", "/h");
    EXPECT_EQ(default_footprint_cache_dir(), fs::path("/x/cache/swizzleperf/footprint"));
  }
  {
    test::ScopedEnv xdg("XDG_CACHE_HOME", "relative/not/used");
    test::ScopedEnv home("HOME", "/h");
    EXPECT_EQ(default_footprint_cache_dir(), fs::path("/h/.cache/swizzleperf/footprint"));
  }
  {
    test::ScopedEnv xdg("XDG_CACHE_HOME", "");
    test::ScopedEnv home("HOME", "");
    EXPECT_TRUE(default_footprint_cache_dir().empty());
  }
}

}  // namespace
}  // namespace swz
