// LlmProposer end to end against the scripted loopback server: the memory
// analysis is asked once and cached (also across a resumed proposer), the
// optimize call carries the schema, a rejected response_format falls back to
// the schema in the prompt (and stays off), repeats get one retry, failures are
// Errors (401 fatal), and every prompt and reply is saved without the key.
#include "swizzleperf/proposer/llm_proposer.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "support/chat_server.h"
#include "support/fixtures.h"

namespace swz {
namespace {

constexpr const char* kKeyEnv = "SWZ_TEST_PROPOSER_KEY";
constexpr const char* kKey = "sk-proposer-secret-0815";

using test::has;

const char* kLlmKernel =
    "// A small test kernel: each block scales one tile.\n"
    "#include <hip/hip_runtime.h>\n"
    "struct SwizzleGrid { unsigned m, n; };\n"
    "// swizzleperf:begin\n"
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return pid;\n"
    "}\n"
    "// swizzleperf:end\n"
    "__global__ void scale_tiles(float* out) { out[blockIdx.x] *= 2.0f; }\n";

const char* kNewCode =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  unsigned per = (num_pids + SWZ_NUM_DIES - 1) / SWZ_NUM_DIES;\n"
    "  return (pid % SWZ_NUM_DIES) * per + pid / SWZ_NUM_DIES;\n"
    "}\n";

const char* kStrideCode =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return (pid * 7u) % num_pids;\n"
    "}\n";

std::string reply_json(const std::string& code, const std::string& rationale = "keep rows on a die") {
  nlohmann::json j{{"reasoning", "rows share data"},
                   {"critique", nlohmann::json::array()},
                   {"rationale", rationale},
                   {"code", code}};
  return j.dump();
}

class LlmProposerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv(kKeyEnv, kKey, 1);
    auto k = KernelSource::parse(kLlmKernel, "tiles.hip");
    ASSERT_TRUE(k) << k.error().message;
    kernel.emplace(std::move(*k));
    hw.vendor = "amd";
    hw.name = "AMD Instinct MI300A";
    hw.arch = "gfx942";
    hw.compute_units = 228;
    hw.num_dies = 6;
    hw.l2_bytes = 6ll * 4 * 1024 * 1024;
    hw.l2_bytes_per_die = 4ll * 1024 * 1024;
    hw.dispatch.source = "documented";
    history.kernel_name = "tiles";
    history.original_region = kernel->region();
    Attempt base;
    base.proposer = "baseline";
    base.region = kernel->region();
    Metrics m;
    m.l2_hit_pct = 43.72;
    base.metrics = m;
    base.timing = Timing{1.25, 1.2, 1.4, 20};
    history.baseline = base;
  }
  void TearDown() override { ::unsetenv(kKeyEnv); }

  LlmOptions options() const {
    LlmOptions o;
    o.base_url = server.base_url();
    o.api_key_env = kKeyEnv;
    o.model = "test-model";
    o.max_retries = 1;
    o.timeout_s = 10;
    return o;
  }
  std::unique_ptr<LlmProposer> proposer(ContextMode mode = ContextMode::aware) {
    return std::make_unique<LlmProposer>(options(), mode, test::source_dir() / "prompts",
                                         [](double) {});
  }
  ProposalContext context(const std::string& iter_dir, int iteration = 1) {
    return ProposalContext{*kernel, TileGrid{12, 10}, hw, history, dir / iter_dir, dir.path(), iteration};
  }
  void add_attempt(int iteration, const std::string& label, const std::string& region) {
    Attempt a;
    a.iteration = iteration;
    a.proposer = "llm";
    a.label = label;
    a.region = region;
    history.attempts.push_back(a);
  }
  // The key must not appear in anything written under the run directory.
  void expect_no_key_in_files() {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
      if (!e.is_regular_file()) continue;
      EXPECT_FALSE(has(test::read_text(e.path()), kKey)) << e.path();
    }
  }
  std::string user_prompt(const test::RecordedRequest& r) {
    return r.json()["messages"][1]["content"].get<std::string>();
  }

  test::ChatServer server;
  test::TempDir dir;
  std::optional<KernelSource> kernel;
  HardwareProfile hw;
  RunHistory history;
};

