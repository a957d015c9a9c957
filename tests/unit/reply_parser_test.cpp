// Reply parser: strict structured replies, the lenient fallbacks (JSON in a
// fence, JSON among prose, a bare ```cpp block) and each failure as one line:
// malformed, missing fields, code without swizzle_pid, truncated, refused.
// The last test takes the reply through the loopback server and real libcurl.
#include "swizzleperf/llm/reply_parser.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "support/chat_server.h"

namespace swz {
namespace {

const char* kCode =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return (pid % SWZ_NUM_DIES) * (num_pids / SWZ_NUM_DIES) + pid / SWZ_NUM_DIES;\n"
    "}\n";

nlohmann::json good_object() {
  return {{"reasoning", "tiles in a row share A"},
          {"critique", nlohmann::json::array({{{"attempt", 1},
                                               {"what_it_did", "identity"},
                                               {"why_it_fell_short", "no reuse"}}})},
          {"rationale", "group rows per die"},
          {"code", kCode}};
}

ChatReply reply_with(std::string content, std::string finish = "stop") {
  ChatReply r;
  r.content = std::move(content);
  r.finish_reason = std::move(finish);
  r.usage.completion_tokens = 4096;
  return r;
}

using test::has;

TEST(ReplyParser, StrictJsonGivesAllFourParts) {
  auto r = parse_reply(reply_with(good_object().dump()), false);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->reasoning, "tiles in a row share A");
  EXPECT_EQ(r->rationale, "group rows per die");
  EXPECT_EQ(r->code, kCode);
  ASSERT_EQ(r->critique.size(), 1u);
  EXPECT_EQ(r->critique[0]["attempt"], 1);
  EXPECT_EQ(r->extracted_from, "json");
}

TEST(ReplyParser, MalformedJsonIsAnErrorInStrictMode) {
  auto r = parse_reply(reply_with("{\"reasoning\": \"x\", \"code\": "), false);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "malformed reply: not valid JSON")) << r.error().message;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  EXPECT_FALSE(r.error().fatal);
  // Prose is not accepted when a schema was enforced.
  auto p = parse_reply(reply_with("Here you go:\n```json\n" + good_object().dump() + "\n```"), false);
  EXPECT_FALSE(p);
}

TEST(ReplyParser, NumberTooLargeForADoubleIsMalformedNotACrash) {
  // nlohmann throws out_of_range (406), not parse_error, for '11e308'; found by
  // fuzz_reply in CI (tests/fixtures/fuzz/fuzz_reply/number-overflow-406.json).
  auto r = parse_reply_content("{\"code\": 11e308}", false);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "malformed reply: not valid JSON")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "overflow")) << r.error().message;
  EXPECT_FALSE(parse_reply_content("{\"code\": 11e308}", true));
}

TEST(ReplyParser, JsonThatIsNotAnObjectIsMalformed) {
  auto r = parse_reply_content("[1, 2, 3]", false);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "not an object"));
}

TEST(ReplyParser, MissingFieldsAreNamed) {
  auto j = good_object();
  j.erase("rationale");
  j.erase("code");
  auto r = parse_reply_content(j.dump(), false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "reply is missing field(s): rationale, code");
}

TEST(ReplyParser, WrongFieldTypesAreErrors) {
  auto j = good_object();
  j["critique"] = "none";
  auto r = parse_reply_content(j.dump(), false);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "'critique' must be an array"));
  j = good_object();
  j["code"] = 42;
  r = parse_reply_content(j.dump(), false);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "'code' must be a string"));
}

TEST(ReplyParser, CodeWithoutSwizzlePidIsRejected) {
  auto j = good_object();
  j["code"] = "SWZ_HD unsigned remap(unsigned pid) { return pid; }\n";
  auto r = parse_reply_content(j.dump(), false);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "reply code rejected")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "swizzle_pid"));
}

TEST(ReplyParser, EmptyCodeIsRejected) {
  auto j = good_object();
  j["code"] = "   \n";
  auto r = parse_reply_content(j.dump(), false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "reply has empty code");
}

TEST(ReplyParser, CodeFencesAndEchoedMarkersAreStripped) {
  auto j = good_object();
  j["code"] = std::string("```cpp\n// swizzleperf:begin\n") + kCode + "// swizzleperf:end\n```";
  auto r = parse_reply_content(j.dump(), false);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->code, kCode);
}

TEST(ReplyParser, CodeGetsATrailingNewline) {
  auto j = good_object();
  std::string code = kCode;
  code.pop_back();
  j["code"] = code;
  auto r = parse_reply_content(j.dump(), false);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->code, kCode);
}

