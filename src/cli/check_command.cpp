// `swizzleperf check FILE...`: the mapping check alone, on any machine, for one
// kernel or many (a CI job over kernels/*.hip). One line per kernel; exit 1 when
// any kernel fails, 2 when a file cannot be read or is not a kernel under the
// contract (checked for every file before any is evaluated); --junit writes one
// testcase per kernel. check_kernel() is the whole per-kernel check: a new check
// on a kernel belongs there.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/util/text.h"
#include "swizzleperf/util/junit.h"
#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/probe/probe_runner.h"
#include "swizzleperf/probe/topology.h"

namespace swz::cli {

namespace {

struct CheckSettings {
  HardwareProfile hw;
  std::optional<TileGrid> grid;  // --grid; else the kernel's default-grid comment
  MappingCheckOptions mapping;
};

struct KernelCheck {
  std::string kernel;                   // the path as given
  bool ok = false;
  std::string summary;                  // one line: what passed, or why it failed
  std::optional<MappingReport> report;  // absent when the check could not run
  double seconds = 0;
};

// Every check of one kernel. An Error is an environment problem (no host
// compiler, interrupted), not a finding about the kernel.
Result<KernelCheck> check_kernel(const KernelSource& k, const CheckSettings& s, ProcessRunner& runner) {
  const auto t0 = std::chrono::steady_clock::now();
  KernelCheck c;
  c.kernel = k.path().string();
  const TileGrid grid = s.grid ? *s.grid : *k.default_grid();
  auto report = check_mapping(k.region(), ragged_grids(grid), s.hw, s.mapping, runner);
  if (!report) return report.error();
  c.ok = report->ok;
  c.summary = report->summary();
  if (!c.ok && c.summary.find("timed out") != std::string::npos)
    c.summary += fmt::format(" (--check-timeout {} s)", std::chrono::duration_cast<std::chrono::seconds>(s.mapping.timeout).count());
  c.report = std::move(*report);
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

void print_details(const MappingReport& report) {
  std::size_t shown = 0;
  for (const auto& g : report.grids) {
    if (++shown > 10 && g.bijective && g.error.empty()) continue;  // long 1-D sweeps: summarised below
    if (!g.error.empty()) {
      std::printf("    grid %ux%u: %s\n", g.grid.m, g.grid.n, g.error.c_str());
      continue;
    }
    std::printf("    grid %ux%u (%llu pids): %s", g.grid.m, g.grid.n, static_cast<unsigned long long>(g.grid.num_pids()),
                g.bijective ? "bijective" : "NOT bijective");
    if (g.bijective)
      std::printf(", tiles per die %s, row neighbours same die %.1f%%, column %.1f%%", fmt::format("{}", fmt::join(g.tiles_per_die, "/")).c_str(),
                  100 * g.row_neighbours_same_die, 100 * g.col_neighbours_same_die);
    std::printf("\n");
  }
  if (report.grids.size() > 10) std::printf("    ... and %zu more grids\n", report.grids.size() - 10);
}

}  // namespace

int cmd_check(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf check", "Evaluate kernels' swizzle regions on the host: bijection, per-die load, neighbour co-location.");
  o.positional_help("KERNEL.hip...");
  o.add_options()("kernels", "kernel files", cxxopts::value<std::vector<std::string>>())("h,help", "show this help");
  o.add_options("Hardware model")
      ("arch", "arch whose die model to use: gfx942/mi300x (8 XCDs), sm_90/h100, ...", cxxopts::value<std::string>()->default_value("gfx942"))
      ("dies", "override the die count (round-robin dispatch; 0: the arch's)", cxxopts::value<int>()->default_value("0"))
      ("probe", "use the dispatch model measured by `swizzleperf probe` (its hardware.json)", cxxopts::value<std::string>()->default_value(""));
  o.add_options("Check")
      ("grid", "tile grid MxN for every kernel (default: each kernel's '// swizzleperf:default-grid' comment)", cxxopts::value<std::string>()->default_value(""))
      ("host-cxx", "host C++ compiler for the evaluator", cxxopts::value<std::string>()->default_value("c++"))
      ("check-timeout", "seconds the evaluator may run on one grid before it is killed (a region that loops forever)",
       cxxopts::value<int>()->default_value("60"))
      ("details", "list every checked grid under each kernel");
  o.add_options("Output")
      ("json", "print the reports as JSON on stdout")
      ("junit", "also write a JUnit XML file: one testcase per kernel", cxxopts::value<std::string>()->default_value(""));
  o.parse_positional({"kernels"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "check", {"", "Hardware model", "Check", "Output"}, r)) return *done;
  if (!r.count("kernels")) return report_error("check needs kernel files: swizzleperf check KERNEL.hip...");
  CheckSettings s;
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
  s.hw = *hw;
  if (auto g = r["grid"].as<std::string>(); !g.empty()) {
    auto grid = parse_tile_grid(g);
    if (!grid) return report_error("--grid " + grid.error().message);  // "--grid 0x4 is not a grid of positive sides"
    s.grid = *grid;
  }
  const std::string junit = r["junit"].as<std::string>();
  if (!junit.empty()) {  // refuse an unwritable JUnit path before minutes of checking
    auto parent = std::filesystem::absolute(junit).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec))
      return report_error("--junit " + junit + ": directory " + parent.string() + " does not exist");
  }
  // Every file must be a readable kernel under the contract before any is checked.
  std::vector<KernelSource> kernels;
  for (const auto& path : r["kernels"].as<std::vector<std::string>>()) {
    auto k = KernelSource::load(path);
    if (!k) return report_error(k.error().message);
    if (!s.grid && !k->default_grid())
      return report_error(k->path().string() + " has no '// swizzleperf:default-grid MxN' comment: pass --grid MxN");
    kernels.push_back(std::move(*k));
  }
  const bool json = r.count("json") > 0;
  if (!json)
    std::printf("model: %s, %d die(s), dispatch %s [%s]\n", s.hw.arch.c_str(), s.hw.num_dies, s.hw.dispatch.kind.c_str(),
                s.hw.dispatch.source.c_str());
  const auto work = std::filesystem::temp_directory_path() / fmt::format("swizzleperf-check-{}", ::getpid());
  s.mapping = MappingCheckOptions{r["host-cxx"].as<std::string>(), work, std::chrono::seconds(r["check-timeout"].as<int>())};
  RealProcessRunner runner;
  JUnitSuite suite{"swizzleperf check", now_iso8601(), {}};
  nlohmann::json out = {{"hardware", {{"arch", s.hw.arch}, {"num_dies", s.hw.num_dies}, {"dispatch", s.hw.dispatch}}},
                        {"kernels", nlohmann::json::array()}};
  int failed = 0;
  for (const auto& k : kernels) {
    auto c = check_kernel(k, s, runner);
    if (!c) {
      std::error_code ec;
      std::filesystem::remove_all(work, ec);
      if (c.error().interrupted()) return kExitInterrupted;
      return report_error(c.error().message);
    }
    failed += !c->ok;
    suite.cases.push_back({c->kernel, "swizzleperf.check." + s.hw.arch, c->seconds, !c->ok, c->summary, "", "failure"});
    if (json) {
      nlohmann::json j = c->report ? nlohmann::json(*c->report) : nlohmann::json::object();
      if (j.contains("grids"))
        for (auto& g : j["grids"]) g.erase("mapping");
      j["kernel"] = c->kernel;
      j["ok"] = c->ok;
      j["summary"] = c->summary;
      out["kernels"].push_back(j);
    } else {
      std::printf("%s %s: %s\n", c->ok ? "PASS" : "FAIL", c->kernel.c_str(), c->summary.c_str());
      if (r.count("details") && c->report) print_details(*c->report);
    }
    std::fflush(stdout);
  }
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  if (json) {
    out["ok"] = failed == 0;
    std::puts(out.dump(2).c_str());
  } else if (kernels.size() > 1) {
    std::printf("%zu kernel(s): %zu passed, %d failed\n", kernels.size(), kernels.size() - failed, failed);
  }
  if (!junit.empty())
    if (auto st = write_junit(junit, suite); !st) return report_error(st.error().message);
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace swz::cli
