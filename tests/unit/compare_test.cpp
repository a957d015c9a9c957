// Results loading (optimize --json, suite summaries, gate-shaped objects) and
// the kernel-by-kernel comparison with its Markdown and JUnit renderings.
#include "swizzleperf/report/compare.h"
#include "swizzleperf/report/results.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "support/junit_reader.h"

namespace swz {
namespace {

nlohmann::json optimize_json(double base_ms, double best_ms, double best_l2) {
  return {{"kernel", "/work/kernels/gemm.hip"}, {"state", "completed"}, {"device", "Test GPU"},
          {"baseline", {{"iteration", 0}, {"label", "identity"}, {"status", "ok"}, {"l2_hit_pct", 34.5}, {"median_ms", base_ms}, {"speedup", 1.0}}},
          {"best", {{"iteration", 2}, {"label", "grouped"}, {"status", "ok"}, {"l2_hit_pct", best_l2}, {"median_ms", best_ms}, {"speedup", base_ms / best_ms}}}};
}

nlohmann::json suite_json() {
  return {{"device", "Test GPU"},
          {"kernels",
           {{{"kernel", "gemm"}, {"validated", true}, {"baseline_l2_hit_pct", 34.5}, {"best_l2_hit_pct", 92.0}, {"baseline_ms", 6.6},
             {"best_ms", 6.5}, {"speedup", 6.6 / 6.5}, {"best_pattern", "grouped"}},
            {{"kernel", "softmax"}, {"validated", false}, {"error", "baseline failed"}, {"baseline_l2_hit_pct", nullptr}}}}};
}

ResultSet load(const nlohmann::json& j) {
  auto r = results_from_json(j, "x.json");
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : ResultSet{};
}

TEST(Results, OptimizeSuiteAndGateShapes) {
  auto o = load(optimize_json(6.6, 6.5, 92.0));
  EXPECT_EQ(o.kind, "optimize");
  ASSERT_EQ(o.kernels.size(), 1u);
  EXPECT_EQ(o.kernels[0].kernel, "gemm");
  EXPECT_TRUE(o.kernels[0].validated);
  EXPECT_DOUBLE_EQ(*o.kernels[0].best_ms, 6.5);
  EXPECT_FALSE(o.kernels[0].speedup_ci_low.has_value());
  auto s = load(suite_json());
  EXPECT_EQ(s.kind, "suite");
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_FALSE(s.kernels[1].validated);
  EXPECT_EQ(s.kernels[1].error, "baseline failed");
  nlohmann::json gate = {{"kernel", "kernels/gemm.hip"}, {"baseline", {{"l2_hit_pct", 30.0}, {"median_ms", 1.0}}},
                         {"committed", {{"l2_hit_pct", 60.0}, {"median_ms", 0.8}, {"speedup", 1.25}, {"speedup_ci_low", 1.2},
                                        {"speedup_ci_high", 1.3}, {"significant", true}}},
                         {"objective", "time"}};
  auto g = load(gate);
  EXPECT_EQ(g.kind, "gate");
  EXPECT_DOUBLE_EQ(*g.kernels[0].speedup_ci_low, 1.2);
  EXPECT_TRUE(*g.kernels[0].significant);
  EXPECT_EQ(g.kernels[0].objective, "time");
}

TEST(Results, ForeignFilesAreRefusedWithTheAcceptedShapes) {
  for (const auto& j : {nlohmann::json{{"hello", 1}}, nlohmann::json::array(), nlohmann::json{{"kernels", {{{"x", 1}}}}}}) {
    auto r = results_from_json(j, "foreign.json");
    ASSERT_FALSE(r) << j.dump();
    EXPECT_NE(r.error().message.find("foreign.json is not a swizzleperf result"), std::string::npos);
  }
  test::TempDir tmp;
  test::write_text(tmp / "bad.json", "{not json");
  auto r = load_results(tmp / "bad.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not valid JSON"), std::string::npos);
  EXPECT_FALSE(load_results(tmp / "missing.json"));
  EXPECT_FALSE(load_results(tmp.path()));  // a dir with neither summary nor history
}

TEST(Compare, PlantedSlowdownIsARegressionUnlessTheLimitAllowsIt) {
  const auto old_set = load(optimize_json(6.6, 6.5, 92.0));
  const auto new_set = load(optimize_json(6.6, 6.5 * 1.05, 92.0));
  auto c = compare_results(old_set, new_set, {0.03, 1.0});
  EXPECT_EQ(c.regressions(), 1);
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].time_basis, "best_ms");
  EXPECT_NEAR(*c.kernels[0].slowdown, 0.05, 1e-9);
  const auto md = render_compare_markdown(c);
  EXPECT_NE(md.find("1 regression(s) in 1 kernel(s)"), std::string::npos) << md;
  EXPECT_NE(md.find("**+5.0 %**"), std::string::npos) << md;
  EXPECT_NE(md.find("best 5.0 % slower"), std::string::npos) << md;
  EXPECT_EQ(compare_results(old_set, new_set, {0.10, 1.0}).regressions(), 0);
  // Faster is never a regression.
  EXPECT_EQ(compare_results(new_set, old_set, {0.0, 1.0}).regressions(), 0);
}

