// Tests of the built-in proposer: the best-first seed order per hardware and
// grid, that every rendered family is a bijection on ragged grids (checked with
// the real host compiler under an 8-die and a 2-partition profile), and the
// reflection over the history: skip broken families, refine around the best
// parameter, report "exhausted" when nothing is left; with the locality model, the
// candidates proposed best-predicted first.
#include "swizzleperf/proposer/builtin_proposer.h"

#include <gtest/gtest.h>

#include "support/builders.h"

#include <algorithm>
#include <functional>
#include <future>
#include <set>

#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/proposer/family_order.h"
#include "support/fixtures.h"
#include "support/footprint_builders.h"

namespace swz {
namespace {

HardwareProfile gfx942() {
  auto h = profile_from_arch("gfx942");
  EXPECT_TRUE(h);
  return *h;
}

HardwareProfile sm90() {
  auto h = profile_from_arch("sm_90");
  EXPECT_TRUE(h);
  return *h;
}

std::vector<std::string> families(const std::vector<FamilyCandidate>& v) {
  std::vector<std::string> out;
  for (const auto& c : v) out.push_back(c.family);
  return out;
}

std::vector<int> topo_table(std::size_t n = 132) {
  std::vector<int> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<int>((i / 2) % 2 ^ (i % 7 == 0));
  return t;
}

// ---- seed order ------------------------------------------------------------------

TEST(BuiltinSeedOrder, DocumentedDiesStartWithDieRoundRobin) {
  const auto order = BuiltinProposer::seed_order(gfx942(), {32, 256});
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.front().family, "die_rr");
  EXPECT_EQ(families(order), (std::vector<std::string>{"die_rr", "grouped_m_die", "grouped_m", "die_chunk", "grouped_n"}));
  for (const auto& c : order) {
    const auto params = BuiltinProposer::params_of(c.family);
    ASSERT_FALSE(params.empty()) << c.family;
    EXPECT_EQ(c.param, params.front()) << c.family;  // seeds are each family's first member
  }
}

TEST(BuiltinSeedOrder, AssumedDispatchStartsWithGroupedM) {
  const auto order = BuiltinProposer::seed_order(sm90(), {32, 256});
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.front().family, "grouped_m");
  EXPECT_EQ(families(order), (std::vector<std::string>{"grouped_m", "grouped_m_die", "grouped_n", "die_rr", "die_chunk"}));
}

TEST(BuiltinSeedOrder, SingleDieHasNoDieFamilies) {
  auto h = profile_from_arch("gfx90a");
  ASSERT_TRUE(h);
  EXPECT_EQ(families(BuiltinProposer::seed_order(*h, {32, 32})), (std::vector<std::string>{"grouped_m", "grouped_n"}));
}

TEST(BuiltinSeedOrder, OneDimensionalGrid) {
  EXPECT_EQ(families(BuiltinProposer::seed_order(gfx942(), {1, 4096})), (std::vector<std::string>{"die_rr", "die_chunk"}));
  EXPECT_EQ(families(BuiltinProposer::seed_order(sm90(), {1, 4096})), (std::vector<std::string>{"die_rr", "die_chunk"}));
  auto single = profile_from_arch("gfx90a");
  ASSERT_TRUE(single);
  EXPECT_TRUE(BuiltinProposer::seed_order(*single, {1, 4096}).empty());
  EXPECT_TRUE(BuiltinProposer::seed_order(*single, {4096, 1}).empty());
}

TEST(BuiltinSeedOrder, MeasuredNvidiaTableOffersTopoGroupWithTheTable) {
  HardwareProfile h = sm90();
  h.dispatch = DispatchModel{"table", topo_table(), "measured", "probe"};
  const auto order = BuiltinProposer::seed_order(h, {32, 256});
  const auto fams = families(order);
  ASSERT_NE(std::find(fams.begin(), fams.end(), "topo_group"), fams.end());
  for (const auto& c : order)
    if (c.family == "topo_group") EXPECT_EQ(c.table, topo_table());
}

TEST(BuiltinFamily, Labels) {
  EXPECT_EQ((FamilyCandidate{"die_rr", 0}.label()), "die_rr");
  EXPECT_EQ((FamilyCandidate{"die_chunk", 4}.label()), "die_chunk(C=4)");
  EXPECT_EQ((FamilyCandidate{"grouped_m", 8}.label()), "grouped_m(G=8)");
  EXPECT_EQ((FamilyCandidate{"grouped_m_die", 16}.label()), "grouped_m_die(G=16)");
}

TEST(BuiltinFamily, RenderedRegionsAreValidRegions) {
  for (const std::string f : {"die_rr", "die_chunk", "grouped_m", "grouped_n", "grouped_m_die", "topo_group"}) {
    FamilyCandidate c{f, BuiltinProposer::params_of(f).front()};
    if (f == "topo_group") c.table = topo_table();
    const std::string region = render_family(c);
    EXPECT_TRUE(validate_region(region)) << f;
    EXPECT_NE(region.find(c.label()), std::string::npos) << f;
  }
}

// ---- every family is a bijection ---------------------------------------------------

struct CheckCase {
  FamilyCandidate candidate;
  HardwareProfile hw;
  std::string name;
};

