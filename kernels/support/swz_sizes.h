// swizzleperf kernel harness: the size and tolerance logic of swz_harness.h (which includes
// this header), in plain host C++ with no CUDA or HIP, so that tests/unit/swz_sizes_test.cpp
// tests it with the host compiler. C++11 and later (hipcc 5.2 compiles with -std=c++11).
// A program uses these names through swz_harness.h:
//   SwzSize, SwzDType, SwzTol           the types of the program description
//   swz_size_limit_error                a size against a program's size_multiple() / size_max()
//   swz_limits_error                    the declared limits themselves (a program bug)
//   swz_num_pids_error                  num_pids against the 1-D launch limit (2^31 - 1)
//   swz_launch_grid_error               a 2-D/3-D launch grid against the same limit
//   swz_default_verify_sizes            SwzProgram::verify_sizes()'s default
//   swz_default_tol, swz_tol_abs        SwzProgram::tolerance()'s default, and its resolution
//   swz_usage_text                      the usage text every usage error ends with (also
//                                       compiled into tests/fakes/fake_nvcc's emulator)
// Every *_error function returns "" when all is well, else one sentence naming the value.
#ifndef SWZ_SIZES_H
#define SWZ_SIZES_H

#include <functional>
#include <string>
#include <vector>

// A program's size: its --size values, e.g. {M, N, K}.
using SwzSize = std::vector<long long>;

// The element type of a program's output buffer.
enum class SwzDType { f32, f64, i32, u32 };

// Verify tolerance. An element is ok iff it is finite and
//   |got - ref| <= abs + abs_per_max_ref * R + rel * |ref|
// with R the largest |ref| of the verify case. abs_per_max_ref is what the harness's default
// tolerance uses; a program's own {abs, rel} leaves it 0. (Constructors rather than default
// member initializers, so that `return {abs, rel};` compiles under C++11, hipcc 5.2's
// -std=c++11, and without -Wmissing-field-initializers warnings.)
struct SwzTol {
  SwzTol() : abs(0), rel(0), abs_per_max_ref(0) {}
  SwzTol(double abs_tol, double rel_tol, double abs_per_max_ref_tol = 0)
      : abs(abs_tol), rel(rel_tol), abs_per_max_ref(abs_per_max_ref_tol) {}
  double abs;
  double rel;
  double abs_per_max_ref;
};

// The most workgroups a 1-D launch takes (the grid's x dimension): 2^31 - 1.
const unsigned long long kSwzMaxPids = 2147483647ull;

namespace swz_sizes_detail {
inline long long multiple_at(const SwzSize& multiple, size_t i) {
  return i < multiple.size() && multiple[i] >= 1 ? multiple[i] : 1;
}
inline long long max_at(const SwzSize& max, size_t i) {  // 0: no limit
  return i < max.size() && max[i] > 0 ? max[i] : 0;
}
inline std::string value_name(size_t i, long long v) {  // "value 2 (1000)"
  return "value " + std::to_string(i + 1) + " (" + std::to_string(v) + ")";
}
}  // namespace swz_sizes_detail

// The declared limits themselves: size_multiple() and size_max() are empty or have one entry
// per value of the default size; multiples are >= 1, maxima >= 0 (0: no limit). "" when ok.
inline std::string swz_limits_error(const SwzSize& default_size, const SwzSize& multiple,
                                    const SwzSize& max) {
  const size_t n = default_size.size();
  if (!multiple.empty() && multiple.size() != n)
    return "size_multiple() has " + std::to_string(multiple.size()) + " values, the default size " +
           std::to_string(n);
  if (!max.empty() && max.size() != n)
    return "size_max() has " + std::to_string(max.size()) + " values, the default size " +
           std::to_string(n);
  for (size_t i = 0; i < multiple.size(); ++i)
    if (multiple[i] < 1)
      return "size_multiple() value " + std::to_string(i + 1) + " (" + std::to_string(multiple[i]) +
             ") must be >= 1";
  for (size_t i = 0; i < max.size(); ++i)
    if (max[i] < 0)
      return "size_max() value " + std::to_string(i + 1) + " (" + std::to_string(max[i]) +
             ") must be >= 0 (0: no limit)";
  return "";
}

