// TuneReport: what a tune run's history says about the space it searched (template
// parameters with the block order): the best point for each value of each tunable and for
// each order, a picture of the space (one row per point, one column per order, each cell the
// screened median or the status it failed with), and what the search cost (evaluations used,
// failed, seconds). Made from the history alone (core/history's typed records) and the
// program's TuneSpace; nothing here measures anything. Markdown for the run's report and the
// `tune` command's output; the JSON for --json is made here from the struct, at the edge.
//
// How an attempt is read: its build defines are its point (the tunables it does not name keep
// the program's own values: a candidate at the own configuration carries none); its order is
// its label up to " @ " (the tune proposer labels a candidate "<order> @ <point>"), and the
// baseline's order is that of the first attempt with the baseline's region (else the
// baseline's label). Times are the one-shot screening's medians; "x" is the baseline's
// screened median over the cell's. A (point, order) tried more than once keeps its best
// validated time, else its first failure. Duplicates are counted apart: nothing was run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/history.h"
#include "swizzleperf/tune/tune_space.h"

namespace swz {

// One evaluation of a (point, order).
struct TuneCell {
  int iteration = 0;                   // the attempt's (0: the baseline)
  AttemptStatus status = AttemptStatus::ok;
  std::optional<double> ms;            // screened median, validated attempts only
  std::optional<double> vs_baseline;   // baseline ms / ms
};

struct TuneRow {
  TunePoint point;                     // the space's declaration order
  std::string tile;                    // "128x256x32x4": the values joined by 'x'
  bool own = false;                    // the program's own configuration
  std::vector<std::optional<TuneCell>> cells;  // one per TuneReport::orders; nullopt: not tried
};

// The fastest validated evaluation of some set of them.
struct TuneBest {
  int iteration = 0;
  TunePoint point;
  std::string order;
  double ms = 0;
  std::optional<double> vs_baseline;
};

struct TuneValueBest {
  std::string name;                    // the tunable
  std::int64_t value = 0;
  int evaluated = 0;                   // evaluations (baseline included) at this value
  int failed = 0;                      // of them, not validated
  std::optional<TuneBest> best;
};

struct TuneOrderBest {
  std::string order;
  int evaluated = 0;
  int failed = 0;
  std::optional<TuneBest> best;
};

// The run's judged winner (RunHistory::best()): its screened cell and the re-check's
// speedup with its interval, where it was re-checked.
struct TuneWinner {
  TuneBest screened;
  std::optional<double> speedup;
  std::optional<double> ci_low, ci_high;
  bool significant = false;
};

struct TuneReport {
  std::string kernel;
  std::vector<std::string> names;      // the tunables, declaration order
  TunePoint own_point;
  std::uint64_t space_size = 0;        // points before pruning
  // Points the program's rules and the device's limits removed before any build, with the
  // first one's reason: from the enumeration the caller passes (absent: none passed).
  std::optional<std::uint64_t> pruned;
  std::string first_pruned;
  std::vector<std::string> orders;     // the columns: the baseline's order first, then first-tried order
  std::vector<TuneRow> rows;           // ascending by point (declaration order)
  std::vector<TuneValueBest> per_value;  // each tunable in order, each of its declared values
  std::vector<TuneOrderBest> per_order;  // orders' order
  std::optional<TuneBest> best;        // fastest screened evaluation
  std::optional<TuneWinner> winner;    // what the judge named (absent: nothing significant)
  std::optional<double> baseline_ms;
  int evaluations = 0;                 // attempts tried (duplicates and the baseline excluded)
  int failed = 0;                      // of them, not validated
  int duplicates = 0;
  std::map<std::string, int> failures;  // status name -> count
  double seconds = 0;                  // wall time of the baseline's and every attempt's evaluation
  // Why the search ended: the history's stopped_because ("" : it ran to the loop's count; a
  // caller that knows the search's own reason may say it here).
  std::string stopped;
};

// `enumeration`: the space as the run enumerated it (enumerate_points with the device's
// limits), for the pruned count; nullptr leaves it absent.
TuneReport make_tune_report(const RunHistory& history, const TuneSpace& space, const TuneEnumeration* enumeration = nullptr);

// Markdown: a summary, the best per parameter value and per order, and the space's table.
std::string render_tune_markdown(const TuneReport& report);

// The --json form: every field above, points as {name: value} objects.
nlohmann::json tune_report_json(const TuneReport& report);

}  // namespace swz
