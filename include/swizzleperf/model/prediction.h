// A prediction: the locality model's answer for one program, size, machine and block order,
// summed over the launches it simulated, per die and in total, with how it was made. Its JSON
// is what `predict --json` prints and what history.json keeps beside each attempt's
// measurement ("predicted"), so every run also measures the model's error.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/attempt_parts.h"
#include "swizzleperf/model/footprint.h"
#include "swizzleperf/model/locality_sim.h"
#include "swizzleperf/model/machine_model.h"

namespace swz {

struct Prediction {
  std::string order;                  // the order's label ("identity", "grouped_m(G=8)", a region file)
  std::vector<long long> size;
  std::string arch, device;
  unsigned launches_total = 0;        // launches of one run()
  std::vector<LaunchPrediction> launches;  // the ones simulated (the first few)
  std::vector<DieCounts> dies;        // summed over `launches`
  DieCounts total;
  std::string unit;                   // "sector (32 B)" | "line (128 B)"
  std::map<std::string, std::string> provenance;
  double seconds = 0;                 // simulation time

  double l2_hit_pct() const { return total.hit_pct(); }
};

// The ranking rule of every list of predicted orders (check --predict, the proposer): the
// higher predicted L2 hit rate first, then fewer DRAM bytes read.
bool predicted_better(const Prediction& a, const Prediction& b);

nlohmann::json to_json_value(const Prediction& p);
// The short form kept in history.json and the LLM prompt: hit %, DRAM bytes, cross-die bytes.
PredictionSummary prediction_summary(const Prediction& p);
nlohmann::json summary_json(const Prediction& p);  // prediction_summary's JSON
// A table: one row per die and a total row; a header naming the machine and the order.
std::string render_prediction(const Prediction& p);

// The order for a launch's grid: pid -> tile (empty: identity), or an Error (e.g. the
// region is not a bijection on that grid).
using OrderForGrid = std::function<Result<std::vector<std::uint32_t>>(TileGrid)>;

// A program's launches made ready for many orders (LaunchSimulator with kept accesses):
// what ranking dozens of candidates uses. `fp` must outlive it.
class PreparedProgram {
 public:
  PreparedProgram(const ProgramFootprint& fp, const MachineModel& machine, const SimOptions& options);
  Result<Prediction> predict(const OrderForGrid& order) const;
  const ProgramFootprint& footprint() const { return fp_; }
  const MachineModel& machine() const { return machine_; }

 private:
  const ProgramFootprint& fp_;
  MachineModel machine_;
  std::vector<std::unique_ptr<LaunchSimulator>> sims_;
};

// Simulates every launch of `fp` (with orders from `order`; launches that ignore
// swizzle_pid run in identity order) and sums them.
Result<Prediction> predict(const ProgramFootprint& fp, const OrderForGrid& order, const MachineModel& machine,
                           const SimOptions& options = {});

}  // namespace swz
