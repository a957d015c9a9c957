// Metrics: what one profiled run of a kernel program measured, aggregated over
// every kernel launch of that run. Counters are summed, never averaged; rates are
// derived from the sums. Absent counters stay std::nullopt rather than 0.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace swz {

struct Metrics {
  std::optional<double> l2_hit_pct;          // 100 * hits / sectors (or TCC_HIT/(HIT+MISS))
  std::optional<double> l2_sectors;          // lts__t_sectors.sum (NVIDIA) or HIT+MISS (AMD)
  std::optional<double> l2_hits;             // lts__t_sectors_lookup_hit.sum or TCC_HIT_sum
  std::optional<double> l2_misses;           // lts__t_sectors_lookup_miss.sum or TCC_MISS_sum
  std::optional<double> fabric_sectors;      // lts__t_sectors_srcunit_ltcfabric.sum (NVIDIA only)
  std::optional<double> dram_read_bytes;     // dram__bytes_read.sum
  std::optional<double> dram_write_bytes;    // dram__bytes_write.sum
  std::optional<double> profiler_time_ns;    // gpu__time_duration.sum (clock-locked; not the speed)
  int launches = 0;                          // kernel launches aggregated
  // A window of a longer run (ToolOptions::profile_launches): the launches aggregated are
  // [launch_skip, launch_skip + launches) of launches_total. 0: every launch of the run.
  int launch_skip = 0;
  int launches_total = 0;
  std::map<std::string, double> raw;         // every counter by its profiler name, summed
};

void to_json(nlohmann::json& j, const Metrics& m);
void from_json(const nlohmann::json& j, Metrics& m);

// Timing from the program's own device events.
struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int reps = 0;
};

void to_json(nlohmann::json& j, const Timing& t);
void from_json(const nlohmann::json& j, Timing& t);

}  // namespace swz
