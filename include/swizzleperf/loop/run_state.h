// Opening a run: everything an optimize run needs to know before it spends any
// time, and the checks that refuse a run before it starts. A new run: the kernel
// file (its region validated once, here), a run dir that holds no run. A resumed
// run: its history (every region it will use again validated once, here), the same
// kernel file, and the config the resume rules (core/run_config.h) allow. Nothing
// is written; the optimizer creates the run dir when it starts.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "swizzleperf/core/history.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/core/run_config.h"

namespace swz {

struct RunState {
  std::filesystem::path run_dir;
  KernelSource kernel;
  ValidRegion original;                    // the kernel file's own region
  RunHistory history;                      // fresh (config set) or as recorded
  std::map<int, ValidRegion> valid_regions;  // ok attempts' regions, by iteration
  bool resumed = false;
};

// A new run of `config` on the kernel file `kernel` in run_dir.
Result<RunState> open_new_run(const RunConfig& config, const std::filesystem::path& kernel,
                              const std::filesystem::path& run_dir);
// Continues the run in run_dir. kernel: the file to use (empty: the recorded path).
// `asked` and `given`: the command line's settings and which of them were named
// (option names); resume_config decides what is refused and what is applied.
Result<RunState> open_resumed_run(const std::filesystem::path& run_dir, const std::filesystem::path& kernel,
                                  const RunConfig& asked, const std::set<std::string>& given);

// A resumed run continues only on the device its history was measured on (name, arch and
// dies the same): times, profiles and the judge's verdicts from two devices do not mix.
// A history that never queried its device passes.
Status check_same_device(const RunHistory& history, const HardwareProfile& now);

}  // namespace swz
