// The optimize loop's state machine, in-process and without a compiler: a
// FakeBackend answers for the kernel programs, a ScriptedRunner plays the host
// compiler and the mapping check's evaluator, a ScriptedProposer plays the script.
// Each test states a script and what the history must say after it: duplicates,
// rejected regions, fatal errors, interrupt and resume, both objectives, the
// re-check, the observers and the resume rules.
#include "swizzleperf/loop/optimizer.h"

#include <gtest/gtest.h>

#include "support/fake_backend.h"
#include "support/fixtures.h"
#include "support/scripted_proposer.h"
#include "support/scripted_runner.h"
#include "swizzleperf/loop/measure_settings.h"
#include "swizzleperf/report/report.h"
#include "swizzleperf/util/file_io.h"

namespace swz {
namespace {

using test::fake_region;

// Records what the loop tells its observers.
class RecordingObserver final : public RunObserver {
 public:
  std::vector<int> attempts;
  int baselines = 0, finishes = 0;
  std::optional<Error> fail_on_attempt;
  Status on_baseline(const RunHistory&) override {
    ++baselines;
    return ok_status();
  }
  Status on_attempt(const RunHistory&, const Attempt& a) override {
    attempts.push_back(a.iteration);
    if (fail_on_attempt) return *fail_on_attempt;
    return ok_status();
  }
  Status on_finish(const OptimizeSummary&) override {
    ++finishes;
    return ok_status();
  }
};

class LoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clear_interrupt_for_tests();
    test::add_host_compiler_rules(runner);
    test::write_text(kernel, test::fake_kernel_source("ms=1.0 l2=50"));
    config.objective = Objective::time;
    config.iterations = 3;
    config.recheck_rounds = 6;
    config.build_jobs = 1;
    config.backend = "fake";
    config.timing.pause_ms = 0;  // the fake's clock cannot cool: no pause to wait (2.7 s a test)
    config.profile = "each";     // the tests below read every candidate's profile; --profile's own tests set it
  }
  void TearDown() override { clear_interrupt_for_tests(); }

  Result<OptimizeSummary> run_new(test::ScriptedProposer& proposer) {
    auto state = open_new_run(config, kernel, run_dir);
    if (!state) return state.error();
    Optimizer o(backend, proposer, runner, std::move(*state), {&observer});
    return o.run();
  }
  Result<OptimizeSummary> resume(test::ScriptedProposer& proposer, const RunConfig& asked,
                                 const std::set<std::string>& given) {
    auto state = open_resumed_run(run_dir, {}, asked, given);
    if (!state) return state.error();
    Optimizer o(backend, proposer, runner, std::move(*state), {&observer});
    return o.run();
  }
  RunHistory recorded() {
    auto h = load_history(run_dir / "history.json");
    EXPECT_TRUE(h) << (h ? "" : h.error().message);
    return h ? *h : RunHistory{};
  }

  test::TempDir dir;
  fs::path kernel = dir / "kern.hip";
  fs::path run_dir = dir / "run";
  test::ScriptedRunner runner;
  test::FakeBackend backend{runner};
  RecordingObserver observer;
  RunConfig config;
};

