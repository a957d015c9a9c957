// The templating prompt and reply: the program read out of a model's reply, the device's
// per-block limits from the arch or its query, and what the prompt carries.
#include "swizzleperf/cli/template_llm.h"

#include <gtest/gtest.h>

namespace swz::cli {
namespace {

TEST(TemplateLlm, TheProgramIsTheLongestFencedBlockElseTheWholeReply) {
  EXPECT_EQ(program_in_reply("Here:\n```cpp\n#define A 1\nint x;\n```\nDone."), "#define A 1\nint x;\n");
  EXPECT_EQ(program_in_reply("```\nshort\n```\ntext\n```python\nA = 1\nB = 2\n```"), "A = 1\nB = 2\n");
  EXPECT_EQ(program_in_reply("\n\n#define A 1\n"), "#define A 1\n");
  EXPECT_EQ(program_in_reply("```cpp\nunclosed\n"), "unclosed\n");
  EXPECT_EQ(program_in_reply("```"), "```");
  EXPECT_EQ(program_in_reply(""), "");
}

TEST(TemplateLlm, LimitsComeFromTheArchAndTheDeviceQueryWins) {
  HardwareProfile h100;
  h100.vendor = "nvidia";
  h100.arch = "sm_90";
  auto l = tune_limits_for(h100);
  EXPECT_EQ(l.shared_bytes_per_block, 232448);
  EXPECT_EQ(l.threads_per_block, 1024);
  EXPECT_EQ(l.warp_size, 32);
  HardwareProfile a100 = h100;
  a100.arch = "sm_80";
  EXPECT_EQ(tune_limits_for(a100).shared_bytes_per_block, 166912);
  HardwareProfile mi300;
  mi300.arch = "gfx942";
  EXPECT_EQ(tune_limits_for(mi300).shared_bytes_per_block, 65536);
  EXPECT_EQ(tune_limits_for(mi300).warp_size, 64);
  h100.device_query = {{"max_threads_per_block", 512}, {"shared_mem_per_block", 49152}, {"warp_size", "32"}};
  l = tune_limits_for(h100);
  EXPECT_EQ(l.threads_per_block, 512);
  EXPECT_EQ(l.shared_bytes_per_block, 49152);
  EXPECT_EQ(l.warp_size, 32);  // a string is not a number: the arch's value stays
}

TEST(TemplateLlm, ThePromptCarriesTheGrammarTheLimitsTheProposalAndTheProgram) {
  const std::string text = "#define BLOCK_M 128\n#define LUT_BLOCK 16\nfloat lut[LUT_BLOCK];\n";
  auto p = propose_template(text, RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(p) << p.error().message;
  TemplateAsk ask{"k.cu", text, RegionLanguage::cpp, {}, *p};
  ask.hw.arch = "sm_90";
  ask.hw.name = "NVIDIA H100";
  const auto m = template_messages(ask);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].role, "system");
  EXPECT_NE(m[0].content.find("#ifndef BLOCK_M\n#define BLOCK_M 128  // swizzleperf:tunable 64 128 256\n#endif"), std::string::npos);
  EXPECT_NE(m[0].content.find("`// swizzleperf:begin`"), std::string::npos);
  EXPECT_NE(m[1].content.find("The device: NVIDIA H100, sm_90\nPer block it allows 232448 bytes of shared memory and 1024 threads"),
            std::string::npos)
      << m[1].content;
  EXPECT_NE(m[1].content.find("- BLOCK_M = 128 (tile, line 1): 64 128 256 as BLOCK_M\n"), std::string::npos) << m[1].content;
  EXPECT_NE(m[1].content.find("- left alone: LUT_BLOCK (line 2): sizes a plain array at line 3"), std::string::npos);
  EXPECT_NE(m[1].content.find("```cpp\n" + text + "\n```"), std::string::npos);
  ask.language = RegionLanguage::python;
  EXPECT_NE(template_messages(ask)[0].content.find("module-level constant"), std::string::npos);
}

}  // namespace
}  // namespace swz::cli
