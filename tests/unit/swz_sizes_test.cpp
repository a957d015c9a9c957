// Tests of kernels/support/swz_sizes.h, the harness's size and tolerance logic: the declared
// size limits and their messages, the 1-D launch limit, the default verify sizes
// (SwzProgram::verify_sizes()'s default) and the default tolerance (SwzProgram::tolerance()'s).
// The header is plain host C++ (swz_harness.h includes it), so the test includes it directly.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../../kernels/support/swz_sizes.h"

namespace {

const auto kAll = [](const SwzSize&) { return true; };

bool is_multiple(long long v, long long m) { return v % m == 0; }

// Every property the generator promises, for one default size and its limits.
void expect_valid_sizes(const std::vector<SwzSize>& sizes, const SwzSize& def, const SwzSize& mult,
                        const SwzSize& max) {
  ASSERT_FALSE(sizes.empty());
  EXPECT_LE(sizes.size(), 8u);
  const long long cap = def.size() == 1 ? 100003 : 300;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const SwzSize& s = sizes[k];
    ASSERT_EQ(s.size(), def.size());
    EXPECT_EQ(swz_size_limit_error(s, mult, max), "") << "size " << k;
    double elements = 1;
    for (size_t i = 0; i < s.size(); ++i) {
      const long long m = mult.empty() ? 1 : mult[i];
      EXPECT_GE(s[i], 1);
      EXPECT_LE(s[i], def[i]) << "size " << k << " value " << i;
      EXPECT_TRUE(is_multiple(s[i], m)) << "size " << k << " value " << i;
      if (!max.empty() && max[i] > 0) {
        EXPECT_LE(s[i], max[i]);
      }
      EXPECT_LE(s[i], std::max(cap, m)) << "size " << k << " value " << i;
      elements *= static_cast<double>(s[i]);
    }
    EXPECT_LE(elements, 33554432.0) << "size " << k;
    for (size_t j = 0; j < k; ++j) EXPECT_NE(sizes[j], s) << "duplicate sizes " << j << " and " << k;
  }
}

// ---- declared limits ------------------------------------------------------------------

TEST(SwzSizes, LimitErrorNamesTheValueAndItsMultiple) {
  EXPECT_EQ(swz_size_limit_error({4096, 1000}, {1, 16}, {}), "value 2 (1000) must be a multiple of 16");
  EXPECT_EQ(swz_size_limit_error({4096, 1008}, {1, 16}, {}), "");
}

TEST(SwzSizes, LimitErrorNamesTheValueAndItsMaximum) {
  EXPECT_EQ(swz_size_limit_error({5000, 16}, {}, {4096, 0}), "value 1 (5000) must be at most 4096");
  EXPECT_EQ(swz_size_limit_error({4096, 1ll << 40}, {}, {4096, 0}), "") << "a 0 entry is no limit";
}

TEST(SwzSizes, LimitErrorReportsTheFirstBrokenRuleInValueOrder) {
  EXPECT_EQ(swz_size_limit_error({3, 5, 7}, {2, 2, 2}, {}), "value 1 (3) must be a multiple of 2");
  EXPECT_EQ(swz_size_limit_error({4, 6, 7}, {2, 2, 2}, {}), "value 3 (7) must be a multiple of 2");
  EXPECT_EQ(swz_size_limit_error({8, 100}, {8, 1}, {4, 0}), "value 1 (8) must be at most 4");
}

TEST(SwzSizes, LimitErrorWantsPositiveValues) {
  EXPECT_EQ(swz_size_limit_error({0}, {}, {}), "value 1 (0) must be positive");
  EXPECT_EQ(swz_size_limit_error({4, -3}, {}, {}), "value 2 (-3) must be positive");
}

TEST(SwzSizes, EmptyLimitsAcceptEveryPositiveSize) {
  EXPECT_EQ(swz_size_limit_error({1}, {}, {}), "");
  EXPECT_EQ(swz_size_limit_error({1, 3, 1ll << 50, 7, 11}, {}, {}), "");
}

