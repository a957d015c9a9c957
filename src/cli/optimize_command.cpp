// `swizzleperf optimize`: wires options to a backend, a proposer and the loop.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "swizzleperf/backend/backend_factory.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/optimize_run.h"
#include "swizzleperf/cli/proposer_factory.h"

namespace swz::cli {

int cmd_optimize(const std::vector<std::string>& args) {
  // The first line of --help says what a run does under the default objective (time).
  cxxopts::Options o("swizzleperf optimize",
                     "Find the block order (swizzle) that makes the kernel significantly faster than the original, "
                     "timed interleaved with it, and keep the best validated kernel (--objective l2: the highest L2 "
                     "hit rate; energy: the least energy per run).");
  o.positional_help("KERNEL.hip|.cu");
  o.add_options()("kernel", "kernel file (optional with --resume)", cxxopts::value<std::string>())("h,help", "show this help");
  o.add_options("Run")
      ("run-dir", "directory for this run (default: runs/<kernel>-<UTC time>)", cxxopts::value<std::string>()->default_value(""))
      ("resume", "continue the run in DIR after Ctrl-C or a crash", cxxopts::value<std::string>()->default_value(""))
      ("json", "print a machine-readable summary on stdout (the table goes to stderr)");
  add_setting_options(o, kOptimize, "Run");
  add_proposer_options(o);
  o.parse_positional({"kernel"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "optimize", {"", "Run", "Objective", "Power regime", "Proposer", "LLM", "Backend"}, r)) return *done;

  RunConfig asked;
  asked.command = "optimize";
  if (const auto e = read_settings(r, kOptimize, asked); !e.empty()) return report_error(e);

  // The run: a new one, or the recorded one with what the resume rules allow.
  auto opened = open_run_from(r, asked, "optimize");
  if (!opened) return report_error(opened.error().message);
  RunState& run = *opened;
  RunConfig& config = run.history.config;

  if (r.count("dump-prompt")) {
    auto p = make_proposer(config);
    if (!p) return report_error(p.error().message);
    return dump_next_prompt(**p, run, config.arch, r.count("json") > 0);
  }
  auto resolved = backend_for_kernel(config.backend, run.kernel.path());
  if (!resolved) return report_error(resolved.error().message);
  config.backend = *resolved;
  RealProcessRunner runner;
  auto backend = make_backend(config.backend, runner, tool_options_for(r, config));
  if (!backend) {
    // Without a GPU the program cannot say what it takes; its source can.
    if (const auto n = run.kernel.declared_size_arity(); n && !config.size.empty() && *n != config.size.size())
      return report_error(fmt::format("--size has {} value(s); {} takes {} (its default_size())", config.size.size(),
                                      run.kernel.path().string(), *n));
    if (config.backend == "auto" && !run.resumed) {
      // The machine to model: --arch (refused here, before anything is printed, when the
      // table does not know it), else the one the file and the compilers present suggest.
      std::optional<ArchChoice> choice;
      std::string arch = config.arch;
      if (arch.empty()) {
        choice = default_arch({run.kernel.path()}, machine_facts(r["nvcc"].as<std::string>(), r["hipcc"].as<std::string>()));
        arch = choice->arch;
      }
      auto hw = profile_from_arch(arch);
      if (!hw) return report_error(hw.error().message);
      return host_only_analysis(run.kernel, *hw, choice ? &*choice : nullptr, config.host_cxx,
                                "no GPU found (" + backend.error().message.substr(0, backend.error().message.find(';')) + ")",
                                r.count("json") > 0);
    }
    return report_error(backend.error().message);
  }
  if (auto st = backend_ready_for(**backend, run); !st) return report_error(st.error().message);
  auto proposer = make_proposer(config);
  if (!proposer) return report_error(proposer.error().message);
  return run_optimizer(r, std::move(run), **backend, runner, **proposer);
}

}  // namespace swz::cli
