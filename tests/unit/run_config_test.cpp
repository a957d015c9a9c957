// RunConfig: its serialisation (history.json's "config"), the resume rules, and the
// settings table they and the options are derived from.
#include "swizzleperf/core/run_config.h"

#include <gtest/gtest.h>

#include <set>

#include "support/setting_values.h"

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

// ---- the settings table ------------------------------------------------------------

constexpr CommandSet kEachCommand[] = {kOptimize, kSuite, kGate, kSweep, kBuild, kProbe, kTune};

TEST(SettingsTable, EveryRowHasAKeyHelpAGroupCommandsAndAJsonKeyEachOnce) {
  std::set<std::string> keys, json_keys;
  for (const auto& row : settings_table()) {
    SCOPED_TRACE(row.key);
    EXPECT_TRUE(keys.insert(row.key).second) << "a key twice";
    ASSERT_NE(row.json_key, nullptr);
    EXPECT_TRUE(json_keys.insert(std::string(row.json_object ? row.json_object : "") + "." + row.json_key).second);
    EXPECT_NE(row.commands, 0u) << "no command takes it";
    for (CommandSet c : kEachCommand) {
      if (!row.takes(c)) continue;
      EXPECT_GT(std::string(row.help_for(c)).size(), 5u);
      EXPECT_FALSE(std::string(row.group_for(c)).empty());
    }
    if (row.type == SettingType::choice) {
      EXPECT_FALSE(row.choices.empty());
    }
    if (row.type == SettingType::integer || row.type == SettingType::real) {
      EXPECT_TRUE(row.range) << "a number without a range";
    }
    EXPECT_EQ(find_setting(row.key), &row);
  }
  EXPECT_EQ(find_setting("no-such-setting"), nullptr);
}

TEST(SettingsTable, EveryDefaultPassesItsOwnCheckForEveryCommandThatTakesIt) {
  for (const auto& row : settings_table())
    for (CommandSet c : kEachCommand)
      if (row.takes(c)) {
        EXPECT_EQ(row.check(row.default_for(c), c), "") << row.key << " for command bit " << c;
      }
}

TEST(SettingsTable, EveryRowRoundTripsThroughHistoryJson) {
  for (CommandSet c : kEachCommand)
    for (const auto& row : settings_table()) {
      if (!row.takes(c)) continue;
      SCOPED_TRACE(std::string(row.key) + " for command bit " + std::to_string(c));
      const std::string value = test::another_setting_value(row, c);
      ASSERT_FALSE(value.empty());
      RunConfig config = default_config(c);
      ASSERT_TRUE(row.set(config, value, c));
      const nlohmann::json j = config;
      const nlohmann::json& object = row.json_object ? j.at(row.json_object) : j;
      EXPECT_TRUE(object.contains(row.json_key)) << j.dump();
      const RunConfig back = run_config_from_json(j);
      EXPECT_EQ(row.text(back), row.text(config));
      EXPECT_NE(row.text(back), row.text(default_config(c))) << "the value did not change the config";
      EXPECT_EQ(nlohmann::json(back), j);
    }
}

TEST(SettingsTable, EveryRowsResumeRuleIsHonoured) {
  for (const auto& row : settings_table()) {
    SCOPED_TRACE(row.key);
    const CommandSet c = row.takes(kOptimize) ? kOptimize : kGate;
    const RunConfig recorded = default_config(c);
    RunConfig asked = recorded;
    ASSERT_TRUE(row.set(asked, test::another_setting_value(row, c), c));
    auto r = resume_config(recorded, asked, {row.key}, "2026-11-28T12:00:00Z", 4);
    if (row.on_resume == OnResume::fixed) {
      ASSERT_FALSE(r);
      EXPECT_NE(r.error().message.find(std::string("--") + row.key + " " + row.text(asked) + " on --resume"),
                std::string::npos) << r.error().message;
    } else {
      ASSERT_TRUE(r) << r.error().message;
      EXPECT_EQ(row.text(*r), row.text(asked));
      ASSERT_EQ(r->changes.size(), 1u);
      EXPECT_EQ(r->changes[0].setting, row.key);
      EXPECT_EQ(r->changes[0].from, row.text(recorded));
      EXPECT_EQ(r->changes[0].from_iteration, 4);
    }
    // Not named on the command line: the recorded value stays, whatever the rule.
    auto unnamed = resume_config(recorded, asked, {}, "t", 4);
    ASSERT_TRUE(unnamed);
    EXPECT_EQ(row.text(*unnamed), row.text(recorded));
  }
}

