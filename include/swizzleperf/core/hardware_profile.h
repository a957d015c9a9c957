// Hardware-profile assembly: the one place where the profile that the loop, the
// prompts and the built-in proposer see is put together from its three sources —
// the device query's facts (name, SMs/CUs, L2), the arch table's (dies, L2 per
// die, documented dispatch policy) and, when `swizzleperf probe` measured this very
// device (same name, driver and SM count), the probe's cached measurements, which
// replace the arch table's assumed dispatch model. It lives in core, below both
// backend/ (which runs the device query) and probe/ (which writes the cache).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/util/result.h"

namespace swz {

// `device_query` is the device-query program's JSON line; a non-empty
// `arch_override` (--arch) replaces the arch it reports.
Result<HardwareProfile> assemble_hardware_profile(const nlohmann::json& device_query,
                                                  const std::string& arch_override);

}  // namespace swz