TEST(SwzSizes, DeclaredLimitsMustMatchTheDefaultSize) {
  EXPECT_EQ(swz_limits_error({64, 64}, {}, {}), "");
  EXPECT_EQ(swz_limits_error({64, 64}, {16, 16}, {0, 4096}), "");
  EXPECT_EQ(swz_limits_error({64, 64}, {16}, {}), "size_multiple() has 1 values, the default size 2");
  EXPECT_EQ(swz_limits_error({64, 64}, {}, {1, 2, 3}), "size_max() has 3 values, the default size 2");
  EXPECT_EQ(swz_limits_error({64, 64}, {16, 0}, {}), "size_multiple() value 2 (0) must be >= 1");
  EXPECT_EQ(swz_limits_error({64, 64}, {}, {-1, 0}), "size_max() value 1 (-1) must be >= 0 (0: no limit)");
}

// ---- the 1-D launch limit ----------------------------------------------------------------

TEST(SwzSizes, NumPidsUpToTwoToThe31MinusOne) {
  EXPECT_EQ(kSwzMaxPids, 2147483647ull);
  EXPECT_EQ(swz_num_pids_error(2147483647ull, 1, 2147483647ull), "");
  EXPECT_EQ(swz_num_pids_error(0, 0, 5), "");
  EXPECT_EQ(swz_num_pids_error(2147483648ull, 65536, 32768),
            "num_pids 2147483648 (grid 65536 x 32768) is above 2^31 - 1, the most workgroups a 1-D "
            "launch takes");
}

TEST(SwzSizes, LaunchGridFlattenedUpToTwoToThe31MinusOne) {
  EXPECT_EQ(swz_launch_grid_error(2147483647ull, 1, 1), "");
  EXPECT_EQ(swz_launch_grid_error(65535, 32768, 1), "");  // 2^31 - 2^15
  EXPECT_EQ(swz_launch_grid_error(1024, 1024, 2047), "");
  EXPECT_EQ(swz_launch_grid_error(65536, 32768, 1),
            "the launch grid (65536, 32768, 1) has more than 2^31 - 1 blocks once flattened onto a "
            "1-D grid");
  EXPECT_NE(swz_launch_grid_error(1, 1, 2147483648ull), "");
  EXPECT_NE(swz_launch_grid_error(1024, 1024, 2048), "");
  // No overflow in the check itself: three factors near 2^32.
  EXPECT_NE(swz_launch_grid_error(4294967295ull, 4294967295ull, 4294967295ull), "");
  EXPECT_NE(swz_launch_grid_error(65536, 65536, 1), "") << "2^32 wraps a 32-bit product to 0";
  EXPECT_EQ(swz_launch_grid_error(0, 4294967295ull, 4294967295ull), "") << "an empty grid";
}

// ---- default verify sizes ----------------------------------------------------------------

TEST(SwzSizes, DefaultVerifySizesOfAGemmShape) {
  // The documented candidate list, in order, for M, N, K with no limits.
  const std::vector<SwzSize> want = {{1, 1, 1},      {64, 64, 64},    {3, 5, 7},     {67, 131, 97},
                                     {97, 300, 67},  {1, 300, 300},   {300, 300, 1}, {257, 300, 193}};
  EXPECT_EQ(swz_default_verify_sizes({4096, 32768, 1024}, {}, {}, kAll), want);
}

TEST(SwzSizes, DefaultVerifySizesRoundUpToTheMultiples) {
  const std::vector<SwzSize> want = {{1, 4}, {64, 64}, {3, 8}, {67, 132}, {97, 300}, {1, 300}, {300, 4}, {257, 300}};
  EXPECT_EQ(swz_default_verify_sizes({4096, 8192}, {1, 4}, {}, kAll), want);
}