TEST_F(LlmProposerTest, ProposesAndSavesEverything) {
  server.push_completion("Each block touches one tile; rows share nothing.", "stop", 300, 80);
  nlohmann::json r = nlohmann::json::parse(reply_json(kNewCode));
  r["critique"] = nlohmann::json::array({{{"attempt", 0}, {"what_it_did", "identity"}, {"why_it_fell_short", "spread"}}});
  server.push_completion(r.dump(), "stop", 900, 200);
  auto p = proposer();
  auto result = p->propose(context("iter-001"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->region, kNewCode);
  EXPECT_EQ(result->label, "llm-1");
  EXPECT_EQ(result->reasoning, "rows share data");
  EXPECT_EQ(result->rationale, "keep rows on a die");
  ASSERT_EQ(result->critique.size(), 1u);
  EXPECT_EQ(p->name(), "llm");

  // Meta: model, usage and latency of every call.
  const auto& meta = result->meta;
  EXPECT_EQ(meta["model"], "test-model");
  EXPECT_EQ(meta["context"], "aware");
  EXPECT_EQ(meta["structured_output"], true);
  ASSERT_EQ(meta["calls"].size(), 2u);
  EXPECT_EQ(meta["calls"][0]["purpose"], "memory analysis");
  EXPECT_EQ(meta["calls"][0]["usage"]["total_tokens"], 380);
  EXPECT_EQ(meta["calls"][1]["usage"]["prompt_tokens"], 900);
  EXPECT_GT(meta["calls"][1]["latency_s"].get<double>(), 0.0);
  EXPECT_EQ(meta["usage"]["total_tokens"], 1480);
  EXPECT_GT(meta["latency_s"].get<double>(), 0.0);

  // What went over the wire.
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  for (const auto& q : reqs) EXPECT_EQ(q.header("authorization"), std::string("Bearer ") + kKey);
  EXPECT_FALSE(reqs[0].json().contains("response_format"));
  EXPECT_TRUE(has(user_prompt(reqs[0]), "scale_tiles"));
  auto schema = load_prompt_templates(test::source_dir() / "prompts")->reply_schema;
  EXPECT_EQ(reqs[1].json()["response_format"]["json_schema"]["schema"], schema);
  EXPECT_EQ(reqs[1].json()["response_format"]["json_schema"]["strict"], true);
  std::string optimize = user_prompt(reqs[1]);
  EXPECT_TRUE(has(optimize, "6 XCDs"));
  EXPECT_TRUE(has(optimize, "4 MiB per die"));
  EXPECT_TRUE(has(optimize, "L2 hit rate: 43.72 %"));
  EXPECT_TRUE(has(optimize, "Each block touches one tile; rows share nothing."));

  // Files: the cached analysis, the prompts and the replies, never the key.
  auto cache = nlohmann::json::parse(test::read_text(dir / kMemoryAnalysisFile));
  EXPECT_EQ(cache["analysis"], "Each block touches one tile; rows share nothing.");
  EXPECT_EQ(cache["kernel_name"], "tiles");
  std::string prompt_txt = test::read_text(dir / "iter-001/prompt.txt");
  EXPECT_TRUE(has(prompt_txt, "memory analysis"));
  EXPECT_TRUE(has(prompt_txt, "6 XCDs"));
  auto reply = nlohmann::json::parse(test::read_text(dir / "iter-001/reply.json"));
  ASSERT_EQ(reply["calls"].size(), 2u);
  EXPECT_EQ(reply["calls"][1]["content"], r.dump());
  EXPECT_EQ(reply["calls"][1]["finish_reason"], "stop");
  EXPECT_EQ(reply["outcome"]["region"], kNewCode);
  expect_no_key_in_files();
}

TEST_F(LlmProposerTest, MemoryAnalysisIsAskedOncePerKernelAndReusedOnResume) {
  server.push_completion("ANALYSIS-ONE");
  server.push_completion(reply_json(kNewCode));
  server.push_completion(reply_json(kStrideCode));
  server.push_completion(reply_json(kStrideCode, "again"));
  {
    auto p = proposer();
    ASSERT_TRUE(p->propose(context("iter-001", 1)));
    add_attempt(1, "llm-1", kNewCode);
    auto second = p->propose(context("iter-002", 2));
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(second->meta["memory_analysis_cached"], true);
  }
  EXPECT_EQ(server.requests().size(), 3u);
  // A new proposer over the same run directory (as after --resume) reuses it too.
  history.attempts.clear();
  auto resumed = proposer();
  auto third = resumed->propose(context("iter-003", 3));
  ASSERT_TRUE(third) << third.error().message;
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_TRUE(has(user_prompt(reqs[3]), "ANALYSIS-ONE"));
  EXPECT_TRUE(reqs[3].json().contains("response_format"));
}

TEST_F(LlmProposerTest, CacheFromAnotherKernelIsNotUsed) {
  test::write_text(dir / kMemoryAnalysisFile,
                   nlohmann::json{{"format", "swizzleperf-memory-analysis"},
                                  {"kernel_hash", "fnv1a64:0000000000000000"},
                                  {"analysis", "STALE"}}
                       .dump());
  server.push_completion("FRESH");
  server.push_completion(reply_json(kNewCode));
  auto result = proposer()->propose(context("iter-001"));
  ASSERT_TRUE(result) << result.error().message;
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_TRUE(has(user_prompt(reqs[1]), "FRESH"));
  EXPECT_FALSE(has(user_prompt(reqs[1]), "STALE"));
}

TEST_F(LlmProposerTest, RejectedResponseFormatFallsBackToTheSchemaInThePrompt) {
  server.push_completion("ANALYSIS");
  server.push_error(400, "response_format.json_schema is not supported by this server");
  server.push_completion("Here it is:\n```json\n" + reply_json(kNewCode) + "\n```\n");
  server.push_completion("```cpp\n" + std::string(kStrideCode) + "```");
  auto p = proposer();
  auto first = p->propose(context("iter-001", 1));
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->region, kNewCode);
  EXPECT_EQ(first->meta["structured_output"], false);
  EXPECT_EQ(first->meta["extracted_from"], "json-fence");
  EXPECT_TRUE(p->structured_output_disabled());
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_TRUE(reqs[1].json().contains("response_format"));
  EXPECT_FALSE(reqs[2].json().contains("response_format"));
  EXPECT_TRUE(has(user_prompt(reqs[2]), "\"why_it_fell_short\""));  // the schema, in words
  // Remembered: the next call does not try response_format again.
  add_attempt(1, "llm-1", kNewCode);
  auto second = p->propose(context("iter-002", 2));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->region, kStrideCode);
  EXPECT_EQ(second->meta["extracted_from"], "code-fence");
  reqs = server.requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_FALSE(reqs[3].json().contains("response_format"));
  auto saved = nlohmann::json::parse(test::read_text(dir / "iter-001/reply.json"));
  ASSERT_EQ(saved["calls"].size(), 3u);
  EXPECT_EQ(saved["calls"][1]["http_status"], 400);
}

