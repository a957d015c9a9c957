// RunConfig: its serialisation (history.json's "config") and the resume rules.
#include "swizzleperf/core/run_config.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

RunConfig recorded_config() {
  RunConfig c;
  c.objective = Objective::time;
  c.size = {4096, 4096, 512};
  c.backend = "cuda";
  c.iterations = 2;
  c.recheck_rounds = 6;
  c.proposer = "llm";
  c.llm.model = "m1";
  return c;
}

TEST(RunConfig, JsonRoundTripKeepsEverySetting) {
  RunConfig c = recorded_config();
  c.changes.push_back({"iterations", "2", "3", "2026-11-24T10:00:00Z", 3});
  const nlohmann::json j = c;
  const RunConfig back = run_config_from_json(j);
  EXPECT_EQ(nlohmann::json(back), j);
  for (const auto& s : describe_settings(c)) {
    bool found = false;
    for (const auto& t : describe_settings(back)) found |= t.name == s.name && t.value == s.value;
    EXPECT_TRUE(found) << s.name;
  }
}

TEST(RunConfig, ReadsTheFirstSchemasKeysAndIgnoresWrongTypes) {
  const auto c = run_config_from_json({{"proposer", "builtin"}, {"iterations", "ten"}, {"reps", 9e41},
                                       {"size", {8192, -1, "x", 64}}, {"recheck_rounds", 6}});
  EXPECT_EQ(c.proposer, "builtin");
  EXPECT_EQ(c.iterations, RunConfig{}.iterations);
  EXPECT_EQ(c.time_reps, RunConfig{}.time_reps);
  EXPECT_EQ(c.size, (std::vector<int>{8192, 64}));
  EXPECT_EQ(c.objective, Objective::l2) << "no objective: written before the option, ranked by L2";
}

TEST(ResumeRules, FixedSettingsAreRefusedWithBothValues) {
  for (const char* name : {"objective", "size", "backend", "arch", "reps", "warmup", "profile-launches"}) {
    RunConfig asked = recorded_config();
    asked.objective = Objective::l2;
    asked.size = {1024};
    asked.backend = "hip";
    asked.arch = "gfx942";
    asked.time_reps = 7;
    asked.warmup = 1;
    asked.profile_launches = 3;
    auto r = resume_config(recorded_config(), asked, {name}, "now", 3);
    ASSERT_FALSE(r) << name;
    EXPECT_NE(r.error().message.find(std::string("--") + name), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("start a new run"), std::string::npos) << r.error().message;
  }
}

TEST(ResumeRules, ChangeableSettingsAreAppliedAndRecorded) {
  RunConfig asked = recorded_config();
  asked.iterations = 5;
  asked.recheck_rounds = 10;
  asked.run_timeout_s = 30;
  asked.llm.model = "m2";
  auto r = resume_config(recorded_config(), asked, {"iterations", "rounds", "run-timeout", "model"}, "2026-11-24T10:00:00Z", 3);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->iterations, 5);
  EXPECT_EQ(r->recheck_rounds, 10);
  EXPECT_EQ(r->run_timeout_s, 30);
  EXPECT_EQ(r->llm.model, "m2");
  ASSERT_EQ(r->changes.size(), 4u);
  EXPECT_EQ(r->changes[0].setting, "iterations");
  EXPECT_EQ(r->changes[0].from, "2");
  EXPECT_EQ(r->changes[0].to, "5");
  EXPECT_EQ(r->changes[0].at, "2026-11-24T10:00:00Z");
  EXPECT_EQ(r->changes[0].from_iteration, 3);
}

TEST(ResumeRules, UnnamedOrUnchangedSettingsKeepTheRecordAndAutoMatchesAnyBackend) {
  RunConfig asked = recorded_config();
  asked.iterations = 9;             // not named: the recorded value stays
  asked.backend = "auto";
  auto r = resume_config(recorded_config(), asked, {"backend", "objective"}, "now", 3);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->iterations, 2);
  EXPECT_EQ(r->backend, "cuda");
  EXPECT_TRUE(r->changes.empty());
}

TEST(RunConfig, SizeText) {
  EXPECT_EQ(size_text({}), "default");
  EXPECT_EQ(size_text({8192, 8192, 2048}), "8192,8192,2048");
}

TEST(RunConfigRegime, SerialisedReadBackAndFixedOnResume) {
  RunConfig c;
  c.timing.regime = Regime::sustained;
  c.timing.throttle_threshold = 0.9;
  c.timing.sustain_s = 3;
  const RunConfig back = run_config_from_json(nlohmann::json(c));
  EXPECT_EQ(back.timing.regime, Regime::sustained);
  EXPECT_EQ(back.timing.throttle_threshold, 0.9);
  EXPECT_EQ(back.timing.sustain_s, 3);
  RunConfig asked = c;
  asked.timing.regime = Regime::burst;
  auto r = resume_config(c, asked, {"regime"}, "t", 3);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--regime burst on --resume: this run was measured with regime sustained"),
            std::string::npos) << r.error().message;
  asked = c;
  asked.timing.throttle_threshold = 0.5;
  EXPECT_FALSE(resume_config(c, asked, {"throttle-threshold"}, "t", 3));
}

// The re-check's pause is how a number is measured: kept, fixed on resume, and 250 ms
// (what it always was) for a history from before the setting.
TEST(RunConfigRegime, ThePauseIsKeptFixedAndDefaultsToWhatOldRunsUsed) {
  RunConfig c;
  c.timing.pause_ms = 100;
  EXPECT_EQ(run_config_from_json(nlohmann::json(c)).timing.pause_ms, 100);
  EXPECT_EQ(run_config_from_json(nlohmann::json{{"objective", "time"}}).timing.pause_ms, 250);
  RunConfig asked = c;
  asked.timing.pause_ms = 0;
  auto r = resume_config(c, asked, {"pause-ms"}, "t", 3);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--pause-ms"), std::string::npos) << r.error().message;
}

TEST(RunConfigRegime, AHistoryFromBeforeRegimesIsUnnamedAndTimedWithoutRegimeOptions) {
  const RunConfig c = run_config_from_json(nlohmann::json{{"objective", "time"}, {"reps", 30}});
  EXPECT_EQ(c.timing.regime, Regime::unnamed);
  EXPECT_TRUE(c.timing.program_args().empty());
  EXPECT_EQ(c.timing.measured(), std::vector<Regime>{Regime::unnamed});
  EXPECT_EQ(c.timing.screening(Objective::time), Regime::unnamed);
}

TEST(RunConfigRegime, WhatEachRegimeMeasuresAndScreensIn) {
  RegimeSettings t;
  t.regime = Regime::both;
  EXPECT_EQ(t.measured(), (std::vector<Regime>{Regime::burst, Regime::sustained}));
  EXPECT_EQ(t.screening(Objective::time), Regime::burst);
  EXPECT_EQ(t.screening(Objective::energy), Regime::sustained) << "energy needs the sustained window";
  t.regime = Regime::sustained;
  EXPECT_EQ(t.screening(Objective::time), Regime::sustained);
  const auto args = t.program_args();
  ASSERT_EQ(args.size(), 10u);
  EXPECT_EQ(args[0], "--throttle-threshold");
  EXPECT_EQ(args[1], "0.75");
  EXPECT_EQ(objective_from_string("energy"), Objective::energy);
  EXPECT_EQ(regime_from_string("unnamed"), std::nullopt) << "not a value a user can ask for";
}

}  // namespace
}  // namespace swz
