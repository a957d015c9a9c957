// What `optimize` still does on a machine with no GPU: the built-in proposer's
// candidates, each through the host mapping check, reported under the die
// model of an arch table. It measures nothing and says so.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/proposer/builtin_proposer.h"

namespace swz::cli {

int host_only_analysis(const KernelSource& kernel, const HardwareProfile& hw, const ArchChoice* choice,
                       const std::string& host_cxx, const std::string& why, bool json) {
  if (!kernel.default_grid())
    return report_error(kernel.path().string() + " has no '" + comment_prefix(kernel.language()) +
                        " swizzleperf:default-grid MxN' comment, needed without a GPU");
  const TileGrid grid = *kernel.default_grid();
  const auto work = std::filesystem::temp_directory_path() / fmt::format("swizzleperf-host-{}", ::getpid());
  RealProcessRunner runner;
  MappingCheckOptions mo{host_cxx, work, std::chrono::seconds(60)};
  nlohmann::json out = {{"measured", false}, {"reason", why}, {"kernel", kernel.path().string()},
                        {"hardware", {{"arch", hw.arch}, {"num_dies", hw.num_dies}, {"dispatch", hw.dispatch}}},
                        {"grid", {{"m", grid.m}, {"n", grid.n}}}, {"candidates", nlohmann::json::array()}};
  if (choice) out["arch_chosen"] = {{"arch", choice->arch}, {"because", choice->why}};
  if (!json) {
    // The cause (no GPU) is said once, in the error line at the end; here what is shown instead.
    std::printf("%s\n", model_line(hw, choice).c_str());
    std::printf("measuring nothing: the built-in proposer's candidates checked on the host, tile grid %ux%u\n", grid.m, grid.n);
    std::printf("%-26s %-10s %14s %14s %10s %10s\n", "pattern", "bijection", "row nbrs/die", "col nbrs/die", "rows/die",
                "cols/die");
  }
  std::vector<std::pair<std::string, std::string>> candidates = {{"original region", kernel.region()}};
  const RegionLanguage language = kernel.language();
  for (const auto& c : BuiltinProposer::seed_order(hw, grid, nlohmann::json::object(), language))
    candidates.push_back({c.label(), render_family(c, language)});
  for (const auto& [label, region] : candidates) {
    auto report = check_mapping(region, ragged_grids(grid), hw, mo, runner, language);
    if (!report) {
      std::error_code ec;
      std::filesystem::remove_all(work, ec);
      return report_error(report.error().message);
    }
    const bool ok = report->ok && !report->grids.empty();
    nlohmann::json c = {{"pattern", label}, {"bijective", ok}, {"summary", report->summary()}};
    auto max_of = [](const std::vector<unsigned>& v) { return v.empty() ? 0u : *std::max_element(v.begin(), v.end()); };
    if (ok) {
      const auto& g = report->grids.front();
      c["row_neighbours_same_die"] = g.row_neighbours_same_die;
      c["col_neighbours_same_die"] = g.col_neighbours_same_die;
      c["max_rows_per_die"] = max_of(g.rows_per_die);
      c["max_cols_per_die"] = max_of(g.cols_per_die);
      if (!json)
        std::printf("%-26s %-10s %13.1f%% %13.1f%% %10u %10u\n", label.c_str(), "yes", 100 * g.row_neighbours_same_die,
                    100 * g.col_neighbours_same_die, max_of(g.rows_per_die), max_of(g.cols_per_die));
    } else if (!json) {
      std::printf("%-26s %-10s %s\n", label.c_str(), "NO", report->summary().c_str());
    }
    out["candidates"].push_back(std::move(c));
  }
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  // Nothing was measured, which is what optimize was asked to do: never exit 0 here.
  const std::string error = why + ": nothing was measured (the host check is all optimize can do without a GPU; "
                            "run it on a machine with one, or use 'swizzleperf check' for the host check alone)";
  if (!json)
    std::printf("(nbrs/die: share of neighbouring tiles computed on one die; rows/cols per die: the most tile rows/columns one die touches)\n");
  return report_error_in(std::move(out), error);
}

}  // namespace swz::cli
