// The locality model for one run (model/): the program's footprint section compiled on
// the host at the run's size, the machine model of the device, the registers per thread
// from the compiler's own report of the baseline's build. The optimizer loads it once,
// after the baseline is built; the built-in proposer ranks by it and every attempt's
// prediction is kept beside its measurement.
#pragma once

#include <filesystem>
#include <memory>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/program_info.h"
#include "swizzleperf/core/run_config.h"
#include "swizzleperf/model/locality_predictor.h"

namespace swz {

// Null, with one log line saying why, when there is no model to use: the machine has no
// model, the program declares no footprint (or it does not compile), or the footprint's grid
// is not the program's. `baseline_exe`: the baseline's binary, whose registers count.
std::shared_ptr<const LocalityPredictor> load_locality_predictor(Backend& backend, ProcessRunner& runner,
                                                                  const KernelSource& kernel, const RunConfig& config,
                                                                  const HardwareProfile& hw, const ProgramInfo& program,
                                                                  const std::filesystem::path& baseline_exe);

}  // namespace swz