TEST(SettingsTable, ABadValueIsOneLineNamingTheOptionInTheFamiliesUsersKnow) {
  auto check = [](const char* key, const std::string& v, CommandSet c = kOptimize) {
    return find_setting(key)->check(v, c);
  };
  EXPECT_EQ(check("warmup", "-5"), "--warmup -5: use 0..10000");
  EXPECT_EQ(check("build-jobs", "65"), "--build-jobs 65: use 0..64 (0: automatic)");
  EXPECT_EQ(check("judge-seconds", "-1"), "--judge-seconds -1: use more than 0 and at most 86400");
  EXPECT_EQ(check("temperature", "9"), "--temperature 9: use 0..2");
  EXPECT_EQ(check("throttle-threshold", "1"), "--throttle-threshold 1: use a fraction of the device's clock rate in [0, 1) (0: never discard)");
  EXPECT_EQ(check("regime", "hot"), "--regime 'hot' is not one of: burst, sustained, both");
  EXPECT_EQ(check("size", "1,x"), "--size '1,x': 'x' is not a positive integer");
  EXPECT_EQ(check("rounds", "0"), "") << "0: no judge";
  EXPECT_EQ(check("rounds", "5").rfind("--rounds 5: a 95 % interval needs at least 6 rounds", 0), 0u);
  EXPECT_NE(check("rounds", "0", kGate), "") << "a gate always judges";
  EXPECT_EQ(check("reps", "ten"), "--reps 'ten' is not a whole number");
  EXPECT_EQ(check("profile-launches", "99999999"), "") << "a count is clamped, not refused";
  RunConfig c;
  ASSERT_TRUE(find_setting("profile-launches")->set(c, "99999999", kOptimize));
  EXPECT_EQ(c.profile_launches, 1 << 20);
}

// sweep's verdict judges time or L2: the table gives sweep no energy objective, so
// `sweep --objective energy` is refused rather than accepted and judged by time.
TEST(SettingsTable, SweepTakesNoEnergyObjective) {
  const SettingRow& objective = *find_setting("objective");
  EXPECT_EQ(objective.check("energy", kOptimize), "");
  EXPECT_EQ(objective.check("energy", kSuite), "");
  EXPECT_EQ(objective.check("energy", kSweep), "--objective 'energy' is not one of: time, l2");
  EXPECT_FALSE(objective.takes(kGate)) << "a gate is judged by time";
  EXPECT_EQ(std::string(objective.help_for(kSweep)).find("energy"), std::string::npos);
}

// --profile: which screened candidates are profiled. The optimize loop's commands take it;
// a resume may change it; a history written before it existed profiled every candidate.
TEST(SettingsTable, ProfileIsAutoEachOrWinnerAndOldHistoriesProfiledEach) {
  const SettingRow& profile = *find_setting("profile");
  EXPECT_TRUE(profile.takes(kOptimize));
  EXPECT_TRUE(profile.takes(kSuite));
  EXPECT_FALSE(profile.takes(kSweep));
  EXPECT_FALSE(profile.takes(kGate));
  EXPECT_EQ(profile.on_resume, OnResume::may_change);
  EXPECT_EQ(default_config(kOptimize).profile, "auto");
  EXPECT_EQ(profile.check("winner", kOptimize), "");
  EXPECT_EQ(profile.check("some", kOptimize), "--profile 'some' is not one of: auto, each, winner");
  EXPECT_EQ(run_config_from_json(nlohmann::json{{"objective", "time"}}).profile, "each");
  EXPECT_EQ(run_config_from_json(nlohmann::json{{"profile", "winner"}}).profile, "winner");
}

