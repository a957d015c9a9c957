// JSON form of Metrics and Timing. Keys are the field names; an absent
// optional is omitted (not null, not 0) so a reader can tell "not measured"
// from "measured zero". Reading tolerates null for an optional and a missing
// raw/launches; Timing's four time fields are required, its regime fields lenient.
#include "swizzleperf/core/metrics.h"

#include <fmt/format.h>
#include "swizzleperf/util/json_field.h"

namespace swz {

namespace {

struct OptionalField {
  const char* key;
  std::optional<double> Metrics::*member;
};

constexpr OptionalField kOptionalFields[] = {
    {"l2_hit_pct", &Metrics::l2_hit_pct},
    {"l2_sectors", &Metrics::l2_sectors},
    {"l2_hits", &Metrics::l2_hits},
    {"l2_misses", &Metrics::l2_misses},
    {"fabric_sectors", &Metrics::fabric_sectors},
    {"dram_read_bytes", &Metrics::dram_read_bytes},
    {"dram_write_bytes", &Metrics::dram_write_bytes},
    {"profiler_time_ns", &Metrics::profiler_time_ns},
};

}  // namespace

void to_json(nlohmann::json& j, const Metrics& m) {
  j = nlohmann::json::object();
  for (const auto& f : kOptionalFields) {
    if (const auto& v = m.*(f.member)) j[f.key] = *v;
  }
  j["launches"] = m.launches;
  if (m.launches_total > 0) {
    j["launch_skip"] = m.launch_skip;
    j["launches_total"] = m.launches_total;
  }
  j["raw"] = m.raw;
}

void from_json(const nlohmann::json& j, Metrics& m) {
  m = Metrics{};
  for (const auto& f : kOptionalFields) {
    auto it = j.find(f.key);
    if (it != j.end() && !it->is_null()) m.*(f.member) = it->get<double>();
  }
  if (auto it = j.find("launches"); it != j.end() && !it->is_null()) m.launches = int_at(j, "launches");
  if (auto it = j.find("launches_total"); it != j.end() && !it->is_null()) {
    m.launches_total = int_at(j, "launches_total");
    m.launch_skip = int_at(j, "launch_skip");
  }
  if (auto it = j.find("raw"); it != j.end() && !it->is_null()) {
    m.raw = it->get<std::map<std::string, double>>();
  }
}

namespace {

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

void to_json(nlohmann::json& j, const Timing& t) {
  j = nlohmann::json{{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}, {"reps", t.reps}};
  if (t.regime.empty()) return;  // a program that names no regime recorded nothing more
  j["regime"] = t.regime;
  j["telemetry"] = t.telemetry;
  j["sm_mhz_min"] = or_null(t.sm_mhz_min);
  j["sm_mhz_median"] = or_null(t.sm_mhz_median);
  j["sm_mhz_reference"] = or_null(t.sm_mhz_reference);
  j["clock_reasons"] = or_null(t.clock_reasons);
  if (t.clock_reasons) j["clock_reason_names"] = clock_reason_names(*t.clock_reasons);
  j["discarded"] = t.discarded;
  j["energy_mj_per_run"] = or_null(t.energy_mj_per_run);
  j["regime_reached"] = t.regime_reached;
  if (!t.regime_problem.empty()) j["regime_problem"] = t.regime_problem;
}

void from_json(const nlohmann::json& j, Timing& t) {
  t.median_ms = j.at("median_ms").get<double>();
  t.min_ms = j.at("min_ms").get<double>();
  t.max_ms = j.at("max_ms").get<double>();
  t.reps = int_at(j, "reps");
  // The regime fields are lenient: a program (or a history) from before them has none.
  if (auto it = j.find("regime"); it != j.end() && it->is_string()) t.regime = it->get<std::string>();
  if (auto it = j.find("telemetry"); it != j.end() && it->is_string()) t.telemetry = it->get<std::string>();
  read_optional(j, "sm_mhz_min", t.sm_mhz_min);
  read_optional(j, "sm_mhz_median", t.sm_mhz_median);
  read_optional(j, "sm_mhz_reference", t.sm_mhz_reference);
  if (auto it = j.find("clock_reasons"); it != j.end() && it->is_number_integer()) t.clock_reasons = it->get<long long>();
  t.discarded = int_or(j, "discarded", 0);
  read_optional(j, "energy_mj_per_run", t.energy_mj_per_run);
  if (auto it = j.find("regime_reached"); it != j.end() && it->is_boolean()) t.regime_reached = it->get<bool>();
  if (auto it = j.find("regime_problem"); it != j.end() && it->is_string()) t.regime_problem = it->get<std::string>();
}

std::vector<std::string> clock_reason_names(long long reasons) {
  // NVML's clocks event reason bits (nvml.h, nvmlClocksEventReason*).
  static const char* const kNames[] = {"gpu_idle",          "applications_clocks_setting", "sw_power_cap",
                                       "hw_slowdown",       "sync_boost",                  "sw_thermal_slowdown",
                                       "hw_thermal_slowdown", "hw_power_brake_slowdown",   "display_clock_setting"};
  std::vector<std::string> out;
  for (int bit = 0; bit < 63; ++bit) {
    if (!(reasons & (1LL << bit))) continue;
    if (bit < 9) out.emplace_back(kNames[bit]);
    else out.push_back(fmt::format("0x{:x}", 1LL << bit));
  }
  return out;
}

long long throttling_reasons(long long reasons) {
  return reasons & (kClockReasonSwPowerCap | kClockReasonsHeatOrBrake);
}

}  // namespace swz
