// `swizzleperf optimize`: wires options to a backend, a proposer and the loop.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/core/json_field.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/proposer_factory.h"
#include "swizzleperf/core/region_validator.h"
#include "swizzleperf/loop/optimizer.h"
#include "swizzleperf/loop/report.h"

namespace swz::cli {

int cmd_optimize(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf optimize", "Search for a swizzle that raises the kernel's L2 hit rate; keep the best validated kernel.");
  o.positional_help("KERNEL.hip");
  o.add_options()("kernel", "kernel file (optional with --resume)", cxxopts::value<std::string>())("h,help", "show this help");
  o.add_options("Run")
      ("iterations", "attempts to make (duplicates of earlier mappings are not counted)", cxxopts::value<int>()->default_value("10"))
      ("run-dir", "directory for this run (default: runs/<kernel>-<UTC time>)", cxxopts::value<std::string>()->default_value(""))
      ("resume", "continue the run in DIR after Ctrl-C or a crash", cxxopts::value<std::string>()->default_value(""))
      ("size", "problem size passed to the program as --size (e.g. 8192,8192,2048)", cxxopts::value<std::string>()->default_value(""))
      ("reps", "timed repetitions per measurement (median reported)", cxxopts::value<int>()->default_value("30"))
      ("warmup", "untimed warm-up runs before timing", cxxopts::value<int>()->default_value("5"))
      ("host-cxx", "host C++ compiler for the mapping check", cxxopts::value<std::string>()->default_value("c++"))
      ("build-jobs", "concurrent kernel builds, the proposer's next candidates built ahead (1: serial; 0: min(cores-1, 4), memory permitting)", cxxopts::value<int>()->default_value("0"))
      ("json", "print a machine-readable summary on stdout (the table goes to stderr)");
  add_objective_options(o);
  add_proposer_options(o);
  add_backend_options(o);
  o.parse_positional({"kernel"});
  cxxopts::ParseResult r;
  std::string err;
  if (auto done = parse_command(o, args, "optimize", {"", "Run", "Objective", "Proposer", "LLM", "Backend"}, r)) return *done;

  OptimizeOptions opt;
  const std::string resume = r["resume"].as<std::string>();
  RunHistory previous;
  if (!resume.empty()) {
    auto h = load_history(std::filesystem::path(resume) / "history.json");
    if (!h) return report_error(h.error().message);
    previous = h.value();
    // Before anything else runs (the LLM endpoint check included): a history holding a
    // rejected or oversized region is refused with its reason.
    if (auto st = check_recorded_regions(previous); !st)
      return report_error((std::filesystem::path(resume) / "history.json").string() + ": " + st.error().message);
    opt.resume = true;
    opt.run_dir = resume;
    opt.kernel = r.count("kernel") ? std::filesystem::path(r["kernel"].as<std::string>()) : std::filesystem::path(previous.kernel_path);
  } else {
    if (!r.count("kernel")) return report_error("optimize needs a kernel file: swizzleperf optimize KERNEL.hip (or --resume DIR)");
    opt.kernel = r["kernel"].as<std::string>();
    opt.run_dir = r["run-dir"].as<std::string>();
  }
  auto kernel = KernelSource::load(opt.kernel);
  if (!kernel) return report_error(kernel.error().message);
  if (auto st = check_region_code(kernel->region()); !st) return report_error(opt.kernel.string() + ": " + st.error().message);
  if (opt.run_dir.empty()) opt.run_dir = std::filesystem::path("runs") / fmt::format("{}-{}", kernel->name(), utc_stamp());

  opt.iterations = r["iterations"].as<int>();
  if (opt.resume && !r.count("iterations") && previous.config.contains("iterations"))
    opt.iterations = int_or(previous.config, "iterations", 0);  // 0: refused just below
  if (opt.iterations < 1 || opt.iterations > 1000) return report_error("--iterations must be between 1 and 1000");
  opt.time_reps = r["reps"].as<int>();
  opt.warmup = r["warmup"].as<int>();
  if (auto s = r["size"].as<std::string>(); !s.empty() && !parse_int_list(s, opt.size))
    return report_error("--size '" + s + "' is not a comma-separated list of positive integers");
  if (opt.resume && opt.size.empty() && previous.config.contains("size")) {
    const auto& sz = previous.config["size"];
    for (std::size_t i = 0; sz.is_array() && i < sz.size(); ++i) opt.size.push_back(int_or(sz, i, 0));
    if (!sz.is_array() || std::count_if(opt.size.begin(), opt.size.end(), [](int v) { return v < 1; }) > 0)
      return report_error("the history's config.size is not a list of positive integers; pass --size to resume");
  }
  opt.host_cxx = r["host-cxx"].as<std::string>();
  if (!objective_options_from(r, opt.objective, opt.recheck_rounds, err)) return report_error(err);
  // A resumed run keeps the objective it started with (its ranking is in its history).
  if (opt.resume && !r.count("objective") && previous.config.contains("objective"))
    if (auto o = objective_from_string(previous.config.value("objective", ""))) opt.objective = *o;
  if (opt.resume && !r.count("rounds") && previous.config.contains("recheck_rounds"))
    opt.recheck_rounds = int_or(previous.config, "recheck_rounds", opt.recheck_rounds);
  opt.build_jobs = r["build-jobs"].as<int>();

  std::string backend_name = r["backend"].as<std::string>();
  if (opt.resume && !r.count("backend") && previous.config.contains("backend")) backend_name = previous.config["backend"].get<std::string>();
  ToolOptions tools = tool_options_from(r, backend_name);
  std::string proposer_name = r["proposer"].as<std::string>();
  if (opt.resume && !r.count("proposer") && previous.config.contains("proposer")) proposer_name = previous.config["proposer"].get<std::string>();
  if (r.count("dump-prompt")) {
    auto p = make_proposer(proposer_name, r);
    if (!p) return report_error(p.error().message);
    return dump_next_prompt(**p, opt, r);
  }
  RealProcessRunner runner;
  auto backend = make_backend(backend_name, runner, tools);
  if (!backend) {
    // Without a GPU the program cannot say what it takes; its source can.
    if (const auto n = kernel->declared_size_arity(); n && !opt.size.empty() && *n != opt.size.size())
      return report_error(fmt::format("--size has {} value(s); {} takes {} (its default_size())", opt.size.size(),
                                      opt.kernel.string(), *n));
    if (backend_name == "auto" && !opt.resume)
      return host_only_analysis(*kernel, tools.arch, opt.host_cxx,
                                "no GPU found (" + backend.error().message.substr(0, backend.error().message.find(';')) + ")",
                                r.count("json") > 0);
    return report_error(backend.error().message);
  }
  if (auto st = (*backend)->preflight(true); !st) return report_error(st.error().message);
  auto proposer = make_proposer(proposer_name, r);
  if (!proposer) return report_error(proposer.error().message);
  // Before any GPU time: an LLM that does not answer would fail every attempt.
  if (auto st = (*proposer)->check_ready(); !st) return report_error(st.error().message);

  opt.config = {{"proposer", (*proposer)->name()}, {"backend", (*backend)->name()}, {"iterations", opt.iterations},
                {"reps", opt.time_reps}, {"warmup", opt.warmup}, {"size", opt.size}, {"arch", tools.arch},
                {"objective", to_string(opt.objective)}, {"recheck_rounds", opt.recheck_rounds},
                {"proposer_config", proposer_config_json(r)}};
  if (opt.resume) {
    auto merged = previous.config;
    merged.update(opt.config);
    opt.config = merged;
  }
  Optimizer optimizer(**backend, **proposer, runner, opt);
  auto result = optimizer.run();
  if (!result) {
    if (result.error().message == "interrupted") return kExitInterrupted;
    return report_error(result.error().message);
  }
  const auto table = render_summary_table(*result);
  const std::string unmeasured = result->unmeasured();
  std::fputs(table.c_str(), r.count("json") ? stderr : stdout);
  if (!unmeasured.empty())
    return report_error_in(summary_json(*result), unmeasured + " (see " + (result->run_dir / "history.json").string() + ")");
  if (r.count("json")) std::puts(summary_json(*result).dump(2).c_str());
  return result->interrupted ? kExitInterrupted : kExitOk;
}

}  // namespace swz::cli
