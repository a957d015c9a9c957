// core/json_field: optional fields read without throwing.
#include "swizzleperf/util/json_field.h"

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

TEST(JsonField, IntsOutsideIntRangeAreNotConverted) {
  // Converting 9e41 to int is undefined behaviour (found by fuzz_history).
  const auto j = nlohmann::json::parse(R"({"i": 7, "neg": -3, "big": 9e41, "f": 2.5, "u": 4294967296, "s": "7",
                                           "a": [1, 3000000000, -2147483648]})");
  EXPECT_EQ(int_or(j, "i", -1), 7);
  EXPECT_EQ(int_or(j, "neg", -1), -3);
  EXPECT_EQ(int_or(j, "big", -1), -1);
  EXPECT_EQ(int_or(j, "f", -1), -1);
  EXPECT_EQ(int_or(j, "u", -1), -1);
  EXPECT_EQ(int_or(j, "s", -1), -1);
  EXPECT_EQ(int_or(j, "missing", -1), -1);
  EXPECT_EQ(int_or(j["a"], std::size_t{0}, -1), 1);
  EXPECT_EQ(int_or(j["a"], std::size_t{1}, -1), -1);
  EXPECT_EQ(int_or(j["a"], std::size_t{2}, -1), -2147483647 - 1);
  EXPECT_EQ(int_or(j["a"], std::size_t{3}, -1), -1);
  EXPECT_EQ(int_at(j, "i"), 7);
  EXPECT_THROW(int_at(j, "big"), nlohmann::json::type_error);
  EXPECT_THROW(int_at(j, "f"), nlohmann::json::type_error);
  EXPECT_THROW(int_at(j, "missing"), nlohmann::json::out_of_range);
}

}  // namespace
}  // namespace swz
