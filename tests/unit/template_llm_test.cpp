// The templating prompt and reply: the program read out of a model's reply, the device's
// per-block limits (tune_limits_of) as the prompt states them, and what the prompt carries.
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
  // The device query's limits win over the arch's in the prompt too.
  ask.hw.device_query = {{"shared_mem_per_block", 101376}, {"max_threads_per_block", 512}};
  EXPECT_NE(template_messages(ask)[1].content.find("Per block it allows 101376 bytes of shared memory and 512 threads"),
            std::string::npos);
}

}  // namespace
}  // namespace swz::cli
