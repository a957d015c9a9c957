// TuneSearch: which (parameter point, block order) to measure next when a program's template
// parameters are tuned together with its block order. Pure functions, no I/O and no clock:
// the next trial follows from the space, the settings and the outcomes so far, so a
// resumed run, whose outcomes come back from its history, continues the same sequence
// without measuring anything again.
//
// A trial is a point of the space (TuneSpace's enumerated points) with an order index (the
// caller's list of orders: the program's own order and the built-in families). An outcome
// is a trial with its screened time in ms, or a failure (build, launch, validation): a
// failed trial is never proposed again and does not stop the search.
//
// Strategies:
//   exhaustive  every point x every order, point by point (the enumeration's order), each once.
//   random      a seeded sample without repetition.
//   guided      (the default) 1. screen points at one good order (screen_order: a grouped
//               order), at most a third of the budget of them (a seeded sample when the
//               space has more, the program's own point first); 2. every order on the best
//               few points; 3. hill-climb, one parameter one step in its value list: the
//               best trials' neighbours at their own order, then each order's climb from
//               its own best point (the best tile differs between orders), then the best
//               trials' neighbours at the best orders; 4. the remaining trials, best-ranked
//               points first. Each step is re-derived from the outcomes at every call.
// Every strategy stops at the evaluation budget (counted outcomes) or when no trial is left.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/tune/tune_space.h"

namespace swz {

enum class TuneStrategy { guided, exhaustive, random };
std::string to_string(TuneStrategy s);
std::optional<TuneStrategy> tune_strategy_from_string(const std::string& s);  // guided | exhaustive | random

struct TuneTrial {
  TunePoint point;
  int order = 0;
  bool operator==(const TuneTrial& o) const { return order == o.order && point == o.point; }
  bool operator<(const TuneTrial& o) const { return point != o.point ? point < o.point : order < o.order; }
};

struct TuneOutcome {
  TuneTrial trial;
  std::optional<double> ms;  // the screened time; nullopt: the trial failed
  // False for a measurement the search did not spend (the program's own point and order,
  // the run's baseline): it informs the ranking and is not counted against the budget.
  bool counted = true;
};

struct TuneSearchSettings {
  TuneStrategy strategy = TuneStrategy::guided;
  int budget = 60;           // counted outcomes at which the search stops
  std::uint64_t seed = 1;    // random's sample, guided's screening sample of a large space
};

// The space as the search walks it: the enumerated points, the value list of each tunable
// (neighbours are one step in it), the number of orders, the program's own order and the
// order guided screens at. Built once (make_tune_search_space indexes the points).
struct TuneSearchSpace {
  std::vector<TunePoint> points;
  std::vector<std::vector<std::int64_t>> values;  // per tunable, ascending
  int orders = 1;
  int own_order = 0;
  int screen_order = 0;
  std::map<TunePoint, std::size_t> index;          // point -> its position in `points`
  std::optional<std::size_t> own_point;            // the program's own configuration, when in `points`

  std::uint64_t trials() const { return static_cast<std::uint64_t>(points.size()) * static_cast<std::uint64_t>(orders); }
};

// `points`: the space's enumerated points (enumerate_points); orders >= 1; own_order and
// screen_order are clamped into [0, orders).
TuneSearchSpace make_tune_search_space(const TuneSpace& space, std::vector<TunePoint> points, int orders, int own_order,
                                       int screen_order);

// The next trial to measure, or nullopt when the budget is spent or every trial has an
// outcome. Outcomes whose point is not in the space are counted and otherwise ignored.
std::optional<TuneTrial> next_tune_trial(const TuneSearchSpace& space, const std::vector<TuneOutcome>& outcomes,
                                         const TuneSearchSettings& settings);

// The best outcome with a time (ties: the first), or nullptr.
const TuneOutcome* best_tune_outcome(const std::vector<TuneOutcome>& outcomes);

}  // namespace swz