TEST(SwzSizes, DefaultVerifySizesOfOneValueReachSeveralLargeTiles) {
  const std::vector<SwzSize> want = {{1}, {64}, {5}, {67}, {97}, {1000}, {4099}, {100003}};
  EXPECT_EQ(swz_default_verify_sizes({1ll << 29}, {}, {}, kAll), want);
}

TEST(SwzSizes, DefaultVerifySizesAreDeterministic) {
  const SwzSize def = {8192, 8192, 24}, mult = {8, 1, 2}, max = {0, 4096, 0};
  const auto a = swz_default_verify_sizes(def, mult, max, kAll);
  const auto b = swz_default_verify_sizes(def, mult, max, kAll);
  EXPECT_EQ(a, b);
  expect_valid_sizes(a, def, mult, max);
}

TEST(SwzSizes, DefaultVerifySizesHonourTheLimitsForOneToFiveValues) {
  struct Case {
    SwzSize def, mult, max;
  };
  const std::vector<Case> cases = {
      {{1ll << 29}, {}, {}},
      {{1ll << 29}, {256}, {}},
      {{1000}, {8}, {640}},
      {{32768, 45056}, {}, {}},
      {{4096, 4096}, {16, 16}, {}},
      {{4096, 4096}, {64, 128}, {2048, 0}},
      {{20, 5000}, {}, {}},          // a default below the cap
      {{512, 512}, {512, 512}, {}},  // a multiple above the cap: the smallest value is the multiple
      {{4096, 32768, 1024}, {}, {}},
      {{4096, 32768, 1024}, {1, 1, 8}, {}},
      {{8192, 8192, 24}, {}, {0, 0, 24}},
      {{8, 64, 224, 224}, {}, {}},
      {{4096, 4096, 4096, 4096}, {2, 4, 8, 16}, {}},
      {{4, 32, 32, 8192, 2}, {}, {0, 0, 0, 0, 2}},
      {{1024, 1024, 1024, 1024, 1024}, {}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "default of " << c.def.size() << " values, first " << c.def[0]);
    expect_valid_sizes(swz_default_verify_sizes(c.def, c.mult, c.max, kAll), c.def, c.mult, c.max);
  }
}

TEST(SwzSizes, DefaultVerifySizesStartWithTheSmallestLegalSize) {
  EXPECT_EQ(swz_default_verify_sizes({4096, 4096}, {16, 32}, {}, kAll).front(), (SwzSize{16, 32}));
  EXPECT_EQ(swz_default_verify_sizes({4096}, {}, {}, kAll).front(), (SwzSize{1}));
}

TEST(SwzSizes, DefaultVerifySizesHoldRaggedValues) {
  // Value i is ragged when it is not a multiple of 16 (of 2 * m_i once m_i is 16 or more):
  // a partial tile for the common tile sizes.
  struct Case {
    SwzSize def, mult;
  };
  const std::vector<Case> cases = {{{4096, 4096}, {}},           {{4096, 4096, 1024}, {1, 4, 8}},
                                   {{4096, 4096}, {16, 32}},     {{1ll << 29}, {}},
                                   {{1ll << 20}, {4}},           {{64, 4096, 4096, 512}, {1, 2, 1, 1}}};
  for (const Case& c : cases) {
    const auto sizes = swz_default_verify_sizes(c.def, c.mult, {}, kAll);
    for (size_t i = 0; i < c.def.size(); ++i) {
      const long long m = c.mult.empty() ? 1 : c.mult[i];
      const long long unit = m < 16 ? 16 : 2 * m;
      bool ragged = false;
      for (const SwzSize& s : sizes) ragged = ragged || s[i] % unit != 0;
      EXPECT_TRUE(ragged) << "value " << i + 1 << " of a default of " << c.def.size() << " values";
    }
  }
}