TEST_F(LlmProposerTest, RepeatedAttemptGetsOneRetryAskingForSomethingNew) {
  add_attempt(1, "stride7", kStrideCode);
  server.push_completion("ANALYSIS");
  // Same code as iteration 1, only whitespace differs.
  std::string same = "SWZ_HD unsigned swizzle_pid(unsigned pid,  unsigned num_pids, SwizzleGrid grid)\n{\n"
                     "    return (pid * 7u) % num_pids;\n}\n";
  server.push_completion(reply_json(same));
  server.push_completion(reply_json(kNewCode));
  auto result = proposer()->propose(context("iter-002", 2));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->region, kNewCode);
  EXPECT_EQ(result->meta["retried_for_repeat"], true);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_FALSE(has(user_prompt(reqs[1]), "Your previous answer repeated"));
  EXPECT_TRUE(has(user_prompt(reqs[2]), "Your previous answer repeated iteration 1 (stride7)"));
}

TEST_F(LlmProposerTest, RepeatingTwiceIsAnError) {
  server.push_completion("ANALYSIS");
  server.push_completion(reply_json(kernel->region()));  // the original region
  server.push_completion(reply_json("  " + kernel->region()));
  auto result = proposer()->propose(context("iter-001"));
  ASSERT_FALSE(result);
  EXPECT_FALSE(result.error().fatal);
  EXPECT_EQ(result.error().message, "repeated an earlier attempt: the original region");
  EXPECT_EQ(server.requests().size(), 3u);
  auto saved = nlohmann::json::parse(test::read_text(dir / "iter-001/reply.json"));
  EXPECT_EQ(saved["error"], "repeated an earlier attempt: the original region");
}

