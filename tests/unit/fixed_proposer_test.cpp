// FixedProposer: the given regions once each, in order, then exhausted.
#include "swizzleperf/proposer/fixed_proposer.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

TEST(FixedProposer, ProposesEachRegionOnceThenIsExhausted) {
  FixedProposer p("committed", {{"a", "region a", "why a"}, {"b", "region b", ""}});
  KernelSource k = KernelSource::parse("// swizzleperf:begin\nSWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, "
                                       "SwizzleGrid g) { return pid; }\n// swizzleperf:end\n").value();
  RunHistory h;
  HardwareProfile hw;
  ProposalContext ctx{k, {4, 4}, hw, h, {}, {}, 1};
  auto a = p.propose(ctx);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->label, "a");
  EXPECT_EQ(a->region, "region a");
  EXPECT_EQ(a->rationale, "why a");
  auto b = p.propose(ctx);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->label, "b");
  auto c = p.propose(ctx);
  ASSERT_FALSE(c);
  EXPECT_TRUE(c.error().exhausted());
  EXPECT_FALSE(c.error().fatal);
  EXPECT_EQ(p.name(), "committed");
}

TEST(FixedProposer, AnEntrysDefinesGoWithItsProposal) {
  FixedProposer p("points", {{"a", "region a", "", {{"BLOCK_M", 128}}}, {"b", "region b", ""}});
  KernelSource k = KernelSource::parse("// swizzleperf:begin\nSWZ_HD unsigned swizzle_pid(unsigned pid, unsigned n, "
                                       "SwizzleGrid g) { return pid; }\n// swizzleperf:end\n").value();
  RunHistory h;
  HardwareProfile hw;
  ProposalContext ctx{k, {4, 4}, hw, h, {}, {}, 1};
  auto a = p.propose(ctx);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->defines, (Defines{{"BLOCK_M", 128}}));
  auto b = p.propose(ctx);
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->defines.empty());
}

}  // namespace
}  // namespace swz
