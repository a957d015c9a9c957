// Tests of the speed judge (loop/speed_judge). First through real processes and the
// real CUDA backend's run_program: the "programs" are small shell scripts standing in
// for a kernel program's time mode at the process seam; each logs its name, so the
// test sees the interleaving, and prints the median the test planted. Then the
// tournament and its trust rules in-process, on a simulated power-capped GPU
// (tests/support/power_capped_gpu.h).
#include "swizzleperf/loop/speed_judge.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/core/run_config.h"
#include "support/fixtures.h"
#include "support/power_capped_gpu.h"
#include "support/timing.h"

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
  // At the least rounds (6), no pause: what most cases here need.
  JudgeSettings six(std::chrono::milliseconds pause = std::chrono::milliseconds(0)) const {
    JudgeSettings j;
    j.min_rounds = j.max_rounds = 6;
    j.pause = pause;
    return j;
  }
};

TEST_F(SpeedJudge, InterleavesAndFindsAPlantedSpeedup) {
  auto a = program(dir, "base", {2.00, 2.02, 1.98, 2.01, 2.00, 1.99}, log);
  auto b = program(dir, "cand", {1.90, 1.91, 1.89, 1.92, 1.90, 1.90}, log);
  auto c = compare_speed(backend, a, b, args, Regime::unnamed, six(), std::chrono::seconds(10));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->runs, 12);  // 2 x rounds time-mode runs
  // A B, B A, B A, A B, A B, B A: each member first in half the rounds.
  EXPECT_EQ(test::read_text(log), "base\ncand\ncand\nbase\ncand\nbase\nbase\ncand\nbase\ncand\ncand\nbase\n");
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
  auto c = compare_speed(backend, a, b, args, Regime::unnamed, six(), std::chrono::seconds(10));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->ratio.significant);
  EXPECT_DOUBLE_EQ(c->ratio.estimate, 1.0);
}

TEST_F(SpeedJudge, AFailingRunIsAnErrorNamingWhich) {
  auto a = program(dir, "base", {1.0}, log);
  auto b = program(dir, "cand", {1.0}, log, 3);
  auto c = compare_speed(backend, a, b, args, Regime::unnamed, six(), std::chrono::seconds(10));
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("candidate time mode failed"), std::string::npos) << c.error().message;
  EXPECT_EQ(test::read_text(log), "base\ncand\n");  // stopped at the first failure
  JudgeSettings none = six();
  none.min_rounds = 0;
  EXPECT_FALSE(compare_speed(backend, a, b, args, Regime::unnamed, none, std::chrono::seconds(10)));
}

TEST_F(SpeedJudge, ServingProgramsAreStartedOnceAndAskedInTurn) {
  auto a = serving_program(dir, "base", {2.00, 2.02, 1.98, 2.01, 2.00, 1.99}, log);
  auto b = serving_program(dir, "cand", {1.90, 1.91, 1.89, 1.92, 1.90, 1.90}, log);
  const std::chrono::milliseconds pause{RegimeSettings{}.pause_ms};
  auto c = compare_speed(backend, a, b, args, Regime::unnamed, six(pause), std::chrono::seconds(10));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->served);
  EXPECT_EQ(c->runs, 12);
  // Both start (together, so in either order) before any request; then the rounds, A B, B A, B A, A B, ...
  const std::string order = test::read_text(log);
  const std::string starts = order.substr(0, std::string("start base\nstart cand\n").size());
  EXPECT_TRUE(starts == "start base\nstart cand\n" || starts == "start cand\nstart base\n") << order;
  EXPECT_EQ(order.substr(starts.size()), "base\ncand\ncand\nbase\ncand\nbase\nbase\ncand\nbase\ncand\ncand\nbase\n");
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
  auto c = compare_speed(backend, a, b, args, Regime::unnamed, six(), std::chrono::seconds(10));
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
  auto c = compare_speed(backend, a, b, args, Regime::unnamed, six(), std::chrono::seconds(10));
  ASSERT_FALSE(c) << "the candidate stand-in has no time mode";
  EXPECT_NE(c.error().message.find("candidate time mode failed"), std::string::npos) << c.error().message;
  // Every program is started before any ready line is read (their set-ups overlap), so the
  // candidate may have begun serving (if it got that far before it was stopped), but it was
  // never asked: no member is timed by requests.
  const std::string order = test::read_text(log);
  EXPECT_TRUE(order == "base\n" || order == "start cand\nbase\n") << order;
}

TEST_F(SpeedJudge, AServingProgramThatDiesIsAnErrorNamingWhich) {
  auto a = serving_program(dir, "base", {1.0}, log);
  auto b = serving_program(dir, "cand", {1.0}, log, 3);
  auto c = compare_speed(backend, a, b, args, Regime::unnamed, six(), std::chrono::seconds(10));
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
  auto c = compare_speed(backend, a, hang, args, Regime::unnamed, six(), std::chrono::seconds(1));
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("timed out"), std::string::npos) << c.error().message;
  // The 1 s timeout and the kill, not the hang's 1000 s.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), test::wait_limit(7.5));
}

// ---- The tournament and its rules, on a simulated power-capped GPU ----

