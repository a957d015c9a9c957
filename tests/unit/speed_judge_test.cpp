// Tests of the speed judge (loop/speed_judge): real processes through the real
// CUDA backend's run_program. The "programs" are small shell scripts standing in
// for a kernel program's time mode at the process seam: each logs its name, so
// the test sees the interleaving, and prints the median the test planted.
#include "swizzleperf/loop/speed_judge.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/core/run_config.h"
#include "support/fixtures.h"

namespace swz {
namespace {

// An executable shell script at dir/name whose positional parameters are the medians.
fs::path stand_in_script(const test::TempDir& dir, const std::string& name, const std::vector<double>& medians,
                const std::string& body) {
  std::string list;
  for (double m : medians) list += (list.empty() ? "" : " ") + std::to_string(m);
  const fs::path p = dir / name;
  test::write_text(p, "#!/bin/sh\nmode=$1\nset -- " + list + "\n" + body);
  ::chmod(p.c_str(), 0755);
  return p;
}

// A time-mode stand-in: appends NAME to LOG, prints {"mode":"time","median_ms":M}
// with M taken from its list in turn (round i gets the i-th value, cycling).
fs::path program(const test::TempDir& dir, const std::string& name, const std::vector<double>& medians,
                 const fs::path& log, int exit_code = 0) {
  return stand_in_script(dir, name, medians,
                "[ \"$mode\" = time ] || { echo '{\"error\":\"usage: unknown mode\"}'; exit 2; }\n"
                "n=$(grep -c '^" + name + "$' '" + log.string() + "' 2>/dev/null || true)\n"
                "n=${n:-0}\n"
                "echo " + name + " >> '" + log.string() + "'\n"
                "i=$(( n % $# + 1 ))\n"
                "eval m=\\${$i}\n"
                "echo \"{\\\"mode\\\":\\\"time\\\",\\\"median_ms\\\":$m}\"\n"
                "exit " + std::to_string(exit_code) + "\n");
}

// A serve-mode stand-in: logs "start NAME" once, prints a ready line, then for each
// "time" line on stdin logs NAME and prints the next planted median (cycling); it exits
// at end of input. With `fail_at` > 0 it exits 3 instead of answering request fail_at.
fs::path serving_program(const test::TempDir& dir, const std::string& name, const std::vector<double>& medians,
                         const fs::path& log, int fail_at = 0) {
  return stand_in_script(dir, name, medians,
                "[ \"$mode\" = serve ] || exit 2\n"
                "echo start " + name + " >> '" + log.string() + "'\n"
                "echo '{\"mode\":\"serve\",\"ready\":true}'\n"
                "n=0\n"
                "while read req; do\n"
                "  [ \"$req\" = time ] || continue\n"
                "  n=$((n + 1))\n"
                "  [ " + std::to_string(fail_at) + " -eq $n ] && exit 3\n"
                "  echo " + name + " >> '" + log.string() + "'\n"
                "  i=$(( (n - 1) % $# + 1 ))\n"
                "  eval m=\\${$i}\n"
                "  echo \"{\\\"mode\\\":\\\"time\\\",\\\"median_ms\\\":$m}\"\n"
                "done\n");
}

class SpeedJudge : public ::testing::Test {
 protected:
  test::TempDir dir;
  RealProcessRunner runner;
  CudaBackend backend{runner, ToolOptions{}};
  fs::path log = dir / "order.log";
  std::vector<std::string> args = {"time", "--reps", "30", "--warmup", "5"};
  std::chrono::milliseconds no_pause{0};
};

TEST_F(SpeedJudge, InterleavesAndFindsAPlantedSpeedup) {
  auto a = program(dir, "base", {2.00, 2.02, 1.98, 2.01, 2.00, 1.99}, log);
  auto b = program(dir, "cand", {1.90, 1.91, 1.89, 1.92, 1.90, 1.90}, log);
  auto c = compare_speed(backend, a, b, args, 6, std::chrono::seconds(10), "", no_pause);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->runs, 12);  // 2 x rounds time-mode runs
  EXPECT_EQ(test::read_text(log), "base\ncand\nbase\ncand\nbase\ncand\nbase\ncand\nbase\ncand\nbase\ncand\n");
  EXPECT_EQ(c->baseline_ms.size(), 6u);
  EXPECT_DOUBLE_EQ(c->baseline_ms[1], 2.02);
  EXPECT_TRUE(c->ratio.significant);
  EXPECT_GT(c->ratio.low, 1.0);
  EXPECT_NEAR(c->ratio.estimate, 2.0 / 1.9, 0.01);
  const nlohmann::json j = *c;
  EXPECT_EQ(j["rounds"], 6);
  EXPECT_EQ(j["significant"], true);
}

TEST_F(SpeedJudge, SameProgramTwiceIsNotSignificant) {
  auto a = program(dir, "same", {1.0, 1.1, 0.9, 1.05, 0.95, 1.0}, log);
  // Each program counts its own runs, so both members of round i print value i: the
  // rounds drift (1.1 vs 0.9) but every ratio is exactly 1.
  auto b = program(dir, "twin", {1.0, 1.1, 0.9, 1.05, 0.95, 1.0}, log);
  auto c = compare_speed(backend, a, b, args, 6, std::chrono::seconds(10), "", no_pause);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->ratio.significant);
  EXPECT_DOUBLE_EQ(c->ratio.estimate, 1.0);
}

