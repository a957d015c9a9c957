// End-to-end: `swizzleperf gate` through the real binary, its real CUDA backend and
// the fake toolchain. A grouped (Triton-order) region pays in the fake model; made
// slower than the identity (SWZ_FAKE_SLOW_ABOVE_HIT_PCT between the two hit rates)
// the gate fails; an L2 threshold it cannot reach fails it; the identity region
// has nothing to gate; bad input is one error line and exit 2.
#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "support/fixtures.h"

namespace swz::test {
namespace {

constexpr const char* kGrouped =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  if (grid.m * grid.n != num_pids) return pid;\n"
    "  const unsigned G = 8;\n"
    "  const unsigned first_m = pid / (G * grid.n) * G;\n"
    "  const unsigned rem = grid.m - first_m;\n"
    "  const unsigned gs = rem < G ? rem : G;\n"
    "  const unsigned in_group = pid % (G * grid.n);\n"
    "  return (first_m + in_group % gs) * grid.n + in_group / gs;\n"
    "}\n";

fs::path gemm_with(const TempDir& tmp, const std::string& name, const std::string& region) {
  std::string text = read_text(source_dir() / "kernels" / "gemm.hip");
  const auto b = text.find("// swizzleperf:begin\n");
  const auto e = text.find("// swizzleperf:end");
  text = text.substr(0, b + 21) + region + text.substr(e);
  auto dst = tmp / name;
  write_text(dst, text);
  return dst;
}

std::vector<std::string> gate_args(const fs::path& kernel, const fs::path& run_dir, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"gate", kernel.string(), "--backend", "cuda",
                                "--nvcc", (fake_dir() / "fake_nvcc").string(), "--ncu", (fake_dir() / "fake_ncu").string(),
                                "--run-dir", run_dir.string(), "--reps", "3", "--pause-ms", "0", "--json"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(GateE2E, PaysWhenTheCommittedSwizzleIsFasterAndFailsWhenItIsNot) {
  TempDir tmp;
  const auto kernel = gemm_with(tmp, "gemm.hip", kGrouped);
  auto r = run_cli(gate_args(kernel, tmp / "pays", {"--junit", (tmp / "pays.xml").string()}), tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "pays");
  EXPECT_EQ(j["kind"], "gate");
  EXPECT_EQ(j["committed"]["significant"], true);
  EXPECT_GT(j["committed"]["speedup_ci_low"].get<double>(), 1.0);
  EXPECT_NE(r.err.find("PAYS"), std::string::npos) << r.err;
  const auto xml = read_text(tmp / "pays.xml");
  EXPECT_NE(xml.find("failures=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("gemm.hip"), std::string::npos);

  // The same swizzle made slower than the identity: the hit-rate threshold sits
  // between the identity's and the committed kernel's modelled rates.
  const double base_l2 = j["baseline"]["l2_hit_pct"].get<double>();
  const double swz_l2 = j["committed"]["l2_hit_pct"].get<double>();
  ASSERT_GT(swz_l2, base_l2);
  const std::vector<std::string> env = {"SWZ_FAKE_SLOW_ABOVE_HIT_PCT=" + std::to_string((base_l2 + swz_l2) / 2),
                                        "SWZ_FAKE_SLOW_FACTOR=2.5"};
  auto s = run_cli(gate_args(kernel, tmp / "slow", {"--junit", (tmp / "slow.xml").string()}), tmp.path(), env);
  ASSERT_EQ(s.exit_code, 1) << s.out << s.err;
  auto sj = nlohmann::json::parse(s.out);
  EXPECT_EQ(sj["verdict"], "fail");
  EXPECT_LT(sj["committed"]["speedup_ci_high"].get<double>(), 1.0);
  ASSERT_FALSE(sj["reasons"].empty());
  EXPECT_NE(sj["reasons"][0].get<std::string>().find("significantly below --min-speedup"), std::string::npos) << sj.dump(2);
  const auto sxml = read_text(tmp / "slow.xml");
  EXPECT_NE(sxml.find("failures=\"1\""), std::string::npos) << sxml;

  // compare reads gate results: the slow one is a regression against the paying one.
  write_text(tmp / "old.json", r.out);
  write_text(tmp / "new.json", s.out);
  auto c = run_cli({"compare", (tmp / "old.json").string(), (tmp / "new.json").string()}, tmp.path());
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
}

TEST(GateE2E, L2ThresholdIdentityRegionAndBadInput) {
  TempDir tmp;
  const auto kernel = gemm_with(tmp, "gemm.hip", kGrouped);
  auto l2 = run_cli(gate_args(kernel, tmp / "l2", {"--min-l2-gain", "99"}), tmp.path());
  ASSERT_EQ(l2.exit_code, 1) << l2.out << l2.err;
  EXPECT_NE(nlohmann::json::parse(l2.out)["reasons"][0].get<std::string>().find("--min-l2-gain"), std::string::npos);

  const auto identity = gemm_with(tmp, "identity.hip",
                                  "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
                                  "  return pid;\n}\n");
  auto id = run_cli(gate_args(identity, tmp / "id"), tmp.path());
  ASSERT_EQ(id.exit_code, 1) << id.out << id.err;
  EXPECT_NE(id.out.find("no swizzle to gate"), std::string::npos) << id.out;

  auto missing = run_cli({"gate", (tmp / "nope.hip").string()}, tmp.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(std::regex_search(missing.err, std::regex("^swizzleperf: error: .*nope\\.hip")));
  auto rounds = run_cli(gate_args(kernel, tmp / "r", {"--rounds", "3"}), tmp.path());
  EXPECT_EQ(rounds.exit_code, 2);
  EXPECT_NE(rounds.err.find("--rounds"), std::string::npos);
}

}  // namespace
}  // namespace swz::test
