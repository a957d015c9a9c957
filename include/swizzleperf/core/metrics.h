// Metrics: what one profiled run of a kernel program measured, aggregated over
// every kernel launch of that run. Counters are summed, never averaged; rates are
// derived from the sums. Absent counters stay std::nullopt rather than 0.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

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

// Timing from the program's own device events, with the power regime it was taken
// in and what the platform's counters said meanwhile (docs/timing.md). A counter
// the platform does not expose stays empty: never invented.
struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int reps = 0;                               // samples kept
  std::string regime;                         // burst | sustained; empty: the program did not say
  std::string telemetry;                      // nvml | sysfs | none; empty: the program did not say
  std::optional<double> sm_mhz_min;           // SM clock over the kept samples
  std::optional<double> sm_mhz_median;
  std::optional<double> sm_mhz_reference;     // the device's clock rate (the threshold's base)
  std::optional<long long> clock_reasons;     // OR of the clock event reasons seen (NVML bits)
  int discarded = 0;                          // burst: samples taken below the threshold, re-taken
  std::optional<double> energy_mj_per_run;    // sustained: energy per pass over the window
  bool regime_reached = true;                 // false: the regime could not be held (regime_problem says why)
  std::string regime_problem;
};

void to_json(nlohmann::json& j, const Timing& t);
void from_json(const nlohmann::json& j, Timing& t);

// NVML's clocks event reason bits (nvml.h, nvmlClocksEventReason*) that the timing rules read.
inline constexpr long long kClockReasonSwPowerCap = 0x4;
// Hardware slowdown, software and hardware thermal slowdown, hardware power brake.
inline constexpr long long kClockReasonsHeatOrBrake = 0x8 | 0x20 | 0x40 | 0x80;

// Names of the NVML clock event reason bits set in `reasons` ("sw_power_cap", ...;
// unknown bits as "0x..."), in bit order.
std::vector<std::string> clock_reason_names(long long reasons);
// The reasons that lower the clock (power cap, thermal, slowdowns), without idle and
// the application-clock setting: what a regime's verdict mentions.
long long throttling_reasons(long long reasons);

}  // namespace swz
