// The probe's record: what `swizzleperf probe` measured about a device (L2 sides,
// first-wave dispatch order, GPC groups, each fact with its provenance), its JSON
// form (schema: docs/probe.md), its per-device cache, and how it is folded into a
// HardwareProfile. It sits in core, below both backend/ (which assembles the
// hardware profile from the device query, the arch table and this cache) and
// probe/ (which measures and writes it), so neither leans on the other.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/util/result.h"

namespace swz::probe {

namespace fs = std::filesystem;

// ---- measurements ---------------------------------------------------------------

struct Population {
  int count = 0;
  double mean = 0, min = 0, max = 0, stddev = 0;
};

// Two populations of a per-SM measurement (ncu fabric sectors, or L2-hit latency
// after the reference SM warmed the data), split by exact 1-D 2-means.
struct SideClassification {
  std::vector<int> side;               // per SM id: 0 = the reference SM's side, 1 = the other, -1 = not measured
  std::array<Population, 2> populations{};
  double gap = 0;         // between the closest members of the two populations (0 if they interleave)
  double spread = 0;      // the larger of the two populations' standard deviations
  double separation = 0;  // gap / spread (capped at 1e6)
  std::string confidence = "low";  // "high": separation >= 4, relative gap >= 10 %, >= 2 SMs per side, ref on the low side
  std::string note;       // why the confidence is low, when it is
};

// ---- result -----------------------------------------------------------------------

struct FactSource {
  std::string how;         // "measured" | "device query" | "arch table" | "unknown"
  std::string confidence;  // "high" | "medium" | "low"
  std::string note;
};

// One `order` measurement (the K=1 one is also spelled out at the top level).
struct OrderSummary {
  int blocks_per_sm = 0;
  int wave_size = 0;
  std::vector<int> pid_to_sm;
  std::vector<int> pid_to_side;
  bool first_wave_is_prefix = false;
  bool balanced = false;
  double later_sm_match = 0;
  double later_side_match = -1;  // -1: sides unknown
};

struct ProbeResult {
  int schema_version = 1;
  std::string vendor;       // nvidia | amd
  std::string device_name;
  std::string arch;
  int sm_count = 0;         // SMs or CUs
  std::int64_t l2_bytes = 0;
  int driver_version = -1;
  std::string created_at;   // UTC, ISO 8601
  std::string tool_version;

  int num_l2_domains = 1;   // 2 on H100 when the split is clean; XCDs on AMD
  int ref_sm = 0;           // the SM that warmed the data; its side is side 0
  std::string side_method;  // "ncu_fabric" | "l2_latency" | "" (not measured)
  std::vector<int> sm_side; // per SM id; -1 unknown
  SideClassification sides; // of side_method's measurement
  double side_methods_agreement = -1;  // both methods ran: fraction of SMs they agree on

  int wave_size = 0;
  int blocks_per_sm = 1;
  std::vector<int> first_wave_pid_to_sm;
  std::vector<int> first_wave_pid_to_side;  // die table for pid < wave_size (AMD: xcd table)
  bool later_waves_repeat = false;
  std::vector<OrderSummary> orders;

  int cluster_size = 0;                     // the largest cluster size that launched
  std::vector<std::vector<int>> gpc_groups;
  bool gpc_groups_single_sided = false;

  // Raw per-SM measurements (index = SM id; -1 = not measured) and anything else
  // measured as-is (AMD: the xcc probe's JSON).
  std::vector<double> fabric_sectors_per_sm;
  std::vector<double> l2_latency_cycles_per_sm;
  nlohmann::json raw_extra = nlohmann::json::object();

  std::map<std::string, FactSource> how;   // fact -> provenance
  std::vector<std::string> notes;

  bool sides_known() const { return !side_method.empty() && sides.confidence == "high"; }
};

void to_json(nlohmann::json& j, const Population& p);
void from_json(const nlohmann::json& j, Population& p);
void to_json(nlohmann::json& j, const SideClassification& s);
void from_json(const nlohmann::json& j, SideClassification& s);
void to_json(nlohmann::json& j, const FactSource& f);
void from_json(const nlohmann::json& j, FactSource& f);
void to_json(nlohmann::json& j, const OrderSummary& o);
void from_json(const nlohmann::json& j, OrderSummary& o);
void to_json(nlohmann::json& j, const ProbeResult& r);
void from_json(const nlohmann::json& j, ProbeResult& r);

// A ProbeResult from hardware.json's bytes (`name` goes into the errors): Error when
// it is not JSON, not a probe result, or from a newer schema. load_probe reads the
// file and calls this; tests/fuzz/fuzz_probe_json.cpp feeds it arbitrary bytes.
Result<ProbeResult> parse_probe(std::string_view text, const std::string& name = "hardware.json");

// Merges what the probe measured into a hardware profile: with clean sides, num_dies =
// num_l2_domains and a "table" dispatch model from first_wave_pid_to_side (source
// "measured"; its note says whether later waves repeat the first wave). Leaves the
// profile alone (returns false) when the probe is for another device or measured
// nothing clean.
bool apply_probe(HardwareProfile& profile, const ProbeResult& probe);

// ---- cache ------------------------------------------------------------------------

// $XDG_CACHE_HOME/swizzleperf, else $HOME/.cache/swizzleperf; empty when neither is set.
fs::path probe_cache_dir();
// "probe-NVIDIA_H100_80GB_HBM3-13000-132.json": characters outside [A-Za-z0-9._-] become '_'.
std::string probe_cache_name(const std::string& device_name, int driver_version, int sm_count);
// The cached probe of this device (name, driver_version from the device query, SM
// count), if one was written by `swizzleperf probe` and still parses.
std::optional<ProbeResult> load_cached_probe(const HardwareProfile& hw);

Status save_probe(const ProbeResult& result, const fs::path& path);
Result<ProbeResult> load_probe(const fs::path& path);

}  // namespace swz::probe
