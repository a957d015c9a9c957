// TuneSpace: the template parameters a kernel program declares for tuning, read from its
// source without compiling it.
//
// A C++ program (HIP, CUDA) names a build define, guarded so that the build's -DNAME=V wins:
//
//   #ifndef BLOCK_M
//   #define BLOCK_M 128  // swizzleperf:tunable 64 128 256
//   #endif
//
// A Triton program names a module-level constant:
//
//   BLOCK_M = 128  # swizzleperf:tunable 64 128 256
//
// The value written is the program's own configuration (the baseline a tuned point is judged
// against) and must be one of the listed values. Values are decimal integers separated by
// spaces or commas, or `pow2 A..B` (the powers of two from A to B). Comment lines add rules
// (`//` in C++, `#` in Python), written in IntExpr's grammar over the tunables' names:
//
//   swizzleperf:restrict BLOCK_K % 16 == 0 && BLOCK_M * BLOCK_N <= 128 * 256
//   swizzleperf:shared-bytes (BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * 2 * NUM_STAGES
//   swizzleperf:threads NUM_WARPS * 32
//
// A point is in the space when every restriction is non-zero and its shared memory and
// threads per block (where declared) fit the device (TuneLimits): impossible points are pruned
// before anything compiles. A point that still fails to compile or launch is the search's to
// record. The scan is line by line (no regex, no recursion); sizes are bounded below.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/tune/int_expr.h"
#include "swizzleperf/util/result.h"

namespace swz {

inline constexpr std::size_t kMaxTunables = 16;
inline constexpr std::size_t kMaxTunableValues = 64;
inline constexpr std::size_t kMaxTuneRules = 32;
inline constexpr std::uint64_t kMaxTunePoints = 1'000'000;

struct Tunable {
  std::string name;
  std::int64_t value = 0;             // the program's own configuration
  std::vector<std::int64_t> values;   // ascending, unique, holding `value`
  int line = 0;                       // 1-based line of its declaration
};

struct TuneRule {
  IntExpr expr;
  int line = 0;
};

// One configuration: a value per tunable, in the space's declaration order.
using TunePoint = std::vector<std::int64_t>;

// What a device allows one block (workgroup); 0: unknown, not checked.
struct TuneLimits {
  std::int64_t shared_bytes_per_block = 0;
  std::int64_t threads_per_block = 0;
  std::int64_t warp_size = 0;
};

struct TuneSpace {
  std::vector<Tunable> tunables;           // declaration order
  std::vector<TuneRule> restrictions;
  std::optional<TuneRule> shared_bytes;    // per block
  std::optional<TuneRule> threads;         // per block

  bool empty() const { return tunables.empty(); }
  // The product of the value counts (at most kMaxTunePoints once parsed).
  std::uint64_t size() const;
  // The program's own configuration.
  TunePoint own_point() const;
  // name -> value for `p`, as the rules and a build's defines read it.
  std::map<std::string, std::int64_t> bind(const TunePoint& p) const;
  // "BLOCK_M=128 BLOCK_N=64": the point in words, declaration order.
  std::string describe(const TunePoint& p) const;
};

// The declarations in `text` (a program in `language`; `name` prefixes errors, which say
// `name:LINE: ...` and what to write instead). No declaration: an empty space. The program's
// own configuration must satisfy its restrictions.
Result<TuneSpace> parse_tune_space(std::string_view text, RegionLanguage language, const std::string& name);

// Why `p` is out of the space ("restriction at line 7 (BLOCK_M <= BLOCK_N) is false", "needs
// 262144 bytes of shared memory per block, the device allows 232448"), or "" when it is in.
// A rule that cannot be evaluated (division by zero, overflow) excludes the point, saying so.
std::string point_excluded(const TuneSpace& space, const TunePoint& p, const TuneLimits& limits);

// `text` with each named tunable's declared value replaced by the given one (the declaring
// line keeps its comment and layout): the program a point builds as (Triton) and the best
// program a tune run writes (both languages; a C++ build passes -DNAME=V instead, which the
// #ifndef guard lets win). A name that is not a tunable of the program, or a value not among
// its values, is an error naming it.
Result<std::string> with_tunable_values(std::string_view text, RegionLanguage language,
                                        const std::map<std::string, std::int64_t>& values, const std::string& name);

struct TuneEnumeration {
  std::vector<TunePoint> points;       // in the space, odometer order (the last tunable fastest)
  std::uint64_t excluded = 0;          // pruned by a rule or a limit
  std::string first_exclusion;         // the first pruned point's reason, for a summary line
};
// Every point of the space, pruned by point_excluded.
TuneEnumeration enumerate_points(const TuneSpace& space, const TuneLimits& limits);

}  // namespace swz
