// ProgramInfo: the program's info line read leniently, its grid checked.
#include "swizzleperf/core/program_info.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

TEST(ProgramInfo, ReadsTheContractsFields) {
  const auto p = program_info_from_json({{"grid", {{"m", 64}, {"n", 32}}}, {"kernel_regex", "gemm"}, {"dump_tol", 1e-3},
                                         {"launches", 255}, {"size", {4096, 2048}}, {"hints", {{"a", 1}}}});
  ASSERT_TRUE(p.checked_grid());
  EXPECT_EQ(p.grid.m, 64u);
  EXPECT_EQ(p.grid.n, 32u);
  EXPECT_EQ(p.kernel_regex, "gemm");
  EXPECT_DOUBLE_EQ(p.dump_tol, 1e-3);
  EXPECT_EQ(p.launches, 255);
  EXPECT_EQ(p.size, (std::vector<int>{4096, 2048}));
  EXPECT_EQ(p.raw["hints"]["a"], 1) << "fields one consumer reads stay in raw";
  EXPECT_EQ(nlohmann::json(p), p.raw);
}

TEST(ProgramInfo, LaunchesFallBackToTheFootprintCount) {
  const auto p = program_info_from_json({{"grid", {{"m", 2}, {"n", 2}}}, {"launch_footprints_bytes", {1, 2, 3}}});
  EXPECT_EQ(p.launches, 3);
}

TEST(ProgramInfo, ABadGridIsAnErrorNotAThrow) {
  for (const nlohmann::json& j : {nlohmann::json(nullptr), nlohmann::json{{"grid", "8x8"}},
                                  nlohmann::json{{"grid", {{"m", 0}, {"n", 4}}}},
                                  nlohmann::json{{"grid", {{"m", 65536}, {"n", 65537}}}}}) {
    const auto p = program_info_from_json(j);
    EXPECT_FALSE(p.checked_grid()) << j.dump();
  }
  EXPECT_FALSE(program_info_from_json(nlohmann::json::object()).present());
}

}  // namespace
}  // namespace swz
