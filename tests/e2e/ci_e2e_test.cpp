// End-to-end for the CI commands: `check FILE...` with --junit over the shipped
// kernels plus a planted bad one, `compare` on real optimize results with a
// planted slowdown, and report.html rendered by headless Chromium (skipped when
// chromium is absent) with its screenshot decoded.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "support/fixtures.h"
#include "support/junit_reader.h"
#include "support/png_reader.h"
#include "swizzleperf/util/process.h"

namespace swz::test {
namespace {

std::vector<fs::path> shipped_kernels() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(source_dir() / "kernels"))
    if (e.path().extension() == ".hip") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CheckManyE2E, AllKernelsPlusAPlantedBadOneFailAndTheJUnitNamesIt) {
  TempDir tmp;
  auto text = read_text(source_dir() / "kernels" / "gemm.hip");
  text.replace(text.find("  return pid;"), 13, "  return pid / 2;");
  write_text(tmp / "planted_bad.hip", text);
  std::vector<std::string> args{"check", "--arch", "sm_90", "--junit", (tmp / "check.xml").string()};
  const auto kernels = shipped_kernels();
  ASSERT_EQ(kernels.size(), 10u);
  for (const auto& k : kernels) args.push_back(k.string());
  args.push_back((tmp / "planted_bad.hip").string());
  auto r = run_cli(args, tmp.path(), {}, 600);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // One line per kernel, then the count.
  for (const auto& k : kernels) EXPECT_NE(r.out.find("PASS " + k.string() + ": bijection"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL " + (tmp / "planted_bad.hip").string() + ": NOT a bijection"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("11 kernel(s): 10 passed, 1 failed"), std::string::npos) << r.out;
  auto p = parse_junit(read_text(tmp / "check.xml"));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.tests, 11);
  EXPECT_EQ(p.failures, 1);
  int failed = 0;
  for (const auto& c : p.cases) {
    if (!c.failed) continue;
    ++failed;
    EXPECT_EQ(c.name, (tmp / "planted_bad.hip").string());
    EXPECT_NE(c.message.find("NOT a bijection"), std::string::npos) << c.message;
    EXPECT_NE(c.message.find("colliding pids 0,1"), std::string::npos) << c.message;
  }
  EXPECT_EQ(failed, 1);
}

TEST(CheckManyE2E, AllGoodIsZeroAndAnUnreadableFileIsTwoBeforeAnyWork) {
  TempDir tmp;
  const auto gemm = (source_dir() / "kernels" / "gemm.hip").string();
  auto ok = run_cli({"check", gemm, gemm, "--junit", (tmp / "ok.xml").string()}, tmp.path());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto p = parse_junit(read_text(tmp / "ok.xml"));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.failures, 0);
  EXPECT_EQ(p.tests, 2);
  auto missing = run_cli({"check", gemm, (tmp / "nope.hip").string(), "--junit", (tmp / "m.xml").string()}, tmp.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("swizzleperf: error: "), std::string::npos);
  EXPECT_NE(missing.err.find("nope.hip"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.out.find("PASS"), std::string::npos) << "checked before refusing: " << missing.out;
  EXPECT_FALSE(fs::exists(tmp / "m.xml"));
  auto bad_junit = run_cli({"check", gemm, "--junit", (tmp / "no" / "dir" / "x.xml").string()}, tmp.path());
  EXPECT_EQ(bad_junit.exit_code, 2);
  EXPECT_NE(bad_junit.err.find("--junit"), std::string::npos) << bad_junit.err;
}

TEST(CompareE2E, PlantedFivePercentSlowdownFailsAndPassesAtTenPercent) {
  TempDir tmp;
  auto kernel = copy_kernel(tmp, "gemm");
  auto args = fake_optimize_args(kernel, tmp / "run", 2);
  args.push_back("--json");
  auto run = run_cli(args, tmp.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  write_text(tmp / "old.json", run.out);
  auto j = nlohmann::json::parse(run.out);
  ASSERT_TRUE(j.contains("best")) << run.out;
  const double old_ms = j["best"]["median_ms"].get<double>();
  j["best"]["median_ms"] = old_ms * 1.05;
  j["best"]["speedup"] = j["baseline"]["median_ms"].get<double>() / (old_ms * 1.05);
  write_text(tmp / "new.json", j.dump(2));
  auto r = run_cli({"compare", (tmp / "old.json").string(), (tmp / "new.json").string(), "--junit", (tmp / "cmp.xml").string()},
                   tmp.path());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("1 regression(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| gemm |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best 5.0 % slower"), std::string::npos) << r.out;
  auto p = parse_junit(read_text(tmp / "cmp.xml"));
  ASSERT_TRUE(p.ok) << p.error;
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].name, "gemm");
  EXPECT_TRUE(p.cases[0].failed);
  auto loose = run_cli({"compare", (tmp / "old.json").string(), (tmp / "new.json").string(), "--max-slowdown", "0.10"}, tmp.path());
  EXPECT_EQ(loose.exit_code, 0) << loose.out << loose.err;
  EXPECT_NE(loose.out.find("no regression in 1 kernel(s) compared"), std::string::npos) << loose.out;
  // The run directory itself is a result too (read from its history).
  auto same = run_cli({"compare", (tmp / "run").string(), (tmp / "old.json").string()}, tmp.path());
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  // Bad input: one line, exit 2.
  write_text(tmp / "foreign.json", "{\"hello\": 1}");
  auto bad = run_cli({"compare", (tmp / "old.json").string(), (tmp / "foreign.json").string()}, tmp.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("swizzleperf: error: "), std::string::npos);
  EXPECT_NE(bad.err.find("is not a swizzleperf result"), std::string::npos) << bad.err;
  auto one = run_cli({"compare", (tmp / "old.json").string()}, tmp.path());
  EXPECT_EQ(one.exit_code, 2);
  auto neg = run_cli({"compare", (tmp / "old.json").string(), (tmp / "new.json").string(), "--max-slowdown", "-1"}, tmp.path());
  EXPECT_EQ(neg.exit_code, 2);
}