TEST_F(LoopTest, ASignificantlyFasterCandidateIsBestAndBestHipHoldsItsRegion) {
  test::ScriptedProposer p;
  p.propose("slow", fake_region("ms=2.0 map=rotate"))
      .propose("fast", fake_region("ms=0.5 map=reverse"))
      .propose("same", fake_region("ms=1.0 map=rotate", "return (pid + 0) % num_pids;"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const auto& h = s->history;
  ASSERT_EQ(h.attempts.size(), 3u);
  EXPECT_EQ(h.attempts[0].status, AttemptStatus::ok);
  EXPECT_FALSE(h.attempts[0].significant.has_value()) << "a slower candidate cannot become best: no re-check";
  EXPECT_TRUE(h.attempts[1].significant.value_or(false));
  EXPECT_NEAR(h.attempts[1].speedup.value_or(0), 2.0, 1e-9);
  EXPECT_EQ(h.attempts[2].status, AttemptStatus::duplicate) << "same table as attempt 1";
  ASSERT_NE(h.best(), nullptr);
  EXPECT_EQ(h.best()->label, "fast");
  const auto best = read_file(run_dir / "best.hip");
  ASSERT_TRUE(best);
  EXPECT_NE(best->find("ms=0.5 map=reverse"), std::string::npos);
  EXPECT_EQ(recorded().state, "completed");
  EXPECT_EQ(observer.baselines, 1);
  EXPECT_EQ(observer.finishes, 1);
  EXPECT_EQ(observer.attempts, (std::vector<int>{1, 2, 3}));
}

TEST_F(LoopTest, DuplicatesDoNotCountAgainstTheBudgetAndTheIdentityIsOne) {
  config.iterations = 2;
  test::ScriptedProposer p;
  p.propose("identity again", fake_region("ms=1.0"))
      .propose("a", fake_region("ms=1.0 map=reverse"))
      .propose("a again", fake_region("ms=1.0 map=reverse", "return num_pids - 1 - pid;"))
      .propose("b", fake_region("ms=1.0 map=rotate"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const auto& a = s->history.attempts;
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].status, AttemptStatus::duplicate);
  EXPECT_NE(a[0].reason.find("identity"), std::string::npos);
  EXPECT_EQ(a[2].status, AttemptStatus::duplicate);
  EXPECT_NE(a[2].reason.find("attempt 2"), std::string::npos);
  EXPECT_EQ(a[3].status, AttemptStatus::ok);
  EXPECT_EQ(p.iterations(), (std::vector<int>{1, 2, 3, 4}));
}

// A candidate may carry build defines (a tuning point): the duplicate key is (defines,
// mapping hash on the candidate's grid), the grid is the one its own build reports
// (the fake's GRID_M define), and the defines are recorded. Without defines
// everything is as before.
Proposal loop_point(std::string label, Defines defines, std::string behaviour = "ms=1.0 map=reverse") {
  Proposal q;
  q.label = std::move(label);
  q.region = fake_region(behaviour);
  q.defines = std::move(defines);
  return q;
}

test::ScriptedProposer::Step loop_point_step(Proposal q) {
  return [q](const ProposalContext&) -> Result<Proposal> { return q; };
}

TEST_F(LoopTest, TheDuplicateKeyIsTheDefinesAndTheMappingOnTheCandidatesGrid) {
  config.iterations = 3;
  test::ScriptedProposer p;
  p.propose("a", fake_region("ms=1.0 map=reverse"))
      .step(loop_point_step(loop_point("a, BLOCK_M=64", {{"BLOCK_M", 64}})))
      .step(loop_point_step(loop_point("a, BLOCK_M=64 again", {{"BLOCK_M", 64}})))
      .step(loop_point_step(loop_point("a, BLOCK_M=32", {{"BLOCK_M", 32}, {"GRID_M", 4}, {"GRID_N", 4}})));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const auto& a = s->history.attempts;
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].status, AttemptStatus::ok) << a[0].reason;
  EXPECT_TRUE(a[0].defines.empty());
  EXPECT_FALSE(a[0].program_info) << "a candidate without defines has the program's info";
  EXPECT_EQ(a[1].status, AttemptStatus::ok) << "the same order with other defines is another candidate: " << a[1].reason;
  EXPECT_EQ(a[2].status, AttemptStatus::duplicate);
  EXPECT_NE(a[2].reason.find("attempt 2"), std::string::npos) << a[2].reason;
  EXPECT_EQ(a[3].status, AttemptStatus::ok) << a[3].reason;
  ASSERT_TRUE(a[3].mapping && a[3].mapping->tile_map);
  EXPECT_EQ(a[3].mapping->tile_map->grid_m, 4u) << "checked on the grid its own build reports";
  ASSERT_TRUE(a[3].program_info);
  EXPECT_EQ(a[3].program_info->grid.m, 4u);
  const RunHistory h = recorded();
  ASSERT_EQ(h.attempts.size(), 4u);
  EXPECT_EQ(h.attempts[1].defines, (Defines{{"BLOCK_M", 64}}));
  ASSERT_TRUE(h.attempts[3].program_info);
  EXPECT_EQ(h.attempts[3].program_info->grid.n, 4u) << "the point's grid is in the history";
}

