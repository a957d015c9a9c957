// Topology analysis for `swizzleperf probe`: pure functions from the probe
// program's measurements (kernels/support/topology_probe.cu) to the facts the
// prompts and the built-in proposer use — which SMs share an L2 side, in what
// order the first wave of blocks reaches SMs, which SMs form a GPC — and the
// ProbeResult that `probe` writes as hardware.json (schema: docs/probe.md).
// Every fact carries how it was obtained ("measured", "device query",
// "arch table") and a confidence, so nothing measured badly passes as known.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/result.h"

namespace swz::probe {

// ---- dispatch order ---------------------------------------------------------

// One block of `topology_probe order`: its pid (blockIdx.x), the %smid it ran on,
// and its start time (%globaltimer, ns, relative to the earliest block).
struct BlockRecord {
  int pid = 0;
  int smid = 0;
  std::int64_t t_ns = 0;
};

struct WaveOrder {
  int num_sms = 0;
  int blocks_per_sm = 0;
  int wave_size = 0;                  // blocks_per_sm * num_sms
  std::vector<int> pid_to_sm;         // first wave: pid (0..wave_size-1) -> %smid
  bool first_wave_is_prefix = false;  // every pid < W started before every pid >= W
  bool balanced = false;              // each SM ran exactly blocks_per_sm first-wave blocks
  int later_blocks = 0;               // blocks after the first wave
  double later_sm_match = 0;          // fraction of them on pid_to_sm[pid % W]
  bool later_waves_repeat = false;    // later_sm_match >= 0.99 (and there were later blocks)
};

// Records of one multi-wave launch (any order; pids 0..N-1 each once). Error when
// a pid is missing or repeated, an smid is negative, or there is less than one wave.
Result<WaveOrder> first_wave_order(const std::vector<BlockRecord>& records, int num_sms, int blocks_per_sm);

// ---- L2 sides -----------------------------------------------------------------

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

// values[smid]: the measurement of that SM; negative or NaN = not measured. The
// reference SM's population is side 0; when the reference was not measured,
// side 0 is the population with the lower mean. The reference side is expected to
// be the low one (fewer fabric sectors, shorter latency): otherwise confidence is low.
SideClassification classify_sides(const std::vector<double>& values, int ref_sm);

// side of each first-wave pid (-1 where the SM's side is unknown).
std::vector<int> pid_to_side(const std::vector<int>& pid_to_sm, const std::vector<int>& sm_side);

// Fraction of later-wave blocks whose SM is on the side of pid % W's first-wave SM.
double later_wave_side_match(const std::vector<BlockRecord>& records, const WaveOrder& order,
                             const std::vector<int>& sm_side);

// Fraction of measured SMs on which two classifications agree (labels as given: both
// put the reference SM on side 0). -1 when no SM was measured by both.
double side_agreement(const std::vector<int>& a, const std::vector<int>& b);

// ---- GPCs -----------------------------------------------------------------------

// One block of `topology_probe cluster`: the cluster size it was launched with, a
// cluster key unique over the whole run, and its %smid.
struct ClusterRecord {
  int cluster_size = 0;
  int cluster = 0;
  int smid = 0;
};

// SMs that ever shared a cluster, joined transitively (a cluster never spans GPCs),
// each group sorted, groups ordered by their smallest SM. A lower bound on the GPCs:
// SMs that never shared a cluster stay apart.
std::vector<std::vector<int>> gpc_groups(const std::vector<ClusterRecord>& records);

// True when every group lies on one side (sides unknown (-1) are ignored).
bool groups_single_sided(const std::vector<std::vector<int>>& groups, const std::vector<int>& sm_side);

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

// "0-1 8-13 16-17": sorted ids with runs collapsed, for summaries.
std::string format_id_ranges(std::vector<int> ids);

}  // namespace swz::probe