// Headless Chromium through the project's process runner: a screenshot and the DOM.
struct Rendered {
  bool ran = false;
  std::string why;
  std::string dom, log;
};

Rendered render(const fs::path& html, const fs::path& png, const fs::path& profile) {
  Rendered out;
  const std::vector<std::string> common = {"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                           "--enable-logging=stderr", "--v=0", "--user-data-dir=" + profile.string()};
  RealProcessRunner runner;
  ProcessSpec shot;
  shot.argv = common;
  shot.argv.insert(shot.argv.end(), {"--screenshot=" + png.string(), "--window-size=1280,2000", "file://" + html.string()});
  shot.timeout = std::chrono::seconds(180);
  auto a = runner.run(shot);
  ProcessSpec dom;
  dom.argv = common;
  dom.argv.insert(dom.argv.end(), {"--dump-dom", "file://" + html.string()});
  dom.timeout = std::chrono::seconds(180);
  auto b = runner.run(dom);
  out.ran = a.success() && b.success();
  out.why = "screenshot: " + a.describe() + ", dump-dom: " + b.describe() + "\n" + a.err + b.err;
  out.dom = b.out;
  out.log = a.err + b.err;
  return out;
}

TEST(HtmlReportE2E, OptimizeWritesAReportChromiumRendersWithoutErrors) {
  TempDir tmp;
  auto kernel = copy_kernel(tmp, "gemm");
  auto r = run_cli(fake_optimize_args(kernel, tmp / "run", 4), tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto html_path = tmp / "run" / "report.html";
  ASSERT_TRUE(fs::exists(html_path));
  // A hostile label (as an LLM could write) planted in the history; resuming the
  // finished run rewrites the report from it.
  auto h = nlohmann::json::parse(read_text(tmp / "run" / "history.json"));
  ASSERT_GE(h["attempts"].size(), 2u);
  const std::string hostile = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>";
  h["attempts"][1]["label"] = hostile;
  h["attempts"][1]["reason"] = hostile;
  write_text(tmp / "run" / "history.json", h.dump(2));
  auto resumed = run_cli({"optimize", "--resume", (tmp / "run").string(), "--nvcc", (fake_dir() / "fake_nvcc").string(), "--ncu",
                          (fake_dir() / "fake_ncu").string(), "--reps", "3"},
                         tmp.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto html = read_text(html_path);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;document.title"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  if (!have_tool("chromium")) GTEST_SKIP() << "chromium is not installed (.ci/install-deps installs it)";
  const auto png = tmp / "report.png";
  auto out = render(html_path, png, tmp / "chromium-profile");
  ASSERT_TRUE(out.ran) << out.why;
  // No console errors, no blocked script or resource.
  for (const char* bad : {"Uncaught", "CONSOLE", "Refused to", "Failed to load", "ERR_"})
    EXPECT_EQ(out.log.find(bad), std::string::npos) << bad << " in Chromium's log:\n" << out.log;
  // The DOM Chromium built: both SVGs, the escaped label as text, no injected element.
  EXPECT_NE(out.dom.find("aria-label=\"progression plot\""), std::string::npos);
  EXPECT_NE(out.dom.find("aria-label=\"swizzle maps\""), std::string::npos);
  EXPECT_EQ(out.dom.find("<script"), std::string::npos);
  EXPECT_EQ(out.dom.find("<img"), std::string::npos);
  EXPECT_NE(out.dom.find("<title>swizzleperf: gemm</title>"), std::string::npos);
  auto stats = png_stats(png);
  ASSERT_TRUE(stats.ok) << stats.error;
  EXPECT_EQ(stats.width, 1280u);
  EXPECT_GT(stats.distinct_colours, 50u) << "the screenshot looks blank";
  EXPECT_GT(stats.non_background, 0.05) << "the screenshot is nearly all background";
  if (const char* keep = std::getenv("SWZ_KEEP_SCREENSHOT")) fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace swz::test
