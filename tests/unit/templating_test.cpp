// Templating: the constants that size tiles, blocks, warps and stages found in C++ and Triton
// programs, the rewritten program read back as a tune space at the original values, what is
// left alone (comments, strings, expressions, plain arrays, signatures, the region), and the
// check of an untrusted template (an LLM's reply).
#include "swizzleperf/tune/templating.h"

#include <gtest/gtest.h>

#include <string>

#include "support/fixtures.h"

namespace swz {
namespace {

const char* kTplCuda =
    "#include \"swz_harness.h\"\n"
    "#define BLOCK_M 128  // tile rows\n"
    "#define TILE_N (64)\n"
    "#define BLOCK_PAD (BLOCK_M + 4)\n"
    "#define LUT_BLOCK 16\n"
    "#define N_ITEMS 100\n"
    "static constexpr int kBK = 8, kThreads = 256;\n"
    "const int NUM_STAGES = 3;\n"
    "// #define BLOCK_Q 32\n"
    "const char* doc = \"#define BLOCK_S 32\";\n"
    "float lut[LUT_BLOCK];\n"
    "// swizzleperf:begin\n"
    "#define GROUP_R 8\n"
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, SwizzleGrid g) { return pid; }\n"
    "// swizzleperf:end\n"
    "__global__ void k(float* c) {\n"
    "  __shared__ __align__(16) float As[kBK][BLOCK_M];\n"
    "  __shared__ float Bs[kBK][TILE_N + 4];\n"
    "}\n";

const ProposedTunable* tpl_find(const TemplateProposal& p, const std::string& name) {
  for (const auto& t : p.tunables)
    if (t.name == name) return &t;
  return nullptr;
}

const SkippedConstant* tpl_skipped(const TemplateProposal& p, const std::string& name) {
  for (const auto& s : p.skipped)
    if (s.name == name) return &s;
  return nullptr;
}

TEST(Templating, CppDefinesAndConstexprsBecomeGuardedTunablesAtTheirValues) {
  auto p = propose_template(kTplCuda, RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->tunables.size(), 5u) << p->text;
  const auto* m = tpl_find(*p, "BLOCK_M");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->tunable, "BLOCK_M");
  EXPECT_EQ(m->values, (std::vector<std::int64_t>{64, 128, 256}));
  EXPECT_EQ(m->form, ConstantForm::cpp_define);
  EXPECT_EQ(m->line, 2);
  ASSERT_NE(tpl_find(*p, "TILE_N"), nullptr);
  EXPECT_EQ(tpl_find(*p, "TILE_N")->value, 64);
  const auto* bk = tpl_find(*p, "kBK");
  ASSERT_NE(bk, nullptr);
  EXPECT_EQ(bk->tunable, "SWZ_T_kBK");
  EXPECT_EQ(bk->values, (std::vector<std::int64_t>{4, 8, 16}));
  const auto* th = tpl_find(*p, "kThreads");
  ASSERT_NE(th, nullptr);
  EXPECT_EQ(th->role, "threads");
  EXPECT_EQ(th->values, (std::vector<std::int64_t>{128, 256, 512}));
  const auto* st = tpl_find(*p, "NUM_STAGES");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->values, (std::vector<std::int64_t>{2, 3, 4, 5}));
  // The text: the comment moved above the guard, the constexpr reads its define.
  EXPECT_NE(p->text.find("// tile rows\n#ifndef BLOCK_M\n#define BLOCK_M 128  // swizzleperf:tunable 64 128 256\n#endif\n"),
            std::string::npos)
      << p->text;
  EXPECT_NE(p->text.find("#ifndef SWZ_T_kBK\n#define SWZ_T_kBK 8  // swizzleperf:tunable 4 8 16\n#endif\n"), std::string::npos);
  EXPECT_NE(p->text.find("static constexpr int kBK = SWZ_T_kBK, kThreads = SWZ_T_kThreads;"), std::string::npos) << p->text;
  EXPECT_NE(p->text.find("const int NUM_STAGES = SWZ_T_NUM_STAGES;"), std::string::npos);
  // Read back: a space whose own point is the original values.
  auto space = parse_tune_space(p->text, RegionLanguage::cpp, "t");
  ASSERT_TRUE(space) << space.error().message;
  EXPECT_EQ(space->describe(space->own_point()), "BLOCK_M=128 TILE_N=64 SWZ_T_kBK=8 SWZ_T_kThreads=256 SWZ_T_NUM_STAGES=3");
  // The shared memory of the one kernel, in the tunables.
  ASSERT_TRUE(p->shared_bytes.has_value());
  EXPECT_EQ(*p->shared_bytes, "SWZ_T_kBK * BLOCK_M * 4 + SWZ_T_kBK * (TILE_N + 4) * 4");
  ASSERT_TRUE(space->shared_bytes.has_value());
  auto bytes = space->shared_bytes->expr.eval(space->bind(space->own_point()));
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, 8 * 128 * 4 + 8 * 68 * 4);
}

