#include "swizzleperf/cli/optimize_run.h"

#include <fmt/format.h>

#include <cstdio>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/run_dir_arg.h"
#include "swizzleperf/loop/optimizer.h"
#include "swizzleperf/report/report.h"
#include "swizzleperf/report/run_reports.h"

namespace swz::cli {

Result<RunState> open_run_from(const cxxopts::ParseResult& r, const RunConfig& asked, const std::string& command) {
  const std::string resume = r["resume"].as<std::string>();
  const std::filesystem::path kernel_arg = r.count("kernel") ? r["kernel"].as<std::string>() : std::string();
  if (!resume.empty()) {
    if (auto st = check_run_dir_arg(resume, "--resume"); !st) return st.error();
    auto run = open_resumed_run(resume, kernel_arg, asked, given_settings(r, asked));
    // A tune run's attempts are points and orders of its search; an optimize run's are orders.
    if (run && (run->history.config.command == "tune") != (command == "tune")) {
      const std::string& was = run->history.config.command;
      return make_error(fmt::format("{} holds a {} run: resume it with 'swizzleperf {} --resume {}'", resume, was,
                                    was == "tune" ? "tune" : "optimize", resume));
    }
    return run;
  }
  if (kernel_arg.empty())
    return make_error(fmt::format("{} needs a kernel file: swizzleperf {} KERNEL.hip (or --resume DIR)", command, command));
  std::filesystem::path run_dir = r["run-dir"].as<std::string>();
  if (run_dir.empty()) run_dir = std::filesystem::path("runs") / fmt::format("{}-{}", kernel_arg.stem().string(), utc_stamp());
  return open_new_run(asked, kernel_arg, run_dir);
}

Status backend_ready_for(Backend& backend, const RunState& run) {
  if (auto st = backend.preflight(true); !st) return st;
  return backend.accepts_source(run.kernel.path(), run.kernel.text());
}

int run_optimizer(const cxxopts::ParseResult& r, RunState run, Backend& backend, ProcessRunner& runner, Proposer& proposer,
                  const RunClosing& after) {
  // Before any GPU time: an LLM that does not answer would fail every attempt.
  if (auto st = proposer.check_ready(); !st) return report_error(st.error().message);
  RunConfig& config = run.history.config;
  config.backend = backend.name();
  config.proposer = proposer.name();

  const auto run_dir = run.run_dir;
  ConsoleProgress progress;
  RunReportWriter reports(run_dir);
  Optimizer optimizer(backend, proposer, runner, std::move(run), {&progress, &reports});
  auto result = optimizer.run();
  if (!result) {
    if (result.error().interrupted()) return kExitInterrupted;
    return report_error(result.error().message);
  }
  const auto table = render_summary_table(*result);
  const std::string unmeasured = result->unmeasured();
  std::fputs(table.c_str(), r.count("json") ? stderr : stdout);
  nlohmann::json json = summary_json(*result);
  if (after)
    if (auto st = after(*result, json); !st) return report_error_in(std::move(json), st.error().message);
  if (!unmeasured.empty())
    return report_error_in(std::move(json), unmeasured + " (see " + (result->run_dir / "history.json").string() + ")");
  if (r.count("json")) std::puts(json.dump(2).c_str());
  return result->interrupted() ? kExitInterrupted : kExitOk;
}

}  // namespace swz::cli
