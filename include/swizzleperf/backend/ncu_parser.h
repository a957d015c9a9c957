// Parsing Nsight Compute's CSV output into Metrics (pure: text in, value out).
// Contract: input is the whole stdout of
//   ncu --csv --print-units base --metrics M1,M2,... [--kernel-name regex:...] app args
// (details page): `==PROF==` lines and the program's own output, then a CSV
// table whose header holds "ID", "Kernel Name", "Metric Name", "Metric Unit",
// "Metric Value" (found by content, not position), one row per launch per
// metric. Every launch (distinct "ID") is aggregated: counters are summed into
// Metrics::raw by metric name, in base units (bytes, ns for times; any K/M/G/T
// prefix and us/ms/s are converted). Only counters (.sum, .avg) are summed; a
// rate, percentage or launch attribute is in raw only for a single launch.
// Typed fields are set only when the metric was reported for every launch,
// since a sum over some launches would be mistaken for the whole.
// l2_hit_pct = 100*hits/sectors from the sums (ncu's own definition of
// lts__t_sector_hit_rate.pct), else 100*hits/(hits+misses), else the printed
// percentage (one launch) or its sectors-weighted mean (several launches).
// Known ncu failures (counter permission, nothing profiled) and unreadable
// values come back as a one-line swz::Error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/core/metrics.h"
#include "swizzleperf/util/result.h"

namespace swz {

Result<Metrics> parse_ncu_csv(std::string_view text);

// The metrics swizzleperf asks ncu for on NVIDIA GPUs (all exist on gh100).
std::vector<std::string> ncu_default_metrics();

}  // namespace swz