TEST(BuiltinFamilyBijection, EveryFamilyOnRaggedGridsUnderBothProfiles) {
  if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
  std::vector<TileGrid> grids;
  auto add = [&](TileGrid g) {
    for (const auto& x : grids)
      if (x.m == g.m && x.n == g.n) return;
    grids.push_back(g);
  };
  for (TileGrid main : {TileGrid{32, 256}, TileGrid{7, 5}, TileGrid{1, 13}})
    for (const auto& g : ragged_grids(main)) add(g);

  // Every member of every family.
  std::vector<FamilyCandidate> candidates;
  for (const std::string f : {"die_rr", "die_chunk", "grouped_m", "grouped_n", "grouped_m_die", "topo_group"})
    for (int p : BuiltinProposer::params_of(f)) candidates.push_back({f, p, f == "topo_group" ? topo_table() : std::vector<int>{}});
  ASSERT_EQ(candidates.size(), 29u);
  std::vector<CheckCase> cases;
  for (const auto& c : candidates) {
    cases.push_back({c, gfx942(), "gfx942 " + c.label()});
    cases.push_back({c, sm90(), "sm_90 " + c.label()});
  }

  test::TempDir dir;
  // Two workers, each with its own work dir, to keep the wall time down.
  auto worker = [&](int w) {
    std::vector<std::string> failures;
    RealProcessRunner runner;
    MappingCheckOptions opts;
    opts.work_dir = dir / ("w" + std::to_string(w));
    opts.timeout = std::chrono::seconds(60);
    for (std::size_t i = w; i < cases.size(); i += 2) {
      const auto& cc = cases[i];
      auto r = check_mapping(render_family(cc.candidate), grids, cc.hw, opts, runner);
      if (!r) failures.push_back(cc.name + ": " + r.error().message);
      else if (!r->ok) failures.push_back(cc.name + ": " + r->summary());
      else if (r->grids.size() != grids.size()) failures.push_back(cc.name + ": not every grid checked");
    }
    return failures;
  };
  auto f0 = std::async(std::launch::async, worker, 0);
  auto f1 = std::async(std::launch::async, worker, 1);
  for (auto* f : {&f0, &f1})
    for (const auto& msg : f->get()) ADD_FAILURE() << msg;
}

// ---- the Python (Triton) forms: the same orders as the C++ ones -----------------------

std::vector<FamilyCandidate> python_families() {
  std::vector<FamilyCandidate> out;
  for (const std::string f : {"die_rr", "die_chunk", "grouped_m", "grouped_n", "grouped_m_die", "col_major", "longest_first"})
    for (int p : BuiltinProposer::params_of(f)) out.push_back({f, p});
  FamilyCandidate gqa{"gqa_group", 0};
  gqa.n_group = 4;
  gqa.n_stride = 2;
  out.push_back(gqa);
  return out;
}

TEST(BuiltinFamilyPython, RenderedRegionsPassThePythonValidatorAndItsTranslation) {
  for (const auto& c : python_families()) {
    const std::string region = render_family(c, RegionLanguage::python);
    RegionVerdict verdict;
    auto valid = ValidRegion::make(region, RegionLanguage::python, &verdict);
    EXPECT_TRUE(valid) << c.label() << ": " << (valid ? "" : valid.error().message) << "\n" << region;
    EXPECT_NE(region.find("@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):"), std::string::npos) << c.label();
    EXPECT_NE(region.find(c.label()), std::string::npos) << c.label();
  }
}

// One evaluator, two front ends: on every grid, a family's Python form (translated to the
// C++ subset with Triton's int32 rules) maps every pid exactly where its C++ form does.
TEST(BuiltinFamilyPython, EveryFamilyMapsLikeItsCppFormOnRaggedGrids) {
  if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
  const std::vector<TileGrid> grids = {{32, 256}, {7, 5}, {1, 13}, {13, 1}, {9, 16}, {3, 8}};
  test::TempDir dir;
  RealProcessRunner runner;
  MappingCheckOptions opts;
  opts.work_dir = dir / "w";
  opts.timeout = std::chrono::seconds(60);
  opts.keep_every_mapping = true;  // all grids in one evaluation of each form (one compile each)
  for (const auto& c : python_families()) {
    auto cpp = check_mapping(render_family(c, RegionLanguage::cpp), grids, sm90(), opts, runner);
    auto py = check_mapping(render_family(c, RegionLanguage::python), grids, sm90(), opts, runner, RegionLanguage::python);
    ASSERT_TRUE(cpp && py) << c.label();
    ASSERT_EQ(cpp->grids.size(), grids.size()) << c.label() << ": " << cpp->summary();
    ASSERT_EQ(py->grids.size(), grids.size()) << c.label() << ": " << py->summary();
    EXPECT_TRUE(py->ok) << c.label() << ": " << py->summary();
    for (std::size_t i = 0; i < grids.size(); ++i) {
      const TileGrid g = grids[i];
      EXPECT_EQ(py->grids[i].mapping.size(), g.num_pids()) << c.label() << " on " << g.m << "x" << g.n;
      EXPECT_EQ(py->grids[i].mapping, cpp->grids[i].mapping) << c.label() << " on " << g.m << "x" << g.n;
    }
  }
}

