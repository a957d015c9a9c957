// core/json_field: optional fields read without throwing.
#include "swizzleperf/core/json_field.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

TEST(JsonField, ReadsNumbersAndBooleansAndLeavesTheRestUnset) {
  const auto j = nlohmann::json::parse(R"({"x": 1.5, "n": 3, "b": true, "s": "1.5", "z": null, "bn": 1})");
  std::optional<double> x, s, z, missing;
  std::optional<int> n;
  std::optional<bool> b, bn;
  read_optional(j, "x", x);
  read_optional(j, "n", n);
  read_optional(j, "b", b);
  read_optional(j, "s", s);
  read_optional(j, "z", z);
  read_optional(j, "missing", missing);
  read_optional(j, "bn", bn);
  EXPECT_EQ(x, 1.5);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(b, true);
  EXPECT_FALSE(s);
  EXPECT_FALSE(z);
  EXPECT_FALSE(missing);
  EXPECT_FALSE(bn);  // a number is not a boolean
  std::optional<double> kept = 2.0;
  read_optional(nlohmann::json::array({1, 2}), "x", kept);  // not an object: unchanged
  EXPECT_EQ(kept, 2.0);
}

}  // namespace
}  // namespace swz