// A point's defines reach its build; it is built before its check, validated against the
// CPU reference (evaluate without compare options) and never compared with the baseline's
// output; a point that fails to build is recorded and the run goes on.
TEST_F(LoopTest, ATuningPointIsBuiltWithItsDefinesAndValidatedAgainstTheReference) {
  test::write_text(kernel, "#ifndef BLOCK_M\n#define BLOCK_M 64  // swizzleperf:tunable 32 64 128\n#endif\n" +
                               test::fake_kernel_source("ms=1.0 l2=50"));
  config.iterations = 4;
  test::ScriptedProposer p;
  p.step(loop_point_step(loop_point("own values", {{"BLOCK_M", 64}}, "ms=1.0 out=diff map=reverse")))
      .step(loop_point_step(loop_point("point", {{"BLOCK_M", 128}, {"GRID_M", 4}, {"FAKE_US", 500}}, "out=diff map=reverse")))
      .step(loop_point_step(loop_point("bad point", {{"BLOCK_M", 0}}, "map=rotate")))
      .step(loop_point_step(loop_point("no launch", {{"BLOCK_M", 32}, {"FAKE_CRASH", 1}}, "map=rotate")));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const auto& a = s->history.attempts;
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[3].status, AttemptStatus::run_failed);
  EXPECT_NE(a[3].reason.find("info mode failed"), std::string::npos) << a[3].reason;
  EXPECT_NE(a[3].reason.find("too many resources"), std::string::npos) << a[3].reason;
  EXPECT_EQ(a[0].status, AttemptStatus::validation_failed)
      << "the program's own values keep the exact output check: " << a[0].reason;
  EXPECT_EQ(a[1].status, AttemptStatus::ok) << a[1].reason;
  EXPECT_EQ(a[1].validation.full_size_output.value_or(""), kPointNotCompared);
  EXPECT_FALSE(a[1].validation.output_hash) << "no digest was judged";
  EXPECT_NEAR(a[1].speedup.value_or(0), 2.0, 1e-9) << "FAKE_US=500 reached the build";
  EXPECT_EQ(a[2].status, AttemptStatus::build_failed);
  EXPECT_NE(a[2].reason.find("BLOCK_M must be positive"), std::string::npos) << a[2].reason;
  EXPECT_FALSE(a[2].mapping) << "a point is built before it is checked";
  // The point's evaluate carried no compare options; the program's own values' did.
  int with_chunks = 0, without = 0;
  for (const auto& run : backend.runs())
    if (!run.empty() && run.front() == "evaluate")
      (std::find(run.begin(), run.end(), "--chunks") != run.end() ? with_chunks : without)++;
  EXPECT_EQ(with_chunks, 1);
  EXPECT_EQ(without, 1);
  // best.hip: the point's region with its value written into the declaration.
  const auto best = read_file(run_dir / "best.hip");
  ASSERT_TRUE(best) << best.error().message;
  EXPECT_NE(best->find("#ifndef BLOCK_M\n#define BLOCK_M 128  // swizzleperf:tunable 32 64 128\n#endif"),
            std::string::npos) << *best;
  EXPECT_NE(best->find("out=diff map=reverse"), std::string::npos);
}

// --profile winner: only the baseline is profiled during the screening, and after the
// judge the winner once; each profiles every candidate.
TEST_F(LoopTest, ProfileWinnerProfilesTheBaselineAndTheWinnerOnly) {
  config.iterations = 3;
  config.profile = "winner";
  auto script = [](test::ScriptedProposer& p) {
    p.propose("slow", fake_region("ms=2.0 map=rotate l2=60"))
        .propose("fast", fake_region("ms=0.5 map=reverse l2=70"))
        .propose("mid", fake_region("ms=0.9 map=swap l2=40"));
  };
  test::ScriptedProposer p;
  script(p);
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(backend.profiles(), 2) << "the baseline and the winner";
  const auto& a = s->history.attempts;
  ASSERT_NE(s->history.best(), nullptr);
  EXPECT_EQ(s->history.best()->label, "fast");
  ASSERT_TRUE(a[1].metrics);
  EXPECT_EQ(a[1].metrics->l2_hit_pct.value_or(0), 70);
  EXPECT_FALSE(a[0].metrics);
  EXPECT_FALSE(a[2].metrics);
  ASSERT_TRUE(recorded().attempts[1].metrics) << "the winner's profile is saved";
  const int before = backend.profiles();
  run_dir = dir / "run-each";
  config.profile = "each";
  test::ScriptedProposer q;
  script(q);
  ASSERT_TRUE(run_new(q));
  EXPECT_EQ(backend.profiles() - before, 4) << "the baseline and every candidate";
}

