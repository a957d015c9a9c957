// loop/tuned_program: the program's own configuration, and the text of the best program
// with a point's parameters written in (C++ keeps its #ifndef guards; Triton's constants
// change in place); a define the program does not declare goes first as a #define.
#include "swizzleperf/loop/tuned_program.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

const char* const kTunedCpp =
    "#ifndef BLOCK\n"
    "#define BLOCK 16  // swizzleperf:tunable 8 16 32\n"
    "#endif\n"
    "// swizzleperf:begin\n"
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return pid;\n"
    "}\n"
    "// swizzleperf:end\n"
    "int main() { return 0; }\n";

const char* const kTunedPy =
    "import triton\n"
    "BLOCK_M = 128  # swizzleperf:tunable 64 128 256\n"
    "# swizzleperf:begin\n"
    "@triton.jit\n"
    "def swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
    "    return pid\n"
    "# swizzleperf:end\n";

const char* const kReversedCpp =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return num_pids - 1 - pid;\n"
    "}\n";

TEST(TunedProgram, TheOwnConfigurationIsTheDeclaredValues) {
  auto k = KernelSource::parse(kTunedCpp, "k.hip");
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(own_configuration(*k), (Defines{{"BLOCK", 16}}));
  auto plain = KernelSource::parse(std::string(kTunedCpp).substr(std::string(kTunedCpp).find("// swizzleperf:begin")), "p.hip");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(own_configuration(*plain).empty());
}

TEST(TunedProgram, CppKeepsItsGuardsAndOnlyTheValueChanges) {
  auto k = KernelSource::parse(kTunedCpp, "k.hip");
  ASSERT_TRUE(k);
  auto region = ValidRegion::make(kReversedCpp, RegionLanguage::cpp);
  ASSERT_TRUE(region) << region.error().message;
  auto none = program_with(*k, *region, {});
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, *k->splice(region->code()));
  auto text = program_with(*k, *region, {{"BLOCK", 32}});
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->find("#ifndef BLOCK\n#define BLOCK 32  // swizzleperf:tunable 8 16 32\n#endif\n"), 0u) << *text;
  EXPECT_NE(text->find("return num_pids - 1 - pid;"), std::string::npos);
  // Undeclared, or a value the declaration does not list: the build's define, first.
  auto other = program_with(*k, *region, {{"BLOCK", 32}, {"SPLIT_K", 2}});
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_EQ(other->find("#define SPLIT_K 2  //"), 0u) << *other;
  EXPECT_NE(other->find("#define BLOCK 32  // swizzleperf:tunable"), std::string::npos) << *other;
  auto unlisted = program_with(*k, *region, {{"BLOCK", 12}});
  ASSERT_TRUE(unlisted) << unlisted.error().message;
  EXPECT_EQ(unlisted->find("#define BLOCK 12  //"), 0u) << *unlisted;
  EXPECT_NE(unlisted->find("#ifndef BLOCK\n#define BLOCK 16"), std::string::npos) << "the guard keeps the define";
}

TEST(TunedProgram, TritonConstantsChangeInPlaceAndAnUndeclaredNameIsAnError) {
  auto k = KernelSource::parse(kTunedPy, "m.py");
  ASSERT_TRUE(k) << k.error().message;
  auto region = ValidRegion::make("@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return num_pids - 1 - pid\n",
                                  RegionLanguage::python);
  ASSERT_TRUE(region) << region.error().message;
  auto text = program_with(*k, *region, {{"BLOCK_M", 256}});
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("BLOCK_M = 256  # swizzleperf:tunable 64 128 256\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("return num_pids - 1 - pid"), std::string::npos);
  auto bad = program_with(*k, *region, {{"SPLIT_K", 2}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("SPLIT_K"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace swz
