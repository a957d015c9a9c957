// Runs `swizzleperf probe` on the device and assembles a ProbeResult.
//
// NVIDIA (cuda): queries the device (CudaBackend::query_device), builds
// kernels/support/topology_probe.cu with `nvcc -arch=<arch> -O2`, runs its modes
//   order --blocks-per-sm 1 / 2    first-wave pid -> SM
//   cluster                        GPC groups
//   latency --ref R                L2-hit latency per SM after SM R warmed the data
//   side --ref R under ncu         fabric sectors per SM (one probe_reader launch per SM)
// and classifies SMs into L2 sides from the fabric sectors (else the latency).
// ncu asks for lts__t_sectors_srcunit_ltcfabric.sum ALONE: on the H100 adding
// lts__t_sectors.sum and lts__t_sector_hit_rate.pct flattened every launch to the
// same value (docs/probe.md).
// AMD (hip): builds and runs kernels/support/xcc_probe.hip; with no AMD GPU (or no
// hipcc) the result comes from the arch table, marked so.
// hardware.json goes to ProbeOptions::out and a copy to the per-device cache:
// $XDG_CACHE_HOME/swizzleperf (else ~/.cache/swizzleperf)/probe-<name>-<driver>-<sms>.json.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/util/process.h"
#include "swizzleperf/util/result.h"
#include "swizzleperf/probe/topology.h"

namespace swz::probe {

namespace fs = std::filesystem;

inline constexpr const char* kFabricMetric = "lts__t_sectors_srcunit_ltcfabric.sum";

struct ProbeOptions {
  std::string backend = "auto";  // auto | cuda | hip
  ToolOptions tools;
  fs::path out = "hardware.json";
  fs::path work_dir;             // empty: a temp dir, removed afterwards
  int ref_sm = 0;
  bool write_cache = true;
  std::function<void(const std::string&)> progress;  // one line per step (may be empty)
};

struct ProbeOutcome {
  ProbeResult result;
  fs::path written;  // --out
  fs::path cached;   // empty when not cached
};

// Error (one line) when no device of the chosen backend answers, or the probe
// program cannot be built or run at all; partial measurements (no ncu, no
// clusters) are notes and low-confidence facts in the result instead.
Result<ProbeOutcome> run_probe(const ProbeOptions& options, ProcessRunner& runner);

// ---- pieces (pure; public for tests) ----------------------------------------------

// One profiled launch of ncu's CSV details page: ID, kernel name, metric -> value
// (base units, as printed; thousands separators removed).
struct NcuLaunch {
  long id = 0;
  std::string kernel;
  std::map<std::string, double> metrics;
};

// All launches of `ncu --csv` output (header found by content, launches ordered by
// ID). Error when there is no CSV table or a value of a wanted column is unreadable.
Result<std::vector<NcuLaunch>> parse_ncu_launches(std::string_view text);

// The last line of text that is a JSON object with "mode" == mode (null if none).
nlohmann::json find_mode_json(std::string_view text, std::string_view mode);

// values[sm] from launch k -> targets[k] (the SM the k-th reader ran on); several
// launches on one SM give their median; -1 where no launch ran. Error when the
// launch count differs from the target count or the metric is missing.
Result<std::vector<double>> per_sm_metric(const std::vector<NcuLaunch>& launches, const std::vector<int>& targets,
                                          int num_sms, const std::string& metric);

std::vector<std::string> probe_build_argv(const std::string& nvcc, const fs::path& source, const fs::path& output,
                                          const std::string& arch);
std::vector<std::string> side_ncu_argv(const std::string& ncu, const fs::path& exe, int ref_sm);

// The measurements of one CUDA probe run, as the program printed them.
struct CudaProbeInputs {
  HardwareProfile hw;            // from the device query
  int ref_sm = 0;
  nlohmann::json order_k1;       // {"mode":"order",...} or null
  nlohmann::json order_k2;
  nlohmann::json cluster;        // {"mode":"cluster",...} or null
  nlohmann::json latency;        // {"mode":"latency",...} or null
  std::string side_ncu_output;   // ncu's stdout (program JSON + CSV); empty: not run
  std::vector<std::string> notes;  // steps that failed, said in one line each
};

// Pure: the ProbeResult from the measurements (error only without the K=1 order).
Result<ProbeResult> assemble_cuda_probe(const CudaProbeInputs& in);

// AMD: from the xcc probe's JSON ({"probe":"xcc",...}), or from the arch table when
// xcc is null (how = "arch table").
ProbeResult assemble_amd_probe(const HardwareProfile& hw, const nlohmann::json& xcc, std::vector<std::string> notes);

// The cache (probe_cache_dir, load_cached_probe, save_probe, load_probe): core/probe_record.h.

}  // namespace swz::probe