TEST_F(LoopTest, ProfileAutoIsEachForTheL2ObjectiveElseWinner) {
  config.iterations = 1;
  config.profile = "auto";
  config.objective = Objective::l2;
  test::ScriptedProposer p;
  p.propose("a", fake_region("ms=2.0 map=rotate l2=60"));
  ASSERT_TRUE(run_new(p));
  EXPECT_EQ(backend.profiles(), 2) << "l2 reads every candidate's profile";
  EXPECT_TRUE(profile_each(config, "llm"));
  config.objective = Objective::time;
  EXPECT_TRUE(profile_each(config, "llm"));
  EXPECT_FALSE(profile_each(config, "builtin"));
  config.command = "gate";
  EXPECT_TRUE(profile_each(config, "committed")) << "gate reports its candidate's L2";
  config.command = "optimize";
  config.profile = "each";
  EXPECT_TRUE(profile_each(config, "builtin"));
}

// Ctrl-C in a run of tuning points: the resumed run measures no finished point again (their
// defines are in the history), and a resume from another device's history is refused.
TEST_F(LoopTest, AnInterruptedRunOfPointsResumesWithoutRemeasuringAFinishedPoint) {
  config.iterations = 3;
  test::ScriptedProposer p;
  p.step(loop_point_step(loop_point("p32", {{"BLOCK_M", 32}, {"GRID_M", 4}})))
      .step([](const ProposalContext&) -> Result<Proposal> {
        test::press_ctrl_c();
        return loop_point("p128", {{"BLOCK_M", 128}, {"GRID_M", 16}});
      });
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->interrupted());
  ASSERT_EQ(recorded().attempts.size(), 1u);
  EXPECT_EQ(recorded().attempts[0].defines, (Defines{{"BLOCK_M", 32}, {"GRID_M", 4}}));
  clear_interrupt_for_tests();
  const std::size_t runs_before = backend.runs().size();
  // A proposer that, like a search, skips the points the history holds.
  std::vector<Proposal> points = {loop_point("p32", {{"BLOCK_M", 32}, {"GRID_M", 4}}),
                                  loop_point("p128", {{"BLOCK_M", 128}, {"GRID_M", 16}}),
                                  loop_point("p64", {{"BLOCK_M", 64}, {"GRID_M", 8}}, "ms=0.5 map=rotate")};
  auto next_untried = [points](const ProposalContext& ctx) -> Result<Proposal> {
    for (const auto& q : points) {
      bool tried = false;
      for (const auto& a : ctx.history.attempts) tried = tried || a.defines == q.defines;
      if (!tried) return q;
    }
    return exhausted_error("every point was tried");
  };
  test::ScriptedProposer again;
  again.step(next_untried).step(next_untried).step(next_untried);
  auto r = resume(again, config, {});
  ASSERT_TRUE(r) << r.error().message;
  const auto& a = r->history.attempts;
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[1].label, "p128");
  EXPECT_EQ(a[2].label, "p64");
  int evaluated = 0;
  const auto runs = backend.runs();
  for (std::size_t i = runs_before; i < runs.size(); ++i) evaluated += !runs[i].empty() && runs[i].front() == "evaluate";
  EXPECT_EQ(evaluated, 2) << "the two new points only: p32 was not measured again";
  for (const auto& att : a) EXPECT_EQ(att.status, AttemptStatus::ok) << att.label << ": " << att.reason;
  // Another device's history is refused.
  auto h = recorded();
  h.hardware->name = "Another GPU";
  h.state = "interrupted";
  ASSERT_TRUE(save_history(run_dir / "history.json", h));
  test::ScriptedProposer none;
  auto refused = resume(none, config, {});
  if (refused) {
    ADD_FAILURE() << "a history from another device resumed";
  } else {
    EXPECT_NE(refused.error().message.find("device"), std::string::npos) << refused.error().message;
  }
}