TEST(Templating, CppLeavesCommentsStringsExpressionsArraysAndTheRegionAlone) {
  auto p = propose_template(kTplCuda, RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(tpl_find(*p, "BLOCK_Q"), nullptr);  // in a comment
  EXPECT_EQ(tpl_find(*p, "BLOCK_S"), nullptr);  // in a string
  EXPECT_EQ(tpl_find(*p, "GROUP_R"), nullptr);  // in the swizzle region
  EXPECT_EQ(tpl_find(*p, "N_ITEMS"), nullptr);  // its name says nothing
  EXPECT_EQ(tpl_skipped(*p, "N_ITEMS"), nullptr);
  ASSERT_NE(tpl_skipped(*p, "BLOCK_PAD"), nullptr);
  EXPECT_NE(tpl_skipped(*p, "BLOCK_PAD")->why.find("an expression"), std::string::npos);
  ASSERT_NE(tpl_skipped(*p, "LUT_BLOCK"), nullptr);
  EXPECT_NE(tpl_skipped(*p, "LUT_BLOCK")->why.find("plain array at line 11"), std::string::npos);
  EXPECT_NE(p->text.find("// #define BLOCK_Q 32\n"), std::string::npos);
  EXPECT_NE(p->text.find("#define GROUP_R 8\n"), std::string::npos);
}

TEST(Templating, CppOddValuesAreNotedNotProposed) {
  auto p = propose_template("#define BLOCK_M 96\nconstexpr int NUM_STAGES = 12;\n#define WARPS 64\n", RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->tunables.empty());
  ASSERT_EQ(p->skipped.size(), 3u);
  EXPECT_EQ(p->skipped[0].why, "96 is not a power of two");
  EXPECT_EQ(p->skipped[1].why, "12 is not a stage count (1..8)");
  EXPECT_EQ(p->text, "#define BLOCK_M 96\nconstexpr int NUM_STAGES = 12;\n#define WARPS 64\n");
}

TEST(Templating, CppAGuardedDefineKeepsItsGuardAndDeclaredTunablesStay) {
  const std::string text =
      "#ifndef BLOCK_M\n#define BLOCK_M 64\n#endif\n"
      "#ifndef BLOCK_N\n#define BLOCK_N 64 // swizzleperf:tunable 32 64\n#endif\n";
  auto p = propose_template(text, RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->tunables.size(), 1u);
  EXPECT_EQ(p->text,
            "#ifndef BLOCK_M\n#define BLOCK_M 64  // swizzleperf:tunable 32 64 128\n#endif\n"
            "#ifndef BLOCK_N\n#define BLOCK_N 64 // swizzleperf:tunable 32 64\n#endif\n");
  ASSERT_NE(tpl_skipped(*p, "BLOCK_N"), nullptr);
  EXPECT_EQ(tpl_skipped(*p, "BLOCK_N")->why, "already a tunable");
  // A program whose own declarations are broken is an error, not a proposal.
  auto bad = propose_template("#define BLOCK_M 64 // swizzleperf:tunable 32\n", RegionLanguage::cpp, "k.cu");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("k.cu:1:"), std::string::npos);
}

const char* kTplTriton =
    "import torch\n"
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "BLOCK_M = 128  # rows per program\n"
    "GROUP_SIZE_M = 8\n"
    "EPS = 1\n"
    "DOC = \"BLOCK_Q = 64\"\n"
    "\n"
    "@triton.jit\n"
    "def matmul_kernel(a_ptr, BLOCK_N: tl.constexpr = 64, BLOCK_K: tl.constexpr = 32):\n"
    "    BLOCK_T = 16\n"
    "    pid = tl.program_id(0)\n"
    "\n"
    "def run(a):\n"
    "    matmul_kernel[(4,)](a, BLOCK_N=64, num_warps=8, num_stages=3)\n"
    "    matmul_kernel[(4,)](a, num_warps=8)  # num_stages=4\n";

