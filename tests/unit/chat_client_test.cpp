// ChatClient against the scripted loopback server (real libcurl, real HTTP):
// what is sent, what is parsed, and every failure: 401/403 (fatal, naming the
// variable, never the key), 429 with retry hints, 5xx, timeouts, refused
// connections, a rejected response_format, an older server's max_tokens.
#include "swizzleperf/llm/chat_client.h"

#include <cstdlib>
#include <ctime>

#include <gtest/gtest.h>

#include "support/chat_server.h"

namespace swz {
namespace {

using test::ChatServer;
using test::ScriptedReply;

constexpr const char* kKeyEnv = "SWZ_TEST_CHAT_KEY";
constexpr const char* kKey = "sk-test-secret-4711";

// Records the waits instead of sleeping, so retry tests take no wall time.
struct SleepLog {
  std::vector<double> waits;
  ChatClient::SleepFn fn() {
    return [this](double s) { waits.push_back(s); };
  }
};

class ChatClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv(kKeyEnv); }
  void TearDown() override { ::unsetenv(kKeyEnv); }

  LlmOptions options() const {
    LlmOptions o;
    o.base_url = server.base_url();
    o.api_key_env = kKeyEnv;
    o.model = "test-model";
    o.max_retries = 2;
    o.timeout_s = 10;
    return o;
  }
  static ChatRequest simple_request() {
    ChatRequest r;
    r.messages = {{"system", "be brief"}, {"user", "hello"}};
    return r;
  }

  ChatServer server;
  SleepLog sleeps;
};

TEST_F(ChatClientTest, SendsOpenAiRequestWithKeyAndSchema) {
  ::setenv(kKeyEnv, kKey, 1);
  server.push_completion("hi there", "stop", 12, 3);
  ChatClient client(options(), sleeps.fn());
  ChatRequest req = simple_request();
  req.json_schema = nlohmann::json{{"type", "object"}, {"additionalProperties", false}};
  auto reply = client.complete(req);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "hi there");
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_EQ(reply->usage.prompt_tokens, 12);
  EXPECT_EQ(reply->usage.completion_tokens, 3);
  EXPECT_EQ(reply->usage.total_tokens, 15);
  EXPECT_EQ(reply->model, "test-model");
  EXPECT_EQ(reply->attempts, 1);
  EXPECT_GT(reply->latency_s, 0.0);
  EXPECT_FALSE(reply->refusal);

  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].path, "/v1/chat/completions");
  EXPECT_EQ(reqs[0].header("authorization"), std::string("Bearer ") + kKey);
  EXPECT_NE(reqs[0].header("content-type").find("application/json"), std::string::npos);
  auto body = reqs[0].json();
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["max_completion_tokens"], 4096);
  EXPECT_FALSE(body.contains("max_tokens"));
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][1]["content"], "hello");
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["name"], "swizzle_proposal");
  EXPECT_EQ(body["response_format"]["json_schema"]["strict"], true);
  EXPECT_EQ(body["response_format"]["json_schema"]["schema"], *req.json_schema);
  // The key travels in the header only.
  EXPECT_EQ(reqs[0].body.find(kKey), std::string::npos);
  EXPECT_EQ(client.request_body(req).dump().find(kKey), std::string::npos);
}

TEST_F(ChatClientTest, NoAuthorizationHeaderWithoutKey) {
  server.push_completion("ok");
  ChatClient client(options(), sleeps.fn());
  EXPECT_FALSE(client.has_key());
  auto reply = client.complete(simple_request());
  ASSERT_TRUE(reply) << reply.error().message;
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_FALSE(reqs[0].has_header("authorization"));
  EXPECT_FALSE(reqs[0].json().contains("response_format"));
}

TEST_F(ChatClientTest, EmptyKeyVariableMeansNoKey) {
  ::setenv(kKeyEnv, "", 1);
  server.push_completion("ok");
  ChatClient client(options(), sleeps.fn());
  ASSERT_TRUE(client.complete(simple_request()));
  EXPECT_FALSE(server.requests()[0].has_header("authorization"));
}

TEST(ChatClientBaseUrl, OptionThenEnvironmentThenDefault) {
  const char* saved = std::getenv("OPENAI_BASE_URL");
  std::string saved_value = saved ? saved : "";
  LlmOptions o;
  ::unsetenv("OPENAI_BASE_URL");
  EXPECT_EQ(resolve_base_url(o), "https://api.openai.com/v1");
  ::setenv("OPENAI_BASE_URL", "http://localhost:11434/v1/", 1);
  EXPECT_EQ(resolve_base_url(o), "http://localhost:11434/v1");
  o.base_url = "http://127.0.0.1:8000/v1//";
  EXPECT_EQ(resolve_base_url(o), "http://127.0.0.1:8000/v1");
  if (saved) ::setenv("OPENAI_BASE_URL", saved_value.c_str(), 1);
  else ::unsetenv("OPENAI_BASE_URL");
}

