// report.html from hand-built histories: escaping of LLM-written strings, the
// self-contained page (no script, no network), the plot and map elements.
#include "swizzleperf/report/html_report.h"

#include <gtest/gtest.h>

#include <regex>

#include "swizzleperf/core/tile_map.h"

namespace swz {
namespace {

const std::string kHostile = "<script>alert(1)</script><img src=x onerror=alert(2)>";

Attempt attempt(int it, const std::string& label, AttemptStatus st, std::optional<double> l2, std::optional<double> ms,
                std::optional<double> speedup) {
  Attempt a;
  a.iteration = it;
  a.label = label;
  a.status = st;
  a.proposer = "llm";
  a.region = "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, SwizzleGrid g) { return pid; } // " + label;
  if (l2) {
    Metrics m;
    m.l2_hit_pct = l2;
    a.metrics = m;
  }
  if (ms) a.timing = Timing{*ms, *ms, *ms, 3};
  a.speedup = speedup;
  return a;
}

RunHistory sample() {
  RunHistory h;
  h.kernel_name = "gemm";
  h.kernel_path = "/k/gemm.hip";
  h.state = "completed";
  HardwareProfile hw;
  hw.vendor = "nvidia";
  hw.name = "Test GPU";
  hw.num_dies = 2;
  h.hardware = hw;
  h.program_info = program_info_from_json({{"grid", {{"m", 4}, {"n", 6}}}});
  h.baseline = attempt(0, "identity (original region)", AttemptStatus::ok, 40.0, 2.0, 1.0);
  auto good = attempt(1, kHostile, AttemptStatus::ok, 80.0, 1.8, 2.0 / 1.8);
  std::vector<std::uint32_t> m(24);
  for (unsigned p = 0; p < 24; ++p) m[p] = (p % 2) * 12 + p / 2;
  good.mapping = MappingRecord{};
  good.mapping->tile_map = make_tile_map({4, 6}, m, hw);
  h.attempts.push_back(good);
  auto bad = attempt(2, "grouped", AttemptStatus::validation_failed, std::nullopt, std::nullopt, std::nullopt);
  bad.reason = "full-size output: 12 of 4096 bytes differ & " + kHostile;
  h.attempts.push_back(bad);
  h.attempts.push_back(attempt(3, "dup", AttemptStatus::duplicate, std::nullopt, std::nullopt, std::nullopt));
  return h;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(HtmlReport, HostileStringsAreEscapedEverywhere) {
  const auto html = render_run_html(sample());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_GE(count(html, "&lt;script&gt;alert(1)&lt;/script&gt;"), 3u);  // table, plot tooltip, region, map title
  EXPECT_NE(html.find("12 of 4096 bytes differ &amp; &lt;script&gt;"), std::string::npos);
}

// A reader must be able to weigh the numbers: size, reps, rounds, the interval and
// whether a speedup was re-checked or measured once.
TEST(HtmlReport, SaysSizeRepsRoundsTheIntervalAndWhichSpeedupsWereRechecked) {
  auto h = sample();
  h.config.size = {4096, 32768, 1024};
  h.config.time_reps = 30;
  h.config.warmup = 5;
  h.config.recheck_rounds = 6;
  auto& good = h.attempts.front();
  good.speedup = 1.313;
  good.speedup_ci_low = 1.309;
  good.speedup_ci_high = 1.314;
  good.significant = true;
  SpeedComparison six_rounds;
  six_rounds.ratio = {1.313, 1.309, 1.314, 0.95, 0.97, 6, true};
  good.recheck = Recheck{1.3, "", {six_rounds}, ""};
  auto once = h.attempts.front();
  once.iteration = 4;
  once.label = "one_shot_only";
  once.speedup = 1.02;
  once.speedup_ci_low.reset();
  once.speedup_ci_high.reset();
  once.significant.reset();
  once.recheck.reset();
  h.attempts.push_back(once);
  const auto html = render_run_html(h);
  EXPECT_NE(html.find("problem size 4096,32768,1024"), std::string::npos);
  EXPECT_NE(html.find("30 timed reps per run after 5 warm-up"), std::string::npos);
  EXPECT_NE(html.find("speed re-check 6 interleaved rounds"), std::string::npos);
  EXPECT_NE(html.find("1.313× [1.309, 1.314]"), std::string::npos);
  EXPECT_NE(html.find("re-checked, 6 rounds (significant)"), std::string::npos);
  EXPECT_NE(html.find("1.020× (one-shot)"), std::string::npos);
}

TEST(HtmlReport, SelfContainedNoScriptNoNetwork) {
  const auto html = render_run_html(sample());
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  // The only URL is the SVG namespace name, which is never fetched.
  std::regex url(R"((https?:)?//[A-Za-z0-9.-]+)");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator(); ++it)
    EXPECT_EQ(it->str(), "http://www.w3.org") << "network reference: " << it->str();
  // No attribute that loads anything (the hostile label's "src=x" is escaped text, not an attribute).
  EXPECT_EQ(html.find(" src=\""), std::string::npos);
  EXPECT_EQ(html.find("href=\""), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
}

TEST(HtmlReport, PlotMarksFailuresAndTheMapsShowBothOrders) {
  const auto html = render_run_html(sample());
  EXPECT_EQ(count(html, "<svg"), 2u);  // progression, swizzle map
  EXPECT_NE(html.find(">invalid</text>"), std::string::npos);  // the failed attempt, marked with its status
  EXPECT_NE(html.find(">dup</text>"), std::string::npos);
  EXPECT_NE(html.find("best so far"), std::string::npos);
  EXPECT_NE(html.find("best, iteration 1"), std::string::npos);
  EXPECT_NE(html.find("L2 side 1"), std::string::npos);
  // 4x6 grid, one tile per cell: identity and best, each with a die and an order panel.
  EXPECT_GE(count(html, "fill-opacity"), 4u * 24u);
  EXPECT_NE(html.find("class=\"best\""), std::string::npos);
}

TEST(HtmlReport, NoBestYetAndOldHistoriesStillRender) {
  auto h = sample();
  h.attempts[0].mapping.reset();  // an older history: no tile map
  EXPECT_NE(render_run_html(h).find("not recorded for this attempt"), std::string::npos);
  h.attempts.erase(h.attempts.begin());
  EXPECT_NE(render_run_html(h).find("no validated attempt yet"), std::string::npos);
  RunHistory empty;
  empty.kernel_name = "k";
  const auto html = render_run_html(empty);
  EXPECT_NE(html.find("no swizzle map"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(HtmlReport, SuitePageHasBarsPerKernel) {
  std::vector<SuiteRow> rows(3);
  rows[0].kernel = "gemm";
  rows[0].validated = true;
  rows[0].baseline_l2 = 34.5;
  rows[0].best_l2 = 91.9;
  rows[0].speedup = 1.008;
  rows[1].kernel = "layernorm";
  rows[1].validated = true;
  rows[1].baseline_l2 = 37.0;
  rows[1].best_l2 = 58.5;
  rows[1].speedup = 0.88;
  rows[2].kernel = kHostile;
  rows[2].error = "baseline failed: " + kHostile;
  const auto html = render_suite_html(rows, {{"device", "Test GPU"}, {"date", "2026-11-23"}});
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("<title>best 91.90 %</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>baseline 37.00 %</title>"), std::string::npos);
  EXPECT_NE(html.find("0.880×"), std::string::npos);
  EXPECT_NE(html.find("failed: baseline failed: &lt;script&gt;"), std::string::npos);
}

// x of the first point of the best-so-far line (the green step path), or -1.
double best_line_start_x(const std::string& html) {
  std::smatch m;
  if (!std::regex_search(html, m, std::regex(R"re(<path d="M ([0-9.]+) [0-9.]+[^"]*" fill="none" stroke="#2e7d32")re"))) return -1;
  return std::stod(m[1].str());
}

TEST(HtmlReport, TheBestSoFarLineFollowsTheRunsObjective) {
  auto h = sample();
  h.attempts.clear();
  auto high_l2 = attempt(1, "high-l2", AttemptStatus::ok, 90.0, 1.98, 2.0 / 1.98);  // timed once: not significant
  auto faster = attempt(2, "faster", AttemptStatus::ok, 50.0, 1.6, 1.25);
  faster.significant = true;
  faster.speedup_ci_low = 1.2;
  faster.speedup_ci_high = 1.3;
  h.attempts = {high_l2, faster};
  h.config.objective = Objective::l2;
  const auto l2_html = render_run_html(h);
  h.config.objective = Objective::time;
  const auto time_html = render_run_html(h);
  EXPECT_NE(l2_html.find("best so far (L2 hit rate, then time)"), std::string::npos);
  EXPECT_NE(time_html.find("best so far (largest significant speedup)"), std::string::npos);
  EXPECT_NE(time_html.find("an attempt timed only once is not eligible"), std::string::npos);
  // Under l2 the line starts at iteration 1 (higher hit rate); under time at iteration 2.
  const double l2_x = best_line_start_x(l2_html), time_x = best_line_start_x(time_html);
  ASSERT_GT(l2_x, 0);
  EXPECT_GT(time_x, l2_x);
  h.attempts = {high_l2};  // nothing significant: no best-so-far line under time
  EXPECT_LT(best_line_start_x(render_run_html(h)), 0);
}

}  // namespace

}  // namespace swz