// One size against the declared limits: each value positive, a multiple of its entry of
// `multiple` and at most its entry of `max` (0 or no entry: no limit). The first broken rule,
// e.g. "value 2 (1000) must be a multiple of 16"; "" when none is.
inline std::string swz_size_limit_error(const SwzSize& s, const SwzSize& multiple, const SwzSize& max) {
  using namespace swz_sizes_detail;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] < 1) return value_name(i, s[i]) + " must be positive";
    const long long m = multiple_at(multiple, i);
    if (s[i] % m != 0) return value_name(i, s[i]) + " must be a multiple of " + std::to_string(m);
    const long long mx = max_at(max, i);
    if (mx > 0 && s[i] > mx) return value_name(i, s[i]) + " must be at most " + std::to_string(mx);
  }
  return "";
}

// A program's num_pids (its workgroups; the tile grid m x n by default) against the 1-D
// launch limit. "" when ok.
inline std::string swz_num_pids_error(unsigned long long num_pids, unsigned long long tiles_m,
                                      unsigned long long tiles_n) {
  if (num_pids <= kSwzMaxPids) return "";
  return "num_pids " + std::to_string(num_pids) + " (grid " + std::to_string(tiles_m) + " x " +
         std::to_string(tiles_n) + ") is above 2^31 - 1, the most workgroups a 1-D launch takes";
}

// A launch grid (x, y, z) flattened onto a 1-D grid of x * y * z blocks. "" when ok.
inline std::string swz_launch_grid_error(unsigned long long x, unsigned long long y,
                                         unsigned long long z) {
  // Each factor is below 2^32: compare step by step so the product cannot overflow.
  const bool fits = (x == 0 || y == 0 || z == 0) ||
                    (x <= kSwzMaxPids && y <= kSwzMaxPids / x && z <= kSwzMaxPids / (x * y));
  if (fits) return "";
  return "the launch grid (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
         std::to_string(z) + ") has more than 2^31 - 1 blocks once flattened onto a 1-D grid";
}

// SwzProgram::verify_sizes()'s default: at most 8 sizes derived from the default size and the
// declared limits alone (deterministic), each value a multiple of its entry of `multiple`, at
// most its entry of `max` and at most the default's value, each size accepted by `legal` (the
// harness passes its full size check: limits, the launch limit, size_error()). With n values,
// m_i value i's multiple and fit(i, x) = x rounded up to m_i, then capped at
//   cap_i = min(default_i, max_i, C rounded down to m_i (never below m_i)),
//   C = 300 for n >= 2 (bounds the CPU reference's cost), 100003 for n = 1,
// the candidates are, in this order (duplicates and illegal ones dropped):
//   n >= 2                                      n = 1
//   smallest       every value m_i              {m_0}
//   aligned        fit(64)                      {fit(64)}
//   tiny ragged    fit(3), fit(5), fit(7), ..   {fit(5)}
//   ragged         fit(67, 131, 97, 300, ..)    {fit(67)}
//   ragged'        fit(97, 300, 67, 131, ..)    {fit(97)}
//   one small      fit(1), fit(300), fit(300)..  {fit(1000)}
//   one small'     .., fit(300), fit(1)          {fit(4099)}
//   large          fit(257, 300, 193, ..)       {fit(100003)}
// (lists repeat cyclically over the values). The ragged values are multiples of neither 16,
// 32 nor 64 where m_i allows, the "one small" sizes vary one value against the others and
// the large size has every value above 128 (several tiles of any common tile size) unless a
// cap is lower. A size of more than 2^25 elements (the product of its values; from 4 values
// on) has its largest value halved (rounded up to m_i) until it is within, so some values of
// a 4- or 5-value large size may fall below 128.
inline std::vector<SwzSize> swz_default_verify_sizes(const SwzSize& default_size,
                                                     const SwzSize& multiple, const SwzSize& max,
                                                     const std::function<bool(const SwzSize&)>& legal) {
  using namespace swz_sizes_detail;
  const size_t n = default_size.size();
  std::vector<SwzSize> out;
  if (n == 0) return out;
  const long long kCap = n == 1 ? 100003 : 300;
  const double kElementBudget = 33554432.0;  // 2^25
  const size_t kMaxSizes = 8;
  std::vector<long long> m(n), cap(n);
  for (size_t i = 0; i < n; ++i) {
    m[i] = multiple_at(multiple, i);
    long long c = default_size[i];
    const long long mx = max_at(max, i);
    if (mx > 0 && mx < c) c = mx;
    const long long value_cap = kCap / m[i] * m[i] > m[i] ? kCap / m[i] * m[i] : m[i];
    if (value_cap < c) c = value_cap;
    c = c / m[i] * m[i];
    cap[i] = c < m[i] ? m[i] : c;  // no legal value at all: `legal` rejects what follows
  }
  auto fit = [&](size_t i, long long x) -> long long {
    const long long r = (x + m[i] - 1) / m[i] * m[i];
    return r < cap[i] ? r : cap[i];
  };
  auto add = [&](SwzSize s) {
    for (;;) {  // the element budget
      double elements = 1;
      for (long long v : s) elements *= static_cast<double>(v);
      if (elements <= kElementBudget) break;
      size_t big = n;
      for (size_t i = 0; i < n; ++i)
        if (s[i] > m[i] && (big == n || s[i] > s[big])) big = i;
      if (big == n) break;  // every value at its multiple
      s[big] = ((s[big] + 1) / 2 + m[big] - 1) / m[big] * m[big];
    }
    if (out.size() >= kMaxSizes) return;
    for (const SwzSize& o : out)
      if (o == s) return;
    if (legal(s)) out.push_back(s);
  };
  auto make = [&](const std::vector<long long>& values, size_t rotate) -> SwzSize {
    SwzSize s(n);
    for (size_t i = 0; i < n; ++i) s[i] = fit(i, values[(i + rotate) % values.size()]);
    return s;
  };
  if (n == 1) {
    for (long long v : {1ll, 64ll, 5ll, 67ll, 97ll, 1000ll, 4099ll, 100003ll}) add(SwzSize{fit(0, v)});
    return out;
  }
  add(make({1}, 0));
  add(make({64}, 0));
  add(make({3, 5, 7}, 0));
  add(make({67, 131, 97, 300}, 0));
  add(make({67, 131, 97, 300}, 2));
  SwzSize first_small = make({300}, 0), last_small = make({300}, 0);
  first_small[0] = fit(0, 1);
  last_small[n - 1] = fit(n - 1, 1);
  add(first_small);
  add(last_small);
  add(make({257, 300, 193}, 0));
  return out;
}

