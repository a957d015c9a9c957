#include "swizzleperf/model/locality_predictor.h"

#include "swizzleperf/util/hash.h"

namespace swz {

LocalityPredictor::LocalityPredictor(ProgramFootprint footprint, MachineModel machine, SimOptions options)
    : footprint_(std::move(footprint)), machine_(std::move(machine)), options_(options) {
  for (const auto& l : footprint_.launches)
    if (l.swizzled) {
      main_grid_ = l.grid;
      break;
    }
  if (main_grid_.m == 0 && !footprint_.launches.empty()) main_grid_ = footprint_.launches.front().grid;
  prepared_ = std::make_unique<PreparedProgram>(footprint_, machine_, options_);
}

std::optional<Prediction> LocalityPredictor::predict(const std::vector<std::uint32_t>& table, const std::string& label) const {
  if (!table.empty() && table.size() != main_grid_.num_pids()) return std::nullopt;
  const std::string key = table.empty() ? std::string("identity")
                                        : content_hash(std::string_view(reinterpret_cast<const char*>(table.data()),
                                                                        table.size() * sizeof(std::uint32_t)));
  bool other_grid = false;
  auto order = [&](TileGrid g) -> Result<std::vector<std::uint32_t>> {
    if (g.m == main_grid_.m && g.n == main_grid_.n) return table;
    other_grid = true;
    return std::vector<std::uint32_t>{};
  };
  std::lock_guard<std::mutex> lock(mu_);  // one simulation at a time: the prepared accesses are shared
  if (auto it = cache_.find(key); it != cache_.end()) {
    Prediction p = it->second;
    p.order = label;
    return p;
  }
  auto p = prepared_->predict(order);
  if (!p) return std::nullopt;
  p->order = label;
  if (other_grid) p->provenance["other_grids"] = "launches on another grid than the main one are predicted in identity order";
  cache_.emplace(key, *p);
  return *p;
}

}  // namespace swz
