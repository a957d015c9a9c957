// End-to-end: `optimize --proposer llm` against the scripted loopback server
// (real libcurl, real HTTP), through the fake toolchain, with faults mixed in.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/chat_server.h"
#include "support/fixtures.h"

namespace swz::test {
namespace {

constexpr const char* kKey = "sk-test-DO-NOT-LEAK-1234567890";

// `optimize` of tmp/gemm.hip with the LLM at base_url, through the fake nvcc/ncu,
// 3 reps, run dir tmp/run; `extra` goes at the end.
std::vector<std::string> llm_optimize_args(const TempDir& tmp, const std::string& base_url, int iterations,
                                           const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"optimize", (tmp / "gemm.hip").string(), "--proposer", "llm", "--base-url", base_url,
                                "--iterations", std::to_string(iterations), "--backend", "cuda",
                                "--nvcc", (fake_dir() / "fake_nvcc").string(), "--ncu", (fake_dir() / "fake_ncu").string(),
                                "--run-dir", (tmp / "run").string(), "--reps", "3", "--pause-ms", "0"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string reply(const std::string& code, int earlier_attempts) {
  nlohmann::json critique = nlohmann::json::array();
  for (int i = 1; i <= earlier_attempts; ++i)
    critique.push_back({{"attempt", i}, {"what_it_did", "a remap"}, {"why_it_fell_short", "see its metrics"}});
  return nlohmann::json{{"reasoning", "tiles in one row share A; keep groups of rows together"},
                        {"critique", critique},
                        {"rationale", "grouped order"},
                        {"code", code}}
      .dump();
}

std::string grouped(int g) {
  return "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
         "  if (grid.m * grid.n != num_pids) return pid;\n"
         "  const unsigned G = " + std::to_string(g) + ", width = G * grid.n, first = (pid / width) * G;\n"
         "  const unsigned gs = grid.m - first < G ? grid.m - first : G;\n"
         "  return (first + (pid % width) % gs) * grid.n + (pid % width) / gs;\n}\n";
}

TEST(LlmOptimizeE2E, FiveIterationsWithFaultsKeepGoingAndNeverLeakTheKey) {
  ChatServer server;
  server.push_completion("ok");  // the endpoint check before the run
  server.push_completion("Blocks in one tile row share a panel of A; one tile column shares B.", "stop", 400, 60);
  server.push_completion(reply(grouped(8), 0), "stop", 1200, 300);                                      // 1 ok
  server.push_completion(reply("SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n  return pid +;\n}\n", 1));  // 2 no compile
  server.push_error(500, "upstream overloaded");                                                       // retried
  server.push_completion(reply("SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n  return pid / 2;\n}\n", 2));  // 3 not bijective
  server.push_completion("this is not json at all");                                                   // 4 malformed
  server.push_completion(reply(grouped(4), 4), "stop", 1300, 310);                                     // 5 ok
  TempDir tmp;
  write_text(tmp / "gemm.hip", read_text(source_dir() / "kernels" / "gemm.hip"));
  auto r = run_cli(llm_optimize_args(tmp, server.base_url(), 5, {"--json"}),
                   tmp.path(), {std::string("OPENAI_API_KEY=") + kKey}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto h = nlohmann::json::parse(read_text(tmp / "run" / "history.json"));
  ASSERT_EQ(h["attempts"].size(), 5u) << h["attempts"].dump(1);
  const auto& a = h["attempts"];
  EXPECT_EQ(a[0]["status"], "ok");
  EXPECT_EQ(a[1]["status"], "rejected_region");  // the region validator refuses the syntax error
  EXPECT_EQ(a[1]["reason"], "line 2: ';': expected an expression");
  EXPECT_EQ(a[2]["status"], "rejected_mapping");
  EXPECT_NE(a[2]["reason"].get<std::string>().find("NOT a bijection"), std::string::npos);
  EXPECT_EQ(a[3]["status"], "proposal_failed");
  EXPECT_TRUE(a[3]["proposal"].contains("calls")) << a[3].dump(1);  // the failed call's usage is kept
  EXPECT_EQ(a[4]["status"], "ok");
  for (const auto& at : a) {
    if (at["status"] == "proposal_failed") continue;
    EXPECT_FALSE(at["proposal"]["reasoning"].get<std::string>().empty());
    EXPECT_TRUE(at["proposal"]["critique"].is_array());
    EXPECT_FALSE(at["region"].get<std::string>().empty());
    EXPECT_TRUE(at["proposal"].contains("usage")) << at["proposal"].dump();
    EXPECT_TRUE(at["proposal"].contains("latency_s"));
  }
  EXPECT_EQ(a[4]["proposal"]["critique"].size(), 4u);
  // The aware prompt carried the hardware and the baseline bottleneck.
  const auto reqs = server.requests();
  ASSERT_GE(reqs.size(), 8u);
  const std::string opt_prompt = reqs[2].body;  // [0] the endpoint check, [1] the memory analysis
  EXPECT_NE(opt_prompt.find("2 "), std::string::npos);
  EXPECT_NE(opt_prompt.find("L2"), std::string::npos);
  EXPECT_EQ(reqs[2].header("authorization"), std::string("Bearer ") + kKey);
  EXPECT_EQ(reqs[0].header("authorization"), std::string("Bearer ") + kKey);
  // The key is nowhere in the run dir.
  for (const auto& e : fs::recursive_directory_iterator(tmp / "run")) {
    if (!e.is_regular_file() || e.file_size() > (64u << 20)) continue;
    EXPECT_EQ(read_text(e.path()).find(kKey), std::string::npos) << e.path();
  }
  EXPECT_EQ(r.out.find(kKey), std::string::npos);
  EXPECT_EQ(r.err.find(kKey), std::string::npos);
}

TEST(LlmOptimizeE2E, RefusedKeyStopsWithOneLineNamingTheVariable) {
  ChatServer server;
  server.push_error(401, "Incorrect API key provided");
  TempDir tmp;
  write_text(tmp / "gemm.hip", read_text(source_dir() / "kernels" / "gemm.hip"));
  auto r = run_cli(llm_optimize_args(tmp, server.base_url(), 2),
                   tmp.path(), {std::string("MY_KEY=") + kKey}, 120);
  // --api-key-env not given: OPENAI_API_KEY unset -> no header; 401 names the variable.
  // The endpoint is checked before the run: nothing is built or measured.
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("OPENAI_API_KEY"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checked once, before the run"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "run" / "baseline"));
}

TEST(LlmOptimizeE2E, AKeyRefusedMidRunStopsItAndKeepsWhatWasRecorded) {
  ChatServer server;
  server.push_completion("ok");  // the endpoint check passes
  server.push_error(401, "Incorrect API key provided");
  TempDir tmp;
  write_text(tmp / "gemm.hip", read_text(source_dir() / "kernels" / "gemm.hip"));
  auto r = run_cli(llm_optimize_args(tmp, server.base_url(), 2),
                   tmp.path(), {}, 120);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  auto h = nlohmann::json::parse(read_text(tmp / "run" / "history.json"));
  EXPECT_EQ(h["state"], "failed");
  EXPECT_TRUE(h.contains("baseline"));  // what was recorded is kept
}

// A dead endpoint, a server answering 501 and one answering 200 with garbage: one
// line and exit 2 before any GPU time, not five retries per iteration and exit 0.
TEST(LlmOptimizeE2E, ADeadOrBrokenEndpointStopsBeforeTheRunWithExitTwo) {
  TempDir tmp;
  write_text(tmp / "gemm.hip", read_text(source_dir() / "kernels" / "gemm.hip"));
  auto run = [&](const std::string& url) {
    return run_cli(llm_optimize_args(tmp, url, 2, {"--llm-timeout", "5"}),
                   tmp.path(), {}, 120);
  };
  auto closed = run("http://127.0.0.1:1/v1");
  EXPECT_EQ(closed.exit_code, 2) << closed.err;
  EXPECT_NE(closed.err.find("swizzleperf: error: the LLM endpoint http://127.0.0.1:1/v1 does not answer"), std::string::npos)
      << closed.err;
  EXPECT_FALSE(fs::exists(tmp / "run" / "baseline"));
  {
    ChatServer server;
    server.push_error(501, "Not Implemented");
    auto r = run(server.base_url());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("does not answer"), std::string::npos) << r.err;
    EXPECT_EQ(server.requests().size(), 1u);  // checked once, no retries
  }
  {
    ChatServer server;
    server.push({200, {}, "<html>hello</html>"});
    auto r = run(server.base_url());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("not a JSON object"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp / "run" / "baseline"));
}

TEST(LlmOptimizeE2E, DumpPromptCallsNothing) {
  ChatServer server;
  auto r = run_cli({"optimize", (source_dir() / "kernels" / "gemm.hip").string(), "--proposer", "llm", "--base-url",
                    server.base_url(), "--dump-prompt", "--arch", "sm_90"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("swizzle_pid"), std::string::npos);
  EXPECT_TRUE(server.requests().empty());
}

}  // namespace
}  // namespace swz::test

namespace swz::test {
namespace {

// A candidate that crashes or hangs on the GPU is a failed attempt, not the end
// of the run (the fake toolchain acts on the magic words in the region).
TEST(LlmOptimizeE2E, CandidateThatCrashesOrHangsIsRecordedAndTheRunGoesOn) {
  ChatServer server;
  server.push_completion("ok");  // the endpoint check before the run
  server.push_completion("analysis");
  auto with_word = [](const char* word) {
    return "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n  // " +
           std::string(word) + "\n  return num_pids - 1 - pid;\n}\n";
  };
  server.push_completion(reply(with_word("SWZ_FAKE_CRASH"), 0));
  std::string hang = grouped(4);  // a different mapping, so it is not a duplicate
  hang.insert(hang.find('\n') + 1, "  // SWZ_FAKE_HANG\n");
  server.push_completion(reply(hang, 1));
  server.push_completion(reply(grouped(8), 2));
  TempDir tmp;
  write_text(tmp / "gemm.hip", read_text(source_dir() / "kernels" / "gemm.hip"));
  auto r = run_cli(llm_optimize_args(tmp, server.base_url(), 3, {"--run-timeout", "3"}),
                   tmp.path(), {}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto h = nlohmann::json::parse(read_text(tmp / "run" / "history.json"));
  ASSERT_EQ(h["attempts"].size(), 3u) << h["attempts"].dump(1);
  EXPECT_EQ(h["attempts"][0]["status"], "run_failed");
  EXPECT_NE(h["attempts"][0]["reason"].get<std::string>().find("signal 6"), std::string::npos) << h["attempts"][0]["reason"];
  EXPECT_EQ(h["attempts"][1]["status"], "run_failed");
  EXPECT_NE(h["attempts"][1]["reason"].get<std::string>().find("timed out"), std::string::npos) << h["attempts"][1]["reason"];
  EXPECT_EQ(h["attempts"][2]["status"], "ok");
  EXPECT_EQ(h["state"], "completed");
}


// A candidate whose full-size output differs from the baseline's in one bit is still
// rejected under device-side hashing; the reason names the first differing chunk and
// the one dump written for it. Matching candidates leave no output file behind.
TEST(LlmOptimizeE2E, CandidateWithADifferentFullSizeOutputIsRejectedNamingTheChunk) {
  ChatServer server;
  server.push_completion("ok");  // the endpoint check before the run
  server.push_completion("analysis");
  server.push_completion(reply(
      "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
      "  // SWZ_FAKE_DUMP_DIFF\n  return num_pids - 1 - pid;\n}\n",
      0));
  server.push_completion(reply(grouped(8), 1));
  TempDir tmp;
  write_text(tmp / "gemm.hip", read_text(source_dir() / "kernels" / "gemm.hip"));
  auto r = run_cli(llm_optimize_args(tmp, server.base_url(), 2),
                   tmp.path(), {}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto h = nlohmann::json::parse(read_text(tmp / "run" / "history.json"));
  EXPECT_EQ(h["baseline"]["validation"]["output_check"]["mode"], "hash");
  EXPECT_TRUE(fs::exists(tmp / "run" / "baseline" / "chunks.txt"));
  EXPECT_FALSE(fs::exists(tmp / "run" / "baseline" / "output.bin"));
  ASSERT_EQ(h["attempts"].size(), 2u) << h["attempts"].dump(1);
  const auto& bad = h["attempts"][0];
  EXPECT_EQ(bad["status"], "validation_failed");
  const std::string why = bad["reason"].get<std::string>();
  // gemm's default grid on the fake: 32x256 tiles, 4 bytes each, 256-byte chunks.
  EXPECT_NE(why.find("first differing chunk 127 of 128 (bytes 32512..32767)"), std::string::npos) << why;
  EXPECT_NE(why.find((tmp / "run" / "iter-001" / "output.bin").string()), std::string::npos) << why;
  EXPECT_TRUE(fs::exists(tmp / "run" / "iter-001" / "output.bin"));
  EXPECT_EQ(h["attempts"][1]["status"], "ok");
  EXPECT_FALSE(fs::exists(tmp / "run" / "iter-002" / "output.bin"));
  EXPECT_FALSE(fs::exists(tmp / "run" / "iter-002" / "chunks.txt"));
  EXPECT_EQ(h["attempts"][1]["validation"]["output_hash"], h["baseline"]["validation"]["output_check"]["hash"]);
}

}  // namespace
}  // namespace swz::test
