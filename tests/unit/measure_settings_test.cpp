// loop/measure_settings: what a measurement takes from a run's settings. sweep and gate
// take only settings of how a program is measured, so every row of the settings table
// either of them takes must change what its measurement is built from: a command that
// accepted a setting and dropped it (as sweep once dropped --objective, --max-rounds and
// --judge-seconds) fails here.
#include "swizzleperf/loop/measure_settings.h"

#include <gtest/gtest.h>

#include "support/setting_values.h"

namespace swz {
namespace {

// Everything a measurement is made of that a setting can reach: the MeasureSetup's
// settings, the tools' limits, and the backend, which the command makes by name from
// the setting (backend_for_kernel, make_backend).
nlohmann::json what_is_measured_with(const RunConfig& c) {
  const MeasureSetup s = measure_setup_from(c);
  const ToolOptions t = tool_options_with(c, ToolOptions{});
  return {{"size", s.size},
          {"reps", s.time_reps},
          {"warmup", s.warmup},
          {"rounds", s.recheck_rounds},
          {"max_rounds", s.max_rounds},
          {"judge_s", s.judge_s},
          {"regime", to_string(s.timing.regime)},
          {"regime_args", s.timing.program_args()},
          {"pause_ms", s.timing.pause_ms},
          {"objective", to_string(s.objective)},
          {"host_cxx", s.host_cxx},
          {"arch", t.arch},
          {"run_timeout", t.run_timeout.count()},
          {"build_timeout", t.build_timeout.count()},
          {"profile_timeout", t.profile_timeout.count()},
          {"profile_launches", t.profile_launches},
          {"backend", c.backend}};
}

TEST(MeasureSettings, EverySettingSweepAndGateTakeReachesTheirMeasurement) {
  for (const CommandSet command : {kSweep, kGate}) {
    const RunConfig defaults = default_config(command);
    int rows = 0;
    for (const auto& row : settings_table()) {
      if (!row.takes(command)) continue;
      SCOPED_TRACE(std::string(row.key) + " for command bit " + std::to_string(command));
      RunConfig changed = defaults;
      ASSERT_TRUE(row.set(changed, test::another_setting_value(row, command), command));
      EXPECT_NE(what_is_measured_with(changed), what_is_measured_with(defaults))
          << "the command takes --" << row.key << " but its measurement does not";
      ++rows;
    }
    EXPECT_GE(rows, 15) << "the regime's rules, reps, warm-up, rounds and the backend's at least";
  }
}

TEST(MeasureSettings, TheJudgeGetsItsRoundsAndBudgetAndTheScreeningItsObjective) {
  RunConfig c = default_config(kOptimize);
  c.timing.max_rounds = 40;
  c.timing.judge_s = 7;
  c.objective = Objective::energy;
  const MeasureSetup s = measure_setup_from(c);
  EXPECT_EQ(s.max_rounds, 40);
  EXPECT_EQ(s.judge_s, 7);
  EXPECT_EQ(s.timing.screening(s.objective), Regime::sustained) << "energy is screened sustained";
  ToolOptions paths;
  paths.compiler = "/opt/nvcc";
  c.profile_launches = 0;
  const ToolOptions t = tool_options_with(c, paths);
  EXPECT_EQ(t.compiler, "/opt/nvcc") << "the machine's paths are kept";
  EXPECT_EQ(t.profile_launches, 0);
}

}  // namespace
}  // namespace swz