using test::PowerModel;
using test::SimMember;

// gemm_tc's pair as the H100 showed it: the identity streams its weights from DRAM (and
// draws the power for it), the grouped order reads them from L2.
const SimMember kHungryIdentity{0.80, 0.15, 1.0};
const SimMember kCoolGrouped{0.72, 0.05, 0.3};

PowerModel power_capped_sustained(unsigned seed = 1) {
  PowerModel m;
  m.sustained = true;
  m.seed = seed;
  m.drift_per_s = -0.003;  // the cap's slow slide as the GPU warms
  return m;
}

JudgeSettings tournament_settings(int min_rounds = 6, int max_rounds = 12) {
  JudgeSettings j;
  j.min_rounds = min_rounds;
  j.max_rounds = max_rounds;
  j.budget_s = 1e9;
  return j;
}

TEST(Tournament, NamesAPowerHeadroomWinAsTheOrdersOwnEffect) {
  test::PowerCappedGpu gpu({kHungryIdentity, kCoolGrouped}, power_capped_sustained());
  ASSERT_LT(gpu.clock_mhz(0), gpu.clock_mhz(1) * 0.95) << "the model's identity must run at a lower clock";
  auto t = run_tournament(gpu, Regime::sustained, tournament_settings(), {"identity", "grouped_m(G=8)"});
  ASSERT_TRUE(t) << t.error().message;
  const SpeedComparison& c = t->candidates[0];
  EXPECT_TRUE(c.decisive()) << c.untrusted;
  EXPECT_GT(c.ratio.low, 1.0);
  EXPECT_NE(c.clock_note.find("part of the gain is power headroom"), std::string::npos) << c.clock_note;
  EXPECT_NE(c.clock_note.find("under the power cap"), std::string::npos) << c.clock_note;
  EXPECT_NE(c.clock_note.find("energy x"), std::string::npos) << c.clock_note;
  ASSERT_TRUE(c.energy);
  EXPECT_LT(c.energy->high, 1.0) << "the grouped order saves energy";
  EXPECT_NE(t->stop.find("decisive"), std::string::npos) << t->stop;
  EXPECT_EQ(t->rounds, 6) << "one candidate, decisive at the least rounds";
  EXPECT_EQ(t->warm_seconds, 2.0) << "the GPU is warmed once, before round 1";
  // The record lets a reader recompute the verdict: every member's rounds and clocks.
  const nlohmann::json j = *t;
  EXPECT_EQ(j["members"][0]["label"], "identity");
  EXPECT_EQ(j["members"][1]["ms"].size(), 6u);
  EXPECT_EQ(j["members"][1]["mhz"].size(), 6u);
  EXPECT_EQ(j["candidates"][0]["ratios"].size(), 6u);
  EXPECT_EQ(j["order"].size(), 6u);
}

TEST(Tournament, NamesNoWinnerOnAnEqualPairUnderDrift) {
  PowerModel m = power_capped_sustained(7);
  m.drift_per_s = -0.01;  // 1 % of the cap per second: ~25 % over the tournament
  m.noise = 0.01;
  test::PowerCappedGpu gpu({kHungryIdentity, kHungryIdentity}, m);
  auto t = run_tournament(gpu, Regime::sustained, tournament_settings());
  ASSERT_TRUE(t) << t.error().message;
  const SpeedComparison& c = t->candidates[0];
  EXPECT_FALSE(c.ratio.significant) << format_ratio(c.ratio);
  EXPECT_TRUE(c.trusted) << "drift touches both members alike: " << c.untrusted;
  EXPECT_NEAR(c.ratio.estimate, 1.0, 0.01);
  EXPECT_EQ(t->rounds, 12) << "undecided: every round asked";
}

TEST(Tournament, FlagsAThrottleOnlyOneMemberSaw) {
  PowerModel m;  // burst
  test::PowerCappedGpu gpu({kHungryIdentity, kCoolGrouped}, m);
  gpu.throttle(1, 3);
  auto t = run_tournament(gpu, Regime::burst, tournament_settings(6, 6));
  ASSERT_TRUE(t) << t.error().message;
  const SpeedComparison& c = t->candidates[0];
  EXPECT_FALSE(c.trusted);
  EXPECT_FALSE(c.decisive());
  EXPECT_NE(c.untrusted.find("hw_slowdown"), std::string::npos) << c.untrusted;
  EXPECT_NE(c.untrusted.find("the candidate's runs only"), std::string::npos) << c.untrusted;
}

TEST(Tournament, StopsEarlyOnADecisivePairAndRunsOnWhenUndecided) {
  test::PowerCappedGpu fast({kHungryIdentity, kCoolGrouped}, PowerModel{});
  auto t = run_tournament(fast, Regime::burst, tournament_settings(6, 40));
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->rounds, 6);
  EXPECT_EQ(fast.requests()[0], 6);
  // An undecided one runs to the budget in simulated seconds, not to --max-rounds.
  test::PowerCappedGpu equal({kCoolGrouped, kCoolGrouped}, PowerModel{});
  JudgeSettings j = tournament_settings(6, 40);
  j.budget_s = 2.0;
  j.pause = std::chrono::milliseconds(100);
  auto u = run_tournament(equal, Regime::burst, j);
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_GT(u->rounds, 6);
  EXPECT_LT(u->rounds, 40);
  EXPECT_NE(u->stop.find("time budget"), std::string::npos) << u->stop;
}

