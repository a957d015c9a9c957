// Parsing rocprofv3's CSV files into Metrics / agent facts (pure: text in, value out).
// Contract for PREFIX_counter_collection.csv: columns are found by name, so
// both the 2024 header and the 2025 one (which adds Accum_VGPR_Count,
// Start_Timestamp, End_Timestamp) work. One row per dispatch per counter;
// rows are kept when kernel_regex matches somewhere in Kernel_Name (a NamePattern:
// the linear-time regex subset of core/name_pattern.h, searched as
// std::regex_search would; all rows when the regex is empty) and summed over
// dispatches into Metrics::raw.
// TCC_HIT_sum and TCC_MISS_sum are required. l2_hits/l2_misses are those
// sums, l2_sectors = hits + misses — on AMD these count L2 (TCC) *requests*,
// not 32-byte sectors, so compare them only with other AMD runs.
// l2_hit_pct = 100*HIT/(HIT+MISS), as rocprof-compute defines it for gfx942.
// profiler_time_ns = sum of End_Timestamp - Start_Timestamp when the 2025
// columns are there (counter-collection runs serialize dispatches, so this is
// not the program's speed). launches = distinct Dispatch_Id.
// Contract for PREFIX_agent_info.csv: the first agent with Agent_Type "GPU".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "swizzleperf/core/metrics.h"
#include "swizzleperf/util/result.h"

namespace swz {

Result<Metrics> parse_rocprof_counters(std::string_view csv, std::string_view kernel_regex = "");

struct RocprofAgentInfo {
  std::string arch;                     // "gfx942": Name, or derived from Gfx_Target_Version
  std::string product_name;             // "AMD Instinct MI300X" (Product_Name; may be empty)
  int cu_count = 0;                     // Cu_Count: CUs of the whole agent, all XCCs
  std::optional<int> num_xcc;           // Num_Xcc (absent in old rocprofv3); depends on partition mode
  std::optional<int> simd_count;        // Simd_Count
  std::optional<int> wave_front_size;   // Wave_Front_Size
  std::optional<int> node_id;           // Node_Id, the agent id rocprofv3 uses elsewhere
};

Result<RocprofAgentInfo> parse_rocprof_agent_info(std::string_view csv);

}  // namespace swz