TEST_F(SpeedJudge, AFailingRunIsAnErrorNamingWhich) {
  auto a = program(dir, "base", {1.0}, log);
  auto b = program(dir, "cand", {1.0}, log, 3);
  auto c = compare_speed(backend, a, b, args, 6, std::chrono::seconds(10), "", no_pause);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("candidate time mode failed"), std::string::npos) << c.error().message;
  EXPECT_EQ(test::read_text(log), "base\ncand\n");  // stopped at the first failure
  EXPECT_FALSE(compare_speed(backend, a, b, args, 0, std::chrono::seconds(10), "", no_pause));
}

TEST_F(SpeedJudge, ServingProgramsAreStartedOnceAndAskedInTurn) {
  auto a = serving_program(dir, "base", {2.00, 2.02, 1.98, 2.01, 2.00, 1.99}, log);
  auto b = serving_program(dir, "cand", {1.90, 1.91, 1.89, 1.92, 1.90, 1.90}, log);
  const std::chrono::milliseconds pause{RegimeSettings{}.pause_ms};
  auto c = compare_speed(backend, a, b, args, 6, std::chrono::seconds(10), "", pause);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->served);
  EXPECT_EQ(c->runs, 12);
  EXPECT_EQ(test::read_text(log),
            "start base\nstart cand\nbase\ncand\nbase\ncand\nbase\ncand\nbase\ncand\nbase\ncand\nbase\ncand\n");
  EXPECT_DOUBLE_EQ(c->baseline_ms[1], 2.02);
  EXPECT_DOUBLE_EQ(c->candidate_ms[5], 1.90);
  EXPECT_TRUE(c->ratio.significant);
  const nlohmann::json j = *c;
  EXPECT_EQ(j["served"], true);
  EXPECT_NE(j["method"].get<std::string>().find("serve mode"), std::string::npos);
  // The default pause (250 ms) before each request after the first: 11 of them.
  EXPECT_EQ(j["pause_ms"], 250);
  EXPECT_GE(c->seconds, 11 * std::chrono::duration<double>(pause).count());
}

TEST_F(SpeedJudge, ServedWithoutAPauseAsksBackToBackAndSaysSo) {
  auto a = serving_program(dir, "base", {2.00, 2.02, 1.98, 2.01, 2.00, 1.99}, log);
  auto b = serving_program(dir, "cand", {1.90, 1.91, 1.89, 1.92, 1.90, 1.90}, log);
  auto c = compare_speed(backend, a, b, args, 6, std::chrono::seconds(10), "", no_pause);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->served);
  EXPECT_EQ(nlohmann::json(*c)["pause_ms"], 0);
  EXPECT_LT(c->seconds, 11 * 0.25) << "no 250 ms pauses";
  EXPECT_TRUE(c->ratio.significant);
}

TEST_F(SpeedJudge, WithoutServeModeInEitherProgramBothRunAsProcesses) {
  // The candidate serves, the baseline predates serve mode: both are timed the old way.
  auto a = program(dir, "base", {2.0}, log);
  auto b = serving_program(dir, "cand", {1.0}, log);
  auto c = compare_speed(backend, a, b, args, 6, std::chrono::seconds(10), "", no_pause);
  ASSERT_FALSE(c) << "the candidate stand-in has no time mode";
  EXPECT_NE(c.error().message.find("candidate time mode failed"), std::string::npos) << c.error().message;
  EXPECT_EQ(test::read_text(log), "base\n") << "the candidate was never started in serve mode";
}

TEST_F(SpeedJudge, AServingProgramThatDiesIsAnErrorNamingWhich) {
  auto a = serving_program(dir, "base", {1.0}, log);
  auto b = serving_program(dir, "cand", {1.0}, log, 3);
  auto c = compare_speed(backend, a, b, args, 6, std::chrono::seconds(10), "", no_pause);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("candidate time mode failed"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("exit code 3"), std::string::npos) << c.error().message;
}

