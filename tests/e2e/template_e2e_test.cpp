// End-to-end: `swizzleperf template` through the fake toolchain (tests/fakes: fake_nvcc builds
// the program's emulator, whose verify and output digest the gate compares), the deterministic
// proposal and LLM replies from the scripted loopback server: accepted, changing the output,
// not parsing, and a dead endpoint.
#include <gtest/gtest.h>

#include "support/chat_server.h"
#include "support/fixtures.h"
#include "swizzleperf/tune/templating.h"

namespace swz::test {
namespace {

constexpr const char* kTplKey = "sk-test-TEMPLATE-DO-NOT-LEAK-42";

std::vector<std::string> template_args(const TempDir& tmp, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"template", (tmp / "gemm.hip").string(), "--backend", "cuda", "--arch", "sm_90",
                                "--nvcc", (fake_dir() / "fake_nvcc").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string gemm_text() { return read_text(source_dir() / "kernels" / "gemm.hip"); }

std::string proposed_text() {
  auto p = propose_template(gemm_text(), RegionLanguage::cpp, "gemm.hip");
  EXPECT_TRUE(p) << p.error().message;
  return p ? p->text : std::string();
}

TEST(TemplateE2E, TheDeterministicProposalIsWrittenAfterTheGateAndNothingIsOverwritten) {
  TempDir tmp;
  write_text(tmp / "gemm.hip", gemm_text());
  auto r = run_cli(template_args(tmp), tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(has(r.out, "SWZ_T_kBM           128  line 18 (constexpr, tile)  -> 64 128 256  [kBM]")) << r.out;
  EXPECT_TRUE(has(r.out, "shared-bytes rule: SWZ_T_kBK * (SWZ_T_kBM + 4) * 4 + SWZ_T_kBK * SWZ_T_kBN * 4")) << r.out;
  EXPECT_TRUE(has(r.out, "wrote " + (tmp / "gemm.tuned.hip").string() + ": 4 tunable(s), 81 points")) << r.out;
  EXPECT_TRUE(has(r.out, "gives the original's output (digest ")) << r.out;
  EXPECT_EQ(read_text(tmp / "gemm.tuned.hip"), proposed_text());
  EXPECT_EQ(read_text(tmp / "gemm.hip"), gemm_text());
  // An existing output is refused without --force, replaced with it; the input never.
  write_text(tmp / "gemm.tuned.hip", "mine\n");
  auto again = run_cli(template_args(tmp), tmp.path());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(has(again.err, "gemm.tuned.hip exists: pass --force to replace it")) << again.err;
  EXPECT_EQ(read_text(tmp / "gemm.tuned.hip"), "mine\n");
  auto forced = run_cli(template_args(tmp, {"--force"}), tmp.path());
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(read_text(tmp / "gemm.tuned.hip"), proposed_text());
  auto onto_input = run_cli(template_args(tmp, {"-o", (tmp / "gemm.hip").string(), "--force"}), tmp.path());
  EXPECT_EQ(onto_input.exit_code, 2);
  EXPECT_TRUE(has(onto_input.err, "is the input: template never writes over its input")) << onto_input.err;
  EXPECT_EQ(read_text(tmp / "gemm.hip"), gemm_text());
}

TEST(TemplateE2E, AProgramWithNothingToTuneExitsOneWithOneLine) {
  TempDir tmp;
  write_text(tmp / "gemm.hip", "int main() { return 0; }\n");
  auto r = run_cli(template_args(tmp), tmp.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "swizzleperf: error: nothing to template in " + (tmp / "gemm.hip").string() + "\n");
  EXPECT_FALSE(fs::exists(tmp / "gemm.tuned.hip"));
}

std::vector<std::string> llm_template_args(const TempDir& tmp, const std::string& url) {
  return template_args(tmp, {"--llm", "--base-url", url, "--llm-timeout", "5"});
}

TEST(TemplateE2E, AnLlmTemplateThatKeepsTheOutputIsAcceptedAndTheKeyNeverShows) {
  ChatServer server;
  server.push_completion("ok");  // the endpoint check
  const std::string program = proposed_text() + "// swizzleperf:restrict SWZ_T_kBM * SWZ_T_kBN <= 128 * 256\n";
  server.push_completion("Here is the template:\n```cpp\n" + program + "```\n");
  TempDir tmp;
  write_text(tmp / "gemm.hip", gemm_text());
  auto r = run_cli(llm_template_args(tmp, server.base_url()), tmp.path(), {std::string("OPENAI_API_KEY=") + kTplKey});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(read_text(tmp / "gemm.tuned.hip"), program);
  EXPECT_TRUE(has(r.out, "the model's template: SWZ_T_kBM=128 SWZ_T_kBN=128 SWZ_T_kBK=8 SWZ_T_kThreads=256")) << r.out;
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  const std::string prompt = reqs[1].body;
  EXPECT_TRUE(has(prompt, "232448 bytes of shared memory and 1024 threads")) << prompt.substr(0, 2000);
  EXPECT_TRUE(has(prompt, "kBM = 128 (tile, line 18)")) << prompt.substr(0, 2000);
  EXPECT_TRUE(has(prompt, "constexpr int kBM = 128, kBN = 128"));  // the kernel itself
  EXPECT_EQ(reqs[1].header("authorization"), std::string("Bearer ") + kTplKey);
  EXPECT_FALSE(has(r.out, kTplKey));
  EXPECT_FALSE(has(r.err, kTplKey));
}

TEST(TemplateE2E, AnLlmTemplateThatChangesTheOutputIsRejectedByTheGate) {
  ChatServer server;
  server.push_completion("ok");
  std::string program = proposed_text();
  const std::string begin = "// swizzleperf:begin\n";
  program.insert(program.find(begin) + begin.size(), "// SWZ_FAKE_DUMP_DIFF (the fake's full-size-only bug)\n");
  server.push_completion("```cpp\n" + program + "```");
  TempDir tmp;
  write_text(tmp / "gemm.hip", gemm_text());
  auto r = run_cli(llm_template_args(tmp, server.base_url()), tmp.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.err, "swizzleperf: error: the model's template is rejected: at its defaults the template's full-size "
                         "output differs from the original's")) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "gemm.tuned.hip"));
}

TEST(TemplateE2E, AnLlmReplyThatDoesNotParseIsRejectedBeforeAnyBuild) {
  ChatServer server;
  server.push_completion("ok");
  server.push_completion("```cpp\n#define BLOCK_M 128  // swizzleperf:tunable 64\n```");
  TempDir tmp;
  write_text(tmp / "gemm.hip", gemm_text());
  const std::string log = (tmp / "nvcc.log").string();
  auto r = run_cli(llm_template_args(tmp, server.base_url()), tmp.path(), {"SWZ_FAKE_NVCC_LOG=" + log});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.err, "swizzleperf: error: the model's template is rejected: its tunables do not parse: the model's "
                         "template:1: put `#ifndef BLOCK_M`")) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "gemm.tuned.hip"));
  EXPECT_FALSE(fs::exists(log));  // nothing was built
}