TEST(Tournament, AMemberSignificantlySlowerThanTheLeaderLeavesTheRace) {
  const SimMember slow{0.78, 0.15, 1.0};  // a little better than the identity, far behind grouped
  const SimMember twin{0.72, 0.05, 0.3};
  test::PowerCappedGpu gpu({kHungryIdentity, slow, kCoolGrouped, twin}, PowerModel{});
  auto t = run_tournament(gpu, Regime::burst, tournament_settings(6, 10), {"identity", "slow", "grouped", "twin"});
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->candidates[0].left_after, 6) << "left after the first look";
  EXPECT_NE(t->candidates[0].left_because.find("significantly slower than"), std::string::npos);
  EXPECT_EQ(t->candidates[0].ratio.n, 6) << "its rounds so far are kept";
  EXPECT_EQ(t->candidates[1].left_after, 0);
  EXPECT_EQ(t->candidates[2].left_after, 0) << "a tie with the leader stays";
  EXPECT_EQ(t->rounds, 10) << "two tied leaders: no decisive stop";
  EXPECT_TRUE(t->candidates[1].decisive());
  EXPECT_TRUE(t->leader == 1 || t->leader == 2);
  // Rounds after the first look hold the three members left, in turn.
  EXPECT_EQ(t->order[6].size(), 3u);
  EXPECT_EQ(gpu.requests()[1], 6);
}

TEST(Tournament, ARatioThatTrendsWithTimeIsUntrusted) {
  SimMember drifting = kCoolGrouped;
  drifting.self_drift_per_s = 0.02;  // the candidate alone slows by 2 % per second
  PowerModel m;
  m.noise = 0.001;
  test::PowerCappedGpu gpu({kHungryIdentity, drifting}, m);
  JudgeSettings j = tournament_settings(12, 12);
  j.pause = std::chrono::milliseconds(1000);
  auto t = run_tournament(gpu, Regime::burst, j);
  ASSERT_TRUE(t) << t.error().message;
  const SpeedComparison& c = t->candidates[0];
  EXPECT_FALSE(c.trusted);
  EXPECT_NE(c.untrusted.find("trends with time"), std::string::npos) << c.untrusted;
}

TEST(Tournament, RoundOrdersAlternateWhoGoesFirst) {
  const std::vector<int> two = {0, 1};
  std::string s;
  for (int r = 0; r < 4; ++r)
    for (int m : round_order(two, r)) s += static_cast<char>('A' + m);
  EXPECT_EQ(s, "ABBABAAB");
  // Three members: each one first once per cycle of three rounds, then reversed.
  EXPECT_EQ(round_order({0, 1, 2}, 1), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(round_order({0, 1, 2}, 3), (std::vector<int>{2, 1, 0}));
}

TEST(JudgeRules, RoundsThatDisagreeBeyondNoiseAreUntrusted) {
  SpeedComparison c;
  c.regime = Regime::burst;
  c.baseline_ms = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  c.candidate_ms = {0.9, 1.1, 0.9, 1.1, 0.9, 1.1};
  ASSERT_TRUE(judge_comparison(c));
  EXPECT_FALSE(c.trusted);
  EXPECT_NE(c.untrusted.find("the rounds disagree: 3 faster and 3 slower"), std::string::npos) << c.untrusted;
  // A gap that changes sides from round to round is noise, not named.
  SpeedComparison d;
  d.baseline_ms = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  d.candidate_ms = {0.8, 0.8, 0.8, 0.8, 0.8, 0.8};
  d.baseline_mhz = {1700, 1900, 1700, 1900, 1700, 1900};
  d.candidate_mhz = {1900, 1700, 1900, 1700, 1900, 1700};
  ASSERT_TRUE(judge_comparison(d));
  EXPECT_TRUE(d.decisive());
  EXPECT_TRUE(d.clock_note.empty()) << d.clock_note;
}

TEST(JudgeRules, ARegimeNotHeldIsUntrustedWithTheProgramsSentence) {
  struct NotHeld final : MemberTimer {
    std::size_t members() const override { return 2; }
    Result<MemberSample> time(std::size_t m) override {
      MemberSample s;
      s.ms = m == 0 ? 2.0 : 1.0;
      s.reached = m == 0;
      s.problem = "one pass is too long for the window";
      return s;
    }
    Status warm(std::size_t, double) override { return ok_status(); }
    void pause(std::chrono::milliseconds) override {}
    double now_s() const override { return 0; }
  } timer;
  auto t = run_tournament(timer, Regime::sustained, tournament_settings(6, 6));
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_FALSE(t->candidates[0].decisive());
  EXPECT_NE(t->candidates[0].untrusted.find("not reached in a candidate run: one pass is too long"), std::string::npos)
      << t->candidates[0].untrusted;
}

}  // namespace
}  // namespace swz