TEST(Templating, TritonModuleConstantsAndLaunchLiteralsBecomeModuleTunables) {
  auto p = propose_template(kTplTriton, RegionLanguage::python, "m.py");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->tunables.size(), 4u) << p->text;
  EXPECT_NE(tpl_find(*p, "BLOCK_M"), nullptr);
  ASSERT_NE(tpl_find(*p, "GROUP_SIZE_M"), nullptr);
  EXPECT_EQ(tpl_find(*p, "GROUP_SIZE_M")->values, (std::vector<std::int64_t>{4, 8, 16}));
  ASSERT_NE(tpl_find(*p, "num_warps"), nullptr);
  EXPECT_EQ(tpl_find(*p, "num_warps")->tunable, "NUM_WARPS");
  EXPECT_EQ(tpl_find(*p, "num_warps")->values, (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(tpl_find(*p, "num_stages")->values, (std::vector<std::int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(tpl_find(*p, "BLOCK_T"), nullptr);  // inside a function, not module-level
  EXPECT_EQ(tpl_find(*p, "BLOCK_Q"), nullptr);  // in a string
  ASSERT_NE(tpl_skipped(*p, "BLOCK_N"), nullptr);
  EXPECT_NE(tpl_skipped(*p, "BLOCK_N")->why.find("@triton.jit signature"), std::string::npos);
  ASSERT_NE(tpl_skipped(*p, "BLOCK_K"), nullptr);
  EXPECT_NE(p->text.find("import triton.language as tl\n"
                         "# Launch options lifted to module constants by swizzleperf template.\n"
                         "NUM_WARPS = 8  # swizzleperf:tunable 4 8\n"
                         "NUM_STAGES = 3  # swizzleperf:tunable 2 3 4 5\n\n"),
            std::string::npos)
      << p->text;
  EXPECT_NE(p->text.find("# rows per program\nBLOCK_M = 128  # swizzleperf:tunable 64 128 256\n"), std::string::npos) << p->text;
  EXPECT_NE(p->text.find("(a, BLOCK_N=64, num_warps=NUM_WARPS, num_stages=NUM_STAGES)\n"), std::string::npos) << p->text;
  EXPECT_NE(p->text.find("(a, num_warps=NUM_WARPS)  # num_stages=4"), std::string::npos) << p->text;
  EXPECT_FALSE(p->shared_bytes.has_value());  // Triton's shared memory is the compiler's
  auto space = parse_tune_space(p->text, RegionLanguage::python, "t");
  ASSERT_TRUE(space) << space.error().message;
  EXPECT_EQ(space->describe(space->own_point()), "NUM_WARPS=8 NUM_STAGES=3 BLOCK_M=128 GROUP_SIZE_M=8");
}

TEST(Templating, TritonLaunchesThatDisagreeAreNotLiftedIntoOneConstant) {
  auto p = propose_template("def run():\n    k[(1,)](num_warps=4)\n    k[(1,)](num_warps=8)\n    k[(1,)](num_warps=NUM_WARPS)\n",
                            RegionLanguage::python, "m.py");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->tunables.empty()) << p->text;  // NUM_WARPS is a name already
  ASSERT_EQ(p->skipped.size(), 2u);
  EXPECT_NE(p->skipped[0].why.find("another launch uses num_warps=4"), std::string::npos);
  EXPECT_NE(p->skipped[1].why.find("NUM_WARPS is already a name"), std::string::npos);
}

TEST(Templating, NothingFoundLeavesTheTextAsItIs) {
  for (auto lang : {RegionLanguage::cpp, RegionLanguage::python}) {
    for (const std::string text : {"", "\n", "int main() { return 0; }\n", "x = 1\n", "\xff\xfe\x00garbage"}) {
      auto p = propose_template(text, lang, "f");
      ASSERT_TRUE(p) << p.error().message;
      EXPECT_TRUE(p->tunables.empty());
      EXPECT_EQ(p->text, text);
    }
  }
}

TEST(Templating, AHugeFileIsScannedInBoundedTimeAndTooLargeIsRefused) {
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "#define BLOCK_" + std::to_string(i) + " 64\nconst int x" + std::to_string(i) + " = 3;\n";
  auto p = propose_template(big, RegionLanguage::cpp, "big.cu");
  ASSERT_TRUE(p) << p.error().message;
  // Three values each: 12 tunables are 531,441 points, a 13th would pass 1,000,000.
  EXPECT_EQ(p->tunables.size(), 12u);
  ASSERT_GE(p->skipped.size(), 2u);
  EXPECT_NE(p->skipped[0].why.find("more than 1,000,000 points"), std::string::npos);
  EXPECT_NE(p->skipped.back().why.find("more than 1,000,000 points"), std::string::npos);
  auto space = parse_tune_space(p->text, RegionLanguage::cpp, "big");
  ASSERT_TRUE(space) << space.error().message;
  EXPECT_EQ(space->tunables.size(), 12u);
  std::string ones;  // two values each: the count of tunables is the bound
  for (int i = 0; i < 20; ++i) ones += "#define BLOCK_" + std::to_string(i) + " 1\n";
  auto p16 = propose_template(ones, RegionLanguage::cpp, "ones.cu");
  ASSERT_TRUE(p16) << p16.error().message;
  EXPECT_EQ(p16->tunables.size(), kMaxTunables);
  ASSERT_EQ(p16->skipped.size(), 4u);
  EXPECT_NE(p16->skipped.back().why.find("more than 16 tunables"), std::string::npos);
  std::string unclosed(1 << 20, '[');
  unclosed += "\n/* #define BLOCK_M 64";
  EXPECT_TRUE(propose_template(unclosed, RegionLanguage::cpp, "u.cu"));
  EXPECT_TRUE(propose_template(unclosed, RegionLanguage::python, "u.py"));
  const std::string too_big(kMaxTemplateScanBytes + 1, ' ');
  auto refused = propose_template(too_big, RegionLanguage::cpp, "huge.cu");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("the limit is"), std::string::npos);
}

const char* kTplProgram =
    "#include \"swz_harness.h\"\n"
    "#define BLOCK_M 128\n"
    "// swizzleperf:begin\n"
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, SwizzleGrid g) { return pid; }\n"
    "// swizzleperf:end\n"
    "__global__ void gemm_kernel(float* c) { c[0] = BLOCK_M; }\n";

