// Shared set-up of the locality model for `predict` and `check --predict`.
#include "swizzleperf/cli/predict.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <charconv>
#include <filesystem>
#include <fmt/format.h>

#include "swizzleperf/core/probe_record.h"
#include "swizzleperf/proposer/family_order.h"

namespace swz::cli {

Result<HardwareProfile> hardware_from_options(const std::string& arch, int dies, const std::string& probe_file) {
  // Empty only with a probe file, whose own arch says the machine.
  auto hw = arch.empty() && !probe_file.empty() ? profile_from_arch("sm_90") : profile_from_arch(arch);
  if (!hw) return hw.error();
  if (!probe_file.empty()) {
    auto probe = probe::load_probe(probe_file);
    if (!probe) return probe.error();
    auto base = profile_from_arch(probe->arch.empty() ? "sm_90" : probe->arch);
    if (!base) return base.error();
    hw = base;
    hw->name = probe->device_name;
    hw->compute_units = probe->sm_count;
    if (probe->l2_bytes > 0) {
      hw->l2_bytes = probe->l2_bytes;
      hw->l2_bytes_per_die = probe->l2_bytes / std::max(1, hw->num_dies);
    }
    if (!probe::apply_probe(*hw, *probe))
      return make_error(probe_file + " has no clean measured L2-side table to check against (see docs/probe.md)");
  }
  if (dies < 0) return make_error(fmt::format("--dies {} must be 0 (the arch's) or more", dies));
  if (dies > 64) return make_error(fmt::format("--dies {}: at most 64", dies));
  if (dies > 0) {
    hw->num_dies = dies;
    hw->l2_bytes_per_die = hw->l2_bytes / dies;
    hw->dispatch = DispatchModel{"round_robin", {}, "assumed", fmt::format("round-robin over {} dies (--dies)", dies)};
  }
  return hw;
}

Result<FamilyCandidate> parse_pattern(const std::string& text, const HardwareProfile& hw, const nlohmann::json& hints) {
  std::string family = text, param;
  if (auto c = text.find(':'); c != std::string::npos) {
    family = text.substr(0, c);
    param = text.substr(c + 1);
  } else if (auto p = text.find('('); p != std::string::npos && text.back() == ')') {
    family = text.substr(0, p);
    const std::string inner = text.substr(p + 1, text.size() - p - 2);
    if (auto eq = inner.find('='); eq != std::string::npos && inner.find(',') == std::string::npos) param = inner.substr(eq + 1);
  }
  FamilyCandidate c;
  c.family = family;
  if (family == "identity") return c;
  const auto params = BuiltinProposer::params_of(family);
  if (params.empty())
    return make_error(fmt::format("--pattern '{}': not a family (identity, die_rr, die_chunk:C, grouped_m:G, grouped_n:G, "
                                  "grouped_m_die:G, topo_group:G, col_major, longest_first:G, gqa_group)",
                                  text.substr(0, 60)));
  c.param = params.front();
  if (!param.empty()) {
    int v = 0;
    auto [ptr, ec] = std::from_chars(param.data(), param.data() + param.size(), v);
    if (ec != std::errc() || ptr != param.data() + param.size() || v < 1 || v > 65536)
      return make_error(fmt::format("--pattern '{}': the parameter must be a whole number from 1 to 65536", text.substr(0, 60)));
    c.param = v;
  }
  if (family == "die_rr" || family == "col_major" || family == "gqa_group") c.param = 0;
  if (family == "topo_group") {
    if (hw.dispatch.kind != "table" || hw.dispatch.first_wave_die.empty())
      return make_error("--pattern topo_group needs the measured dispatch table: pass --probe hardware.json");
    c.table = hw.dispatch.first_wave_die;
  }
  if (family == "gqa_group") {
    auto get = [&](const char* k) { return hints.contains(k) && hints[k].is_number_integer() ? hints[k].get<int>() : 0; };
    c.n_group = get("n_group");
    c.n_stride = get("n_group_stride");
    if (c.n_group < 2) return make_error("--pattern gqa_group needs the program's n_group hint (its info 'hints')");
  }
  return c;
}

OrderForGrid region_order(const std::string& region, RegionLanguage language, const HardwareProfile& hw,
                          const MappingCheckOptions& options, ProcessRunner& runner) {
  return [=, &runner](TileGrid grid) -> Result<std::vector<std::uint32_t>> {
    auto report = check_mapping(region, {grid}, hw, options, runner, language);
    if (!report) return report.error();
    if (!report->region_error.empty()) return make_error(report->region_error);
    if (!report->compile_error.empty()) return make_error("the region does not compile on the host: " + report->compile_error);
    if (report->grids.empty()) return make_error("the mapping check returned no grid");
    const GridCheck& g = report->grids.front();
    if (!g.error.empty()) return make_error(fmt::format("on grid {}x{}: {}", grid.m, grid.n, g.error));
    if (!g.bijective)
      return make_error(fmt::format("the order is NOT a bijection on grid {}x{} ({} collisions, {} missing): not predicted",
                                    grid.m, grid.n, g.collisions, g.missing));
    return g.mapping;
  };
}

OrderForGrid family_order_for(const FamilyCandidate& c, const HardwareProfile& hw) {
  return [c, dies = hw.num_dies](TileGrid grid) -> Result<std::vector<std::uint32_t>> {
    if (c.family == "identity") return std::vector<std::uint32_t>{};
    auto t = family_order(c, grid, dies);
    std::vector<char> seen(t.size(), 0);
    for (auto v : t) {
      if (v >= t.size() || seen[v]) return make_error(fmt::format("{} is not a bijection on grid {}x{}: not predicted", c.label(), grid.m, grid.n));
      seen[v] = 1;
    }
    return t;
  };
}

std::vector<RankedPrediction> rank_predictions(const ProgramFootprint& fp,
                                               const std::vector<std::pair<std::string, OrderForGrid>>& orders,
                                               const MachineModel& machine, const SimOptions& sim) {
  std::vector<RankedPrediction> out(orders.size());
  const PreparedProgram prepared(fp, machine, sim);  // the accesses generated once for every order
  // The orders' tables first, one at a time (a region's goes through the mapping check, a
  // process), then the simulations in parallel: each is independent and reads `prepared`.
  std::vector<std::map<std::pair<unsigned, unsigned>, Result<std::vector<std::uint32_t>>>> tables(orders.size());
  for (std::size_t i = 0; i < orders.size(); ++i)
    for (const auto& l : fp.launches)
      if (l.swizzled && !tables[i].count({l.grid.m, l.grid.n})) tables[i].emplace(std::make_pair(l.grid.m, l.grid.n), orders[i].second(l.grid));
  std::atomic<std::size_t> next{0};
  auto worker = [&]() {
    for (std::size_t i = next++; i < orders.size(); i = next++) {
      RankedPrediction& r = out[i];
      r.label = orders[i].first;
      auto p = prepared.predict([&](TileGrid g) { return tables[i].at({g.m, g.n}); });
      if (p) {
        p->order = r.label;
        r.prediction = std::move(*p);
      } else {
        r.error = p.error().message;
      }
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(orders.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  std::stable_sort(out.begin(), out.end(), [](const RankedPrediction& a, const RankedPrediction& b) {
    if (a.prediction.has_value() != b.prediction.has_value()) return a.prediction.has_value();
    return a.prediction && predicted_better(*a.prediction, *b.prediction);
  });
  return out;
}

}  // namespace swz::cli
