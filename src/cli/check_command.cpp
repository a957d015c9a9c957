// `swizzleperf check`: the mapping check alone, on any machine.
#include <fmt/format.h>

#include <filesystem>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/probe/probe_runner.h"
#include "swizzleperf/probe/topology.h"

namespace swz::cli {

int cmd_check(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf check", "Evaluate a kernel's swizzle region on the host: bijection, per-die load, neighbour co-location.");
  o.positional_help("KERNEL.hip");
  o.add_options()("kernel", "kernel file", cxxopts::value<std::string>())("h,help", "show this help");
  o.add_options("Hardware model")
      ("arch", "arch whose die model to use: gfx942/mi300x (8 XCDs, default), sm_90/h100, ...", cxxopts::value<std::string>()->default_value("gfx942"))
      ("dies", "override the die count (round-robin dispatch)", cxxopts::value<int>()->default_value("0"))
      ("probe", "use the dispatch model measured by `swizzleperf probe` (its hardware.json)", cxxopts::value<std::string>()->default_value(""));
  o.add_options("Check")
      ("grid", "tile grid MxN (default: the kernel's '// swizzleperf:default-grid' comment)", cxxopts::value<std::string>()->default_value(""))
      ("host-cxx", "host C++ compiler for the evaluator", cxxopts::value<std::string>()->default_value("c++"))
      ("json", "print the report as JSON on stdout");
  o.parse_positional({"kernel"});
  cxxopts::ParseResult r;
  std::string err;
  if (!parse_args(o, args, r, err)) return report_error(err + " (see 'swizzleperf check --help')");
  if (r.count("help")) {
    std::fputs(help_text(o).c_str(), stdout);
    return kExitOk;
  }
  if (!r.count("kernel")) return report_error("check needs a kernel file: swizzleperf check KERNEL.hip");
  auto k = KernelSource::load(r["kernel"].as<std::string>());
  if (!k) return report_error(k.error().message);
  auto hw = profile_from_arch(r["arch"].as<std::string>());
  if (!hw) return report_error(hw.error().message);
  if (auto pf = r["probe"].as<std::string>(); !pf.empty()) {
    auto probe = probe::load_probe(pf);
    if (!probe) return report_error(probe.error().message);
    auto base = profile_from_arch(probe->arch.empty() ? "sm_90" : probe->arch);
    if (!base) return report_error(base.error().message);
    hw = base;
    hw->name = probe->device_name;
    hw->compute_units = probe->sm_count;
    if (!probe::apply_probe(*hw, *probe))
      return report_error(pf + " has no clean measured L2-side table to check against (see docs/probe.md)");
  }
  if (int d = r["dies"].as<int>(); d > 0) {
    hw->num_dies = d;
    hw->dispatch = DispatchModel{"round_robin", {}, "assumed", fmt::format("round-robin over {} dies (--dies)", d)};
  }
  TileGrid grid;
  if (auto g = r["grid"].as<std::string>(); !g.empty()) {
    if (!parse_grid(g, grid.m, grid.n)) return report_error("--grid '" + g + "' is not MxN with positive M and N (e.g. 64x64)");
  } else if (k->default_grid()) {
    grid = *k->default_grid();
  } else {
    return report_error(k->path().string() + " has no '// swizzleperf:default-grid MxN' comment: pass --grid MxN");
  }
  auto work = std::filesystem::temp_directory_path() / fmt::format("swizzleperf-check-{}", ::getpid());
  RealProcessRunner runner;
  MappingCheckOptions mo{r["host-cxx"].as<std::string>(), work, std::chrono::seconds(60)};
  auto report = check_mapping(k->region(), ragged_grids(grid), *hw, mo, runner);
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  if (!report) return report_error(report.error().message);
  if (r.count("json")) {
    nlohmann::json j = *report;
    for (auto& g : j["grids"]) g.erase("mapping");
    j["kernel"] = k->path().string();
    j["hardware"] = {{"arch", hw->arch}, {"num_dies", hw->num_dies}, {"dispatch", hw->dispatch}};
    std::puts(j.dump(2).c_str());
  } else {
    std::printf("%s: %s\n", k->path().string().c_str(), report->summary().c_str());
    std::printf("model: %s, %d die(s), dispatch %s [%s]\n", hw->arch.c_str(), hw->num_dies, hw->dispatch.kind.c_str(),
                hw->dispatch.source.c_str());
    std::size_t shown = 0;
    for (const auto& g : report->grids) {
      if (++shown > 10 && g.bijective && g.error.empty()) continue;  // long 1-D sweeps: summarised below
      if (!g.error.empty()) {
        std::printf("  grid %ux%u: %s\n", g.grid.m, g.grid.n, g.error.c_str());
        continue;
      }
      std::printf("  grid %ux%u (%u pids): %s", g.grid.m, g.grid.n, g.grid.num_pids(), g.bijective ? "bijective" : "NOT bijective");
      if (g.bijective)
        std::printf(", tiles per die %s, row neighbours same die %.1f%%, column %.1f%%", fmt::format("{}", fmt::join(g.tiles_per_die, "/")).c_str(),
                    100 * g.row_neighbours_same_die, 100 * g.col_neighbours_same_die);
      std::printf("\n");
    }
    if (report->grids.size() > 10) std::printf("  ... and %zu more grids\n", report->grids.size() - 10);
  }
  return report->ok ? kExitOk : kExitFailed;
}

}  // namespace swz::cli