TEST(ReplyParser, TruncatedReplyIsAnError) {
  auto r = parse_reply(reply_with(good_object().dump().substr(0, 40), "length"), false);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "truncated (finish_reason=length")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "--max-tokens"));
}

TEST(ReplyParser, RefusalIsAnError) {
  ChatReply c = reply_with("");
  c.refusal = "I can't assist with that request.";
  auto r = parse_reply(c, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "the model refused: I can't assist with that request.");
}

TEST(ReplyParser, ContentFilterIsAnError) {
  auto r = parse_reply(reply_with("", "content_filter"), true);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "content filter"));
}

TEST(ReplyParser, EmptyContentIsMalformed) {
  auto r = parse_reply(reply_with("  \n"), true);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "empty"));
}

TEST(ReplyParserLenient, JsonInAFence) {
  std::string content = "Sure! Here is the proposal.\n\n```json\n" + good_object().dump(2) +
                        "\n```\nHope this helps {really}.";
  auto r = parse_reply(reply_with(content), true);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->extracted_from, "json-fence");
  EXPECT_EQ(r->code, kCode);
  EXPECT_EQ(r->rationale, "group rows per die");
}

TEST(ReplyParserLenient, JsonAmongProseWithBracesInStrings) {
  auto j = good_object();
  j["reasoning"] = "a brace } inside a string and a \"quote\" {";
  std::string content = "Thinking {not json} first. The answer: " + j.dump() + " -- done.";
  auto r = parse_reply(reply_with(content), true);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->extracted_from, "json-in-prose");
  EXPECT_EQ(r->reasoning, j["reasoning"].get<std::string>());
}

TEST(ReplyParserLenient, BareCppBlockIsTheCode) {
  std::string content = std::string("The mapping groups rows on one die.\n\n```cpp\n") + kCode +
                        "```\n\nThis should raise the hit rate.";
  auto r = parse_reply(reply_with(content), true);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->extracted_from, "code-fence");
  EXPECT_EQ(r->code, kCode);
  EXPECT_TRUE(has(r->reasoning, "groups rows"));
  EXPECT_TRUE(has(r->reasoning, "raise the hit rate"));
  EXPECT_TRUE(r->critique.empty());
}

TEST(ReplyParserLenient, OnlyCodeIsRequired) {
  nlohmann::json j{{"code", kCode}};
  auto r = parse_reply_content(j.dump(), true);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->reasoning.empty());
}

TEST(ReplyParserLenient, NothingUsableIsAnError) {
  auto r = parse_reply(reply_with("I would group the tiles by row, but I am not sure how."), true);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "no JSON object with \"code\"")) << r.error().message;
  // A code block that does not define swizzle_pid is not taken for the region.
  auto c = parse_reply(reply_with("```cpp\nint x = 1;\n```"), true);
  EXPECT_FALSE(c);
}

TEST(ReplyParserLenient, CppBlockWithoutSwizzlePidDoesNotMaskAJsonAnswer) {
  std::string content = "```cpp\nint helper();\n```\n```json\n" + good_object().dump() + "\n```";
  auto r = parse_reply(reply_with(content), true);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->extracted_from, "json-fence");
}

TEST(ReplyParserFind, FirstObjectWithCode) {
  EXPECT_EQ(find_json_object_with_code("no braces"), "");
  EXPECT_EQ(find_json_object_with_code("{\"a\": 1} then {\"code\": \"x\"}"), "{\"code\": \"x\"}");
  EXPECT_EQ(find_json_object_with_code("{\"outer\": {\"code\": \"y\"}"), "{\"code\": \"y\"}");
  EXPECT_EQ(find_json_object_with_code("{\"code\": \"}\"}"), "{\"code\": \"}\"}");
}

TEST(ReplyParser, ThroughTheLoopbackServer) {
  test::ChatServer server;
  server.push_completion(good_object().dump());
  server.push_completion(good_object().dump().substr(0, 30), "length");
  LlmOptions o;
  o.base_url = server.base_url();
  o.api_key_env = "SWZ_TEST_UNSET_KEY_VARIABLE";
  ChatClient client(o, [](double) {});
  ChatRequest req;
  req.messages = {{"user", "propose"}};
  auto a = client.complete(req);
  ASSERT_TRUE(a) << a.error().message;
  auto pa = parse_reply(*a, false);
  ASSERT_TRUE(pa) << pa.error().message;
  EXPECT_EQ(pa->code, kCode);
  auto b = client.complete(req);
  ASSERT_TRUE(b) << b.error().message;
  auto pb = parse_reply(*b, false);
  ASSERT_FALSE(pb);
  EXPECT_TRUE(has(pb.error().message, "truncated"));
}

}  // namespace
}  // namespace swz