TEST(TemplatingReply, TheDeterministicProposalPassesTheReplyCheck) {
  auto p = propose_template(kTplProgram, RegionLanguage::cpp, "g.cu");
  ASSERT_TRUE(p) << p.error().message;
  auto space = check_template_reply(kTplProgram, p->text, RegionLanguage::cpp, "reply");
  ASSERT_TRUE(space) << space.error().message;
  EXPECT_EQ(space->describe(space->own_point()), "BLOCK_M=128");
}

TEST(TemplatingReply, ARefusedReplySaysWhyInOneLine) {
  const std::string guarded = "#ifndef BLOCK_M\n#define BLOCK_M 128 // swizzleperf:tunable 64 128\n#endif\n";
  const std::string region =
      "// swizzleperf:begin\nSWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, SwizzleGrid g) { return pid; }\n// swizzleperf:end\n";
  auto why = [](const std::string& reply) {
    auto r = check_template_reply(kTplProgram, reply, RegionLanguage::cpp, "reply");
    EXPECT_FALSE(r) << reply;
    return r ? std::string() : r.error().message;
  };
  EXPECT_EQ(why(kTplProgram), "it declares no swizzleperf:tunable");
  EXPECT_NE(why("#define BLOCK_M 128 // swizzleperf:tunable 64 128\n").find("its tunables do not parse: reply:1: put `#ifndef BLOCK_M`"),
            std::string::npos);
  EXPECT_NE(why(guarded + "__global__ void gemm_kernel(float* c) {}\n").find("its swizzle region"), std::string::npos);
  EXPECT_EQ(why(guarded + region + "__global__ void other(float* c) {}\n"), "its kernels (other) are not the program's (gemm_kernel)");
  EXPECT_EQ(why("#ifndef BLOCK_M\n#define BLOCK_M 64 // swizzleperf:tunable 64 128\n#endif\n" + region +
                "__global__ void gemm_kernel(float* c) {}\n"),
            "its default BLOCK_M=64 is not the program's BLOCK_M=128: a template at its defaults must be the program");
  const std::string huge(kMaxTemplateScanBytes + 1, '\n');
  EXPECT_NE(why(huge).find("the limit is"), std::string::npos);
}

TEST(Templating, TheRealKernelsPropose) {
  const std::string gemm = test::read_text(test::source_dir() / "kernels" / "gemm.hip");
  auto g = propose_template(gemm, RegionLanguage::cpp, "gemm.hip");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_NE(tpl_find(*g, "kBM"), nullptr);
  EXPECT_NE(tpl_find(*g, "kThreads"), nullptr);
  EXPECT_TRUE(check_template_reply(gemm, g->text, RegionLanguage::cpp, "gemm.hip"));
  const std::string matmul = test::read_text(test::source_dir() / "kernels" / "triton" / "matmul.py");
  auto m = propose_template(matmul, RegionLanguage::python, "matmul.py");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(parse_tune_space(m->text, RegionLanguage::python, "matmul.py"));
}

}  // namespace
}  // namespace swz