TEST(SwzSizes, DefaultVerifySizesVaryOneValueAgainstTheOthers) {
  for (const SwzSize& def : {SwzSize{4096, 4096}, SwzSize{4096, 32768, 1024}}) {
    const auto sizes = swz_default_verify_sizes(def, {}, {}, kAll);
    const size_t n = def.size();
    bool first_small = false, last_small = false;
    for (const SwzSize& s : sizes) {
      first_small = first_small || (s[0] == 1 && s[1] > 128);
      last_small = last_small || (s[n - 1] == 1 && s[0] > 128);
    }
    EXPECT_TRUE(first_small);
    EXPECT_TRUE(last_small);
  }
}

TEST(SwzSizes, DefaultVerifySizesCoverSeveralTilesInEveryValue) {
  for (const SwzSize& def : {SwzSize{4096, 4096}, SwzSize{4096, 32768, 1024}, SwzSize{1ll << 29}}) {
    bool large = false;
    for (const SwzSize& s : swz_default_verify_sizes(def, {}, {}, kAll)) {
      bool all = true;
      for (long long v : s) all = all && v > 128;
      large = large || all;
    }
    EXPECT_TRUE(large) << def.size() << " values";
  }
}

TEST(SwzSizes, DefaultVerifySizesStayWithinASmallDefault) {
  const auto sizes = swz_default_verify_sizes({20, 5000, 3}, {}, {}, kAll);
  expect_valid_sizes(sizes, {20, 5000, 3}, {}, {});
  for (const SwzSize& s : sizes) {
    EXPECT_LE(s[0], 20);
    EXPECT_LE(s[2], 3);
  }
  // A default that is its own smallest size leaves one verify size.
  EXPECT_EQ(swz_default_verify_sizes({16, 16}, {16, 16}, {}, kAll), (std::vector<SwzSize>{{16, 16}}));
}

TEST(SwzSizes, DefaultVerifySizesKeepOnlyLegalOnes) {
  // As a program whose size_error() wants heads (value 2) a multiple of kv_heads (value 3).
  auto gqa = [](const SwzSize& s) { return s[1] % s[2] == 0; };
  const auto sizes = swz_default_verify_sizes({4, 32, 32, 8192, 1}, {}, {}, gqa);
  ASSERT_FALSE(sizes.empty());
  for (const SwzSize& s : sizes) EXPECT_EQ(s[1] % s[2], 0);
  // Nothing legal: no sizes (the harness then asks for verify_sizes()).
  EXPECT_TRUE(swz_default_verify_sizes({4096, 4096}, {}, {}, [](const SwzSize&) { return false; }).empty());
}

TEST(SwzSizes, DefaultVerifySizesBoundTheElementsOfManyValues) {
  const auto sizes = swz_default_verify_sizes({4096, 4096, 4096, 4096, 4096}, {}, {}, kAll);
  expect_valid_sizes(sizes, {4096, 4096, 4096, 4096, 4096}, {}, {});
  // The large size was halved from 300^5 to within 2^25 elements.
  bool shrunk = false;
  for (const SwzSize& s : sizes) {
    double e = 1;
    for (long long v : s) e *= static_cast<double>(v);
    shrunk = shrunk || e > 1e7;
  }
  EXPECT_TRUE(shrunk) << "some size still holds many elements";
}

TEST(SwzSizes, NoDefaultSizeNoVerifySizes) {
  EXPECT_TRUE(swz_default_verify_sizes({}, {}, {}, kAll).empty());
}

// ---- default tolerance -------------------------------------------------------------------

TEST(SwzSizes, DefaultToleranceOfIntegersIsExact) {
  for (SwzDType t : {SwzDType::i32, SwzDType::u32}) {
    const SwzTol tol = swz_default_tol(t, 1000);
    EXPECT_EQ(tol.abs, 0.0);
    EXPECT_EQ(tol.rel, 0.0);
    EXPECT_EQ(tol.abs_per_max_ref, 0.0);
    EXPECT_EQ(swz_tol_abs(tol, 1e9), 0.0);
  }
}

