// The run's locality model (contract: loop/locality_setup.h).
#include "swizzleperf/loop/locality_setup.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "swizzleperf/model/footprint_source.h"
#include "swizzleperf/model/machine_model.h"
#include "swizzleperf/util/name_pattern.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

// Registers per thread from the compiler's own report of the baseline's build (cuobjdump on
// NVIDIA, the code objects' metadata on AMD: VGPRs + AGPRs per lane): a footprint section can
// only declare a bound (__launch_bounds__), and residency follows the real count (gemm_tc: 255
// per thread, one block per SM). A launch whose block names its kernel takes that function's
// count; any other launch takes the most among the kernels the program's kernel_regex
// matches. Where neither can be had (another backend, no cuobjdump, no match) the footprint's
// declaration stands. The machine's provenance says which, launch by launch where they differ.
void use_compiler_registers(Backend& backend, const fs::path& exe, const std::string& kernel_regex, ProgramFootprint& fp,
                            MachineModel& machine) {
  auto report = backend.resource_usage(exe);
  auto pattern = NamePattern::compile(kernel_regex);
  std::optional<MatchedRegisters> m;
  if (report && pattern) m = registers_of(*report, *pattern);
  if (m && m->registers == 0) m.reset();
  const std::string tool = backend.name() == "cuda" ? "cuobjdump" : backend.name() == "hip" ? "llvm-readelf --notes" : backend.name();
  std::vector<std::pair<std::string, unsigned>> named;  // kernel -> count, in launch order, once each
  std::vector<std::string> missing;                     // named kernels the report lacks, once each
  unsigned by_pattern = 0, declared = 0;
  for (auto& l : fp.launches) {
    std::optional<MatchedRegisters> k;
    if (report && !l.block.kernel.empty()) k = registers_of_kernel(*report, l.block.kernel);
    if (k && k->registers > 0) {
      l.block.registers = k->registers;
      if (std::find_if(named.begin(), named.end(), [&](const auto& p) { return p.first == l.block.kernel; }) == named.end())
        named.emplace_back(l.block.kernel, k->registers);
      continue;
    }
    if (report && !l.block.kernel.empty() && std::find(missing.begin(), missing.end(), l.block.kernel) == missing.end())
      missing.push_back(l.block.kernel);
    if (m) {
      l.block.registers = m->registers;
      ++by_pattern;
    } else {
      ++declared;
    }
  }
  const std::string by_regex = m ? fmt::format("{} per thread, the most of the {} kernel(s) matching '{}'", m->registers,
                                                m->functions, kernel_regex)
                                 : std::string();
  std::string lacks;
  for (std::size_t i = 0; i < missing.size(); ++i) lacks += (i ? ", " : "") + missing[i];
  if (!lacks.empty()) lacks = "; the report has no kernel named " + lacks;
  if (named.empty() && !m) {
    const std::string why = !report ? report.error().message
                            : !pattern ? "the program's kernel_regex: " + pattern.error().message
                                       : "no kernel in the report matches '" + kernel_regex + "'";
    machine.provenance["registers"] = "declared by the footprint section (no compiler report: " + why + lacks + ")";
    return;
  }
  if (named.empty()) {
    machine.provenance["registers"] = fmt::format("compiler report ({}): {}{}", tool, by_regex, lacks);
    return;
  }
  std::string text = fmt::format("compiler report ({}), per launch by its kernel:", tool);
  for (std::size_t i = 0; i < named.size(); ++i) text += fmt::format("{} {} {}", i ? "," : "", named[i].first, named[i].second);
  if (by_pattern > 0) text += fmt::format("; {} other launch(es): {}", by_pattern, by_regex);
  if (declared > 0) text += fmt::format("; {} other launch(es) as the footprint section declares", declared);
  machine.provenance["registers"] = text + lacks;
}

}  // namespace

std::shared_ptr<const LocalityPredictor> load_locality_predictor(Backend& backend, ProcessRunner& runner,
                                                                  const KernelSource& kernel, const RunConfig& config,
                                                                  const HardwareProfile& hw, const ProgramInfo& program,
                                                                  const fs::path& baseline_exe) {
  auto machine = machine_model(hw);
  if (!machine) {
    spdlog::info("locality model: none ({})", machine.error().message);
    return nullptr;
  }
  FootprintSourceOptions fo;
  fo.host_compiler = config.host_cxx;
  fo.support_dir = support_dir();
  fo.cache_dir = default_footprint_cache_dir();
  std::vector<long long> size(config.size.begin(), config.size.end());
  auto fp = load_footprint(kernel, size, fo, runner);
  if (!fp) {
    spdlog::info("locality model: none ({})", fp.error().message);
    return nullptr;
  }
  if (fp->launches.empty()) return nullptr;
  use_compiler_registers(backend, baseline_exe, program.kernel_regex, *fp, *machine);
  spdlog::info("locality model: registers {}", machine->provenance["registers"]);
  auto p = std::make_shared<LocalityPredictor>(std::move(*fp), std::move(*machine), fast_sim_options());
  if (p->main_grid().m != program.grid.m || p->main_grid().n != program.grid.n) {
    spdlog::warn("locality model: none (the footprint's grid {}x{} is not the program's {}x{}: fix the footprint section)",
                 p->main_grid().m, p->main_grid().n, program.grid.m, program.grid.n);
    return nullptr;
  }
  spdlog::info("locality model: ranking candidates by predicted L2 hit rate ({} launch(es) of {} simulated)",
               p->footprint().launches.size(), p->footprint().launches_total);
  return p;
}

}  // namespace swz
