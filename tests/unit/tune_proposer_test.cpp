// TuneProposer: the orders it tries per hardware, the device limits it prunes by, and the
// proposals it makes from a history (the repo's attempt builders): the first trial, the
// label and defines of a point, a whole run driven through the history alone (each attempt
// recorded as the loop records it, failures included), a resume that continues the same
// sequence, the time budget and exhaustion.
#include "swizzleperf/proposer/tune_proposer.h"

#include <gtest/gtest.h>

#include <set>
#include <type_traits>

#include "support/builders.h"
#include "support/tune_landscape.h"
#include "swizzleperf/proposer/builtin_proposer.h"

namespace swz {
namespace {

const char* kTuneProposerKernel =
    "#include \"swz_harness.h\"\n"
    "#ifndef BLOCK_M\n"
    "#define BLOCK_M 128  // swizzleperf:tunable 32 64 128 256\n"
    "#endif\n"
    "#ifndef BLOCK_N\n"
    "#define BLOCK_N 64  // swizzleperf:tunable 32 64 128 256\n"
    "#endif\n"
    "#ifndef BLOCK_K\n"
    "#define BLOCK_K 32  // swizzleperf:tunable 16 32 64\n"
    "#endif\n"
    "#ifndef NUM_WARPS\n"
    "#define NUM_WARPS 4  // swizzleperf:tunable 4 8 16 32\n"
    "#endif\n"
    "// swizzleperf:threads NUM_WARPS * 32\n"
    "// swizzleperf:begin\n"
    "__device__ unsigned swizzle_pid(unsigned pid, unsigned num_pids, unsigned grid_m, unsigned grid_n) {\n"
    "  return pid;\n"
    "}\n"
    "// swizzleperf:end\n";

HardwareProfile tune_test_device(const char* arch = "sm_90") {
  auto h = profile_from_arch(arch);
  EXPECT_TRUE(h);
  h->device_query = {{"warp_size", 32}, {"max_threads_per_block", 512}};
  return *h;
}

// A define's value as the record types it (an integer or its text), and back.
template <class V>
V tune_define_as(std::int64_t v) {
  if constexpr (std::is_integral_v<V>) return static_cast<V>(v);
  else return std::to_string(v);
}
template <class V>
std::int64_t tune_define_int(const V& v) {
  if constexpr (std::is_integral_v<V>) return static_cast<std::int64_t>(v);
  else return std::stoll(v);
}

void record_defines(Attempt& a, const std::map<std::string, std::int64_t>& values) {
  using V = decltype(a.defines)::mapped_type;
  for (const auto& [k, v] : values) a.defines[k] = tune_define_as<V>(v);
}
struct TuneRig {
  KernelSource kernel;
  TuneSpace space;
  HardwareProfile hw = tune_test_device();
  RunHistory history;
  TileGrid grid{16, 32};

  explicit TuneRig(const char* text = kTuneProposerKernel)
      : kernel(*KernelSource::parse(text, "gemm.cu")), space(*parse_tune_space(text, RegionLanguage::cpp, "gemm.cu")) {
    history = test::history_with(test::AttemptBuilder(0).label("baseline").ms(2.0).build(), {});
  }
  ProposalContext ctx() const { return ProposalContext{kernel, grid, hw, history, {}, {}, history.next_iteration()}; }