TEST_F(ChatClientTest, Unauthorized401IsFatalAndNamesTheVariable) {
  ::setenv(kKeyEnv, kKey, 1);
  // Real servers echo part of a wrong key; this one echoes all of it.
  server.push_error(401, std::string("Incorrect API key provided: ") + kKey);
  ChatClient client(options(), sleeps.fn());
  ChatFailure failure;
  auto reply = client.complete(simple_request(), &failure);
  ASSERT_FALSE(reply);
  EXPECT_TRUE(reply.error().fatal);
  EXPECT_NE(reply.error().message.find("$SWZ_TEST_CHAT_KEY"), std::string::npos) << reply.error().message;
  EXPECT_NE(reply.error().message.find("401"), std::string::npos);
  EXPECT_EQ(reply.error().message.find(kKey), std::string::npos) << reply.error().message;
  EXPECT_EQ(failure.server_message.find(kKey), std::string::npos);
  EXPECT_EQ(failure.http_status, 401);
  EXPECT_EQ(server.requests().size(), 1u);  // never retried
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST_F(ChatClientTest, Forbidden403WithoutKeyIsFatalAndSaysToSetIt) {
  server.push_error(403, "forbidden");
  ChatClient client(options(), sleeps.fn());
  auto reply = client.complete(simple_request());
  ASSERT_FALSE(reply);
  EXPECT_TRUE(reply.error().fatal);
  EXPECT_NE(reply.error().message.find("set $SWZ_TEST_CHAT_KEY"), std::string::npos) << reply.error().message;
  EXPECT_NE(reply.error().message.find("403"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(ChatClientTest, RateLimit429HonoursRetryAfterSeconds) {
  server.push_error(429, "slow down", {{"Retry-After", "3"}});
  server.push_completion("done");
  ChatClient client(options(), sleeps.fn());
  auto reply = client.complete(simple_request());
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "done");
  EXPECT_EQ(reply->attempts, 2);
  ASSERT_EQ(sleeps.waits.size(), 1u);
  EXPECT_DOUBLE_EQ(sleeps.waits[0], 3.0);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(ChatClientTest, RetryAfterMsWinsAndWaitsAreCapped) {
  server.push_error(429, "slow down", {{"retry-after-ms", "1500"}, {"Retry-After", "9"}});
  server.push_error(429, "slow down", {{"Retry-After", "600"}});
  server.push_completion("done");
  LlmOptions o = options();
  o.retry_after_cap_s = 20;
  ChatClient client(o, sleeps.fn());
  auto reply = client.complete(simple_request());
  ASSERT_TRUE(reply) << reply.error().message;
  ASSERT_EQ(sleeps.waits.size(), 2u);
  EXPECT_DOUBLE_EQ(sleeps.waits[0], 1.5);
  EXPECT_DOUBLE_EQ(sleeps.waits[1], 20.0);
}

TEST_F(ChatClientTest, ServerError500IsRetriedWithJitteredBackoff) {
  server.push_error(500, "internal");
  server.push_error(503, "overloaded");
  server.push_completion("fine");
  LlmOptions o = options();
  o.backoff_base_s = 0.4;
  o.backoff_cap_s = 8;
  ChatClient client(o, sleeps.fn());
  auto reply = client.complete(simple_request());
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->attempts, 3);
  ASSERT_EQ(sleeps.waits.size(), 2u);
  EXPECT_GE(sleeps.waits[0], 0.3 - 1e-9);
  EXPECT_LE(sleeps.waits[0], 0.4 + 1e-9);
  EXPECT_GE(sleeps.waits[1], 0.6 - 1e-9);
  EXPECT_LE(sleeps.waits[1], 0.8 + 1e-9);
}

TEST_F(ChatClientTest, RetriesAreBounded) {
  for (int i = 0; i < 5; ++i) server.push_error(500, "still broken");
  ChatClient client(options(), sleeps.fn());  // max_retries = 2
  ChatFailure failure;
  auto reply = client.complete(simple_request(), &failure);
  ASSERT_FALSE(reply);
  EXPECT_FALSE(reply.error().fatal);
  EXPECT_NE(reply.error().message.find("after 3 attempt(s)"), std::string::npos) << reply.error().message;
  EXPECT_NE(reply.error().message.find("HTTP 500"), std::string::npos);
  EXPECT_NE(reply.error().message.find("still broken"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(sleeps.waits.size(), 2u);
  EXPECT_EQ(failure.attempts, 3);
}

TEST_F(ChatClientTest, TimeoutIsRetriedThenSucceeds) {
  server.push(ScriptedReply{200, {}, test::completion_body("late").dump(), std::chrono::milliseconds(4000)});
  server.push_completion("on time");
  LlmOptions o = options();
  o.timeout_s = 1;
  o.max_retries = 1;
  ChatClient client(o, sleeps.fn());
  auto reply = client.complete(simple_request());
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "on time");
  EXPECT_EQ(reply->attempts, 2);
  EXPECT_EQ(sleeps.waits.size(), 1u);
}

TEST_F(ChatClientTest, TimeoutWithoutRetriesIsAnError) {
  server.push(ScriptedReply{200, {}, test::completion_body("late").dump(), std::chrono::milliseconds(4000)});
  LlmOptions o = options();
  o.timeout_s = 1;
  o.max_retries = 0;
  ChatClient client(o, sleeps.fn());
  ChatFailure failure;
  auto reply = client.complete(simple_request(), &failure);
  ASSERT_FALSE(reply);
  EXPECT_FALSE(reply.error().fatal);
  EXPECT_NE(reply.error().message.find("no reply within 1 s"), std::string::npos) << reply.error().message;
  EXPECT_EQ(failure.http_status, 0);
}

TEST_F(ChatClientTest, ConnectionRefusedIsRetriedThenReported) {
  LlmOptions o = options();
  o.base_url = "http://127.0.0.1:" + std::to_string(test::unused_port()) + "/v1";
  ChatClient client(o, sleeps.fn());
  auto reply = client.complete(simple_request());
  ASSERT_FALSE(reply);
  EXPECT_FALSE(reply.error().fatal);
  EXPECT_NE(reply.error().message.find("failed after 3 attempt(s)"), std::string::npos) << reply.error().message;
  EXPECT_NE(reply.error().message.find("/chat/completions"), std::string::npos);
  EXPECT_EQ(sleeps.waits.size(), 2u);
}

TEST_F(ChatClientTest, RejectedResponseFormatIsReportedNotRetried) {
  server.push_error(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.");
  ChatClient client(options(), sleeps.fn());
  ChatRequest req = simple_request();
  req.json_schema = nlohmann::json{{"type", "object"}};
  ChatFailure failure;
  auto reply = client.complete(req, &failure);
  ASSERT_FALSE(reply);
  EXPECT_FALSE(reply.error().fatal);
  EXPECT_TRUE(failure.response_format_rejected);
  EXPECT_EQ(failure.http_status, 400);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(ChatClientTest, OtherBadRequestIsNotRetriedAndNotAFormatRejection) {
  server.push_error(400, "context length exceeded");
  ChatClient client(options(), sleeps.fn());
  ChatRequest req = simple_request();
  req.json_schema = nlohmann::json{{"type", "object"}};
  ChatFailure failure;
  auto reply = client.complete(req, &failure);
  ASSERT_FALSE(reply);
  EXPECT_FALSE(failure.response_format_rejected);
  EXPECT_NE(reply.error().message.find("context length exceeded"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(ChatClientTest, OlderServerGetsMaxTokensOnceAndForLaterCalls) {
  server.push_error(400, "Unrecognized request argument supplied: max_completion_tokens");
  server.push_completion("first");
  server.push_completion("second");
  ChatClient client(options(), sleeps.fn());
  auto a = client.complete(simple_request());
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE(client.uses_legacy_max_tokens());
  auto b = client.complete(simple_request());
  ASSERT_TRUE(b) << b.error().message;
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_TRUE(reqs[0].json().contains("max_completion_tokens"));
  for (int i : {1, 2}) {
    EXPECT_FALSE(reqs[i].json().contains("max_completion_tokens"));
    EXPECT_EQ(reqs[i].json()["max_tokens"], 4096);
  }
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST_F(ChatClientTest, ReasoningModelGetsNoTemperatureOnceRefused) {
  server.push_error(400, "Unsupported value: 'temperature' does not support 0.2 with this model.");
  server.push_completion("first");
  server.push_completion("second");
  ChatClient client(options(), sleeps.fn());
  ASSERT_TRUE(client.complete(simple_request()));
  EXPECT_TRUE(client.omits_temperature());
  ASSERT_TRUE(client.complete(simple_request()));
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_TRUE(reqs[0].json().contains("temperature"));
  EXPECT_FALSE(reqs[1].json().contains("temperature"));
  EXPECT_FALSE(reqs[2].json().contains("temperature"));
}

TEST_F(ChatClientTest, NotFound404IsFatal) {
  server.push_error(404, "The model `nope` does not exist");
  ChatClient client(options(), sleeps.fn());
  auto reply = client.complete(simple_request());
  ASSERT_FALSE(reply);
  EXPECT_TRUE(reply.error().fatal);
  EXPECT_NE(reply.error().message.find("--model"), std::string::npos);
}

TEST_F(ChatClientTest, MalformedBodyIsAnError) {
  server.push(ScriptedReply{200, {}, "<html>gateway</html>"});
  server.push(ScriptedReply{200, {}, R"({"object":"chat.completion","choices":[]})"});
  ChatClient client(options(), sleeps.fn());
  auto a = client.complete(simple_request());
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("malformed response"), std::string::npos);
  auto b = client.complete(simple_request());
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("no choices[0]"), std::string::npos);
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST_F(ChatClientTest, ParsesRefusalNullContentAndContentParts) {
  nlohmann::json refused = test::completion_body("", "stop");
  refused["choices"][0]["message"]["content"] = nullptr;
  refused["choices"][0]["message"]["refusal"] = "I can't help with that.";
  server.push(ScriptedReply{200, {}, refused.dump()});
  nlohmann::json parts = test::completion_body("", "stop");
  parts["choices"][0]["message"]["content"] =
      nlohmann::json::array({{{"type", "text"}, {"text", "a"}}, {{"type", "text"}, {"text", "b"}}});
  parts.erase("usage");
  server.push(ScriptedReply{200, {}, parts.dump()});
  ChatClient client(options(), sleeps.fn());
  auto a = client.complete(simple_request());
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->content, "");
  ASSERT_TRUE(a->refusal);
  EXPECT_EQ(*a->refusal, "I can't help with that.");
  auto b = client.complete(simple_request());
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->content, "ab");
  EXPECT_EQ(b->usage.total_tokens, 0);
}

// Token counts are the server's text: 1e300 as a long was undefined behaviour.
// Anything but a whole number from 0 to 2^53 counts as no count; the reply stands.
TEST_F(ChatClientTest, TokenCountsThatAreNotCountsAreZero) {
  nlohmann::json body = test::completion_body("ok", "stop");
  body["usage"] = {{"prompt_tokens", 1e300}, {"completion_tokens", -5}, {"total_tokens", 2.5}};
  server.push(ScriptedReply{200, {}, body.dump()});
  nlohmann::json fine = test::completion_body("ok", "stop");
  fine["usage"] = {{"prompt_tokens", 7.0}, {"completion_tokens", 18446744073709551615ull}, {"total_tokens", "9"}};
  server.push(ScriptedReply{200, {}, fine.dump()});
  ChatClient client(options(), sleeps.fn());
  auto a = client.complete(simple_request());
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->content, "ok");
  EXPECT_EQ(a->usage.prompt_tokens, 0);
  EXPECT_EQ(a->usage.completion_tokens, 0);
  EXPECT_EQ(a->usage.total_tokens, 0);
  auto b = client.complete(simple_request());
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->usage.prompt_tokens, 7);
  EXPECT_EQ(b->usage.completion_tokens, 0);
  EXPECT_EQ(b->usage.total_tokens, 7);  // no total: the sum of the parts
}

TEST(ChatClientBackoff, GrowsExponentiallyWithJitterUnderTheCap) {
  EXPECT_DOUBLE_EQ(backoff_seconds(0, 0.5, 8, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(backoff_seconds(1, 0.5, 8, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(backoff_seconds(3, 0.5, 8, 0.0), 4.0);
  EXPECT_DOUBLE_EQ(backoff_seconds(10, 0.5, 8, 0.0), 8.0);
  EXPECT_DOUBLE_EQ(backoff_seconds(1, 0.5, 8, 1.0), 0.75);
  for (int r = 0; r < 8; ++r) {
    double v = backoff_seconds(r, 0.5, 8, 0.37);
    EXPECT_GT(v, 0.0);
    EXPECT_LE(v, 8.0);
  }
}

TEST(ChatClientRetryAfter, ParsesMillisecondsSecondsAndDates) {
  using H = std::vector<std::pair<std::string, std::string>>;
  EXPECT_FALSE(retry_after_seconds(H{}));
  EXPECT_DOUBLE_EQ(*retry_after_seconds(H{{"retry-after-ms", "250"}}), 0.25);
  EXPECT_DOUBLE_EQ(*retry_after_seconds(H{{"retry-after", "7"}}), 7.0);
  EXPECT_DOUBLE_EQ(*retry_after_seconds(H{{"retry-after", "1.5"}}), 1.5);
  EXPECT_FALSE(retry_after_seconds(H{{"retry-after", "soon"}}));
  EXPECT_FALSE(retry_after_seconds(H{{"retry-after", "-3"}}));
  // An HTTP date a minute from now.
  std::time_t t = std::time(nullptr) + 60;
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", std::gmtime(&t));
  auto d = retry_after_seconds(H{{"retry-after", buf}});
  ASSERT_TRUE(d);
  EXPECT_GT(*d, 50.0);
  EXPECT_LE(*d, 61.0);
}

}  // namespace
}  // namespace swz