TEST(Compare, L2DropLostValidationAndKernelsOnOneSide) {
  const auto old_set = load(suite_json());
  auto j = suite_json();
  j["kernels"][0]["best_l2_hit_pct"] = 88.0;  // 4 points lower, same time
  j["kernels"][1]["kernel"] = "spmv";          // softmax gone, spmv new
  auto c = compare_results(old_set, load(j), {0.03, 1.0});
  EXPECT_EQ(c.regressions(), 1);
  EXPECT_NEAR(*c.kernels[0].l2_delta, -4.0, 1e-9);
  EXPECT_EQ(c.kernels[1].verdict, CompareVerdict::only_old);
  EXPECT_EQ(c.kernels[2].verdict, CompareVerdict::only_new);
  EXPECT_EQ(compare_results(old_set, load(j), {0.03, 5.0}).regressions(), 0);
  const auto md = render_compare_markdown(c);
  EXPECT_NE(md.find("only in OLD (not compared)"), std::string::npos);
  EXPECT_NE(md.find("2 kernel(s) appear in only one file: listed, not compared, not failures."), std::string::npos);
  // OLD validated, NEW not: a regression.
  auto lost = suite_json();
  lost["kernels"][0]["validated"] = false;
  lost["kernels"][0]["error"] = "build failed";
  auto c2 = compare_results(old_set, load(lost), {0.03, 1.0});
  EXPECT_EQ(c2.regressions(), 1);
  EXPECT_EQ(c2.kernels[0].reasons.at(0), "NEW has no validated kernel: build failed");
}

TEST(Compare, StatisticsColumnsOnlyWhenPresentAndJUnitParses) {
  const auto old_set = load(optimize_json(6.6, 6.5, 92.0));
  auto j = optimize_json(6.6, 6.5 * 1.05, 92.0);
  EXPECT_EQ(render_compare_markdown(compare_results(old_set, load(j), {})).find("95 % CI"), std::string::npos);
  j["best"]["speedup_ci_low"] = 0.95;
  j["best"]["speedup_ci_high"] = 0.99;
  j["best"]["significant"] = false;
  j["kernel"] = "kernels/ge|mm<b>.hip";  // a hostile name cannot break the table
  auto old2 = optimize_json(6.6, 6.5, 92.0);
  old2["kernel"] = j["kernel"];
  const auto c = compare_results(load(old2), load(j), {});
  const auto md = render_compare_markdown(c);
  EXPECT_NE(md.find("[0.950, 0.990]"), std::string::npos) << md;
  EXPECT_NE(md.find("| no |"), std::string::npos) << md;
  EXPECT_NE(md.find("ge\\|mm&lt;b&gt;"), std::string::npos) << md;
  auto p = test::parse_junit(render_junit(compare_junit(c)));
  ASSERT_TRUE(p.ok) << p.error;
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].name, "ge|mm<b>");
  EXPECT_TRUE(p.cases[0].failed);
  EXPECT_NE(p.cases[0].message.find("5.0 % slower"), std::string::npos);
}