  // Records `p` as the loop would: an ok attempt with `ms`, or a build failure.
  void record(const Proposal& p, std::optional<double> ms) {
    test::AttemptBuilder b(history.next_iteration());
    b.label(p.label).proposer("tune").region(p.region);
    if (p.param) b.family(p.family, *p.param);
    if (ms) b.ms(*ms);
    else b.status(AttemptStatus::build_failed, "nvcc: error");
    Attempt a = b.build();
    a.proposal.family = p.family;
    a.proposal.param = p.param;
    for (const auto& [k, v] : p.defines) a.defines[k] = v;
    history.attempts.push_back(a);
  }
};

// A made-up time for a proposal (its point read from the label's defines), failing some.
std::optional<double> tune_rig_ms(const TuneRig& rig, const Proposal& p, const TuneProposer& tp) {
  TunePoint point = rig.space.own_point();
  for (std::size_t i = 0; i < rig.space.tunables.size(); ++i) {
    const auto it = p.defines.find(rig.space.tunables[i].name);
    if (it == p.defines.end()) continue;
    point[i] = tune_define_int(it->second);
  }
  int order = 0;
  for (std::size_t i = 0; i < tp.orders().size(); ++i)
    if (p.label.rfind(tp.orders()[i].label + " @ ", 0) == 0) order = static_cast<int>(i);
  if ((point[0] * 7 + point[1] * 3 + order) % 11 == 0) return std::nullopt;
  // Order 2 favours large BLOCK_M, the others small tiles.
  const double m = static_cast<double>(point[0]), n = static_cast<double>(point[1]);
  double ms = 1.0 + 0.001 * (m + n) / (order + 1) + 0.01 * static_cast<double>(point[3]);
  if (order == 2) ms = 1.3 - 0.002 * m + 0.0005 * n + 0.01 * static_cast<double>(point[3]);
  return ms;
}

TEST(TuneOrders, TheProgramsOwnOrderFirstThenTheBuiltInFamiliesWithTwoGroupSizes) {
  const auto orders = tune_orders(tune_test_device("sm_90"), {16, 32}, RegionLanguage::cpp);
  ASSERT_GE(orders.size(), 4u);
  EXPECT_LE(orders.size(), kMaxTuneOrders);
  EXPECT_EQ(orders[0].label, "identity");
  EXPECT_FALSE(orders[0].family);
  std::set<std::string> labels;
  for (const auto& o : orders) labels.insert(o.label);
  EXPECT_EQ(labels.size(), orders.size()) << "each order once";
  EXPECT_TRUE(labels.count("grouped_m(G=8)") && labels.count("grouped_m(G=16)"));
  EXPECT_EQ(orders[static_cast<std::size_t>(tune_screen_order(orders))].label, "grouped_m(G=8)");
  const auto amd = tune_orders(tune_test_device("gfx942"), {16, 32}, RegionLanguage::cpp);
  EXPECT_LE(amd.size(), kMaxTuneOrders);
  EXPECT_EQ(amd[1].label, "die_rr") << "the built-in proposer's order for a documented multi-die device";
  // A 1-D grid on a one-die device: only the program's own order.
  HardwareProfile one = tune_test_device("sm_90");
  one.num_dies = 1;
  EXPECT_EQ(tune_orders(one, {1, 64}, RegionLanguage::cpp).size(), 1u);
}

// The proposer prunes by tune_limits_of: the query's shared memory per block where the profile
// has it, else the arch's (sm_90: 227 KB).
TEST(TuneProposer, TheDevicesSharedMemoryPerBlockPrunesPointsThatNeedMore) {
  const std::string text = std::string(kTuneProposerKernel) + "// swizzleperf:shared-bytes (BLOCK_M + BLOCK_N) * BLOCK_K * 2 * 4\n";
  auto space = parse_tune_space(text, RegionLanguage::cpp, "gemm.cu");
  ASSERT_TRUE(space) << space.error().message;
  auto kernel = KernelSource::parse(text, "gemm.cu");
  ASSERT_TRUE(kernel);
  const RunHistory history = test::history_with(test::AttemptBuilder(0).label("baseline").ms(2.0).build(), {});
  auto points_on = [&](const HardwareProfile& hw) {
    TuneProposer tp(*space, {});
    auto p = tp.propose(ProposalContext{*kernel, TileGrid{16, 32}, hw, history, {}, {}, history.next_iteration()});
    EXPECT_TRUE(p) << p.error().message;
    return tp.enumeration() ? tp.enumeration()->points.size() : 0u;
  };
  // 4 x 4 x 3 x 4 points; NUM_WARPS 32 needs 1024 threads and the device allows 512.
  HardwareProfile hw = tune_test_device("sm_90");
  // (M + N) * K * 8 <= 232448: every (M, N) at K 16 and 32; at K 64 all but (256, 256).
  EXPECT_EQ(points_on(hw), 3u * (16u + 16u + 15u));
  // A query saying 64 KB: at K 16 all; at K 32 M + N <= 256 (9 of 16); at K 64 M + N <= 128 (4).
  hw.device_query["shared_mem_per_block"] = 65536;
  EXPECT_EQ(points_on(hw), 3u * (16u + 9u + 4u));
}

TEST(TuneProposer, FirstProposalScreensTheOwnPointAtTheGroupedOrderWithoutDefines) {
  TuneRig rig;
  TuneProposer tp(rig.space, {});
  auto p = tp.propose(rig.ctx());
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(tp.name(), "tune");
  ASSERT_TRUE(tp.enumeration());
  // NUM_WARPS 32 needs 1024 threads: the device allows 512, so a quarter of the points go.
  EXPECT_EQ(tp.enumeration()->points.size(), 4u * 4u * 3u * 3u);
  EXPECT_EQ(tp.enumeration()->excluded, 4u * 4u * 3u);
  EXPECT_EQ(p->label, "grouped_m(G=8) @ BLOCK_M=128 BLOCK_N=64 BLOCK_K=32 NUM_WARPS=4");
  EXPECT_TRUE(p->defines.empty()) << "the program's own configuration builds as it is";
  EXPECT_EQ(p->family, "grouped_m");
  EXPECT_EQ(p->param, 8);
  EXPECT_EQ(p->region, render_family({"grouped_m", 8}, RegionLanguage::cpp));
}

TEST(TuneProposer, ARunThroughTheHistoryNeverRepeatsSkipsFailuresAndStopsAtTheBudget) {
  TuneRig rig;
  TuneSearchSettings s;
  s.budget = 80;
  TuneProposer tp(rig.space, s);
  std::set<std::string> labels;
  int failed = 0;
  for (int i = 0; i < 100; ++i) {
    auto p = tp.propose(rig.ctx());
    if (!p) {
      EXPECT_TRUE(p.error().exhausted()) << p.error().message;
      break;
    }
    EXPECT_TRUE(labels.insert(p->label).second) << "proposed twice: " << p->label;
    const auto ms = tune_rig_ms(rig, *p, tp);
    failed += ms ? 0 : 1;
    // A point other than the own one carries every tunable as a define.
    const bool own = p->label.find("BLOCK_M=128 BLOCK_N=64 BLOCK_K=32 NUM_WARPS=4") != std::string::npos;
    EXPECT_EQ(p->defines.empty(), own) << p->label;
    if (!own) EXPECT_EQ(p->defines.size(), 4u);
    rig.record(*p, ms);
  }
  EXPECT_EQ(rig.history.attempts.size(), 80u);
  EXPECT_GT(failed, 0) << "the landscape fails some trials, and the search went on";
  // The outcomes read back from the history: the baseline uncounted, then one per attempt,
  // each with the time recorded for it; the best is the fastest attempt.
  const auto outcomes = tp.outcomes(rig.history);
  ASSERT_EQ(outcomes.size(), 81u);
  EXPECT_FALSE(outcomes[0].counted);
  EXPECT_EQ(outcomes[0].ms, 2.0);
  double fastest = 1e9;
  for (const auto& a : rig.history.attempts)
    if (a.timing) fastest = std::min(fastest, a.timing->median_ms);
  const TuneOutcome* best = best_tune_outcome(outcomes);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(*best->ms, fastest);
  int failures = 0;
  for (const auto& o : outcomes) failures += o.ms ? 0 : 1;
  EXPECT_EQ(failures, failed);
}

TEST(TuneProposer, AResumedRunContinuesTheSameSequenceAndAGrownBudgetGoesOn) {
  TuneRig whole;
  TuneSearchSettings s;
  s.budget = 30;
  TuneProposer a(whole.space, s);
  std::vector<std::string> sequence;
  while (auto p = a.propose(whole.ctx())) {
    sequence.push_back(p->label);
    whole.record(*p, tune_rig_ms(whole, *p, a));
  }
  ASSERT_EQ(sequence.size(), 30u);
  // Cut after 12 attempts; a new proposer (a new process) reads the history and goes on.
  TuneRig cut;
  cut.history.attempts.assign(whole.history.attempts.begin(), whole.history.attempts.begin() + 12);
  TuneProposer b(cut.space, s);
  std::vector<std::string> resumed(sequence.begin(), sequence.begin() + 12);
  while (auto p = b.propose(cut.ctx())) {
    resumed.push_back(p->label);
    cut.record(*p, tune_rig_ms(cut, *p, b));
  }
  EXPECT_EQ(resumed, sequence);
  // The budget grown on a resume: the search goes on past 30.
  s.budget = 35;
  TuneProposer c(whole.space, s);
  int more = 0;
  while (auto p = c.propose(whole.ctx())) {
    whole.record(*p, tune_rig_ms(whole, *p, c));
    ++more;
  }
  EXPECT_EQ(more, 5);
}

TEST(TuneProposer, TheTimeBudgetEndsTheSearchAndLookaheadMayGuess) {
  TuneRig rig;
  double now = 100;
  TuneSearchSettings s;
  s.strategy = TuneStrategy::exhaustive;
  TuneProposer tp(rig.space, s, 10, [&] { return now; });
  auto ahead = tp.lookahead(rig.ctx(), 3);
  ASSERT_EQ(ahead.size(), 3u);
  auto p = tp.propose(rig.ctx());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->label, ahead[0].label) << "exhaustive: the guess is exact";
  rig.record(*p, 1.5);
  EXPECT_EQ(tp.propose(rig.ctx())->label, ahead[1].label);
  now = 111;
  auto late = tp.propose(rig.ctx());
  ASSERT_FALSE(late);
  EXPECT_TRUE(late.error().exhausted());
  EXPECT_EQ(late.error().stop_reason, "the tune search's time budget of 10 s is spent");
  EXPECT_EQ(late.error().message, late.error().stop_reason);
  EXPECT_EQ(tp.stop_reason(rig.history), "") << "the time ends this session; the search itself has trials left";
}

TEST(TuneProposer, TheEvaluationBudgetEndsTheSearchInItsOwnWords) {
  TuneRig rig;
  TuneSearchSettings s;
  s.budget = 3;
  TuneProposer tp(rig.space, s);
  EXPECT_EQ(tp.stop_reason(rig.history), "") << "nothing is known before the first proposal";
  for (int i = 0; i < 3; ++i) {
    auto p = tp.propose(rig.ctx());
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(tp.stop_reason(rig.history), "") << "evaluation " << i << " of 3 is still to come";
    rig.record(*p, i == 1 ? std::nullopt : std::optional<double>(1.5));  // a failure counts too
  }
  auto spent = tp.propose(rig.ctx());
  ASSERT_FALSE(spent);
  EXPECT_TRUE(spent.error().exhausted());
  EXPECT_EQ(spent.error().stop_reason, "the tune budget of 3 evaluations is spent");
  EXPECT_EQ(tp.stop_reason(rig.history), "the tune budget of 3 evaluations is spent");
  // One evaluation: the singular.
  TuneRig one;
  s.budget = 1;
  TuneProposer single(one.space, s);
  auto p = single.propose(one.ctx());
  ASSERT_TRUE(p);
  one.record(*p, 1.0);
  EXPECT_EQ(single.propose(one.ctx()).error().stop_reason, "the tune budget of 1 evaluation is spent");
}

TEST(TuneProposer, ASpaceTriedWholeSaysEveryPointAndOrderWasTried) {
  // Two points; the baseline is the own point at the own order.
  const char* two_points =
      "#include \"swz_harness.h\"\n"
      "#ifndef BLOCK_M\n#define BLOCK_M 64  // swizzleperf:tunable 64 128\n#endif\n"
      "// swizzleperf:begin\n"
      "__device__ unsigned swizzle_pid(unsigned pid, unsigned num_pids, unsigned grid_m, unsigned grid_n) {\n"
      "  return pid;\n"
      "}\n"
      "// swizzleperf:end\n";
  TuneRig rig(two_points);
  TuneSearchSettings s;
  s.strategy = TuneStrategy::exhaustive;
  s.budget = 1000;
  TuneProposer tp(rig.space, s);
  int proposed = 0;
  Result<Proposal> p = tp.propose(rig.ctx());
  for (; p && proposed < 100; p = tp.propose(rig.ctx()), ++proposed) rig.record(*p, 1.0 + 0.01 * proposed);
  ASSERT_FALSE(p);
  EXPECT_EQ(proposed, static_cast<int>(2 * tp.orders().size()) - 1);
  EXPECT_TRUE(p.error().exhausted());
  EXPECT_EQ(p.error().stop_reason, "every point x order of the space was tried");
  EXPECT_EQ(tp.stop_reason(rig.history), "every point x order of the space was tried");
}

TEST(TuneProposer, AttemptsOutsideTheSpaceAreNotTrialsAndDuplicatesTakeTheTimeTheyDuplicate) {
  TuneRig rig;
  TuneProposer tp(rig.space, {});
  ASSERT_TRUE(tp.propose(rig.ctx()));
  Attempt foreign = test::AttemptBuilder(1).label("x").ms(1.0).build();
  record_defines(foreign, {{"NOT_A_TUNABLE", 3}});
  rig.history.attempts.push_back(foreign);
  Attempt first = test::AttemptBuilder(2).label("grouped_m(G=8) @ ...").family("grouped_m", 8).ms(1.25).build();
  record_defines(first, {{"BLOCK_M", 64}});
  first.mapping = MappingRecord{};
  first.mapping->mapping_hash = "h1";
  rig.history.attempts.push_back(first);
  Attempt dup = test::AttemptBuilder(3).label("grouped_m(G=16) @ ...").family("grouped_m", 16)
                    .status(AttemptStatus::duplicate, "same mapping as attempt 2").build();
  record_defines(dup, {{"BLOCK_M", 64}});
  dup.mapping = first.mapping;
  rig.history.attempts.push_back(dup);
  const auto out = tp.outcomes(rig.history);
  ASSERT_EQ(out.size(), 3u) << "the baseline and the two in the space";
  EXPECT_EQ(out[1].trial.point[0], 64);
  EXPECT_EQ(out[1].ms, 1.25);
  ASSERT_TRUE(out[2].ms);
  EXPECT_EQ(*out[2].ms, 1.25);
  EXPECT_NE(out[1].trial.order, out[2].trial.order);
}

}  // namespace
}  // namespace swz
