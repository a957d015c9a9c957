// Synthetic tuning landscapes for the tune search and the tune proposer: a made-up
// screened time for each (point, order) of a small TuneSpace, shaped like a GEMM's
// (a bowl in the log of each tile parameter, an order gain that depends on the tile area,
// so the best order differs between tiles), with failing trials (a "shared memory"
// limit on the largest tiles and scattered build/launch failures) and ties (times are
// rounded to the microsecond).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "swizzleperf/tune/tune_search.h"
#include "swizzleperf/tune/tune_space.h"

namespace swz::test {

struct TuneLandscape {
  TuneSpace space;
  int orders = 5;                 // order 0: the program's own (identity) order
  std::vector<double> optimum;    // per tunable: log2 of its best value
  std::vector<double> curvature;  // per tunable
  std::vector<double> gain;       // per order: its best relative saving (order 0: none)
  std::vector<double> preferred;  // per order: log2 of the tile area it suits best
  std::int64_t max_volume = 0;    // a point whose first three values multiply past this fails (0: none)
  std::uint64_t seed = 1;
  int fail_one_in = 0;            // a trial fails when its hash % fail_one_in == 0 (0: never)

  // The screened time of (point, order), or nullopt for a failure.
  std::optional<double> ms(const TunePoint& point, int order) const;
};

// A space of tunables named T0, T1, ... with the given value lists (own value: each list's
// first entry unless `own` says), and a landscape over it drawn from `seed`.
TuneLandscape make_tune_landscape(const std::vector<std::vector<std::int64_t>>& values, int orders, std::uint64_t seed,
                                  const TunePoint& own = {});

// Runs a search to its end on `l`: the program's own point at order 0 first (an uncounted
// outcome, as the run's baseline), then every trial next_tune_trial returns, measured by l.
std::vector<TuneOutcome> run_tune_search(const TuneLandscape& l, const TuneSearchSettings& settings);

// The fastest time over every trial of the space (the exhaustive optimum); nullopt if all fail.
std::optional<double> tune_landscape_optimum(const TuneLandscape& l);

}  // namespace swz::test