TEST_F(LlmProposerTest, UnauthorizedIsFatalAndTheKeyIsNowhere) {
  server.push_error(401, std::string("Incorrect API key provided: ") + kKey);
  auto result = proposer()->propose(context("iter-001"));
  ASSERT_FALSE(result);
  EXPECT_TRUE(result.error().fatal);
  EXPECT_TRUE(has(result.error().message, "$SWZ_TEST_PROPOSER_KEY")) << result.error().message;
  EXPECT_FALSE(has(result.error().message, kKey));
  auto saved = nlohmann::json::parse(test::read_text(dir / "iter-001/reply.json"));
  EXPECT_TRUE(has(saved["error"].get<std::string>(), "memory analysis"));
  expect_no_key_in_files();
}

TEST_F(LlmProposerTest, UnusableRepliesAreNonFatalErrorsWithTheReplySaved) {
  server.push_completion("ANALYSIS");
  server.push_completion("{\"reasoning\": \"cut", "length");
  server.push_completion("not json at all");
  server.push_completion(reply_json("SWZ_HD unsigned remap(unsigned pid) { return pid; }\n"));
  auto p = proposer();
  auto a = p->propose(context("iter-001", 1));
  ASSERT_FALSE(a);
  EXPECT_FALSE(a.error().fatal);
  EXPECT_TRUE(has(a.error().message, "truncated")) << a.error().message;
  auto saved = nlohmann::json::parse(test::read_text(dir / "iter-001/reply.json"));
  EXPECT_EQ(saved["calls"][1]["content"], "{\"reasoning\": \"cut");
  EXPECT_TRUE(has(saved["calls"][1]["parse_error"].get<std::string>(), "truncated"));
  auto b = p->propose(context("iter-002", 2));
  ASSERT_FALSE(b);
  EXPECT_TRUE(has(b.error().message, "malformed reply")) << b.error().message;
  auto c = p->propose(context("iter-003", 3));
  ASSERT_FALSE(c);
  EXPECT_TRUE(has(c.error().message, "swizzle_pid")) << c.error().message;
}

TEST_F(LlmProposerTest, RefusalIsAnError) {
  server.push_completion("ANALYSIS");
  nlohmann::json refused = test::completion_body("", "stop");
  refused["choices"][0]["message"]["content"] = nullptr;
  refused["choices"][0]["message"]["refusal"] = "I cannot help with that.";
  server.push(test::ScriptedReply{200, {}, refused.dump()});
  auto result = proposer()->propose(context("iter-001"));
  ASSERT_FALSE(result);
  EXPECT_TRUE(has(result.error().message, "refused")) << result.error().message;
}

