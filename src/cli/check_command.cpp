// `swizzleperf check FILE...`: every check of a kernel program that needs no GPU, on
// any machine, for one kernel or many (a CI job over kernels/*.hip). Per kernel:
//  - the mapping check of its swizzle region (bijection, per-die load, neighbours) on
//    its grid and ragged neighbours;
//  - the port checks (cli/port_check.h): swizzleperf:TODO marks left, block-index uses
//    that bypass swizzle_pid and 2-D launches left in run() (warnings; errors with
//    --strict), and, when a compiler is there (nvcc, else hipcc for .hip), the program
//    built for `info` and run without a GPU: its grid against the default-grid comment,
//    its verify sizes through its own size checks, a swapped launch_grid at non-square sizes.
// One line per kernel, its findings under it, and under a PASS one line saying what only
// verify on a GPU catches (kVerifyOnlyNote); exit 1 when any kernel fails, 2 when a
// file cannot be read or is not a kernel under the contract (checked for every file
// before any is evaluated); --junit writes one testcase per kernel. check_kernel() is
// the whole per-kernel check: a new check on a kernel belongs there.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <functional>
#include <thread>
#include <chrono>
#include <filesystem>

#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/backend/triton_backend.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/predict.h"
#include "swizzleperf/cli/port_check.h"
#include "swizzleperf/util/text.h"
#include "swizzleperf/util/junit.h"
#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/probe/probe_runner.h"
#include "swizzleperf/probe/topology.h"

