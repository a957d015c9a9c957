// HardwareProfile: what the proposals and the mapping check know about the
// device: dies (XCDs or L2 partitions), L2 per die, compute units, and the
// block-dispatch model that says which die a hardware pid lands on. Each fact
// carries its provenance (queried / documented / arch table / measured / assumed).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/util/result.h"

namespace swz {

struct DispatchModel {
  // "round_robin": die = pid % num_dies (MI300X, documented).
  // "table": die = first_wave_die[pid % first_wave_die.size()] (measured by a probe).
  std::string kind = "round_robin";
  std::vector<int> first_wave_die;
  std::string source = "assumed";  // documented | measured | assumed
  std::string note;                // human-readable, goes into prompts and reports

  int die_of(unsigned pid, int num_dies) const;
};

struct HardwareProfile {
  std::string vendor;        // nvidia | amd
  std::string name;          // "NVIDIA H100 80GB HBM3"
  std::string arch;          // "sm_90", "gfx942"
  int compute_units = 0;     // SMs or CUs
  std::int64_t l2_bytes = 0; // total L2
  int num_dies = 1;          // XCDs (AMD) or L2 partitions (NVIDIA)
  std::int64_t l2_bytes_per_die = 0;
  DispatchModel dispatch;
  std::map<std::string, std::string> provenance;  // fact -> how it was obtained
  nlohmann::json device_query;                    // raw query output

  int compute_units_per_die() const { return num_dies > 0 ? compute_units / num_dies : compute_units; }
  // Short multi-line description for prompts and reports.
  std::string summary() const;
};

void to_json(nlohmann::json& j, const HardwareProfile& h);
void from_json(const nlohmann::json& j, HardwareProfile& h);
void to_json(nlohmann::json& j, const DispatchModel& d);
void from_json(const nlohmann::json& j, DispatchModel& d);

// Builds a profile from the device-query program's JSON (kernels/support/
// device_query.hip), filling dies and dispatch from the arch table where the
// query cannot tell: gfx940/941/942 = 8 XCDs round-robin, 4 MB L2 each;
// NVIDIA sm_90 = 2 L2 partitions, dispatch assumed until `swizzleperf probe`.
Result<HardwareProfile> profile_from_device_query(const nlohmann::json& query);

// Profile for a named arch with no device at hand (`check` on a CPU-only machine).
Result<HardwareProfile> profile_from_arch(const std::string& arch_or_alias);

}  // namespace swz
