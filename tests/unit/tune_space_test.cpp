// TuneSpace: declarations read from C++ and Triton programs without compiling them, the
// rules and device limits that prune points before any compile, and one-line errors that
// say what to write instead.
#include "swizzleperf/tune/tune_space.h"

#include <gtest/gtest.h>

#include <string>

namespace swz {
namespace {

const char* kTuneCuda =
    "#include \"swz_harness.h\"\n"
    "#ifndef BLOCK_M\n"
    "#define BLOCK_M 128  // swizzleperf:tunable 64 128 256\n"
    "#endif\n"
    "#ifndef BLOCK_K\n"
    "\n"
    "#define BLOCK_K 32 // swizzleperf:tunable pow2 16..64\n"
    "#endif\n"
    "#ifndef NUM_WARPS\n"
    "#  define NUM_WARPS 4 // swizzleperf:tunable 4, 8\n"
    "#endif\n"
    "// swizzleperf:restrict BLOCK_M >= BLOCK_K\n"
    "// swizzleperf:shared-bytes BLOCK_M * BLOCK_K * 2 * 2\n"
    "// swizzleperf:threads NUM_WARPS * 32\n"
    "// swizzleperf:begin\n"
    "__device__ int swizzle_pid(int pid, int n, int gm, int gn) { return pid; }\n"
    "// swizzleperf:end\n";

const char* kTuneTriton =
    "import triton\n"
    "BLOCK_M = 128  # swizzleperf:tunable 64,128,256\n"
    "BLOCK_N = 64  # swizzleperf:tunable 64 128\n"
    "NUM_STAGES = 3  # swizzleperf:tunable 2 3 4\n"
    "# swizzleperf:restrict BLOCK_M * BLOCK_N <= 128 * 128 or NUM_STAGES <= 3\n"
    "# swizzleperf:default-grid 32x64\n";

std::string tune_parse_error(const std::string& text, RegionLanguage lang = RegionLanguage::cpp) {
  auto s = parse_tune_space(text, lang, "k.cu");
  return s ? "" : s.error().message;
}

TEST(TuneSpace, ReadsGuardedDefinesAndTheirRules) {
  auto s = parse_tune_space(kTuneCuda, RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->tunables.size(), 3u);
  EXPECT_EQ(s->tunables[0].name, "BLOCK_M");
  EXPECT_EQ(s->tunables[0].value, 128);
  EXPECT_EQ(s->tunables[0].values, (std::vector<std::int64_t>{64, 128, 256}));
  EXPECT_EQ(s->tunables[0].line, 3);
  EXPECT_EQ(s->tunables[1].values, (std::vector<std::int64_t>{16, 32, 64}));
  EXPECT_EQ(s->tunables[2].values, (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(s->restrictions.size(), 1u);
  ASSERT_TRUE(s->shared_bytes && s->threads);
  EXPECT_EQ(s->size(), 18u);
  EXPECT_EQ(s->describe(s->own_point()), "BLOCK_M=128 BLOCK_K=32 NUM_WARPS=4");
}

TEST(TuneSpace, ReadsTritonModuleConstantsAndLeavesOtherMarksAlone) {
  auto s = parse_tune_space(kTuneTriton, RegionLanguage::python, "k.py");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->tunables.size(), 3u);
  EXPECT_EQ(s->describe(s->own_point()), "BLOCK_M=128 BLOCK_N=64 NUM_STAGES=3");
  EXPECT_EQ(s->size(), 18u);
  const auto e = enumerate_points(*s, {});
  // Out: BLOCK_M * BLOCK_N > 16384 with 4 stages: (256, 128, 4) and (128, 128, 4)? 128*128 is
  // allowed; (256, 64, 4) = 16384 allowed; (256, 128, 4) only.
  EXPECT_EQ(e.points.size(), 17u);
  EXPECT_EQ(e.excluded, 1u);
  EXPECT_EQ(e.first_exclusion,
            "BLOCK_M=256 BLOCK_N=128 NUM_STAGES=4: restriction at line 5 (BLOCK_M * BLOCK_N <= 128 * 128 or NUM_STAGES <= 3) is false");
}

TEST(TuneSpace, AProgramWithoutDeclarationsHasAnEmptySpace) {
  auto s = parse_tune_space("// swizzleperf:begin\nint x;\n// swizzleperf:end\n# define X 3 // swizzleperf:TODO\n", RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->empty());
  EXPECT_EQ(s->size(), 0u);
  EXPECT_TRUE(enumerate_points(*s, {}).points.empty());
}

TEST(TuneSpace, DeviceLimitsPruneBeforeAnyCompile) {
  auto s = parse_tune_space(kTuneCuda, RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(s.ok());
  // BLOCK_M >= BLOCK_K holds everywhere (64 >= 64); shared = BLOCK_M * BLOCK_K * 4.
  EXPECT_EQ(enumerate_points(*s, {}).points.size(), 18u);
  TuneLimits h100{48 * 1024, 1024, 32};
  const auto e = enumerate_points(*s, h100);
  // Over 49152 bytes: 256 x 64 (65536) only, with both NUM_WARPS values.
  EXPECT_EQ(e.excluded, 2u);
  EXPECT_EQ(e.points.size(), 16u);
  EXPECT_EQ(e.first_exclusion, "BLOCK_M=256 BLOCK_K=64 NUM_WARPS=4: needs 65536 bytes of shared memory per block, the device allows 49152");
  TuneLimits tiny{0, 128, 32};
  EXPECT_EQ(point_excluded(*s, {128, 32, 8}, tiny), "needs 256 threads per block, the device allows 128");
  TuneLimits wave64{0, 1024, 64};
  EXPECT_EQ(point_excluded(*s, {128, 32, 4}, wave64), "");
}

TEST(TuneSpace, TheOwnConfigurationMustBeAPointOfItsSpace) {
  EXPECT_EQ(tune_parse_error("#ifndef B\n#define B 96 // swizzleperf:tunable 64 128\n#endif\n"),
            "k.cu:2: B's value 96 is not among its tunable values (64 128): add it, since it is the configuration a tuned point is "
            "judged against");
  EXPECT_EQ(tune_parse_error("#ifndef B\n#define B 64 // swizzleperf:tunable 64 128\n#endif\n// swizzleperf:restrict B > 64\n"),
            "k.cu:4: the program's own configuration (B=64) breaks this restriction");
}

TEST(TuneSpace, EachMistakeIsOneLineNamingWhatToWrite) {
  EXPECT_EQ(tune_parse_error("#define B 64 // swizzleperf:tunable 64 128\n"),
            "k.cu:1: put `#ifndef B` on the line before (and `#endif` after), so that a build's -DB=V takes effect");
  EXPECT_EQ(tune_parse_error("constexpr int B = 64; // swizzleperf:tunable 64 128\n"),
            "k.cu:1: a tunable is a guarded define: `#define NAME 128  // swizzleperf:tunable 64 128 256`");
  EXPECT_EQ(tune_parse_error("#ifndef B\n#define B 64 // swizzleperf:tunable 64 x\n#endif\n"),
            "k.cu:2: B: 'x' is not a value: values are integers from 0 to 2147483647, separated by blanks or commas, or `pow2 A..B`");
  EXPECT_EQ(tune_parse_error("#ifndef B\n#define B 64 // swizzleperf:tunable pow2 64..16\n#endif\n"),
            "k.cu:2: B: write `pow2 A..B` with 1 <= A <= B, e.g. `pow2 16..256`");
  EXPECT_EQ(tune_parse_error("#ifndef B\n#define B 64 // swizzleperf:tunable\n#endif\n"),
            "k.cu:2: B: no values: list them after swizzleperf:tunable, e.g. `swizzleperf:tunable 64 128 256`");
  EXPECT_EQ(tune_parse_error("#ifndef B\n#define B 64 // swizzleperf:tunable 64\n#endif\n#ifndef B\n#define B 64 // swizzleperf:tunable 64\n#endif\n"),
            "k.cu:5: B is declared tunable twice");
  EXPECT_EQ(tune_parse_error("#ifndef B\n#define B 64 // swizzleperf:tunable 64\n#endif\n// swizzleperf:restrict B < C\n"),
            "k.cu:4: 'C' is not a tunable (declare it with swizzleperf:tunable, or write its value)");
  EXPECT_EQ(tune_parse_error("// swizzleperf:threads 4 *\n"),
            "k.cu:1: swizzleperf:threads: the expression ends where an operand is expected");
  EXPECT_EQ(tune_parse_error("// swizzleperf:restrict 1 > 0\n"), "k.cu:1: a rule without any swizzleperf:tunable declaration");
  EXPECT_EQ(tune_parse_error("B = 64  # swizzleperf:tunable 64\n    C = 1  # swizzleperf:tunable 1\n", RegionLanguage::python),
            "k.cu:2: a tunable is a module-level constant: `NAME = 128  # swizzleperf:tunable 64 128 256`");
}

TEST(TuneSpace, APointIsWrittenIntoTheDeclaringLines) {
  auto py = with_tunable_values(kTuneTriton, RegionLanguage::python, {{"BLOCK_M", 256}, {"NUM_STAGES", 2}}, "k.py");
  ASSERT_TRUE(py.ok()) << py.error().message;
  EXPECT_EQ(*py, std::string(kTuneTriton)
                     .replace(std::string(kTuneTriton).find("BLOCK_M = 128"), 13, "BLOCK_M = 256")
                     .replace(std::string(kTuneTriton).find("NUM_STAGES = 3"), 14, "NUM_STAGES = 2"));
  auto again = parse_tune_space(*py, RegionLanguage::python, "k.py");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->describe(again->own_point()), "BLOCK_M=256 BLOCK_N=64 NUM_STAGES=2");
  auto cu = with_tunable_values(kTuneCuda, RegionLanguage::cpp, {{"NUM_WARPS", 8}}, "k.cu");
  ASSERT_TRUE(cu.ok()) << cu.error().message;
  EXPECT_NE(cu->find("#  define NUM_WARPS 8 // swizzleperf:tunable 4, 8\n"), std::string::npos) << *cu;
  EXPECT_EQ(cu->size(), std::string(kTuneCuda).size());
  EXPECT_EQ(with_tunable_values(kTuneCuda, RegionLanguage::cpp, {{"NUM_WARPS", 16}}, "k.cu").error().message,
            "k.cu:10: 16 is not among NUM_WARPS's values");
  EXPECT_EQ(with_tunable_values(kTuneCuda, RegionLanguage::cpp, {{"STAGES", 2}}, "k.cu").error().message,
            "k.cu: STAGES is not a tunable of the program");
}

TEST(TuneSpace, SizesAreBounded) {
  std::string many;
  for (int i = 0; i < 17; ++i)
    many += "T" + std::to_string(i) + " = 1  # swizzleperf:tunable 1 2\n";
  EXPECT_EQ(parse_tune_space(many, RegionLanguage::python, "k.py").error().message,
            "k.py:17: more than 16 tunables: tune fewer at once");
  std::string wide;
  for (int i = 0; i < 5; ++i) wide += "T" + std::to_string(i) + " = 1  # swizzleperf:tunable pow2 1..1073741824\n";
  EXPECT_EQ(parse_tune_space(wide, RegionLanguage::python, "k.py").error().message,
            "k.py: the tunables span more than 1,000,000 points: list fewer values");
  std::string values = "T = 0  # swizzleperf:tunable";
  for (int i = 0; i < 65; ++i) values += " " + std::to_string(i);
  EXPECT_EQ(parse_tune_space(values, RegionLanguage::python, "k.py").error().message, "k.py:1: T: 65 values, more than 64: list fewer");
}

}  // namespace
}  // namespace swz