TEST_F(LoopTest, ARejectedRegionIsNeverCompiledAndANonBijectionNeverBuilt) {
  test::ScriptedProposer p;
  p.propose("escape", "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, SwizzleGrid g) { system(\"id\"); return pid; }\n")
      .propose("collide", fake_region("map=collide"))
      .propose("no function", "// just a comment\n");
  const int builds_before = backend.builds();
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const auto& a = s->history.attempts;
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].status, AttemptStatus::rejected_region);
  EXPECT_NE(a[0].reason.find("system"), std::string::npos) << a[0].reason;
  EXPECT_EQ(a[1].status, AttemptStatus::rejected_mapping);
  EXPECT_EQ(a[2].status, AttemptStatus::rejected_region);
  EXPECT_NE(a[2].reason.find("swizzle_pid"), std::string::npos) << a[2].reason;
  EXPECT_EQ(backend.builds() - builds_before, 1) << "only the baseline was built";
  // The host compiler saw only the collide region (and, for the mapping check, its
  // ragged grids): never the rejected one.
  for (const auto& c : runner.calls())
    for (const auto& arg : c.argv) EXPECT_EQ(arg.find("system"), std::string::npos);
}

TEST_F(LoopTest, WrongOutputsAndFailedStagesAreStatusesAndTheRunGoesOn) {
  config.iterations = 5;
  test::ScriptedProposer p;
  p.propose("wrong output", fake_region("map=reverse out=diff"))
      .propose("wrong verify", fake_region("map=rotate verify=bad"))
      .propose("no build", fake_region("map=swap build=fail"))
      .fail("the model answered nothing")
      .propose("no profile", fake_region("map=rotate:2 profile=fail"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const auto& a = s->history.attempts;
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0].status, AttemptStatus::validation_failed);
  EXPECT_EQ(a[1].status, AttemptStatus::validation_failed);
  EXPECT_EQ(a[2].status, AttemptStatus::build_failed);
  EXPECT_EQ(a[3].status, AttemptStatus::proposal_failed);
  EXPECT_EQ(a[3].reason, "the model answered nothing");
  EXPECT_EQ(a[4].status, AttemptStatus::profile_failed);
  EXPECT_EQ(s->history.best(), nullptr);
  // Under time with nothing significantly faster the original kernel is the best kernel.
  EXPECT_EQ(read_file(run_dir / "best.hip").value(), read_file(kernel).value());
}

TEST_F(LoopTest, AFatalProposerErrorStopsTheRunAndTheHistorySaysFailed) {
  test::ScriptedProposer p;
  p.propose("a", fake_region("map=reverse")).fail("API key refused", /*fatal=*/true);
  auto s = run_new(p);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "API key refused");
  const auto h = recorded();
  EXPECT_EQ(h.state, "failed");
  EXPECT_EQ(h.attempts.size(), 1u);
}

TEST_F(LoopTest, AnExhaustedProposerEndsTheRunAndSaysWhy) {
  test::ScriptedProposer p;
  p.propose("a", fake_region("map=reverse"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->end, RunEnd::exhausted);
  EXPECT_EQ(s->history.attempts.size(), 1u);
  EXPECT_NE(recorded().stopped_because.find("scripted proposer has no untried pattern"), std::string::npos);
}

TEST_F(LoopTest, AProposerThatEndsTheRunForItsOwnReasonIsRecordedInItsWords) {
  test::ScriptedProposer p;
  p.propose("a", fake_region("map=reverse")).step([](const ProposalContext&) -> Result<Proposal> {
    return exhausted_error("budget spent", "the search's budget of 1 evaluation is spent");
  });
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->end, RunEnd::exhausted);
  EXPECT_EQ(s->history.attempts.size(), 1u);
  EXPECT_EQ(s->history.stopped_because, "the search's budget of 1 evaluation is spent");
  EXPECT_EQ(recorded().stopped_because, "the search's budget of 1 evaluation is spent");
}

TEST_F(LoopTest, NoProposalAtAllIsUnmeasured) {
  test::ScriptedProposer p;
  p.fail("down").fail("down").fail("still down");
  auto s = run_new(p);
  ASSERT_TRUE(s);
  EXPECT_NE(s->unmeasured().find("all 3 proposal(s) failed"), std::string::npos) << s->unmeasured();
}

