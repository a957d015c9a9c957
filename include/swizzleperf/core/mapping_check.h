// Mapping check: compiles a swizzle region with the host C++ compiler, evaluates
// swizzle_pid over whole pid ranges, and reports whether it is a bijection (with
// colliding and missing ids), per-die load and how many neighbouring tiles share
// a die under the hardware's dispatch model. Runs before any GPU time is spent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/mapping_report.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/util/process.h"
#include "swizzleperf/util/result.h"

namespace swz {

struct MappingCheckOptions {
  std::string host_compiler = "c++";
  std::filesystem::path work_dir;          // where the evaluator is written and built
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  // Keep every grid's pid -> tile table, not only the main grid's (4 bytes a pid each): for
  // comparing two evaluations grid by grid in one pass (one compile) each.
  bool keep_every_mapping = false;
  // TEST ONLY: skip the region validator so tests can show that the evaluator's
  // own confinement (rlimits + seccomp strict mode) holds when the validator is
  // bypassed. Never set outside tests; no option or variable of the CLI sets it.
  bool unsafe_skip_region_validator_for_tests = false;
};

// The most tiles one grid may have for the host check: the evaluator streams 4
// bytes a pid and the analysis keeps a few words a tile, so 2^26 tiles cost about
// 1 GiB of the tool's memory at most. A larger grid is refused with one line that
// says this limit (check a smaller grid of the same shape with --grid).
inline constexpr std::uint64_t kMaxCheckedPids = 1ull << 26;

// Ragged grids around the main one (and a few fixed odd shapes), so a pattern
// that only works when the tile count divides the die count is caught.
std::vector<TileGrid> ragged_grids(TileGrid main);

// For outside text (`check`): validates the region first; a rejected region is a
// report with region_error (or compile_error) set, nothing compiled. A Python region
// (a Triton program's) is translated into the C++ subset and evaluated as that.
Result<MappingReport> check_mapping(const std::string& region, const std::vector<TileGrid>& grids,
                                    const HardwareProfile& hw, const MappingCheckOptions& options,
                                    ProcessRunner& runner, RegionLanguage language = RegionLanguage::cpp);
// For a region validated where it entered (the loop): not validated again.
Result<MappingReport> check_mapping(const ValidRegion& region, const std::vector<TileGrid>& grids,
                                    const HardwareProfile& hw, const MappingCheckOptions& options,
                                    ProcessRunner& runner);

// Pure analysis of a pid -> tile mapping (used by check_mapping; tested directly).
// A pid whose value is >= num_pids, or which the table lacks (short table), is
// out of range.
GridCheck analyse_mapping(TileGrid grid, const std::vector<std::uint32_t>& mapping,
                          const HardwareProfile& hw);

}  // namespace swz
