// The locality model from the command line: `swizzleperf predict` (one order) and
// `check --predict` (every built-in candidate), sharing how the machine and the orders are
// set up. Orders: a region (the kernel's own, or --region FILE) goes through the mapping
// check (validated, compiled on the host, evaluated confined; a non-bijective one is not
// predicted); a built-in family is computed natively (proposer/family_order.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/model/footprint_source.h"
#include "swizzleperf/model/prediction.h"
#include "swizzleperf/proposer/builtin_proposer.h"

namespace swz::cli {

// --arch (an arch or alias, given or chosen by default_arch; empty only with a probe
// file), --dies, --probe: the hardware profile both check and predict model.
Result<HardwareProfile> hardware_from_options(const std::string& arch, int dies, const std::string& probe_file);

// "grouped_m(G=8)", "grouped_m:8", "die_rr", "identity" -> a candidate (identity: family
// "identity"); an Error lists the families.
Result<FamilyCandidate> parse_pattern(const std::string& text, const HardwareProfile& hw, const nlohmann::json& hints);

// The order of a region on each grid asked for, through the mapping check.
OrderForGrid region_order(const std::string& region, RegionLanguage language, const HardwareProfile& hw,
                          const MappingCheckOptions& options, ProcessRunner& runner);
// The order of a built-in candidate (or identity).
OrderForGrid family_order_for(const FamilyCandidate& c, const HardwareProfile& hw);

struct RankedPrediction {
  std::string label;
  std::optional<Prediction> prediction;
  std::string error;  // why there is none
};
// Predicts `orders` (label, order) and sorts them by predicted L2 hit rate, best first
// (ties: fewer DRAM bytes); failures last.
std::vector<RankedPrediction> rank_predictions(const ProgramFootprint& fp,
                                               const std::vector<std::pair<std::string, OrderForGrid>>& orders,
                                               const MachineModel& machine, const SimOptions& sim);

}  // namespace swz::cli
