#include "swizzleperf/model/prediction.h"

#include <chrono>
#include <map>

#include <fmt/format.h>

namespace swz {

namespace {

nlohmann::json die_json(const DieCounts& d) {
  return {{"tiles", d.tiles},
          {"requests", d.requests},
          {"hits", d.hits},
          {"l2_hit_pct", d.requests ? nlohmann::json(std::round(d.hit_pct() * 100) / 100) : nlohmann::json(nullptr)},
          {"read_requests", d.read_requests},
          {"write_requests", d.write_requests},
          {"read_hits", d.read_hits},
          {"fabric_read_requests", d.fabric_read_requests},
          {"fabric_read_hits", d.fabric_read_hits},
          {"dram_read_bytes", d.dram_read_bytes},
          {"dram_write_bytes", d.dram_write_bytes},
          {"cross_die_bytes", d.cross_die_bytes}};
}

std::string human_bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} kB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

}  // namespace

bool predicted_better(const Prediction& a, const Prediction& b) {
  const double ha = a.l2_hit_pct(), hb = b.l2_hit_pct();
  if (std::abs(ha - hb) > 1e-9) return ha > hb;
  return a.total.dram_read_bytes < b.total.dram_read_bytes;
}

nlohmann::json to_json_value(const Prediction& p) {
  nlohmann::json dies = nlohmann::json::array();
  for (const auto& d : p.dies) dies.push_back(die_json(d));
  nlohmann::json launches = nlohmann::json::array();
  for (const auto& l : p.launches)
    launches.push_back({{"launch", l.launch},
                        {"grid", {{"m", l.grid.m}, {"n", l.grid.n}}},
                        {"resident_per_cu", l.resident_per_cu},
                        {"residency_limit", l.residency_limit},
                        {"granule_bytes", l.granule_bytes},
                        {"accesses", l.accesses},
                        {"sample", l.sample},
                        {"l2_hit_pct", std::round(l.total().hit_pct() * 100) / 100}});
  nlohmann::json j = summary_json(p);
  j["order"] = p.order;
  j["size"] = p.size;
  j["arch"] = p.arch;
  j["device"] = p.device;
  j["unit"] = p.unit;
  j["launches_total"] = p.launches_total;
  j["launches"] = launches;
  j["dies"] = dies;
  j["total"] = die_json(p.total);
  j["provenance"] = p.provenance;
  j["seconds"] = std::round(p.seconds * 1000) / 1000;
  j["kind"] = "prediction";
  return j;
}

PredictionSummary prediction_summary(const Prediction& p) {
  PredictionSummary s;
  for (const auto& d : p.dies) s.die_l2_hit_pct.push_back(std::round(d.hit_pct() * 100) / 100);
  s.l2_hit_pct = std::round(p.total.hit_pct() * 100) / 100;
  s.dram_read_bytes = p.total.dram_read_bytes;
  s.dram_write_bytes = p.total.dram_write_bytes;
  s.cross_die_bytes = p.total.cross_die_bytes;
  s.launches_simulated = p.launches.size();
  return s;
}

nlohmann::json summary_json(const Prediction& p) { return prediction_summary(p); }

std::string render_prediction(const Prediction& p) {
  std::string out = fmt::format("predicted (not measured) for {} on {} [{}], order {}, launches {} of {}\n", fmt::join(p.size, ","),
                                p.device, p.arch, p.order, p.launches.size(), p.launches_total);
  for (const auto& l : p.launches)
    out += fmt::format("  launch {}: grid {}x{}, {} tile(s) resident per CU ({}), granule {} B{}\n", l.launch, l.grid.m, l.grid.n,
                       l.resident_per_cu, l.residency_limit, l.granule_bytes,
                       l.sample > 1 ? fmt::format(", 1 in {} sampled", l.sample) : std::string());
  const bool multi = p.dies.size() > 1;
  out += fmt::format("  {:<6} {:>8} {:>12} {:>10} {:>12} {:>12} {:>12}\n", multi ? "die" : "", "tiles", "L2 requests", "L2 hit %",
                     "DRAM read", "DRAM write", multi ? "cross-die" : "");
  auto row = [&](const std::string& name, const DieCounts& d) {
    out += fmt::format("  {:<6} {:>8} {:>12} {:>10.2f} {:>12} {:>12} {:>12}\n", name, d.tiles, d.requests, d.hit_pct(),
                       human_bytes(static_cast<double>(d.dram_read_bytes)), human_bytes(static_cast<double>(d.dram_write_bytes)),
                       multi ? human_bytes(static_cast<double>(d.cross_die_bytes)) : "");
  };
  if (multi)
    for (std::size_t i = 0; i < p.dies.size(); ++i) row(std::to_string(i), p.dies[i]);
  row("total", p.total);
  out += fmt::format("  L2 requests counted per {}; simulated in {:.2f} s\n", p.unit, p.seconds);
  return out;
}

namespace {

// predict() over simulators made by `sim_of(launch index)`.
template <class SimOf>
Result<Prediction> predict_with(const ProgramFootprint& fp, const OrderForGrid& order, const MachineModel& machine, SimOf&& sim_of) {
  const auto t0 = std::chrono::steady_clock::now();
  Prediction p;
  p.size = fp.size;
  p.arch = machine.arch;
  p.device = machine.name;
  p.launches_total = fp.launches_total;
  p.unit = machine.sector_bytes == 32 ? "sector (32 B)" : fmt::format("line ({} B)", machine.sector_bytes);
  p.provenance = machine.provenance;
  p.dies.assign(std::max(1, machine.num_dies), DieCounts{});
  std::map<std::pair<unsigned, unsigned>, std::vector<std::uint32_t>> tables;
  for (std::size_t i = 0; i < fp.launches.size(); ++i) {
    const LaunchFootprint& lf = fp.launches[i];
    const std::vector<std::uint32_t>* table = nullptr;
    static const std::vector<std::uint32_t> identity;
    if (lf.swizzled) {
      const auto key = std::make_pair(lf.grid.m, lf.grid.n);
      auto it = tables.find(key);
      if (it == tables.end()) {
        auto t = order(lf.grid);
        if (!t) return t.error();
        it = tables.emplace(key, std::move(*t)).first;
      }
      table = &it->second;
    }
    LaunchPrediction lp = sim_of(i, table ? *table : identity);
    lp.launch = i < fp.launch_ids.size() ? fp.launch_ids[i] : static_cast<unsigned>(i);
    for (std::size_t d = 0; d < lp.dies.size() && d < p.dies.size(); ++d) p.dies[d] += lp.dies[d];
    p.launches.push_back(std::move(lp));
  }
  for (const auto& d : p.dies) p.total += d;
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

}  // namespace

Result<Prediction> predict(const ProgramFootprint& fp, const OrderForGrid& order, const MachineModel& machine,
                           const SimOptions& options) {
  return predict_with(fp, order, machine, [&](std::size_t i, const std::vector<std::uint32_t>& table) {
    return simulate_launch(fp.launches[i], table, machine, options);
  });
}

PreparedProgram::PreparedProgram(const ProgramFootprint& fp, const MachineModel& machine, const SimOptions& options)
    : fp_(fp), machine_(machine) {
  for (const auto& l : fp_.launches) sims_.push_back(std::make_unique<LaunchSimulator>(l, machine_, options, true));
}

Result<Prediction> PreparedProgram::predict(const OrderForGrid& order) const {
  return predict_with(fp_, order, machine_, [&](std::size_t i, const std::vector<std::uint32_t>& table) { return sims_[i]->run(table); });
}

}  // namespace swz