TEST(SwzSizes, DefaultToleranceOfFloatsIsFourLUR) {
  const double u32 = std::ldexp(1.0, -24), u64 = std::ldexp(1.0, -53);
  const SwzTol f = swz_default_tol(SwzDType::f32, 1000);
  EXPECT_EQ(f.abs, 0.0);
  EXPECT_EQ(f.rel, 0.0);
  EXPECT_DOUBLE_EQ(f.abs_per_max_ref, 4 * 1000 * u32);
  EXPECT_DOUBLE_EQ(swz_tol_abs(f, 10.0), 4 * 1000 * u32 * 10.0);
  const SwzTol d = swz_default_tol(SwzDType::f64, 9);
  EXPECT_DOUBLE_EQ(d.abs_per_max_ref, 4 * 9 * u64);
  EXPECT_DOUBLE_EQ(swz_tol_abs(d, 3.0), 4 * 9 * u64 * 3.0);
  // The default reduction length (1), and a length below 1 counted as 1.
  EXPECT_DOUBLE_EQ(swz_default_tol(SwzDType::f32, 1).abs_per_max_ref, 4 * u32);
  EXPECT_DOUBLE_EQ(swz_default_tol(SwzDType::f32, 0).abs_per_max_ref, 4 * u32);
  EXPECT_DOUBLE_EQ(swz_default_tol(SwzDType::f32, -5).abs_per_max_ref, 4 * u32);
}

TEST(SwzSizes, AProgramsOwnToleranceIsUnscaled) {
  const SwzTol t = {2e-3, 1e-5};  // the shipped programs' aggregate form
  EXPECT_EQ(t.abs_per_max_ref, 0.0);
  EXPECT_EQ(swz_tol_abs(t, 123.0), 2e-3);
  EXPECT_EQ(swz_tol_abs(t, std::numeric_limits<double>::infinity()), 2e-3) << "0 * inf is not NaN here";
  EXPECT_EQ(swz_tol_abs(SwzTol{0.0, 0.0}, 5.0), 0.0);
}

// splitmix64 in [-1, 1): the inputs of the tolerance checks below.
struct Mix {
  unsigned long long s;
  double next() {
    unsigned long long z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return -1.0 + 2.0 * static_cast<double>(z >> 11) / 9007199254740992.0;
  }
};

TEST(SwzSizes, DefaultToleranceCoversFp32SumsAndCatchesAMissingTerm) {
  // Dot products of L fp32 inputs in [-1, 1], accumulated in fp32 (sequentially: the worst
  // order) against the double reference; R is the largest |reference| over the rows.
  for (int L : {9, 64, 1024, 4096}) {
    Mix rng{static_cast<unsigned long long>(L)};
    const int rows = 256;
    std::vector<double> ref(rows), got(rows), missing(rows);
    double R = 0;
    for (int r = 0; r < rows; ++r) {
      float acc = 0.f;
      double exact = 0, last = 0;
      for (int k = 0; k < L; ++k) {
        const float a = static_cast<float>(rng.next()), b = static_cast<float>(rng.next());
        acc = std::fma(a, b, acc);
        exact += static_cast<double>(a) * b;
        last = static_cast<double>(a) * b;
      }
      ref[r] = exact;
      got[r] = acc;
      missing[r] = exact - last;  // one term dropped
      R = std::max(R, std::fabs(exact));
    }
    const double tol = swz_tol_abs(swz_default_tol(SwzDType::f32, L), R);
    double max_err = 0;
    int caught = 0;
    for (int r = 0; r < rows; ++r) {
      max_err = std::max(max_err, std::fabs(got[r] - ref[r]));
      if (std::fabs(missing[r] - ref[r]) > tol) ++caught;
    }
    EXPECT_LE(max_err, tol) << "L = " << L;
    EXPECT_LE(max_err * 4, tol) << "L = " << L << ": margin";
    // A wrong tile errs by O(R); the tolerance is a small fraction of that.
    EXPECT_LT(tol, 2e-3 * R) << "L = " << L;
    if (L <= 1024) {
      EXPECT_GT(caught, rows / 2) << "L = " << L << ": most single missing terms show";
    }
  }
}

}  // namespace