TEST(TemplateE2E, ADeadEndpointIsOneLineAndExitTwo) {
  TempDir tmp;
  write_text(tmp / "gemm.hip", gemm_text());
  const std::string url = "http://127.0.0.1:" + std::to_string(unused_port()) + "/v1";
  auto r = run_cli(llm_template_args(tmp, url), tmp.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("swizzleperf: error: the LLM endpoint " + url + " does not answer", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "gemm.tuned.hip"));
}

// A Triton program on the triton backend: the fake Triton program (tests/fakes/fake_triton)
// under a shell stand-in for the Python with torch and triton, as TritonE2E runs it.
TEST(TemplateTritonE2E, AModuleConstantOfATritonProgramIsTemplatedAndGated) {
  if (!have_tool("python3")) GTEST_SKIP() << "no python3";
  TempDir tmp;
  const fs::path dir = source_dir() / "tests" / "fakes" / "fake_triton";
  const std::string original = read_text(dir / "fake_matmul.py");
  write_text(tmp / "fake_matmul.py", original);
  write_text(tmp / "python",
             "#!/bin/sh\ncase \"$1\" in\n  *swz_device_query.py) echo '{}'; exit 0;;\n"
             "  -c) case \"$2\" in 'import torch'|'import triton') exit 0;; esac;;\nesac\nexec python3 \"$@\"\n");
  fs::permissions(tmp / "python", fs::perms::owner_all);
  auto r = run_cli({"template", (tmp / "fake_matmul.py").string(), "--python", (tmp / "python").string(), "--arch", "sm_90"},
                   tmp.path(), {"PYTHONPATH=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(has(r.out, "TILE                 64  line 50 (module, tile)  -> 32 64 128")) << r.out;
  EXPECT_TRUE(has(r.out, "shared-bytes rule: none")) << r.out;
  std::string expected = original;
  expected.replace(expected.find("TILE = 64\n"), 10, "TILE = 64  # swizzleperf:tunable 32 64 128\n");
  EXPECT_EQ(read_text(tmp / "fake_matmul.tuned.py"), expected);
}

}  // namespace
}  // namespace swz::test
