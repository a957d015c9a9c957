// End-to-end: `swizzleperf tune` from the real binary in a temp dir. Every wrong option value
// is one error line and exit 2 before anything runs; a program without tunables is told how
// to declare them; a run through the fake toolchain searches points and orders, records each
// evaluation, prints the fastest point and order and writes its report (tune.md, the --json
// "tune" object), and a resume with a larger budget goes on without measuring an evaluated
// trial again.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/cli_process.h"
#include "support/fixtures.h"
#include "support/timing.h"

namespace swz::test {
namespace {

// kernels/gemm.hip with one declared tunable (one the program does not read: the run's
// wiring is what this checks, whatever a define does to the program).
fs::path tunable_gemm(const TempDir& tmp) {
  const fs::path k = copy_kernel(tmp, "gemm");
  std::string text = read_text(k);
  const std::string after = "#include \"swz_harness.h\"\n";
  const auto at = text.find(after);
  EXPECT_NE(at, std::string::npos);
  text.insert(at + after.size(), "#ifndef SWZ_UNROLL\n#define SWZ_UNROLL 1  // swizzleperf:tunable 1 2 4\n#endif\n");
  write_text(k, text);
  return k;
}

std::vector<std::string> fake_tune_args(const fs::path& kernel, const fs::path& run_dir, int budget) {
  return {"tune", kernel.string(), "--backend", "cuda", "--nvcc", (fake_dir() / "fake_nvcc").string(),
          "--ncu", (fake_dir() / "fake_ncu").string(), "--run-dir", run_dir.string(), "--budget", std::to_string(budget),
          "--reps", "3", "--pause-ms", "0"};
}

nlohmann::json tune_history_json(const fs::path& run) { return nlohmann::json::parse(read_text(run / "history.json")); }

int tune_error_lines(const std::string& err) {
  int n = 0;
  for (auto p = err.find("swizzleperf: error:"); p != std::string::npos; p = err.find("swizzleperf: error:", p + 1)) ++n;
  return n;
}

TEST(TuneE2E, EveryWrongOptionValueIsOneErrorLineAndExitTwo) {
  TempDir tmp;
  const fs::path k = tunable_gemm(tmp);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--strategy", "bayesian"}, "--strategy 'bayesian' is not one of: guided, exhaustive, random"},
      {{"--budget", "0"}, "--budget 0: use 1..10000 (evaluations)"},
      {{"--budget", "10001"}, "--budget 10001: use 1..10000"},
      {{"--budget", "many"}, "--budget"},
      {{"--budget-seconds", "-1"}, "--budget-seconds -1: use more than 0 and at most 604800 seconds, or 0 for no limit"},
      {{"--budget-seconds", "soon"}, "--budget-seconds"},
      {{"--seed", "-5"}, "--seed -5: use 0..2147483647"},
      {{"--seed", "x"}, "--seed"},
      {{"--size", "0,1"}, "--size '0,1'"},
      {{"--regime", "hot"}, "--regime 'hot' is not one of"},
      {{"--rounds", "3"}, "--rounds 3"},
      {{"--iterations", "5"}, "iterations"},      // tune's count is --budget
      {{"--proposer", "llm"}, "proposer"},        // tune is its own proposer
      {{"--objective", "l2"}, "objective"},       // tune ranks by time
  };
  for (const auto& [extra, says] : cases) {
    std::vector<std::string> args = {"tune", k.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args, tmp.path());
    EXPECT_EQ(r.exit_code, 2) << extra.front() << ": " << r.err;
    EXPECT_EQ(tune_error_lines(r.err), 1) << r.err;
    EXPECT_TRUE(has(r.err, says)) << r.err;
    EXPECT_FALSE(fs::exists(tmp / "runs")) << "nothing written for " << extra.front();
  }
  const auto none = run_cli({"tune"}, tmp.path());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(has(none.err, "tune needs a kernel file")) << none.err;
}

TEST(TuneE2E, AProgramWithoutTunablesIsToldHowToDeclareThem) {
  TempDir tmp;
  const fs::path k = copy_kernel(tmp, "gemm");
  const auto r = run_cli({"tune", k.string(), "--backend", "cuda"}, tmp.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(tune_error_lines(r.err), 1) << r.err;
  EXPECT_TRUE(has(r.err, "declares no tunable parameters")) << r.err;
  EXPECT_TRUE(has(r.err, "swizzleperf:tunable")) << r.err;
  EXPECT_TRUE(has(r.err, "docs/kernel-contract.md")) << r.err;
}

TEST(TuneE2E, ARunThroughTheFakeToolchainThenAResumeWithALargerBudget) {
  TempDir tmp;
  const fs::path k = tunable_gemm(tmp);
  const auto r = run_cli(fake_tune_args(k, tmp / "run", 6), tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(has(r.out, "tune: 3 points (1 tunables), 3 in the space")) << r.out;
  EXPECT_TRUE(has(r.out, "tune: 6 evaluations")) << r.out;
  EXPECT_TRUE(has(r.out, "tune: fastest screened: ")) << r.out;
  auto h = tune_history_json(tmp / "run");
  EXPECT_EQ(h["config"]["command"], "tune");
  EXPECT_EQ(h["config"]["proposer"], "tune");
  EXPECT_EQ(h["config"]["tune"]["strategy"], "guided");
  EXPECT_EQ(h["config"]["tune"]["budget"], 6);
  ASSERT_EQ(h["attempts"].size(), 6u);
  std::set<std::string> labels;
  int with_defines = 0;
  for (const auto& a : h["attempts"]) {
    const std::string label = a["label"];
    EXPECT_TRUE(has(label, " @ SWZ_UNROLL=")) << label;
    EXPECT_TRUE(labels.insert(label).second) << "evaluated twice: " << label;
    if (a.contains("defines")) {
      ++with_defines;
      EXPECT_FALSE(has(label, "SWZ_UNROLL=1")) << "the own point carries no defines: " << label;
    }
  }
  EXPECT_GE(with_defines, 1) << "the screening sampled a point other than the program's own";

  // Strategy and seed fix the sequence: a resume may not change them.
  auto changed = fake_tune_args(k, tmp / "run", 6);
  changed.erase(changed.begin() + 1);  // the kernel comes from the history
  changed.insert(changed.end(), {"--resume", (tmp / "run").string(), "--strategy", "random"});
  changed.erase(std::find(changed.begin(), changed.end(), "--run-dir"), std::find(changed.begin(), changed.end(), "--run-dir") + 2);
  const auto refused = run_cli(changed, tmp.path());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(has(refused.err, "--strategy random on --resume")) << refused.err;

  // A larger budget goes on from the recorded trials.
  std::vector<std::string> more = {"tune", "--resume", (tmp / "run").string(), "--budget", "9", "--backend", "cuda",
                                   "--nvcc", (fake_dir() / "fake_nvcc").string(), "--ncu", (fake_dir() / "fake_ncu").string()};
  const auto r2 = run_cli(more, tmp.path());
  ASSERT_EQ(r2.exit_code, 0) << r2.err << r2.out;
  auto h2 = tune_history_json(tmp / "run");
  ASSERT_EQ(h2["attempts"].size(), 9u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(h2["attempts"][i]["label"], h["attempts"][i]["label"]);
    EXPECT_EQ(h2["attempts"][i]["started_at"], h["attempts"][i]["started_at"]) << "attempt " << i << " measured again";
  }
  std::set<std::string> all;
  for (const auto& a : h2["attempts"]) {
    const std::string label = a["label"];
    EXPECT_TRUE(all.insert(label).second) << label;
  }
  EXPECT_EQ(h2["config"]["tune"]["budget"], 9);
  EXPECT_TRUE(has(read_text(tmp / "run" / "tune.md"), "- Evaluations: 9 of a space of 3 points")) << "the resume rewrote the report";

  // optimize does not resume a tune run.
  const auto other = run_cli({"optimize", "--resume", (tmp / "run").string()}, tmp.path());
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_TRUE(has(other.err, "holds a tune run: resume it with 'swizzleperf tune --resume")) << other.err;
}

// The run's report: tune.md in the run dir with the space's table, the same text on stderr
// after the table, and with --json the summary's "tune" object; the line that closes the
// run says the budget ended it.
TEST(TuneE2E, TheReportIsWrittenToTuneMdPrintedAndInTheJsonSummary) {
  TempDir tmp;
  const fs::path k = tunable_gemm(tmp);
  auto args = fake_tune_args(k, tmp / "run", 4);
  args.push_back("--json");
  const auto r = run_cli(args, tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  ASSERT_TRUE(fs::exists(tmp / "run" / "tune.md"));
  const std::string md = read_text(tmp / "run" / "tune.md");
  EXPECT_TRUE(has(md, "## Tune: ")) << md;
  EXPECT_TRUE(has(md, "- Evaluations: 4 of a space of 3 points")) << md;
  EXPECT_TRUE(has(md, "- Pruned before any build: 0 of the 3 points")) << md;
  EXPECT_TRUE(has(md, "- Stopped: the tune budget of 4 evaluations is spent.")) << md;
  EXPECT_TRUE(has(md, "### Best per parameter value")) << md;
  EXPECT_TRUE(has(md, "| SWZ_UNROLL | 4 |")) << md;
  EXPECT_TRUE(has(md, "### Best per order")) << md;
  EXPECT_TRUE(has(md, "\n| SWZ_UNROLL | identity")) << "the space's table, one column per order:\n" << md;
  EXPECT_TRUE(has(md, "\n| 1 (own) |")) << md;
  EXPECT_TRUE(has(r.err, md)) << "the report follows the table on stderr:\n" << r.err;
  EXPECT_TRUE(has(r.err, "tune: 4 evaluations (0 failed) of ")) << r.err;
  EXPECT_TRUE(has(r.err, "; stopped: the tune budget of 4 evaluations is spent")) << r.err;
  EXPECT_LT(r.err.find("tune: 4 evaluations"), r.err.find("## Tune: ")) << r.err;

  const auto j = nlohmann::json::parse(r.out);  // stdout holds the JSON summary alone
  ASSERT_TRUE(j.contains("tune")) << r.out;
  const auto& t = j["tune"];
  EXPECT_EQ(t["tunables"], nlohmann::json::array({"SWZ_UNROLL"}));
  EXPECT_EQ(t["space_size"], 3);
  EXPECT_EQ(t["pruned"], 0);
  EXPECT_EQ(t["evaluations"], 4);
  EXPECT_EQ(t["failed"], 0);
  EXPECT_EQ(t["stopped_because"], "the tune budget of 4 evaluations is spent");
  ASSERT_TRUE(t["best"].is_object()) << t.dump();
  EXPECT_TRUE(t["best"]["point"].contains("SWZ_UNROLL")) << t.dump();
  EXPECT_TRUE(t["best"]["order"].is_string());
  EXPECT_TRUE(t.contains("winner"));
  ASSERT_EQ(t["per_value"].size(), 3u);
  for (const auto& v : t["per_value"]) EXPECT_EQ(v["name"], "SWZ_UNROLL");
  int evaluated = 0;
  for (const auto& o : t["per_order"]) evaluated += o["evaluated"].get<int>();
  EXPECT_EQ(evaluated, 5) << "the baseline and the four evaluations, each under its order";
  EXPECT_TRUE(has(t["orders"][0].get<std::string>(), "identity")) << "the baseline's order first: " << t["orders"];
}

// Ctrl-C mid-search, then --resume: the recorded evaluations stay as they were (but for
// the judge's verdicts, given once the search is over), none is measured again, and the
// search finishes its budget.
TEST(TuneE2E, CtrlCMidSearchThenResumeMeasuresNoTrialAgain) {
  TempDir tmp;
  const fs::path k = tunable_gemm(tmp);
  const fs::path history = tmp / "run" / "history.json";
  const pid_t pid = spawn_cli(fake_tune_args(k, tmp / "run", 8), tmp.path(), {"SWZ_FAKE_SLEEP_MS=150"});
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_limit(45));
  while (attempts_recorded(history) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_GE(attempts_recorded(history), 2) << "the run never recorded two evaluations";
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  const auto before = tune_history_json(tmp / "run");
  const std::size_t cut = before["attempts"].size();
  ASSERT_LT(cut, 8u) << "the search finished before Ctrl-C";
  const auto r = run_cli({"tune", "--resume", (tmp / "run").string(), "--nvcc", (fake_dir() / "fake_nvcc").string(),
                          "--ncu", (fake_dir() / "fake_ncu").string()},
                         tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto after = tune_history_json(tmp / "run");
  EXPECT_EQ(after["state"], "completed");
  ASSERT_EQ(after["attempts"].size(), 8u);
  for (std::size_t i = 0; i < cut; ++i) {
    EXPECT_EQ(after["attempts"][i]["label"], before["attempts"][i]["label"]);
    EXPECT_EQ(after["attempts"][i]["started_at"], before["attempts"][i]["started_at"]) << "evaluation " << i;
    EXPECT_EQ(after["attempts"][i]["timing"], before["attempts"][i]["timing"]) << "evaluation " << i;
  }
  std::set<std::string> labels;
  for (const auto& a : after["attempts"]) {
    const std::string label = a["label"];
    EXPECT_TRUE(labels.insert(label).second) << "measured twice: " << label;
  }
}

}  // namespace
}  // namespace swz::test
