// LocalityPredictor: the locality model bound to one program at one size on one machine,
// for the loop: the pipeline records each attempt's prediction beside its measurement, and
// the built-in proposer ranks its candidates by it. Predictions are cached by the order's
// table hash (a proposer asks for the same candidates again at every proposal). Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/model/prediction.h"

namespace swz {

class LocalityPredictor {
 public:
  LocalityPredictor(ProgramFootprint footprint, MachineModel machine, SimOptions options);

  // The order pid -> tile on the main grid (the first swizzled launch's; empty: identity).
  // Launches on another grid run in identity order (a note in the prediction's provenance).
  // nullopt when the table does not fit the main grid.
  std::optional<Prediction> predict(const std::vector<std::uint32_t>& table, const std::string& label) const;
  TileGrid main_grid() const { return main_grid_; }
  const MachineModel& machine() const { return machine_; }
  const ProgramFootprint& footprint() const { return footprint_; }

 private:
  ProgramFootprint footprint_;
  MachineModel machine_;
  SimOptions options_;
  TileGrid main_grid_;
  std::unique_ptr<PreparedProgram> prepared_;  // made with the predictor: every launch's accesses, generated once
  mutable std::mutex mu_;
  mutable std::map<std::string, Prediction> cache_;
};

}  // namespace swz
