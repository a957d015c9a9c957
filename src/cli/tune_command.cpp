// `swizzleperf tune`: the program's declared template parameters searched together with
// the block order. The same run as optimize (baseline, attempts, judge, history, resume)
// with the tune proposer (proposer/tune_proposer) choosing each attempt's point and order.
#include <fmt/format.h>

#include <cstdio>

#include "swizzleperf/backend/backend_factory.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/optimize_run.h"
#include "swizzleperf/proposer/tune_proposer.h"
#include "swizzleperf/report/tune_report.h"
#include "swizzleperf/tune/tune_search.h"
#include "swizzleperf/tune/tune_space.h"
#include "swizzleperf/util/file_io.h"

namespace swz::cli {

namespace {

// "tune: 144 points (4 tunables); 36 excluded (first: ...)", before anything runs.
std::string space_line(const TuneSpace& space, const TuneEnumeration& e, const char* pruned_by) {
  std::string s = fmt::format("tune: {} points ({} tunables), {} in the space", space.size(), space.tunables.size(),
                              e.points.size());
  if (e.excluded > 0) s += fmt::format("; {} pruned by {} (first: {})", e.excluded, pruned_by, e.first_exclusion);
  return s;
}

}  // namespace

int cmd_tune(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf tune",
                     "Search the program's declared template parameters (tile sizes, stages, warps) together with the "
                     "block order: each evaluation builds one point with its defines, checks it against the program's "
                     "reference and times it; the best goes to the speed judge against the original parameters and "
                     "order. Tunables are declared in the program (docs/kernel-contract.md, \"Tunables\").");
  o.positional_help("KERNEL.hip|.cu|.py");
  o.add_options()("kernel", "kernel file (optional with --resume)", cxxopts::value<std::string>())("h,help", "show this help");
  o.add_options("Run")
      ("run-dir", "directory for this run (default: runs/<kernel>-<UTC time>)", cxxopts::value<std::string>()->default_value(""))
      ("resume", "continue the run in DIR after Ctrl-C or a crash, without measuring a point again", cxxopts::value<std::string>()->default_value(""))
      ("json", "print a machine-readable summary on stdout (the table goes to stderr)");
  add_setting_options(o, kTune, "Run");
  o.parse_positional({"kernel"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "tune", {"", "Run", "Tune", "Objective", "Power regime", "Backend"}, r)) return *done;

  RunConfig asked;
  asked.command = "tune";
  asked.objective = Objective::time;  // the search ranks by time; the judge decides a winner by it
  asked.proposer = "tune";
  if (const auto e = read_settings(r, kTune, asked); !e.empty()) return report_error(e);

  auto opened = open_run_from(r, asked, "tune");
  if (!opened) return report_error(opened.error().message);
  RunState& run = *opened;
  RunConfig& config = run.history.config;
  // The loop's attempt count is the search's budget (the search also stops itself there).
  config.iterations = config.tune.budget;

  auto space = parse_tune_space(run.kernel.text(), run.kernel.language(), run.kernel.path().string());
  if (!space) return report_error(space.error().message);
  if (space->empty())
    return report_error(fmt::format(
        "{} declares no tunable parameters: mark a build define (C++: `#define BLOCK_M 128  // swizzleperf:tunable 64 "
        "128 256` inside #ifndef BLOCK_M) or a module constant (Triton: `BLOCK_M = 128  # swizzleperf:tunable 64 128 "
        "256`); see docs/kernel-contract.md, \"Tunables\"",
        run.kernel.path().string()));
  // The space before the device is known: its own rules prune it here; the device's limits
  // (shared memory, threads per block) prune it at the first proposal, which says how many.
  const bool known_device = run.history.hardware.has_value();
  const TuneLimits limits = known_device ? tune_limits_of(*run.history.hardware) : TuneLimits{};
  const TuneEnumeration before = enumerate_points(*space, limits);
  std::FILE* out = r.count("json") ? stderr : stdout;
  std::fprintf(out, "%s\n", space_line(*space, before, known_device ? "its rules and the device's limits" : "its rules").c_str());
  std::fflush(out);  // before the run's progress lines on stderr
  if (before.points.empty())
    return report_error("no point of the space is left (" + before.first_exclusion + "): widen the tunables' values or "
                        "relax the restrictions");

  auto resolved = backend_for_kernel(config.backend, run.kernel.path());
  if (!resolved) return report_error(resolved.error().message);
  config.backend = *resolved;
  RealProcessRunner runner;
  auto backend = make_backend(config.backend, runner, tool_options_for(r, config));
  if (!backend) return report_error(backend.error().message + " (tune measures every point on the GPU)");
  if (auto st = backend_ready_for(**backend, run); !st) return report_error(st.error().message);

  TuneSearchSettings search;
  search.strategy = tune_strategy_from_string(config.tune.strategy).value_or(TuneStrategy::guided);
  search.budget = config.tune.budget;
  search.seed = static_cast<std::uint64_t>(config.tune.seed);
  TuneProposer proposer(*space, search, config.tune.budget_s);
  return run_optimizer(r, std::move(run), **backend, runner, proposer, [&](const OptimizeSummary& s, nlohmann::json& json) {
    // The report: the pruning as the search saw it (its first proposal, with the device's
    // limits; a resume that proposed nothing: the enumeration above), and why it ended.
    const TuneEnumeration* enumerated = proposer.enumeration() ? &*proposer.enumeration() : known_device ? &before : nullptr;
    TuneReport report = make_tune_report(s.history, *space, enumerated);
    if (report.stopped.empty() && !s.interrupted()) report.stopped = proposer.stop_reason(s.history);

    const auto outcomes = proposer.outcomes(s.history);
    int failed = 0;
    for (std::size_t i = 1; i < outcomes.size(); ++i) failed += outcomes[i].ms ? 0 : 1;
    std::fprintf(out, "tune: %zu evaluations (%d failed) of %llu trials%s\n", outcomes.size() - 1, failed,
                 static_cast<unsigned long long>(
                     proposer.enumeration() ? proposer.enumeration()->points.size() * proposer.orders().size() : 0),
                 report.stopped.empty() ? "" : ("; stopped: " + report.stopped).c_str());
    if (const TuneOutcome* best = best_tune_outcome(outcomes); best && !proposer.orders().empty())
      std::fprintf(out, "tune: fastest screened: %s @ %s (%.4f ms)%s\n",
                   proposer.orders()[static_cast<std::size_t>(best->trial.order)].label.c_str(),
                   space->describe(best->trial.point).c_str(), *best->ms,
                   best->counted ? "" : " - the program's own parameters and order");

    const std::string markdown = render_tune_markdown(report);
    const auto path = s.run_dir / "tune.md";
    std::fprintf(out, "tune: the report is %s\n", path.string().c_str());
    std::fflush(out);
    std::fprintf(stderr, "\n%s", markdown.c_str());
    json["tune"] = tune_report_json(report);
    return write_file_atomic(path, markdown);
  });
}

}  // namespace swz::cli