TEST(BuiltinFamilyPython, ATritonProgramIsNeverOfferedTheTopologyFamily) {
  auto k = KernelSource::parse("# swizzleperf:begin\n@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
                               "    return pid\n# swizzleperf:end\n",
                               "k.py");
  ASSERT_TRUE(k);
  HardwareProfile hw = sm90();
  hw.dispatch = DispatchModel{"table", topo_table(), "measured", "probe"};
  RunHistory h;
  BuiltinProposer proposer;
  std::set<std::string> seen;
  for (int i = 1; i <= 40; ++i) {
    ProposalContext ctx{*k, {32, 256}, hw, h, {}, {}, i};
    auto p = proposer.propose(ctx);
    if (!p) break;
    seen.insert(p->family);
    EXPECT_TRUE(ValidRegion::make(p->region, RegionLanguage::python)) << p->label;
    h.attempts.push_back(test::AttemptBuilder(i).label(p->label).status(AttemptStatus::ok).family(p->family, p->param.value_or(0)));
  }
  EXPECT_FALSE(seen.count("topo_group"));
  EXPECT_TRUE(seen.count("grouped_m"));
}

// ---- propose -----------------------------------------------------------------------

const char* kProposerKernel =
    "// swizzleperf:default-grid 32x256\n"
    "// swizzleperf:begin\n"
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return pid;\n"
    "}\n"
    "// swizzleperf:end\n";

Attempt tried(int iteration, const std::string& family, int param, AttemptStatus st, std::optional<double> l2 = std::nullopt,
              double ms = 1.0) {
  test::AttemptBuilder b(iteration);
  b.label(FamilyCandidate{family, param}.label()).status(st).family(family, param);
  if (l2) b.l2(*l2).ms(ms);
  return b;
}

class BuiltinPropose : public ::testing::Test {
 protected:
  Result<Proposal> propose(const HardwareProfile& hw, const RunHistory& h, TileGrid grid = {32, 256}) {
    auto k = KernelSource::parse(kProposerKernel);
    EXPECT_TRUE(k);
    kernel_ = std::make_unique<KernelSource>(std::move(k.value()));
    ProposalContext ctx{*kernel_, grid, hw, h, {}, {}, h.next_iteration()};
    return proposer_.propose(ctx);
  }
  std::vector<Proposal> lookahead(const HardwareProfile& hw, const RunHistory& h, int k, TileGrid grid = {32, 256}) {
    auto src = KernelSource::parse(kProposerKernel);
    EXPECT_TRUE(src);
    kernel_ = std::make_unique<KernelSource>(std::move(src.value()));
    ProposalContext ctx{*kernel_, grid, hw, h, {}, {}, h.next_iteration()};
    return proposer_.lookahead(ctx, k);
  }
  std::string family_of(const Proposal& p) { return p.family; }
  int param_of(const Proposal& p) { return p.param.value_or(-1); }

  BuiltinProposer proposer_;
  std::unique_ptr<KernelSource> kernel_;
};

