// Topology analysis for `swizzleperf probe`: pure functions from the probe
// program's measurements (kernels/support/topology_probe.cu) to the facts the
// prompts and the built-in proposer use — which SMs share an L2 side, in what
// order the first wave of blocks reaches SMs, which SMs form a GPC — and the
// ProbeResult (core/probe_record.h) that `probe` writes as hardware.json.
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
#include "swizzleperf/core/probe_record.h"
#include "swizzleperf/util/result.h"

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

// Population and SideClassification: core/probe_record.h.

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


// "0-1 8-13 16-17": sorted ids with runs collapsed, for summaries.
std::string format_id_ranges(std::vector<int> ids);

}  // namespace swz::probe