TEST_F(LoopTest, InterruptStopsWithoutRecordingTheAttemptAndResumeRedoesIt) {
  test::ScriptedProposer p;
  p.propose("a", fake_region("map=reverse")).propose_then_interrupt("b", fake_region("map=rotate"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->interrupted());
  auto h = recorded();
  EXPECT_EQ(h.state, "interrupted");
  ASSERT_EQ(h.attempts.size(), 1u);
  clear_interrupt_for_tests();
  test::ScriptedProposer again;
  again.propose("b", fake_region("map=rotate")).propose("c", fake_region("ms=0.5 map=rotate", "return (pid + 1) % num_pids;"));
  auto r = resume(again, config, {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(again.iterations().front(), 2) << "the unfinished attempt is redone, the finished one is not";
  EXPECT_EQ(r->history.attempts.size(), 3u);
  EXPECT_EQ(r->history.attempts[2].status, AttemptStatus::duplicate);
  EXPECT_EQ(recorded().state, "completed");
}

TEST_F(LoopTest, UnderL2TheHighestHitRateIsBestEvenWhenSlower) {
  config.objective = Objective::l2;
  test::ScriptedProposer p;
  p.propose("more hits, slower", fake_region("ms=1.5 l2=80 map=reverse"))
      .propose("fewer hits, faster", fake_region("ms=0.5 l2=60 map=rotate"));
  config.iterations = 2;
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_NE(s->history.best(), nullptr);
  EXPECT_EQ(s->history.best()->label, "more hits, slower");
  EXPECT_TRUE(s->history.attempts[0].significant.has_value()) << "it could become best: re-checked";
  EXPECT_TRUE(significantly_slower(s->history.attempts[0]));
}

TEST_F(LoopTest, RecheckOffLeavesTheOneShotSpeedupAndNoBestUnderTime) {
  config.recheck_rounds = 0;
  config.iterations = 1;
  test::ScriptedProposer p;
  p.propose("fast", fake_region("ms=0.5 map=reverse"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const auto& a = s->history.attempts.front();
  EXPECT_NEAR(a.speedup.value_or(0), 2.0, 1e-9);
  EXPECT_FALSE(a.significant.has_value());
  EXPECT_EQ(s->history.best(), nullptr);
}

TEST_F(LoopTest, AnObserverThatCannotWriteStopsTheRun) {
  observer.fail_on_attempt = make_error("cannot write report.html: No space left on device");
  test::ScriptedProposer p;
  p.propose("a", fake_region("map=reverse")).propose("b", fake_region("map=rotate"));
  auto s = run_new(p);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("No space left"), std::string::npos);
  EXPECT_EQ(recorded().state, "failed");
  EXPECT_EQ(recorded().attempts.size(), 1u) << "the attempt itself was saved before the report";
}

TEST_F(LoopTest, ABaselineThatDoesNotBuildStopsTheRunWithItsReason) {
  test::write_text(kernel, test::fake_kernel_source("build=fail"));
  test::ScriptedProposer p;
  auto s = run_new(p);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("the original kernel does not build"), std::string::npos) << s.error().message;
  EXPECT_EQ(recorded().state, "failed");
  EXPECT_EQ(p.asked(), 0);
}

TEST_F(LoopTest, AMissingToolStopsTheRunBeforeItWritesAnything) {
  backend.preflight_ = make_error("ncu not found");
  test::ScriptedProposer p;
  auto s = run_new(p);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "ncu not found");
  EXPECT_FALSE(fs::exists(run_dir));
}

// The resume rules, end to end through the loop.
TEST_F(LoopTest, ResumeRefusesAnotherObjectiveAndAppliesAndRecordsMoreIterations) {
  config.iterations = 2;
  test::ScriptedProposer p;
  p.propose("a", fake_region("map=reverse")).propose("b", fake_region("map=rotate"));
  ASSERT_TRUE(run_new(p));
  // `optimize --resume RUN --objective l2 --iterations 3` after a 2-iteration time run:
  RunConfig asked = config;
  asked.objective = Objective::l2;
  asked.iterations = 3;
  test::ScriptedProposer more;
  more.propose("c", fake_region("ms=0.5 map=swap")).propose("d", fake_region("ms=0.5 map=rotate:3"));
  auto refused = resume(more, asked, {"objective", "iterations"});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--objective l2 on --resume"), std::string::npos) << refused.error().message;
  EXPECT_EQ(more.asked(), 0);
  EXPECT_EQ(recorded().config.objective, Objective::time);
  // Without --objective the budget change is applied and recorded.
  auto r = resume(more, asked, {"iterations"});
  ASSERT_TRUE(r) << r.error().message;
  const auto h = recorded();
  EXPECT_EQ(h.config.objective, Objective::time);
  EXPECT_EQ(h.config.iterations, 3);
  ASSERT_EQ(h.config.changes.size(), 1u);
  EXPECT_EQ(h.config.changes[0].setting, "iterations");
  EXPECT_EQ(h.config.changes[0].from, "2");
  EXPECT_EQ(h.config.changes[0].to, "3");
  EXPECT_EQ(h.config.changes[0].from_iteration, 3);
  EXPECT_EQ(h.attempts.size(), 3u);
}

TEST_F(LoopTest, PrefetchedBuildsGiveTheSameHistoryAsSerialOnes) {
  auto script = [](test::ScriptedProposer& p) {
    p.propose("a", fake_region("ms=0.8 map=reverse")).propose("b", fake_region("ms=0.5 map=rotate"));
  };
  config.iterations = 2;
  test::ScriptedProposer serial;
  script(serial);
  auto s1 = run_new(serial);
  ASSERT_TRUE(s1);
  run_dir = dir / "run-prefetch";
  config.build_jobs = 3;
  test::ScriptedProposer parallel;
  script(parallel);
  auto s2 = run_new(parallel);
  ASSERT_TRUE(s2) << s2.error().message;
  ASSERT_EQ(s1->history.attempts.size(), s2->history.attempts.size());
  for (std::size_t i = 0; i < s1->history.attempts.size(); ++i) {
    EXPECT_EQ(s1->history.attempts[i].status, s2->history.attempts[i].status);
    EXPECT_EQ(s1->history.attempts[i].speedup, s2->history.attempts[i].speedup);
  }
}

// An attempt's re-check as history.json would show it, for failure messages.
std::string loop_recheck_text(const Attempt& a) { return a.recheck ? nlohmann::json(*a.recheck).dump() : "(no re-check)"; }

// ---- power regimes (docs/timing.md) ----------------------------------------------------

TEST_F(LoopTest, RegimeBothRechecksInBurstAndSustainedAndNamesEachNumbersRegime) {
  config.timing.regime = Regime::both;
  test::ScriptedProposer p;
  // Burst 2.0x; sustained 1.0 / 0.8 = 1.25x at a lower clock (by design, not judged); 80 % of the energy.
  p.propose("fast", fake_region("ms=0.5 sms=0.8 sclk=1500 mj=80 map=reverse"));
  config.iterations = 1;
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const Attempt& a = s->history.attempts.at(0);
  EXPECT_EQ(a.speedup_regime, Regime::burst);
  EXPECT_NEAR(a.speedup.value_or(0), 2.0, 1e-9);
  EXPECT_TRUE(a.significant.value_or(false)) << loop_recheck_text(a);
  ASSERT_TRUE(a.recheck && a.recheck->regimes.size() == 2) << loop_recheck_text(a);
  const SpeedComparison& sustained = a.recheck->regimes[1];
  EXPECT_EQ(sustained.regime, Regime::sustained);
  EXPECT_NEAR(sustained.ratio.estimate, 1.25, 1e-9);
  EXPECT_EQ(median_known(sustained.candidate_mhz), 1500);
  EXPECT_TRUE(sustained.trusted) << "sustained clocks differ by design";
  EXPECT_NEAR(a.energy_ratio.value_or(0), 0.8, 1e-9);
  EXPECT_TRUE(a.energy_significant.value_or(false));
  // The one-shot timing was a burst; the baseline's too (the program was asked for it).
  EXPECT_EQ(s->history.baseline->timing->regime, "burst");
  ASSERT_NE(s->history.best(), nullptr);
  // Every time request named a regime and carried its rules.
  EXPECT_EQ(recorded().config.timing.regime, Regime::both);
}

TEST_F(LoopTest, ASustainedLossMeansNoWinnerUnderBoth) {
  config.timing.regime = Regime::both;
  config.iterations = 1;
  test::ScriptedProposer p;
  p.propose("burst-only", fake_region("ms=0.5 sms=1.2 map=reverse"));  // faster in bursts, slower sustained
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const Attempt& a = s->history.attempts.at(0);
  EXPECT_FALSE(a.significant.value_or(true)) << "both regimes must agree";
  EXPECT_EQ(s->history.best(), nullptr);
}

TEST_F(LoopTest, AThrottleOnlyTheCandidateSawNamesNoWinner) {
  config.timing.regime = Regime::burst;
  config.iterations = 1;
  test::ScriptedProposer p;
  p.propose("heated", fake_region("ms=0.5 breasons=32 map=reverse"));  // a thermal slowdown in its runs only
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const Attempt& a = s->history.attempts.at(0);
  EXPECT_FALSE(a.significant.value_or(true));
  ASSERT_TRUE(a.recheck && !a.recheck->untrusted.empty()) << loop_recheck_text(a);
  EXPECT_NE(a.recheck->untrusted.find("sw_thermal_slowdown"), std::string::npos);
  EXPECT_NE(a.recheck->untrusted.find("the candidate's runs only"), std::string::npos);
  EXPECT_EQ(s->history.best(), nullptr);
}

TEST_F(LoopTest, AClockGapBetweenTheOrdersIsNamedNotDoubted) {
  config.timing.regime = Regime::burst;
  config.iterations = 1;
  test::ScriptedProposer p;
  // The candidate runs 14 % below the baseline's clock in every round, under the power cap, and is faster.
  p.propose("hungry", fake_region("ms=0.5 clk=1700 breasons=4 map=reverse"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const Attempt& a = s->history.attempts.at(0);
  EXPECT_TRUE(a.significant.value_or(false)) << loop_recheck_text(a);
  ASSERT_TRUE(a.recheck && a.recheck->first()) << loop_recheck_text(a);
  EXPECT_TRUE(a.recheck->untrusted.empty()) << loop_recheck_text(a);
  const std::string note = a.recheck->first()->clock_note;
  EXPECT_NE(note.find("the baseline runs at 1980 MHz and the candidate at 1700 MHz under the power cap"), std::string::npos) << note;
  EXPECT_NE(note.find("the gain holds at a lower clock"), std::string::npos) << note;
  EXPECT_NE(speed_text(a).find("the gain holds at a lower clock"), std::string::npos) << speed_text(a);
  ASSERT_NE(s->history.best(), nullptr);
  // The judge's record: the finalists, and per regime every member's rounds and the order they ran in.
  ASSERT_TRUE(s->history.judge.has_value());
  const JudgeRecord& j = *s->history.judge;
  ASSERT_EQ(j.finalists.size(), 1u);
  ASSERT_EQ(j.tournaments.size(), 1u);
  ASSERT_GE(j.tournaments[0].members.size(), 2u);
  EXPECT_EQ(j.tournaments[0].members[1].label, "hungry");
  EXPECT_EQ(j.tournaments[0].members[1].mhz.at(0), 1700);
  ASSERT_GE(j.tournaments[0].order.size(), 2u);
  EXPECT_EQ(j.tournaments[0].order[1], (std::vector<int>{1, 0})) << "round 2: the candidate first";
  EXPECT_EQ(s->history.judged_attempts, 1);
}

TEST_F(LoopTest, ARegimeNotReachedNamesNoWinnerAndSaysWhy) {
  config.timing.regime = Regime::sustained;
  config.iterations = 1;
  test::ScriptedProposer p;
  p.propose("hot", fake_region("ms=0.5 sms=0.5 reach=sustained map=reverse"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const Attempt& a = s->history.attempts.at(0);
  EXPECT_EQ(a.speedup_regime, Regime::sustained);
  EXPECT_FALSE(a.significant.value_or(true));
  ASSERT_TRUE(a.recheck.has_value());
  EXPECT_NE(a.recheck->untrusted.find("was not held"), std::string::npos) << loop_recheck_text(a);
}

TEST_F(LoopTest, ObjectiveEnergyRanksByEnergyPerRunMeasuredSustained) {
  config.objective = Objective::energy;
  config.timing.regime = Regime::both;
  config.iterations = 2;
  test::ScriptedProposer p;
  p.propose("fast-hungry", fake_region("ms=0.5 sms=0.6 mj=120 map=reverse"))
      .propose("frugal", fake_region("ms=0.9 sms=0.95 mj=70 map=rotate"));
  auto s = run_new(p);
  ASSERT_TRUE(s) << s.error().message;
  const auto& h = s->history;
  EXPECT_EQ(h.baseline->timing->regime, "sustained") << "energy screens in the sustained regime";
  ASSERT_NE(h.best(), nullptr);
  EXPECT_EQ(h.best()->label, "frugal");
  EXPECT_NEAR(h.best()->energy_ratio.value_or(0), 0.7, 1e-9);
}

}  // namespace
}  // namespace swz
