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

int host_only_analysis(const KernelSource& kernel, const std::string& arch, const std::string& host_cxx,
                       const std::string& why) {
  std::fprintf(stderr, "swizzleperf: %s: measuring nothing; checking the built-in proposer's candidates on the host instead\n",
               why.c_str());
  auto hw = profile_from_arch(arch.empty() ? "gfx942" : arch);
  if (!hw) return report_error(hw.error().message);
  if (!kernel.default_grid())
    return report_error(kernel.path().string() + " has no '// swizzleperf:default-grid MxN' comment, needed without a GPU");
  const TileGrid grid = *kernel.default_grid();
  const auto work = std::filesystem::temp_directory_path() / fmt::format("swizzleperf-host-{}", ::getpid());
  RealProcessRunner runner;
  MappingCheckOptions mo{host_cxx, work, std::chrono::seconds(60)};
  std::printf("model: %s, %d die(s), dispatch %s [%s]; tile grid %ux%u\n", hw->arch.c_str(), hw->num_dies,
              hw->dispatch.kind.c_str(), hw->dispatch.source.c_str(), grid.m, grid.n);
  std::printf("%-26s %-10s %14s %14s %10s %10s\n", "pattern", "bijection", "row nbrs/die", "col nbrs/die", "rows/die",
              "cols/die");
  std::vector<std::pair<std::string, std::string>> candidates = {{"original region", kernel.region()}};
  for (const auto& c : BuiltinProposer::seed_order(*hw, grid)) candidates.push_back({c.label(), render_family(c)});
  int failures = 0;
  for (const auto& [label, region] : candidates) {
    auto report = check_mapping(region, ragged_grids(grid), *hw, mo, runner);
    if (!report) {
      std::error_code ec;
      std::filesystem::remove_all(work, ec);
      return report_error(report.error().message);
    }
    if (!report->ok || report->grids.empty()) {
      ++failures;
      std::printf("%-26s %-10s %s\n", label.c_str(), "NO", report->summary().c_str());
      continue;
    }
    const auto& g = report->grids.front();
    auto max_of = [](const std::vector<unsigned>& v) { return v.empty() ? 0u : *std::max_element(v.begin(), v.end()); };
    std::printf("%-26s %-10s %13.1f%% %13.1f%% %10u %10u\n", label.c_str(), "yes", 100 * g.row_neighbours_same_die,
                100 * g.col_neighbours_same_die, max_of(g.rows_per_die), max_of(g.cols_per_die));
  }
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  std::printf("(nbrs/die: share of neighbouring tiles computed on one die; rows/cols per die: the most tile rows/columns one die touches)\n");
  return failures == 0 ? kExitOk : kExitFailed;
}

}  // namespace swz::cli