TEST_F(LlmProposerTest, ServerDownIsANonFatalError) {
  LlmOptions o = options();
  o.base_url = "http://127.0.0.1:" + std::to_string(test::unused_port()) + "/v1";
  LlmProposer p(o, ContextMode::aware, test::source_dir() / "prompts", [](double) {});
  auto result = p.propose(context("iter-001"));
  ASSERT_FALSE(result);
  EXPECT_FALSE(result.error().fatal);
  EXPECT_TRUE(has(result.error().message, "failed after 2 attempt(s)")) << result.error().message;
}

TEST_F(LlmProposerTest, UnawareRequestCarriesNoHardwareFacts) {
  server.push_completion("ANALYSIS");
  server.push_completion(reply_json(kStrideCode));
  auto result = proposer(ContextMode::unaware)->propose(context("iter-001"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->meta["context"], "unaware");
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  for (const auto& q : reqs) {
    std::string body = q.body;
    for (const char* banned : {"XCD", "SWZ_NUM_DIES", "L2", "MiB", "43.72", "MI300", "round-robin"})
      EXPECT_FALSE(has(body, banned)) << "request contains '" << banned << "'";
  }
}

TEST_F(LlmProposerTest, RenderPromptMakesNoCall) {
  auto p = proposer();
  auto text = p->render_prompt(context("iter-001"));
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_TRUE(server.requests().empty());
  EXPECT_TRUE(has(*text, "call 1: memory analysis"));
  EXPECT_TRUE(has(*text, "call 2: optimize"));
  EXPECT_TRUE(has(*text, "6 XCDs"));
  EXPECT_TRUE(has(*text, "\"why_it_fell_short\""));  // the response_format schema is shown
  EXPECT_FALSE(std::filesystem::exists(dir / "iter-001"));

  // With a cached analysis only the optimize call is shown, with the analysis in it.
  server.push_completion("CACHED-ANALYSIS");
  server.push_completion(reply_json(kNewCode));
  ASSERT_TRUE(p->propose(context("iter-001")));
  auto again = p->render_prompt(context("iter-002", 2));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_FALSE(has(*again, "memory analysis (no response_format)"));
  EXPECT_TRUE(has(*again, "call 1: optimize"));
  EXPECT_TRUE(has(*again, "CACHED-ANALYSIS"));
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(LlmProposerFactory, ChecksModeAndPrompts) {
  LlmOptions o;
  auto bad_mode = make_llm_proposer(o, "clever", test::source_dir() / "prompts");
  ASSERT_FALSE(bad_mode);
  EXPECT_TRUE(has(bad_mode.error().message, "unknown context mode 'clever'"));
  test::TempDir empty;
  auto no_prompts = make_llm_proposer(o, "aware", empty.path());
  ASSERT_FALSE(no_prompts);
  EXPECT_TRUE(has(no_prompts.error().message, "system.txt"));
  auto good = make_llm_proposer(o, "overload", test::source_dir() / "prompts");
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_EQ((*good)->mode(), ContextMode::overload);
}

TEST(LlmProposerDirect, MissingPromptsMakeProposeFatal) {
  test::TempDir empty;
  LlmProposer p(LlmOptions{}, ContextMode::aware, empty.path(), [](double) {});
  auto k = KernelSource::parse(kLlmKernel, "tiles.hip");
  ASSERT_TRUE(k);
  HardwareProfile hw;
  RunHistory h;
  auto r = p.propose(ProposalContext{*k, TileGrid{2, 2}, hw, h, {}, {}, 1});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().fatal);
}

TEST(NormalizeRegion, IgnoresWhitespaceOnly) {
  EXPECT_EQ(normalize_region("  a  b\n\tc \n"), "a b c");
  EXPECT_NE(normalize_region("a+b"), normalize_region("a + b"));
}

}  // namespace
}  // namespace swz