// SwzProgram::tolerance()'s default for an output of `dtype` whose values each sum
// `reduction_length` (L) input terms: integers exact ({0, 0}); floating point
// abs = 4 * L * u * R, rel = 0, with u the unit roundoff of the output type (f32: 2^-24,
// f64: 2^-53) and R the largest |ref| of the verify case (abs_per_max_ref = 4 * L * u).
// An L-term sum rounded in the output's precision errs by at most about L * u * sum|terms|;
// with inputs of one scale and mixed signs it stays far below that, and 4 L u R stays orders
// of magnitude below the error of a wrong or missing tile. L < 1 counts as 1.
inline SwzTol swz_default_tol(SwzDType dtype, long long reduction_length) {
  const double L = reduction_length < 1 ? 1.0 : static_cast<double>(reduction_length);
  if (dtype == SwzDType::f32) return SwzTol(0.0, 0.0, 4.0 * L * 5.9604644775390625e-8);    // 2^-24
  if (dtype == SwzDType::f64) return SwzTol(0.0, 0.0, 4.0 * L * 1.1102230246251565404e-16);  // 2^-53
  return SwzTol(0.0, 0.0);
}

// The absolute part of a tolerance for a case whose largest |ref| is max_abs_ref:
// abs + abs_per_max_ref * max_abs_ref (abs alone when abs_per_max_ref is 0, even for an
// infinite R).
inline double swz_tol_abs(const SwzTol& t, double max_abs_ref) {
  return t.abs_per_max_ref != 0 ? t.abs + t.abs_per_max_ref * max_abs_ref : t.abs;
}

// The text a usage error ends with: " (usage: prog MODES [OPTIONS])". with_footprint: the
// modes include `footprint` (swz_harness.h's; the Python harness and fake_nvcc's emulator
// have no footprint mode). tests/conformance/cases.json holds the same text, against which
// every implementation's usage errors are checked.
inline std::string swz_usage_text(bool with_footprint) {
  return std::string(" (usage: prog info|verify|time|profile|dump FILE|hash|compare BASELINE_FILE|evaluate|serve") +
         (with_footprint ? "|footprint" : "") +
         " [--size a,b,..] [--seed S] [--reps N] [--warmup W] [--chunks FILE] [--tol T]"
         " [--baseline FILE] [--regime burst|sustained] [--throttle-threshold F]"
         " [--recovery-ms M] [--max-discards N] [--settle-seconds S] [--sustain-seconds S])";
}

#endif  // SWZ_SIZES_H
