// JSON form of Metrics and Timing. Keys are the field names; an absent
// optional is omitted (not null, not 0) so a reader can tell "not measured"
// from "measured zero". Reading tolerates null for an optional and a missing
// raw/launches; Timing's four fields are all required.
#include "swizzleperf/core/metrics.h"
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

void to_json(nlohmann::json& j, const Timing& t) {
  j = nlohmann::json{{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}, {"reps", t.reps}};
}

void from_json(const nlohmann::json& j, Timing& t) {
  t.median_ms = j.at("median_ms").get<double>();
  t.min_ms = j.at("min_ms").get<double>();
  t.max_ms = j.at("max_ms").get<double>();
  t.reps = int_at(j, "reps");
}

}  // namespace swz