TEST(SettingsTable, TheRulesBetweenSettings) {
  RunConfig c = default_config(kOptimize);
  EXPECT_EQ(check_settings(c), "");
  c.objective = Objective::energy;
  EXPECT_EQ(check_settings(c), "");
  c.timing.regime = Regime::burst;
  EXPECT_NE(check_settings(c).find("energy per run is measured in the sustained regime only"), std::string::npos);
  c.timing.regime = Regime::both;
  c.recheck_rounds = 0;
  EXPECT_EQ(check_settings(c).rfind("--objective energy with --rounds 0", 0), 0u);
}

TEST(SettingsTable, CommandDefaultsAndAnOldHistorysAbsentSettings) {
  EXPECT_EQ(default_config(kSweep).time_reps, 20);
  EXPECT_EQ(default_config(kSweep).warmup, 3);
  EXPECT_EQ(default_config(kGate).recheck_rounds, 10);
  EXPECT_EQ(default_config(kOptimize).objective, Objective::time);
  EXPECT_EQ(default_config(kOptimize).timing.regime, Regime::both);
  EXPECT_EQ(command_set("sweep"), kSweep);
  EXPECT_EQ(command_set("check"), kAnyCommand);
  // Written before the locality model existed: it ran without it.
  EXPECT_EQ(run_config_from_json(nlohmann::json{{"objective", "time"}}).locality_model, "off");
  EXPECT_EQ(run_config_from_json(nlohmann::json{{"locality_model", "on"}}).locality_model, "on");
  // The LLM settings stay in their own object, as every history wrote them.
  const nlohmann::json j = default_config(kOptimize);
  EXPECT_EQ(j.at("proposer_config").at("model"), "gpt-4o");
  EXPECT_EQ(j.at("proposer_config").at("timeout_s"), 120);
  EXPECT_FALSE(j.contains("model"));
}

// The tune search's rows: in a tune run's record, left out of every other run's record
// (whose history files stay as they were), and resumed by their rules.
TEST(SettingsTable, TuneRowsAreRecordedForTuneRunsOnly) {
  RunConfig optimize = default_config(kOptimize);
  EXPECT_FALSE(nlohmann::json(optimize).contains("tune"));
  RunConfig tune = default_config(kTune);
  tune.command = "tune";
  const nlohmann::json j = tune;
  ASSERT_TRUE(j.contains("tune"));
  EXPECT_EQ(j["tune"]["strategy"], "guided");
  EXPECT_EQ(j["tune"]["budget"], 60);
  EXPECT_EQ(j["tune"]["seed"], 1);
  EXPECT_EQ(command_set("tune"), kTune);
  EXPECT_EQ(find_setting("strategy")->on_resume, OnResume::fixed);
  EXPECT_EQ(find_setting("seed")->on_resume, OnResume::fixed);
  EXPECT_EQ(find_setting("budget")->on_resume, OnResume::may_change);
  EXPECT_EQ(find_setting("budget-seconds")->check("0", kTune), "");
  EXPECT_NE(find_setting("budget-seconds")->check("-1", kTune), "");
  EXPECT_EQ(find_setting("budget")->check("0", kTune), "--budget 0: use 1..10000 (evaluations)");
  EXPECT_EQ(find_setting("strategy")->check("bayes", kTune), "--strategy 'bayes' is not one of: guided, exhaustive, random");
  // A tune run takes no --objective: it is timed, and its default config says time.
  EXPECT_FALSE(find_setting("objective")->takes(kTune));
  EXPECT_FALSE(find_setting("iterations")->takes(kTune));
  EXPECT_FALSE(find_setting("proposer")->takes(kTune));
}

}  // namespace
}  // namespace swz