namespace swz::cli {

namespace {

struct CheckSettings {
  HardwareProfile hw;
  std::optional<TileGrid> grid;  // --grid; else the program's info grid, else the default-grid comment
  MappingCheckOptions mapping;
  bool strict = false;           // --strict: warnings are errors
  Backend* cuda = nullptr;       // compilers for the info build; null: absent or --no-build
  Backend* hip = nullptr;
  Backend* triton = nullptr;     // Triton programs: a Python that imports torch and triton
  std::string no_build_reason;   // why nothing is built (shown once per kernel)
  std::string no_triton_reason;  // why a Triton program is not built
  bool predict = false;          // --predict: the locality model over the built-in candidates
  std::optional<MachineModel> machine;
  FootprintSourceOptions footprint;
  // --predict: waits until the background compile of this kernel's footprint program (into
  // the cache) is done; empty: nothing compiles in the background.
  std::function<void(std::size_t)> await_footprint;
  std::size_t index = 0;         // the kernel being checked, in command-line order
};

struct KernelCheck {
  std::string kernel;                   // the path as given
  bool ok = false;
  std::string summary;                  // one line: what passed, or why it failed
  std::optional<MappingReport> report;  // absent when the check could not run
  std::vector<PortFinding> findings;    // port checks, in file order (program findings last)
  std::optional<ProgramFacts> program;  // absent when not built
  std::string program_note;             // one line: what the info build showed, or why there was none
  std::vector<RankedPrediction> predictions;  // --predict: best first
  std::string predict_note;                   // --predict: why there are none, or how they were made
  double seconds = 0;
};

// --predict: the footprint at the default size, then every built-in candidate the proposer
// would explore first (and the kernel's own region), ranked by predicted L2 hit rate. A
// program without a footprint section is a note (it still passes); a footprint that does not
// compile, is refused, or disagrees with the program's own unique-byte count is an error.
void predict_candidates(const KernelSource& k, const CheckSettings& s, ProcessRunner& runner, KernelCheck& c) {
  if (k.language() == RegionLanguage::python) {
    c.predict_note = "not predicted: footprints are C++ sections of CUDA/HIP programs; a Triton program cannot be "
                     "predicted yet (docs/kernel-contract.md, \"Footprints\")";
    return;
  }
  auto section = find_footprint_section(k.text(), k.path().filename().string());
  if (section && !*section) {
    c.predict_note = "not predicted: the program declares no footprint (a '// swizzleperf:footprint-begin' section; see "
                     "docs/kernel-contract.md)";
    return;
  }
  if (s.await_footprint) s.await_footprint(s.index);
  auto fp = load_footprint(k, {}, s.footprint, runner);
  if (!fp) {
    c.findings.push_back({true, 0, "footprint: " + fp.error().message});
    c.predict_note = "not predicted: the footprint failed (see the error above)";
    return;
  }
  // The footprint against the program's own unique bytes per launch, where info gave them.
  if (c.program && c.program->info) {
    const auto& raw = c.program->info->raw;
    const auto lfb = raw.find("launch_footprints_bytes");
    if (lfb != raw.end() && lfb->is_array())
      for (std::size_t i = 0; i < fp->launches.size(); ++i) {
        const unsigned id = fp->launch_ids[i];
        if (id >= lfb->size() || !(*lfb)[id].is_number_unsigned()) continue;
        const std::uint64_t declared = (*lfb)[id].get<std::uint64_t>();
        const std::uint64_t spans = union_bytes(fp->launches[i], fp->buffers.size());
        if (declared != spans)
          c.findings.push_back({true, 0, fmt::format("footprint: launch {}'s spans cover {} unique bytes but the program's "
                                                     "launch_footprints_bytes says {}: one of them is wrong",
                                                     id, spans, declared)});
      }
  }
  const TileGrid grid = fp->launches.front().grid;
  nlohmann::json hints = nlohmann::json::object();
  if (c.program && c.program->info) {
    const auto h = c.program->info->raw.find("hints");
    if (h != c.program->info->raw.end() && h->is_object()) hints = *h;
  }
  std::vector<std::pair<std::string, OrderForGrid>> orders;
  // The kernel's own region: the mapping check above already evaluated it on the main grid.
  const GridCheck* checked = c.report && !c.report->grids.empty() ? &c.report->grids.front() : nullptr;
  OrderForGrid own = region_order(k.region(), k.language(), s.hw, s.mapping, runner);
  orders.push_back({"original region", [checked, own](TileGrid g) -> Result<std::vector<std::uint32_t>> {
                      if (checked && checked->bijective && checked->grid.m == g.m && checked->grid.n == g.n &&
                          checked->mapping.size() == g.num_pids())
                        return checked->mapping;
                      return own(g);
                    }});
  for (const auto& cand : BuiltinProposer::seed_order(s.hw, grid, hints, k.language()))
    orders.push_back({cand.label(), family_order_for(cand, s.hw)});
  c.predictions = rank_predictions(*fp, orders, *s.machine, fast_sim_options());
  c.predict_note = fmt::format("predicted (not measured) on {} [{}] at size {}, launches {} of {}", s.machine->name, s.machine->arch,
                               fmt::join(fp->size, ","), fp->launches.size(), fp->launches_total);
}

// The backend that builds `k` for info: nvcc for any C++ program, hipcc for a .hip one,
// Python with torch and triton for a Triton program.
Backend* info_builder(const KernelSource& k, const CheckSettings& s) {
  if (k.language() == RegionLanguage::python) return s.triton;
  if (s.cuda) return s.cuda;
  if (s.hip && k.path().extension() != ".cu") return s.hip;
  return nullptr;
}

// Why info_builder has none for `k`: --no-build, no compiler at all, or a .cu program
// with hipcc alone.
std::string no_builder_reason(const KernelSource& k, const CheckSettings& s) {
  if (k.language() == RegionLanguage::python) return s.no_triton_reason;
  return s.no_build_reason.empty() ? std::string("a .cu program needs nvcc, and none was found; pass --nvcc PATH")
                                   : s.no_build_reason;
}

// Every check of one kernel. An Error is an environment problem (no host
// compiler, interrupted), not a finding about the kernel.
Result<KernelCheck> check_kernel(const KernelSource& k, const CheckSettings& s, ProcessRunner& runner) {
  const auto t0 = std::chrono::steady_clock::now();
  KernelCheck c;
  c.kernel = k.path().string();
  c.findings = source_findings(k, s.strict);
  std::optional<TileGrid> info_grid;
  // The program is built and run only when its region passes the validator: a rejected
  // region is untrusted code that nothing may compile or run (the mapping check below
  // reports why it was rejected).
  const Status region_ok = check_region_in(k.region(), k.language());
  Backend* const builder = region_ok ? info_builder(k, s) : nullptr;
  if (Backend* b = builder) {
    ProgramCheckOptions po;
    po.work_dir = s.mapping.work_dir / "info" / k.name();
    po.num_dies = s.hw.num_dies;
    // info touches no GPU, so any arch of the family does; gfx940 is the one every hipcc
    // that knows the MI300 family accepts (Debian's hipcc 5.2 predates gfx942).
    po.arch = b->name() == "hip" ? std::string("gfx940") : std::string();
    auto facts = program_findings(k, *b, po);
    if (!facts) return facts.error();
    c.findings.insert(c.findings.end(), facts->findings.begin(), facts->findings.end());
    if (facts->info)
      if (auto g = facts->info->checked_grid()) info_grid = *g;
    c.program_note = facts->built
                         ? fmt::format("built for info with {} ({:.1f} s){}",
                                       b->name() == "cuda" ? "nvcc" : b->name() == "hip" ? "hipcc" : "python", facts->build_seconds,
                                       info_grid ? fmt::format(": grid {}x{} at the default size, {} verify size(s) through info",
                                                               info_grid->m, info_grid->n, facts->sizes_checked)
                                                 : std::string())
                         : std::string("the info build failed");
    c.program = std::move(*facts);
  } else if (!region_ok) {
    c.program_note = "not built: nothing compiles or runs a region the validator refused";
  } else {
    c.program_note = "not built: " + no_builder_reason(k, s);
  }
  const std::optional<TileGrid> grid = s.grid ? s.grid : info_grid ? info_grid : k.default_grid();
  std::size_t errors = 0, warnings = 0;
  for (const auto& f : c.findings) (f.error ? errors : warnings)++;
  const std::string counts = errors + warnings == 0 ? std::string()
                             : fmt::format("; {} error(s), {} warning(s)", errors, warnings);
  if (!grid) {  // no --grid, no comment, no program: nothing to check the region on
    c.ok = false;
    c.summary = std::string("no tile grid to check the region on (no '") + comment_prefix(k.language()) +
                " swizzleperf:default-grid MxN' comment, and no grid from the program: " + c.program_note +
                "): add the comment or pass --grid MxN" + counts;
  } else {
    auto report = check_mapping(k.region(), ragged_grids(*grid), s.hw, s.mapping, runner, k.language());
    if (!report) return report.error();
    c.ok = report->ok && errors == 0;
    c.summary = report->summary();
    if (!report->ok && c.summary.find("timed out") != std::string::npos)
      c.summary += fmt::format(" (--check-timeout {} s)", std::chrono::duration_cast<std::chrono::seconds>(s.mapping.timeout).count());
    c.summary += counts;
    c.report = std::move(*report);
  }
  if (s.predict) {
    const std::size_t before = c.findings.size();
    predict_candidates(k, s, runner, c);
    if (c.findings.size() > before) c.ok = false;
  }
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

void print_predictions(const KernelCheck& c) {
  std::printf("  %s\n", c.predict_note.c_str());
  if (c.predictions.empty()) return;
  const bool multi = c.predictions.front().prediction && c.predictions.front().prediction->dies.size() > 1;
  std::printf("    %-24s %9s %12s %12s  %s\n", "order", "L2 hit %", "DRAM read", "cross-die", multi ? "L2 hit % per die" : "");
  for (const auto& p : c.predictions) {
    if (!p.prediction) {
      std::printf("    %-24s %s\n", p.label.c_str(), p.error.c_str());
      continue;
    }
    std::string dies;
    if (multi)
      for (const auto& d : p.prediction->dies) dies += fmt::format("{:.1f} ", d.hit_pct());
    std::printf("    %-24s %9.2f %12s %12s  %s\n", p.label.c_str(), p.prediction->l2_hit_pct(),
                fmt::format("{:.1f} MB", p.prediction->total.dram_read_bytes / 1e6).c_str(),
                fmt::format("{:.1f} MB", p.prediction->total.cross_die_bytes / 1e6).c_str(), dies.c_str());
  }
}

}  // namespace

int cmd_check(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf check", "Evaluate kernels' swizzle regions on the host: bijection, per-die load, neighbour co-location.");
  o.positional_help("KERNEL.hip|.cu|.py...");
  o.add_options()("kernels", "kernel files", cxxopts::value<std::vector<std::string>>())("h,help", "show this help");
  o.add_options("Hardware model")
      ("arch", "arch whose die model to use: gfx942/mi300x (8 XCDs), sm_90/h100, ... (default: from the GPU present, else "
               "the files and the compilers present: sm_90 for .cu files, else gfx942, said in the first line)",
       cxxopts::value<std::string>()->default_value(""))
      ("dies", "override the die count (round-robin dispatch; 0: the arch's)", cxxopts::value<int>()->default_value("0"))
      ("probe", "use the dispatch model measured by `swizzleperf probe` (its hardware.json)", cxxopts::value<std::string>()->default_value(""));
  o.add_options("Check")
      ("grid", "tile grid MxN for every kernel (default: each kernel's '// swizzleperf:default-grid' comment)", cxxopts::value<std::string>()->default_value(""))
      ("host-cxx", "host C++ compiler for the evaluator", cxxopts::value<std::string>()->default_value("c++"))
      ("check-timeout", "seconds the evaluator may run on one grid before it is killed (a region that loops forever)",
       cxxopts::value<int>()->default_value("60"))
      ("details", "list every checked grid under each kernel")
      ("strict", "treat warnings (block-index uses and 2-D launches in run() that bypass the swizzle) as errors")
      ("predict", "also predict each die's L2 hit rate and DRAM bytes for the built-in candidates (the locality model; "
                  "needs the program's footprint section)")
      ("no-build", "do not build the programs for info (source checks and the mapping check only)")
      ("nvcc", "nvcc for the info build (default: PATH, then /usr/local/cuda/bin)", cxxopts::value<std::string>()->default_value(""))
      ("hipcc", "hipcc for the info build of .hip programs when there is no nvcc (default: PATH, then /opt/rocm/bin)",
       cxxopts::value<std::string>()->default_value(""))
      ("python", "Python for the info build of Triton programs (.py), with torch and triton (default: python3 on PATH)",
       cxxopts::value<std::string>()->default_value(""))
      ("build-timeout", "seconds before an info build is killed", cxxopts::value<int>()->default_value("300"));
  o.add_options("Output")
      ("json", "print the reports as JSON on stdout")
      ("junit", "also write a JUnit XML file: one testcase per kernel", cxxopts::value<std::string>()->default_value(""));
  o.parse_positional({"kernels"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "check", {"", "Hardware model", "Check", "Output"}, r)) return *done;
  if (!r.count("kernels")) return report_error("check needs kernel files: swizzleperf check KERNEL.hip...");
  CheckSettings s;
  std::string arch = r["arch"].as<std::string>();
  const std::string probe = r["probe"].as<std::string>();
  std::optional<ArchChoice> arch_choice;
  if (arch.empty() && probe.empty()) {
    const auto files = r["kernels"].as<std::vector<std::string>>();
    arch_choice = default_arch({files.begin(), files.end()},
                               machine_facts(r["nvcc"].as<std::string>(), r["hipcc"].as<std::string>()));
    arch = arch_choice->arch;
  }
  auto hw = hardware_from_options(arch, r["dies"].as<int>(), probe);
  if (!hw) return report_error(hw.error().message);
  s.hw = *hw;
  s.predict = r.count("predict") > 0;
  if (s.predict) {
    auto m = machine_model(s.hw);
    if (!m) return report_error(m.error().message);
    s.machine = *m;
    s.footprint.host_compiler = r["host-cxx"].as<std::string>();
    s.footprint.support_dir = support_dir();
    s.footprint.cache_dir = default_footprint_cache_dir();
  }
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
    kernels.push_back(std::move(*k));
  }
  s.strict = r.count("strict") > 0;
  const int build_timeout = r["build-timeout"].as<int>();
  if (build_timeout < 1) return report_error("--build-timeout must be at least 1 second");
  RealProcessRunner runner;
  ToolOptions cuda_tools, hip_tools;
  cuda_tools.compiler = r["nvcc"].as<std::string>();
  hip_tools.compiler = r["hipcc"].as<std::string>();
  cuda_tools.build_timeout = hip_tools.build_timeout = std::chrono::seconds(build_timeout);
  CudaBackend cuda(runner, cuda_tools);
  HipBackend hip(runner, hip_tools);
  ToolOptions triton_tools;
  triton_tools.compiler = r["python"].as<std::string>();
  triton_tools.build_timeout = std::chrono::seconds(build_timeout);
  TritonBackend triton(runner, triton_tools);
  const bool any_python = std::any_of(kernels.begin(), kernels.end(), [](const KernelSource& k) { return k.language() == RegionLanguage::python; });
  if (r.count("no-build")) {
    s.no_build_reason = s.no_triton_reason = "--no-build";
  } else {
    if (any_python) {
      // A Triton program is built for info where its Python imports torch and triton; on a
      // machine without them (a CI runner) the source checks and the mapping check run alone.
      if (auto st = triton.preflight(false); !st) {
        if (!triton_tools.compiler.empty()) return report_error(st.error().message);  // names --python itself
        s.no_triton_reason = st.error().message;
      } else if (auto why = triton.missing_modules(); !why.empty()) {
        s.no_triton_reason = why + " (the grid comment and verify sizes are unchecked)";
      } else {
        s.triton = &triton;
      }
    }
    if (cuda.preflight(false)) s.cuda = &cuda;
    if (hip.preflight(false)) s.hip = &hip;
    // A path given explicitly must work: a typo must not silently skip the build.
    if (!cuda_tools.compiler.empty() && !s.cuda) return report_error("--nvcc " + cuda_tools.compiler + " is not an executable");
    if (!hip_tools.compiler.empty() && !s.hip) return report_error("--hipcc " + hip_tools.compiler + " is not an executable");
    if (!s.cuda && !s.hip) s.no_build_reason = "no nvcc or hipcc found (the grid comment and sizes are unchecked; pass --nvcc PATH)";
  }
  // A kernel with no grid to check on is bad input (exit 2), unless its source already
  // fails (an unfilled port: its TODO list, exit 1, says more than "pass --grid").
  const auto source_fails = [&](const KernelSource& k) {
    const auto f = source_findings(k, s.strict);
    return std::any_of(f.begin(), f.end(), [](const PortFinding& x) { return x.error; });
  };
  for (const auto& k : kernels)
    if (!s.grid && !k.default_grid() && !info_builder(k, s) && !source_fails(k))
      return report_error(k.path().string() + " has no '" + comment_prefix(k.language()) +
                          " swizzleperf:default-grid MxN' comment and is not built here (" +
                          no_builder_reason(k, s) + "): pass --grid MxN");
  // The footprint programs compile in the background, in kernel order, while the kernels are
  // checked (each lands in the cache, where the kernel's prediction finds it after waiting for
  // it); a failure is reported by that kernel's check, in kernel order. On every way out of
  // this function no further compile starts and the pool is joined (an early error waits
  // only for the compiles already running).
  std::atomic<std::size_t> next{0};
  std::vector<std::promise<void>> compiled;
  std::vector<std::shared_future<void>> compiled_f;
  std::vector<std::thread> pool;
  struct Joiner {
    std::vector<std::thread>& threads;
    std::atomic<std::size_t>& next;
    std::size_t end;
    ~Joiner() {
      next = end;
      for (auto& t : threads)
        if (t.joinable()) t.join();
    }
  } joiner{pool, next, kernels.size()};
  if (s.predict && !s.footprint.cache_dir.empty()) {
    compiled.resize(kernels.size());
    for (auto& p : compiled) compiled_f.push_back(p.get_future().share());
    auto compile = [&]() {
      RealProcessRunner own;
      for (std::size_t i = next++; i < kernels.size(); i = next++) {
        std::filesystem::path temp;
        (void)footprint_program(kernels[i], s.footprint, own, &temp);
        std::error_code ec;
        if (!temp.empty()) std::filesystem::remove_all(temp, ec);
        compiled[i].set_value();
      }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(kernels.size())));
    for (unsigned t = 0; t < n; ++t) pool.emplace_back(compile);
    s.await_footprint = [&compiled_f](std::size_t i) {
      if (i < compiled_f.size()) compiled_f[i].wait();
    };
  }
  const bool json = r.count("json") > 0;
  if (!json) std::printf("%s\n", model_line(s.hw, arch_choice ? &*arch_choice : nullptr).c_str());
  const auto work = std::filesystem::temp_directory_path() / fmt::format("swizzleperf-check-{}", ::getpid());
  s.mapping = MappingCheckOptions{r["host-cxx"].as<std::string>(), work, std::chrono::seconds(r["check-timeout"].as<int>())};
  JUnitSuite suite{"swizzleperf check", now_iso8601(), {}};
  nlohmann::json out = {{"hardware", {{"arch", s.hw.arch}, {"num_dies", s.hw.num_dies}, {"dispatch", s.hw.dispatch}}},
                        {"kernels", nlohmann::json::array()}};
  if (arch_choice) out["arch_chosen"] = {{"arch", arch_choice->arch}, {"because", arch_choice->why}};
  int failed = 0;
  for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
    const auto& k = kernels[ki];
    s.index = ki;
    auto c = check_kernel(k, s, runner);
    if (!c) {
      std::error_code ec;
      std::filesystem::remove_all(work, ec);
      if (c.error().interrupted()) return kExitInterrupted;
      return report_error(c.error().message);
    }
    failed += !c->ok;
    std::string details;
    for (const auto& f : c->findings) details += format_finding(c->kernel, f) + "\n";
    suite.cases.push_back({c->kernel, "swizzleperf.check." + s.hw.arch, c->seconds, !c->ok, c->summary, details, "failure"});
    if (json) {
      nlohmann::json j = c->report ? nlohmann::json(*c->report) : nlohmann::json::object();
      if (j.contains("grids"))
        for (auto& g : j["grids"]) g.erase("mapping");
      j["kernel"] = c->kernel;
      j["ok"] = c->ok;
      j["summary"] = c->summary;
      j["findings"] = nlohmann::json::array();
      for (const auto& f : c->findings)
        j["findings"].push_back({{"level", f.error ? "error" : "warning"}, {"line", f.line}, {"text", f.text}});
      j["program"] = {{"built", c->program && c->program->built}, {"note", c->program_note}};
      if (c->program && c->program->info) j["program"]["info"] = c->program->info->raw;
      if (s.predict) {
        j["predict_note"] = c->predict_note;
        j["predictions"] = nlohmann::json::array();
        for (const auto& p : c->predictions) {
          nlohmann::json pj = p.prediction ? summary_json(*p.prediction) : nlohmann::json::object();
          pj["order"] = p.label;
          if (!p.error.empty()) pj["error"] = p.error;
          pj["kind"] = "prediction";
          j["predictions"].push_back(pj);
        }
      }
      out["kernels"].push_back(j);
    } else {
      std::printf("%s %s: %s\n", c->ok ? "PASS" : "FAIL", c->kernel.c_str(), c->summary.c_str());
      for (const auto& f : c->findings) std::printf("  %s\n", format_finding(c->kernel, f).c_str());
      std::printf("  %s\n", c->program_note.c_str());
      if (s.predict) print_predictions(*c);
      if (r.count("details") && c->report) print_details(*c->report);
    }
    std::fflush(stdout);
  }
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  if (json) {
    out["ok"] = failed == 0;
    std::puts(out.dump(2).c_str());
  } else {
    if (kernels.size() > 1)
      std::printf("%zu kernel(s): %zu passed, %d failed\n", kernels.size(), kernels.size() - failed, failed);
    if (static_cast<std::size_t>(failed) < kernels.size()) std::printf("%s\n", kVerifyOnlyNote);
  }
  if (!junit.empty())
    if (auto st = write_junit(junit, suite); !st) return report_error(st.error().message);
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace swz::cli
