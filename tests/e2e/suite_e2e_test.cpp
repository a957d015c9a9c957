// End-to-end: `suite` through the real binary and the fake toolchain (tests/fakes):
// a rerun of the same command continues the suite and keeps each kernel's wall time
// summed over the invocations, and --merge keeps the facts its inputs agree on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fixtures.h"
#include "support/timing.h"

namespace swz::test {
namespace {

std::vector<std::string> suite_args(const fs::path& kernel, const fs::path& out) {
  return {"suite", kernel.string(), "--backend", "cuda", "--proposer", "builtin",
          "--nvcc", (fake_dir() / "fake_nvcc").string(), "--ncu", (fake_dir() / "fake_ncu").string(),
          "--iterations", "2", "--reps", "3", "--pause-ms", "0", "--out", out.string()};
}

nlohmann::json suite_summary(const fs::path& dir) {
  return nlohmann::json::parse(read_text(dir / "suite-summary.json"));
}

TEST(SuiteE2E, ARerunKeepsTheWallTimeOfTheEarlierInvocation) {
  TempDir tmp;
  const auto kernel = copy_kernel(tmp, "gemm");
  auto first = run_cli(suite_args(kernel, tmp / "s"), tmp.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto row1 = suite_summary(tmp / "s")["kernels"][0];
  const double w1 = row1["wall_s"].get<double>();
  ASSERT_GT(w1, 0.0);
  // The rerun finds the kernel complete: it adds (almost) nothing, and forgets nothing.
  auto again = run_cli(suite_args(kernel, tmp / "s"), tmp.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto row = suite_summary(tmp / "s")["kernels"][0];
  EXPECT_GE(row["wall_s"].get<double>(), w1);
  EXPECT_LT(row["wall_s"].get<double>(), 2 * w1 + wait_limit(15));  // the rerun adds its own seconds only
  EXPECT_EQ(row["attempts"], row1["attempts"]) << "the rerun repeats no attempt";
}

// Shards of one objective merge with the facts they agree on; shards judged by different
// objectives are refused (the later row of a kernel once won silently).
TEST(SuiteE2E, MergeKeepsTheDeviceAndRefusesOtherObjectives) {
  TempDir tmp;
  const auto kernel = copy_kernel(tmp, "gemm");
  ASSERT_EQ(run_cli(suite_args(kernel, tmp / "a"), tmp.path()).exit_code, 0);
  auto b_args = suite_args(kernel, tmp / "b");
  b_args.insert(b_args.end(), {"--objective", "l2"});
  ASSERT_EQ(run_cli(b_args, tmp.path()).exit_code, 0);
  const std::string device = suite_summary(tmp / "a").value("device", "");
  ASSERT_FALSE(device.empty());
  auto mixed = run_cli({"suite", "--merge", (tmp / "a").string(), (tmp / "b").string(), "--out", (tmp / "mixed").string()},
                       tmp.path());
  EXPECT_EQ(mixed.exit_code, 2) << mixed.out;
  EXPECT_NE(mixed.err.find("swizzleperf: error: " + (tmp / "a").string() + " was run with --objective time but " +
                           (tmp / "b").string() + " with --objective l2"),
            std::string::npos)
      << mixed.err;
  EXPECT_FALSE(fs::exists(tmp / "mixed"));
  auto m = run_cli({"suite", "--merge", (tmp / "a").string(), "--out", (tmp / "all").string()}, tmp.path());
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto j = suite_summary(tmp / "all");
  EXPECT_EQ(j.value("device", ""), device);
  EXPECT_EQ(j.value("objective", ""), "time");
  EXPECT_EQ(j["iterations"], 2);
  EXPECT_NE(read_text(tmp / "all" / "suite-summary.md").find("- device: " + device), std::string::npos);
}

}  // namespace
}  // namespace swz::test