TEST(CompareRegimes, NumbersOfDifferentPowerRegimesAreRefused) {
  ResultSet a, b;
  KernelResult k;
  k.kernel = "gemm_tc";
  k.validated = true;
  k.speedup = 1.30;
  k.regime = "burst";
  a.kernels.push_back(k);
  k.speedup = 1.22;
  k.regime = "sustained";
  b.kernels.push_back(k);
  auto st = check_same_regimes(a, b);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("gemm_tc: OLD's speedup was measured in the burst regime, NEW's in the sustained regime"),
            std::string::npos) << st.error().message;
  b.kernels.front().regime = "burst";
  EXPECT_TRUE(check_same_regimes(a, b));
  b.kernels.front().regime = "";  // a result from before regimes
  EXPECT_FALSE(check_same_regimes(a, b));
  // A results file names the regime of its best: read back from --json's brief.
  auto set = results_from_json(nlohmann::json{{"kernel", "kernels/tc/gemm_tc.hip"},
                                              {"baseline", {{"median_ms", 1.0}}},
                                              {"best", {{"label", "g"}, {"speedup", 1.3}, {"speedup_regime", "burst"}}}},
                               "r.json");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->kernels.at(0).regime, "burst");
}

// A hand-edited or corrupt result once compared as "no regression" against a time of -1 ms:
// an impossible number is refused with its file, kernel and field.
TEST(Results, ImpossibleFieldsAreRefusedNamingTheField) {
  struct Case {
    nlohmann::json j;
    std::string part;
  };
  auto with = [](const char* brief, const char* key, nlohmann::json v) {
    auto j = optimize_json(6.6, 6.5, 92.0);
    j[brief][key] = std::move(v);
    return j;
  };
  auto suite = [](const char* key, nlohmann::json v) {
    auto j = suite_json();
    j["kernels"][0][key] = std::move(v);
    return j;
  };
  const std::vector<Case> cases = {
      {with("best", "median_ms", -1), "x.json: kernel gemm: best.median_ms is -1: a time is a positive number of milliseconds"},
      {with("baseline", "median_ms", 0), "baseline.median_ms is 0: a time is a positive"},
      {with("best", "speedup", "fast"), "best.speedup is \"fast\": a speedup is a positive number"},
      {with("best", "l2_hit_pct", 1e308), "best.l2_hit_pct is 1e+308: an L2 hit rate is a percentage from 0 to 100"},
      {with("baseline", "l2_hit_pct", -5), "baseline.l2_hit_pct is -5"},
      {with("best", "speedup_ci_low", -0.5), "best.speedup_ci_low is -0.5"},
      {with("best", "significant", "yes"), "best.significant is \"yes\": it must be true or false"},
      {suite("best_ms", -2.0), "x.json: kernel gemm: best_ms is -2.0"},
      {suite("baseline_l2_hit_pct", 101), "baseline_l2_hit_pct is 101"},
  };
  for (const auto& c : cases) {
    auto r = results_from_json(c.j, "x.json");
    ASSERT_FALSE(r) << c.j.dump();
    EXPECT_NE(r.error().message.find(c.part), std::string::npos) << r.error().message;
  }
  // null (a writer's "not measured") and the edges of each range are possible.
  auto ok = optimize_json(6.6, 6.5, 100.0);
  ok["baseline"]["l2_hit_pct"] = 0.0;
  ok["best"]["speedup_ci_low"] = nullptr;
  EXPECT_TRUE(results_from_json(ok, "x.json")) << ok.dump();
}

}  // namespace
}  // namespace swz