TEST_F(SpeedJudge, AServingProgramThatHangsIsKilledAtTheTimeout) {
  auto a = serving_program(dir, "base", {1.0}, log);
  const fs::path hang = dir / "hang";
  test::write_text(hang, "#!/bin/sh\necho '{\"mode\":\"serve\",\"ready\":true}'\nexec sleep 1000\n");
  ::chmod(hang.c_str(), 0755);
  const auto t0 = std::chrono::steady_clock::now();
  auto c = compare_speed(backend, a, hang, args, 6, std::chrono::seconds(1), "", no_pause);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("timed out"), std::string::npos) << c.error().message;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
}

// judge_burst_clocks on per-round clocks as the H100 reported them (attention_fwd, identity
// against grouped_n(G=2), burst): the power-hungry identity ran 8-11 % below the swizzle in
// every round, under the power cap.
SpeedComparison burst_pair(std::vector<double> base_mhz, std::vector<double> cand_mhz, long long base_reasons,
                           long long cand_reasons) {
  SpeedComparison c;
  c.regime = "burst";
  c.baseline_mhz = std::move(base_mhz);
  c.candidate_mhz = std::move(cand_mhz);
  c.baseline_reasons = base_reasons;
  c.candidate_reasons = cand_reasons;
  c.clock_reasons = base_reasons | cand_reasons;
  return c;
}
const std::vector<double> kHungry = {1650, 1635, 1635, 1620, 1605, 1620};
const std::vector<double> kCool = {1800, 1785, 1800, 1770, 1785, 1755};

TEST(BurstClockRule, PairsWithinTheToleranceNeedNoNote) {
  const auto v = judge_burst_clocks(burst_pair({1980, 1965}, {1950, 1980}, 0, 0));
  EXPECT_TRUE(v.trusted);
  EXPECT_TRUE(v.note.empty());
  EXPECT_TRUE(judge_burst_clocks(burst_pair({-1, -1}, {1500, 1980}, 0, 0)).trusted) << "an unknown clock is not judged";
}

TEST(BurstClockRule, AGapTheOrderHoldsInEveryRoundUnderThePowerCapIsTheOrdersOwn) {
  const auto v = judge_burst_clocks(burst_pair(kHungry, kCool, kClockReasonSwPowerCap, 0));
  EXPECT_TRUE(v.trusted) << v.untrusted;
  EXPECT_NE(v.note.find("the baseline ran at 1605-1650 MHz under the software power cap in all 6 rounds"),
            std::string::npos) << v.note;
  // The candidate the hungry one: the same rule, the other way round.
  const auto w = judge_burst_clocks(burst_pair(kCool, kHungry, 0, kClockReasonSwPowerCap));
  EXPECT_TRUE(w.trusted) << w.untrusted;
  EXPECT_NE(w.note.find("the candidate ran at"), std::string::npos) << w.note;
}

TEST(BurstClockRule, AnyDoubtLeavesTheGapDrift) {
  struct Case {
    const char* name;
    SpeedComparison c;
    const char* why;
  };
  std::vector<double> flipped = kCool;
  flipped[3] = 1600;  // round 4: the swizzle below the identity
  std::vector<double> overlapping = kCool;
  overlapping[5] = 1640;  // still above its partner (1620), but below the identity's 1650 in round 1
  std::vector<double> unknown = kCool;
  unknown[2] = -1;
  const Case cases[] = {
      {"no power cap reported", burst_pair(kHungry, kCool, 0, 0), "the baseline did not report the power cap"},
      {"the cap on the faster-clocked member only", burst_pair(kHungry, kCool, 0, kClockReasonSwPowerCap),
       "the baseline did not report the power cap"},
      {"a thermal slowdown", burst_pair(kHungry, kCool, kClockReasonSwPowerCap, 0x20), "thermal or hardware slowdown"},
      {"the gap changes sides", burst_pair(kHungry, flipped, kClockReasonSwPowerCap, 0), "changed sides"},
      {"a clock unknown in one round", burst_pair(kHungry, unknown, kClockReasonSwPowerCap, 0), "changed sides or a clock is unknown"},
      {"ranges that overlap", burst_pair(kHungry, overlapping, kClockReasonSwPowerCap, 0), "overlap across rounds"},
  };
  for (const auto& k : cases) {
    const auto v = judge_burst_clocks(k.c);
    EXPECT_FALSE(v.trusted) << k.name;
    EXPECT_TRUE(v.note.empty()) << k.name;
    EXPECT_NE(v.untrusted.find("round 1 (1650 MHz baseline, 1800 MHz candidate"), std::string::npos) << k.name << ": " << v.untrusted;
    EXPECT_NE(v.untrusted.find(k.why), std::string::npos) << k.name << ": " << v.untrusted;
  }
}

}  // namespace
}  // namespace swz