TEST_F(BuiltinPropose, EmptyHistoryGivesTheFirstSeed) {
  EXPECT_EQ(proposer_.name(), "builtin");
  RunHistory h;
  auto p = propose(gfx942(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "die_rr");
  EXPECT_EQ(p->label, "die_rr");
  EXPECT_EQ(p->region, render_family({"die_rr", 0}));
  EXPECT_FALSE(p->reasoning.empty());
  EXPECT_TRUE(p->critique.empty());

  auto q = propose(sm90(), h);
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(family_of(*q), "grouped_m");
  EXPECT_EQ(param_of(*q), 8);
  EXPECT_EQ(q->label, "grouped_m(G=8)");
  EXPECT_EQ(q->region, render_family({"grouped_m", 8}));
}

TEST_F(BuiltinPropose, NextSeedAfterTheFirst) {
  RunHistory h;
  h.attempts.push_back(tried(1, "die_rr", 0, AttemptStatus::ok, 80.0));
  auto p = propose(gfx942(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "grouped_m_die");
  ASSERT_EQ(p->critique.size(), 1u);
  EXPECT_EQ(p->critique[0]["attempt"], 1);
}

TEST_F(BuiltinPropose, BrokenFamilyIsSkipped) {
  RunHistory h;
  h.attempts.push_back(tried(1, "grouped_m", 8, AttemptStatus::rejected_mapping));
  auto p = propose(sm90(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "grouped_m_die");
  EXPECT_NE(p->rationale.find("grouped_m (broke)"), std::string::npos) << p->rationale;

  // Once every seed was tried, the broken family is not refined either.
  h.attempts.push_back(tried(2, "grouped_m_die", 8, AttemptStatus::ok, 60.0));
  h.attempts.push_back(tried(3, "grouped_n", 8, AttemptStatus::ok, 61.0));
  h.attempts.push_back(tried(4, "die_rr", 0, AttemptStatus::ok, 62.0));
  h.attempts.push_back(tried(5, "die_chunk", 4, AttemptStatus::ok, 63.0));
  auto r = propose(sm90(), h);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(family_of(*r), "grouped_m");
}

TEST_F(BuiltinPropose, RegressedFamilyIsSkipped) {
  RunHistory h;
  h.baseline = tried(0, "none", 0, AttemptStatus::ok, 70.0);
  h.baseline->proposal = nlohmann::json::object();
  h.attempts.push_back(tried(1, "die_rr", 0, AttemptStatus::ok, 50.0));  // far below the baseline
  h.attempts.push_back(tried(2, "grouped_m_die", 8, AttemptStatus::ok, 75.0));
  h.attempts.push_back(tried(3, "grouped_m", 8, AttemptStatus::ok, 72.0));
  h.attempts.push_back(tried(4, "die_chunk", 4, AttemptStatus::ok, 71.0));
  h.attempts.push_back(tried(5, "grouped_n", 8, AttemptStatus::ok, 71.0));
  auto p = propose(gfx942(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_NE(family_of(*p), "die_rr");
  EXPECT_NE(p->rationale.find("die_rr (regressed L2)"), std::string::npos) << p->rationale;
}

TEST_F(BuiltinPropose, RefinesTheBestFamilyAroundItsBestParameter) {
  RunHistory h;
  int it = 0;
  for (const auto& c : BuiltinProposer::seed_order(sm90(), {32, 256}))
    h.attempts.push_back(tried(++it, c.family, c.param, AttemptStatus::ok, c.family == "grouped_m" ? 85.0 : 60.0));
  auto p = propose(sm90(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "grouped_m");
  // Neighbours of G=8 are 4 and 16 (one power of two away).
  EXPECT_TRUE(param_of(*p) == 4 || param_of(*p) == 16) << param_of(*p);
  EXPECT_NE(p->reasoning.find("refining family grouped_m"), std::string::npos) << p->reasoning;

  // The best member is now G=16: the next one is 32 (8 is already tried).
  h.attempts.push_back(tried(++it, "grouped_m", 4, AttemptStatus::ok, 84.0));
  h.attempts.push_back(tried(++it, "grouped_m", 16, AttemptStatus::ok, 90.0));
  auto q = propose(sm90(), h);
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(family_of(*q), "grouped_m");
  EXPECT_EQ(param_of(*q), 32);
}

// Under --objective time the reflection follows measured speed, not L2.
Attempt judged(Attempt a, double speedup, double low, double high) {
  a.speedup = speedup;
  a.speedup_ci_low = low;
  a.speedup_ci_high = high;
  a.significant = low > 1.0 || high < 1.0;
  return a;
}

// The speed judge runs after the search: during it, a family is refined on its members'
// one-shot screening when that is beyond noise (> 2 % faster), not on a verdict it cannot have yet.
TEST_F(BuiltinPropose, TimeObjectiveRefinesOnTheScreeningBeforeAnyVerdict) {
  RunHistory h;
  h.config.objective = Objective::time;
  int it = 0;
  for (const auto& c : BuiltinProposer::seed_order(sm90(), {32, 256})) {
    Attempt a = tried(++it, c.family, c.param, AttemptStatus::ok, 60.0);
    a.speedup = c.family == "grouped_n" ? 1.10 : 1.01;  // one-shot only: no interval, no verdict
    h.attempts.push_back(a);
  }
  auto p = propose(sm90(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "grouped_n") << p->reasoning;
  EXPECT_NE(p->rationale.find("grouped_m (not faster)"), std::string::npos) << p->rationale;
}

TEST_F(BuiltinPropose, TimeObjectiveDoesNotRefineAFamilyThatRaisedL2ButSlowedTheKernel) {
  RunHistory h;
  h.config.objective = Objective::time;
  int it = 0;
  for (const auto& c : BuiltinProposer::seed_order(sm90(), {32, 256})) {
    Attempt a = tried(++it, c.family, c.param, AttemptStatus::ok, c.family == "grouped_m" ? 85.0 : 60.0);
    // grouped_m: the best L2 but significantly slower; grouped_n: lower L2, significantly faster;
    // the others: not significantly different.
    if (c.family == "grouped_m") a = judged(a, 0.93, 0.91, 0.95);
    else if (c.family == "grouped_n") a = judged(a, 1.04, 1.02, 1.06);
    else a = judged(a, 1.01, 0.99, 1.03);
    h.attempts.push_back(a);
  }
  auto p = propose(sm90(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "grouped_n");
  EXPECT_NE(p->reasoning.find("objective time"), std::string::npos) << p->reasoning;
  EXPECT_NE(p->rationale.find("grouped_m (not faster)"), std::string::npos) << p->rationale;
  // The critique shows both metrics with the interval.
  bool saw = false;
  for (const auto& c : p->critique)
    saw = saw || c["outcome"].get<std::string>().find("L2 hit 85.00%, 0.930x [0.910, 0.950] significant") != std::string::npos;
  EXPECT_TRUE(saw);

  // The same history under l2: the paper's reflection refines the best-L2 family.
  h.config.objective = Objective::l2;
  auto q = propose(sm90(), h);
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(family_of(*q), "grouped_m");

  // Under time with nothing significantly faster, nothing is refined: exhausted.
  h.config.objective = Objective::time;
  for (auto& a : h.attempts)
    if (a.proposal.family == "grouped_n") a = judged(a, 1.01, 0.99, 1.03);
  auto r = propose(sm90(), h);
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().exhausted());
}

TEST_F(BuiltinPropose, MovesToTheNextFamilyWhenTheBestIsFullyExplored) {
  RunHistory h;
  int it = 0;
  for (const auto& c : BuiltinProposer::seed_order(sm90(), {32, 256}))
    h.attempts.push_back(tried(++it, c.family, c.param, AttemptStatus::ok, c.family == "grouped_m" ? 85.0 : c.family == "grouped_n" ? 70.0 : 60.0));
  for (int g : BuiltinProposer::params_of("grouped_m"))
    if (g != 8) h.attempts.push_back(tried(++it, "grouped_m", g, AttemptStatus::ok, 80.0));
  auto p = propose(sm90(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "grouped_n");  // second-best family
}

TEST_F(BuiltinPropose, ExhaustedWhenEverythingWasTried) {
  RunHistory h;
  int it = 0;
  for (const auto& c : BuiltinProposer::seed_order(gfx942(), {32, 256}))
    for (int p : BuiltinProposer::params_of(c.family))
      h.attempts.push_back(tried(++it, c.family, p, AttemptStatus::ok, 50.0 + it));
  auto p = propose(gfx942(), h);
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().exhausted());
  EXPECT_FALSE(p.error().fatal);
}

TEST_F(BuiltinPropose, ExhaustedWhenEveryFamilyBroke) {
  RunHistory h;
  int it = 0;
  for (const auto& c : BuiltinProposer::seed_order(gfx942(), {1, 4096}))
    h.attempts.push_back(tried(++it, c.family, c.param, AttemptStatus::build_failed));
  auto p = propose(gfx942(), h, {1, 4096});
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().exhausted());
}

TEST_F(BuiltinPropose, OtherProposersAttemptsAreIgnored) {
  RunHistory h;
  Attempt llm;
  llm.iteration = 1;
  llm.proposer = "llm";
  llm.label = "llm idea";
  llm.status = AttemptStatus::rejected_mapping;
  h.attempts.push_back(llm);
  auto p = propose(gfx942(), h);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "die_rr");
  EXPECT_EQ(p->critique.size(), 1u);  // it is still critiqued
}

TEST_F(BuiltinPropose, TopoGroupKeepsTheTableWhenRefined) {
  HardwareProfile h = sm90();
  h.dispatch = DispatchModel{"table", topo_table(), "measured", "probe"};
  RunHistory hist;
  int it = 0;
  for (const auto& c : BuiltinProposer::seed_order(h, {32, 256}))
    hist.attempts.push_back(tried(++it, c.family, c.param, AttemptStatus::ok, c.family == "topo_group" ? 90.0 : 60.0));
  auto p = propose(h, hist);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "topo_group");
  FamilyCandidate want{"topo_group", param_of(*p), topo_table()};
  EXPECT_EQ(p->region, render_family(want));
}

}  // namespace
}  // namespace swz

// ---- families for grids whose columns are separate problems (program hints) -----------

namespace swz {
namespace {

nlohmann::json attention_hints(bool causal, int n_group, int stride) {
  return {{"causal", causal}, {"n_group", n_group}, {"n_group_stride", stride}};
}

TEST(BuiltinSeedOrder, HintsPutColumnFamiliesFirst) {
  // B4 H32 KV8 causal: grid 128 query tiles x 128 (batch, head) columns.
  const auto order = BuiltinProposer::seed_order(sm90(), {128, 128}, attention_hints(true, 4, 4));
  EXPECT_EQ(families(order), (std::vector<std::string>{"longest_first", "col_major", "gqa_group", "grouped_n", "grouped_m",
                                                       "grouped_m_die", "die_rr", "die_chunk"}));
  EXPECT_EQ(order[0].param, 8);
  EXPECT_EQ(order[2].n_group, 4);
  EXPECT_EQ(order[2].n_stride, 4);
  EXPECT_EQ(order[2].label(), "gqa_group(G=4,S=4)");
  // Not causal, plain multi-head (n_group 1): no longest_first, no gqa_group.
  EXPECT_EQ(families(BuiltinProposer::seed_order(sm90(), {128, 128}, attention_hints(false, 1, 4))),
            (std::vector<std::string>{"col_major", "grouped_n", "grouped_m", "grouped_m_die", "die_rr", "die_chunk"}));
  // A group that does not tile the grid's columns is not offered.
  EXPECT_EQ(families(BuiltinProposer::seed_order(sm90(), {128, 30}, attention_hints(false, 4, 4)))[1], "grouped_n");
  // No hints (or empty hints): the order is the plain one.
  EXPECT_EQ(families(BuiltinProposer::seed_order(sm90(), {128, 128}, nlohmann::json::object())),
            families(BuiltinProposer::seed_order(sm90(), {128, 128})));
  EXPECT_EQ(families(BuiltinProposer::seed_order(sm90(), {128, 128})).front(), "grouped_m");
}

TEST(BuiltinFamily, ColumnFamilyLabelsAndRegions) {
  EXPECT_EQ((FamilyCandidate{"col_major", 0}.label()), "col_major");
  EXPECT_EQ((FamilyCandidate{"longest_first", 8}.label()), "longest_first(G=8)");
  FamilyCandidate g{"gqa_group", 0};
  g.n_group = 4;
  g.n_stride = 2;
  EXPECT_EQ(g.label(), "gqa_group(G=4,S=2)");
  for (const auto& c : {FamilyCandidate{"col_major", 0}, FamilyCandidate{"longest_first", 8}, g}) {
    const std::string region = render_family(c);
    EXPECT_TRUE(validate_region(region)) << c.label();
    EXPECT_NE(region.find(c.label()), std::string::npos) << c.label();
  }
}

// Evaluates a family on the host compiler over `grids`; returns grids[0]'s mapping.
std::vector<std::uint32_t> evaluate(const FamilyCandidate& c, const std::vector<TileGrid>& grids, const test::TempDir& dir) {
  RealProcessRunner runner;
  MappingCheckOptions opts;
  opts.work_dir = dir / c.label();
  opts.timeout = std::chrono::seconds(60);
  auto r = check_mapping(render_family(c), grids, sm90(), opts, runner);
  EXPECT_TRUE(r) << c.label() << ": " << (r ? "" : r.error().message);
  if (!r) return {};
  EXPECT_TRUE(r->ok) << c.label() << ": " << r->summary();
  EXPECT_EQ(r->grids.size(), grids.size()) << c.label();
  return r->grids.empty() ? std::vector<std::uint32_t>{} : r->grids[0].mapping;
}

TEST(BuiltinFamilyBijection, ColumnFamiliesOnRaggedGrids) {
  if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
  std::vector<TileGrid> grids;
  auto add = [&](TileGrid g) {
    for (const auto& x : grids)
      if (x.m == g.m && x.n == g.n) return;
    grids.push_back(g);
  };
  for (TileGrid main : {TileGrid{128, 128}, TileGrid{7, 5}, TileGrid{1, 13}, TileGrid{5, 24}, TileGrid{3, 16}})
    for (const auto& g : ragged_grids(main)) add(g);
  std::vector<FamilyCandidate> cands = {{"col_major", 0}};
  for (int p : BuiltinProposer::params_of("longest_first")) cands.push_back({"longest_first", p});
  for (auto [G, S] : {std::pair{4, 4}, std::pair{2, 1}, std::pair{8, 2}, std::pair{3, 1}}) {
    FamilyCandidate c{"gqa_group", 0};
    c.n_group = G;
    c.n_stride = S;
    cands.push_back(c);
  }
  test::TempDir dir;
  for (const auto& c : cands) evaluate(c, grids, dir);
}

TEST(BuiltinFamilyOrder, ColumnFamiliesVisitTheIntendedTiles) {
  if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
  test::TempDir dir;
  const TileGrid g{5, 8};  // 5 query tiles x 8 columns (batch 2 x 4 heads, GQA groups of 2)
  auto tile = [&](unsigned m, unsigned n) { return m * g.n + n; };
  std::vector<std::uint32_t> want;
  for (unsigned n = 0; n < g.n; ++n)
    for (unsigned m = 0; m < g.m; ++m) want.push_back(tile(m, n));
  EXPECT_EQ(evaluate({"col_major", 0}, {g}, dir), want);

  want.clear();  // longest_first(G=1): per column, query tiles in descending order
  for (unsigned n = 0; n < g.n; ++n)
    for (unsigned m = g.m; m-- > 0;) want.push_back(tile(m, n));
  EXPECT_EQ(evaluate({"longest_first", 1}, {g}, dir), want);

  want.clear();  // longest_first(G=4): bands of 4 columns, rows descending, columns fastest
  for (unsigned band = 0; band < g.n / 4; ++band)
    for (unsigned m = g.m; m-- > 0;)
      for (unsigned i = 0; i < 4; ++i) want.push_back(tile(m, band * 4 + i));
  EXPECT_EQ(evaluate({"longest_first", 4}, {g}, dir), want);

  want.clear();  // gqa_group(G=2,S=2): column = b + 2*(k*2 + i); one (b, k) group at a time
  FamilyCandidate q{"gqa_group", 0};
  q.n_group = 2;
  q.n_stride = 2;
  for (unsigned k = 0; k < 2; ++k)
    for (unsigned b = 0; b < 2; ++b)
      for (unsigned m = 0; m < g.m; ++m)
        for (unsigned i = 0; i < 2; ++i) want.push_back(tile(m, b + 2 * (k * 2 + i)));
  EXPECT_EQ(evaluate(q, {g}, dir), want);
}

TEST_F(BuiltinPropose, ProgramHintsFromTheHistoryChooseTheFamilies) {
  RunHistory h;
  h.program_info = program_info_from_json({{"kernel", "anything"}, {"hints", attention_hints(true, 4, 4)}});
  auto p = propose(sm90(), h, {128, 128});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(family_of(*p), "longest_first");
  EXPECT_EQ(p->region, render_family({"longest_first", 8}));
  h.attempts.push_back(tried(1, "longest_first", 8, AttemptStatus::ok, 80.0));
  h.attempts.push_back(tried(2, "col_major", 0, AttemptStatus::ok, 85.0));
  auto q = propose(sm90(), h, {128, 128});
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(family_of(*q), "gqa_group");
  FamilyCandidate want{"gqa_group", 0};
  want.n_group = 4;
  want.n_stride = 4;
  EXPECT_EQ(q->region, render_family(want));
  // Without hints the same history goes on with the plain order.
  RunHistory plain;
  auto r = propose(sm90(), plain, {128, 128});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(family_of(*r), "grouped_m");
}

// The loop builds lookahead()'s proposals before it asks propose(): while exploring, the
// chain must be exactly what propose() then returns, attempt after attempt, hints included.
TEST_F(BuiltinPropose, LookaheadIsWhatProposeReturnsNowAndNextWhileExploring) {
  for (const bool with_hints : {false, true}) {
    RunHistory h;
    if (with_hints) h.program_info = program_info_from_json({{"kernel", "anything"}, {"hints", attention_hints(true, 4, 4)}});
    const auto ahead = lookahead(sm90(), h, 4, {128, 128});
    ASSERT_EQ(ahead.size(), 4u);
    for (int i = 0; i < 4; ++i) {
      auto p = propose(sm90(), h, {128, 128});
      ASSERT_TRUE(p) << p.error().message;
      EXPECT_EQ(p->region, ahead[i].region) << "hints " << with_hints << ", attempt " << i + 1;
      EXPECT_EQ(p->label, ahead[i].label);
      h.attempts.push_back(tried(i + 1, family_of(*p), param_of(*p), AttemptStatus::ok, 50.0 + i));
    }
  }
  RunHistory hinted;
  hinted.program_info = program_info_from_json({{"kernel", "anything"}, {"hints", attention_hints(true, 4, 4)}});
  EXPECT_EQ(family_of(lookahead(sm90(), hinted, 1, {128, 128}).at(0)), "longest_first");
}

TEST_F(BuiltinPropose, LookaheadWhileRefiningFollowsTheRefineOrderAndEndsWhenExhausted) {
  RunHistory h;
  h.attempts.push_back(tried(1, "grouped_m", 8, AttemptStatus::ok, 90.0));
  h.attempts.push_back(tried(2, "grouped_n", 8, AttemptStatus::ok, 40.0));
  h.attempts.push_back(tried(3, "grouped_m_die", 8, AttemptStatus::validation_failed));
  h.attempts.push_back(tried(4, "die_rr", 0, AttemptStatus::validation_failed));
  h.attempts.push_back(tried(5, "die_chunk", 4, AttemptStatus::validation_failed));
  const auto ahead = lookahead(sm90(), h, 100);
  ASSERT_FALSE(ahead.empty());
  auto now = propose(sm90(), h);
  ASSERT_TRUE(now) << now.error().message;
  EXPECT_EQ(ahead.front().region, now->region);
  std::set<std::string> seen;
  for (const auto& p : ahead) EXPECT_TRUE(seen.insert(p.label).second) << "proposed twice: " << p.label;
  // Every untried member of the two usable families, then nothing (exhausted).
  const auto m = BuiltinProposer::params_of("grouped_m"), n = BuiltinProposer::params_of("grouped_n");
  EXPECT_EQ(ahead.size(), m.size() - 1 + n.size() - 1);
  EXPECT_EQ(family_of(ahead.front()), "grouped_m");
}

}  // namespace
}  // namespace swz

// ---- ranked by the locality model (ProposalContext::predictor) ---------------------------

namespace swz {
namespace {

// A GEMM-like footprint on an 8 x 64 tile grid (tile (m, n) reads A's row panel m and B's
// column panel n, 32 KB each) on an H100 model shrunk to 4 SMs and 128 KB per L2 side: B's
// 64 panels (2 MB) do not fit, so the block order decides the hit rate.
class BuiltinProposerWithModel : public ::testing::Test {
 protected:
  static test::GemmShape shape() {
    test::GemmShape s;
    s.tiles_m = 8;
    s.tiles_n = 64;
    s.bm = 32;
    s.bn = 32;
    s.k = 256;
    return s;
  }
  static MachineModel machine() {
    auto m = machine_model(sm90());
    EXPECT_TRUE(m);
    m->cus_per_die = 4;
    m->l2_bytes_per_die = 128 << 10;
    return *m;
  }
  BuiltinProposerWithModel() : predictor_(test::gemm_like_footprint(shape()), machine(), fast_sim_options()) {}

  Result<Proposal> propose(const RunHistory& h, const LocalityPredictor* predictor) {
    auto k = KernelSource::parse(kProposerKernel);
    EXPECT_TRUE(k);
    kernel_ = std::make_unique<KernelSource>(std::move(k.value()));
    ProposalContext ctx{*kernel_, grid_, hw_, h, {}, {}, h.next_iteration(), predictor};
    return proposer_.propose(ctx);
  }

  struct Scored {
    FamilyCandidate candidate;
    double hit = 0;
  };
  // Every candidate with a distinct order that is not the identity (the first of equal
  // ones), with its predicted hit rate, in all_candidates order.
  std::vector<Scored> distinct() {
    std::vector<Scored> out;
    std::set<std::vector<std::uint32_t>> seen{test::identity_order(grid_.num_pids())};
    for (const auto& c : BuiltinProposer::all_candidates(hw_, grid_)) {
      auto t = family_order(c, grid_, hw_.num_dies);
      if (!seen.insert(t).second) continue;
      auto p = predictor_.predict(t, c.label());
      EXPECT_TRUE(p) << c.label();
      if (p) out.push_back({c, p->l2_hit_pct()});
    }
    return out;
  }
  static double best_hit(const std::vector<Scored>& v, const std::function<bool(const Scored&)>& allowed) {
    double best = -1;
    for (const auto& s : v)
      if (allowed(s)) best = std::max(best, s.hit);
    return best;
  }
  double predicted_hit(const Proposal& p) {
    FamilyCandidate c{p.family, p.param.value_or(0)};
    auto pred = predictor_.predict(family_order(c, grid_, hw_.num_dies), p.label);
    EXPECT_TRUE(pred);
    return pred ? pred->l2_hit_pct() : -1;
  }
  const TileGrid grid_{8, 64};
  const HardwareProfile hw_ = sm90();
  LocalityPredictor predictor_;
  BuiltinProposer proposer_;
  std::unique_ptr<KernelSource> kernel_;
};

TEST_F(BuiltinProposerWithModel, TheFirstProposalIsTheBestPredictedCandidate) {
  const auto all = distinct();
  ASSERT_GE(all.size(), 10u);
  const double best = best_hit(all, [](const Scored&) { return true; });
  double worst = 101;
  for (const auto& s : all) worst = std::min(worst, s.hit);
  ASSERT_GT(best, worst + 5) << "the machine should make the order matter";
  RunHistory h;
  auto p = propose(h, &predictor_);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_NEAR(predicted_hit(*p), best, 1e-9) << p->label;
  const std::string ranked = "ranked 1 of " + std::to_string(all.size()) + " distinct orders by the locality model";
  EXPECT_NE(p->reasoning.find(ranked), std::string::npos) << p->reasoning;
  EXPECT_NE(p->reasoning.find("not a measurement"), std::string::npos) << p->reasoning;
  EXPECT_EQ(p->region, render_family({p->family, p->param.value_or(0)}));
  // Without the model the proposer explores its seed order instead.
  auto plain = propose(h, nullptr);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->reasoning.find("ranked"), std::string::npos) << plain->reasoning;
}

TEST_F(BuiltinProposerWithModel, OnceTriedTheNextBestIsProposed) {
  const auto all = distinct();
  RunHistory h;
  auto first = propose(h, &predictor_);
  ASSERT_TRUE(first) << first.error().message;
  const std::string first_label = first->label;
  h.attempts.push_back(tried(1, first->family, first->param.value_or(0), AttemptStatus::ok, 70.0));
  auto second = propose(h, &predictor_);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_NE(second->label, first_label);
  const double next = best_hit(all, [&](const Scored& s) { return s.candidate.label() != first_label; });
  EXPECT_NEAR(predicted_hit(*second), next, 1e-9) << second->label;
  EXPECT_NE(second->reasoning.find("ranked 2 of " + std::to_string(all.size())), std::string::npos) << second->reasoning;
}

TEST_F(BuiltinProposerWithModel, ABrokenFamilyIsSkipped) {
  const auto all = distinct();
  RunHistory h;
  auto first = propose(h, &predictor_);
  ASSERT_TRUE(first) << first.error().message;
  const std::string broken = first->family;
  h.attempts.push_back(tried(1, broken, first->param.value_or(0), AttemptStatus::build_failed));
  auto p = propose(h, &predictor_);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_NE(p->family, broken) << p->label;
  const double best_other = best_hit(all, [&](const Scored& s) { return s.candidate.family != broken; });
  EXPECT_NEAR(predicted_hit(*p), best_other, 1e-9) << p->label;
  EXPECT_NE(p->rationale.find(broken + " (broke)"), std::string::npos) << p->rationale;
}

TEST_F(BuiltinProposerWithModel, ExhaustedWhenEveryCandidateWasTried) {
  const auto all = distinct();
  ASSERT_FALSE(all.empty());
  // Every candidate but the worst-predicted one: that one comes last.
  const Scored* worst = &all.front();
  for (const auto& s : all)
    if (s.hit < worst->hit) worst = &s;
  RunHistory h;
  int it = 0;
  for (const auto& c : BuiltinProposer::all_candidates(hw_, grid_))
    if (c.label() != worst->candidate.label()) h.attempts.push_back(tried(++it, c.family, c.param, AttemptStatus::ok, 60.0));
  auto last = propose(h, &predictor_);
  ASSERT_TRUE(last) << last.error().message;
  EXPECT_EQ(last->label, worst->candidate.label());
  EXPECT_NE(last->reasoning.find("ranked " + std::to_string(all.size()) + " of " + std::to_string(all.size())),
            std::string::npos)
      << last->reasoning;
  h.attempts.push_back(tried(++it, worst->candidate.family, worst->candidate.param, AttemptStatus::ok, 60.0));
  auto none = propose(h, &predictor_);
  ASSERT_FALSE(none);
  EXPECT_TRUE(none.error().exhausted());
  EXPECT_FALSE(none.error().fatal);
}

}  // namespace
}  // namespace swz
