// Tests of the sweep's pure parts: the per-size verdict thresholds and the
// markdown/JSON rendering of a hand-built report.
#include "swizzleperf/loop/sweep.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

SweepPoint point(std::optional<double> base_l2, std::optional<double> cand_l2, std::optional<double> base_ms,
                 std::optional<double> cand_ms) {
  SweepPoint p;
  p.size = {1024, 1024};
  p.grid = {8, 8};
  p.base_l2 = base_l2;
  p.cand_l2 = cand_l2;
  p.base_ms = base_ms;
  p.cand_ms = cand_ms;
  return p;
}

TEST(SweepVerdict, L2Thresholds) {
  EXPECT_EQ(sweep_verdict(point(50.0, 50.5, 1.0, 1.0)), "helps");
  EXPECT_EQ(sweep_verdict(point(50.0, 50.25, 1.0, 1.0)), "no gain");
  EXPECT_EQ(sweep_verdict(point(50.0, 49.75, 1.0, 1.0)), "no gain");
  EXPECT_EQ(sweep_verdict(point(50.0, 49.5, 1.0, 1.0)), "hurts");
  EXPECT_EQ(sweep_verdict(point(50.0, 60.0, std::nullopt, std::nullopt)), "helps");
}

TEST(SweepVerdict, TimeThresholds) {
  EXPECT_EQ(sweep_verdict(point(std::nullopt, std::nullopt, 1.02, 1.0)), "helps");  // 2% faster
  EXPECT_EQ(sweep_verdict(point(std::nullopt, std::nullopt, 1.01, 1.0)), "no gain");
  EXPECT_EQ(sweep_verdict(point(std::nullopt, std::nullopt, 0.99, 1.0)), "no gain");
  EXPECT_EQ(sweep_verdict(point(std::nullopt, std::nullopt, 0.97, 1.0)), "hurts");
  EXPECT_EQ(sweep_verdict(point(std::nullopt, std::nullopt, 1.0, 0.0)), "no gain");  // no division by zero
}

TEST(SweepVerdict, NothingMeasuredIsNoGain) {
  EXPECT_EQ(sweep_verdict(point(std::nullopt, std::nullopt, std::nullopt, std::nullopt)), "no gain");
  EXPECT_EQ(sweep_verdict(point(50.0, std::nullopt, 1.0, std::nullopt)), "no gain");
}

TEST(SweepVerdict, GainOnEitherAxisHelps) {
  // More hits but slower still counts as helping (L2 is checked first).
  EXPECT_EQ(sweep_verdict(point(50.0, 55.0, 1.0, 1.5)), "helps");
  // Same hits but 5% faster helps.
  EXPECT_EQ(sweep_verdict(point(50.0, 50.0, 1.05, 1.0)), "helps");
}

TEST(SweepVerdict, PresetVerdictWins) {
  SweepPoint p = point(50.0, 90.0, 2.0, 1.0);
  p.verdict = "breaks: NOT a bijection";
  EXPECT_EQ(sweep_verdict(p), "breaks: NOT a bijection");
}

SweepReport sample_report() {
  SweepReport r;
  r.kernel = "gemm";
  r.label = "grouped_m(G=8)";
  r.device = "Test GPU";
  r.points.push_back(point(50.0, 60.0, 2.0, 1.6));
  SweepPoint p2 = point(std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  p2.size = {4096, 4096};
  p2.grid = {32, 32};
  p2.verdict = "breaks: the pattern fails verify mode";
  r.points.push_back(p2);
  r.points[0].base_fabric = 1234567;
  r.points[0].cand_fabric = 1000;
  r.conclusion = "The pattern stops helping first at size 4096,4096 (breaks: the pattern fails verify mode).";
  return r;
}

TEST(SweepRender, Markdown) {
  const std::string md = render_sweep_markdown(sample_report());
  EXPECT_EQ(md.rfind("# sweep: gemm with grouped_m(G=8) on Test GPU\n", 0), 0u) << md;
  EXPECT_NE(md.find("| size | grid | L2 % base |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1024,1024 | 8x8 | 50.00 | 60.00 | +10.00 | 2.0000 | 1.6000 | 1.250 | n/a | n/a | n/a | 1.23e+06 | 1e+03 | helps |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 4096,4096 | 32x32 | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | breaks: the pattern fails verify mode |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("\nThe pattern stops helping first at size 4096,4096"), std::string::npos) << md;
  EXPECT_EQ(md.back(), '\n');
}

TEST(SweepVerdict, WithAnIntervalTheObjectiveDecides) {
  SweepPoint p = point(50.0, 60.0, 2.0, 1.98);  // +10 L2 points, 1 % faster
  p.speedup = 1.01;
  p.speedup_ci_low = 0.99;
  p.speedup_ci_high = 1.03;
  p.significant = false;
  p.objective = Objective::time;
  EXPECT_EQ(sweep_verdict(p), "no gain");  // L2 moved, speed did not (significantly)
  p.objective = Objective::l2;
  EXPECT_EQ(sweep_verdict(p), "helps");  // the paper's view: the L2 gain counts
  p.speedup = 0.93;
  p.speedup_ci_low = 0.91;
  p.speedup_ci_high = 0.95;
  p.significant = true;
  EXPECT_EQ(sweep_verdict(p), "hurts");  // significantly slower hurts under either objective
  p.objective = Objective::time;
  EXPECT_EQ(sweep_verdict(p), "hurts");
  p.speedup = 1.05;
  p.speedup_ci_low = 1.02;
  p.speedup_ci_high = 1.07;
  EXPECT_EQ(sweep_verdict(p), "helps");
  const nlohmann::json j = p;
  EXPECT_EQ(j["significant"], true);
  EXPECT_EQ(j["speedup_ci_low"], 1.02);
  EXPECT_EQ(j["objective"], "time");
}

TEST(SweepRender, Json) {
  nlohmann::json j = sample_report();
  EXPECT_EQ(j["kernel"], "gemm");
  EXPECT_EQ(j["pattern"], "grouped_m(G=8)");
  EXPECT_EQ(j["device"], "Test GPU");
  ASSERT_EQ(j["points"].size(), 2u);
  const auto& p = j["points"][0];
  EXPECT_EQ(p["size"], (std::vector<int>{1024, 1024}));
  EXPECT_EQ(p["grid"]["m"], 8);
  EXPECT_EQ(p["verdict"], "helps");  // computed, not stored
  EXPECT_EQ(p["baseline_l2_hit_pct"], 50.0);
  EXPECT_EQ(p["pattern_ms"], 1.6);
  EXPECT_EQ(j["points"][1]["baseline_l2_hit_pct"], nullptr);
  EXPECT_EQ(j["points"][1]["verdict"], "breaks: the pattern fails verify mode");
  EXPECT_NE(j["conclusion"].get<std::string>().find("stops helping"), std::string::npos);
}

}  // namespace
}  // namespace swz
