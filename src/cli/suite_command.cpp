// `swizzleperf suite`: optimize over a list of kernels (default: kernels/*.hip and *.cu),
// one kernel's failure recorded and the suite going on; --shard and --merge.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "swizzleperf/backend/backend_factory.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/proposer_factory.h"
#include "swizzleperf/util/text.h"
#include "swizzleperf/loop/optimizer.h"
#include "swizzleperf/report/run_reports.h"
#include "swizzleperf/report/suite.h"
#include "swizzleperf/report/suite_summary.h"

namespace swz::cli {

namespace fs = std::filesystem;

int cmd_suite(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf suite", "Run optimize over several kernels and write suite-summary.{md,csv,json}.");
  o.positional_help("[KERNEL.hip|.cu...]");
  o.add_options()("kernels", "kernel files (default: every kernels/*.hip and kernels/*.cu)", cxxopts::value<std::vector<std::string>>())
      ("h,help", "show this help");
  o.add_options("Suite")
      ("out", "output directory (default: runs/suite-<UTC time>)", cxxopts::value<std::string>()->default_value(""))
      ("shard", "run only shard i of n (i/n), for splitting across machines or CI jobs", cxxopts::value<std::string>()->default_value("1/1"))
      ("merge", "join the suite-summary.json of these shard dirs into --out (no runs)", cxxopts::value<std::vector<std::string>>());
  add_setting_options(o, kSuite, "Suite");
  add_proposer_options(o);
  o.parse_positional({"kernels"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "suite", {"", "Suite", "Objective", "Power regime", "Proposer", "LLM", "Backend"}, r)) return *done;
  const auto stamp = now_iso8601();
  fs::path out = r["out"].as<std::string>();
  if (out.empty()) {
    std::string s = stamp;
    std::replace(s.begin(), s.end(), ':', '-');
    out = fs::path("runs") / ("suite-" + s);
  }
  if (r.count("merge")) {
    // `--merge a b c` leaves b and c as positionals; `--merge a,b,c` works too.
    std::vector<fs::path> dirs;
    for (const auto& d : r["merge"].as<std::vector<std::string>>()) dirs.emplace_back(d);
    if (r.count("kernels"))
      for (const auto& d : r["kernels"].as<std::vector<std::string>>()) dirs.emplace_back(d);
    nlohmann::json meta;
    auto rows = merge_suite_summaries(dirs, &meta);
    if (!rows) return report_error(rows.error().message);
    std::vector<std::string> from;
    for (const auto& d : dirs) from.push_back(d.string());
    meta["merged_from"] = from;
    meta["date"] = stamp;
    if (auto st = write_suite_summary(out, *rows, meta); !st) return report_error(st.error().message);
    std::printf("merged %zu kernel(s) into %s\n", rows->size(), (out / "suite-summary.md").string().c_str());
    return kExitOk;
  }
  RunConfig asked;
  asked.command = "suite";
  asked.suite = out.string();
  if (const auto e = read_settings(r, kSuite, asked); !e.empty()) return report_error(e);
  auto shard = parse_shard(r["shard"].as<std::string>());
  if (!shard) return report_error(shard.error().message);
  std::vector<fs::path> kernels;
  if (r.count("kernels")) {
    for (const auto& k : r["kernels"].as<std::vector<std::string>>()) kernels.emplace_back(k);
  } else {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("kernels", ec))
      if (is_kernel_file_name(e.path())) kernels.push_back(e.path());
    if (kernels.empty()) return report_error("no kernels given and no kernels/*.hip or kernels/*.cu here: pass kernel files");
    std::sort(kernels.begin(), kernels.end());
  }
  std::vector<KernelSource> sources;  // each kernel read once; the backend's check below reads them
  for (const auto& k : kernels) {
    auto ks = KernelSource::load(k);
    if (!ks) return report_error(ks.error().message);
    if (auto st = check_no_todo(*ks); !st) return report_error(st.error().message);
    sources.push_back(std::move(*ks));
  }
  kernels = select_shard(kernels, shard->first, shard->second);
  // One backend runs a suite: Triton programs and C++ programs go in separate suites.
  if (!kernels.empty()) {
    auto first = backend_for_kernel(asked.backend, kernels.front());
    if (!first) return report_error(first.error().message);
    for (const auto& k : kernels)
      if (auto other = backend_for_kernel(*first, k); !other)
        return report_error(other.error().message + (asked.backend == "auto" ? " (one suite runs on one backend: run "
                                                                               "Triton and C++ programs as two suites)" : ""));
    asked.backend = *first;
  }
  RealProcessRunner runner;
  auto backend = make_backend(asked.backend, runner, tool_options_for(r, asked));
  if (!backend) return report_error(backend.error().message);
  // The compiler and the profiler must be there before any run dir is made: a suite
  // that cannot profile measures nothing.
  if (auto st = (*backend)->preflight(true); !st) return report_error(st.error().message);
  for (const auto& ks : sources)  // the shard's kernels only
    if (std::find(kernels.begin(), kernels.end(), ks.path()) != kernels.end())
      if (auto st = (*backend)->accepts_source(ks.path(), ks.text()); !st) return report_error(st.error().message);
  auto proposer = make_proposer(asked);
  if (!proposer) return report_error(proposer.error().message);
  if (auto st = (*proposer)->check_ready(); !st) return report_error(st.error().message);
  asked.backend = (*backend)->name();
  asked.proposer = (*proposer)->name();

  // A rerun of the same suite command continues it: a kernel's wall time is the sum
  // over the invocations, so the one before this (its summary) is added to this one's.
  std::vector<SuiteRow> earlier;
  if (std::error_code ec; fs::exists(out / "suite-summary.json", ec))
    if (auto prev = merge_suite_summaries({out})) earlier = std::move(*prev);
  auto earlier_wall = [&](const std::string& kernel) {
    auto it = std::find_if(earlier.begin(), earlier.end(), [&](const SuiteRow& e) { return e.kernel == kernel; });
    return it == earlier.end() ? 0.0 : it->wall_s;
  };
  std::vector<SuiteRow> rows;
  std::string device;
  for (const auto& k : kernels) {
    if (interrupt_requested()) break;
    const auto t0 = std::chrono::steady_clock::now();
    const auto run_dir = out / k.stem();
    std::error_code ec;
    const bool resume = fs::exists(run_dir / "history.json", ec);  // a rerun of the suite continues
    // A rerun continues each kernel's run with the suite's settings, by the resume rules.
    auto opened = resume ? open_resumed_run(run_dir, k, asked, given_settings(r, asked)) : open_new_run(asked, k, run_dir);
    spdlog::info("== suite: {} ({}/{})", k.stem().string(), rows.size() + 1, kernels.size());
    Result<OptimizeSummary> s = make_error("");
    if (!opened) {
      s = opened.error();
    } else {
      ConsoleProgress progress;
      RunReportWriter reports(run_dir);
      Optimizer optimizer(**backend, **proposer, runner, std::move(*opened), {&progress, &reports});
      s = optimizer.run();
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() +
                        (resume ? earlier_wall(k.stem().string()) : 0.0);
    SuiteRow row;
    if (s) {
      row = suite_row_from(*s, wall);
      if (s->interrupted()) row.error = "interrupted: rerun the same suite command to continue";
      else if (const auto why = s->unmeasured(); !why.empty()) row.error = why;
      if (device.empty() && s->history.hardware) device = s->history.hardware->name;
    } else {
      row.kernel = k.stem().string();
      row.error = s.error().interrupted() ? "interrupted: rerun the same suite command to continue" : s.error().message;
      row.wall_s = wall;
      row.run_dir = run_dir.string();
      spdlog::info("swizzleperf: {} failed: {}", row.kernel, row.error);
    }
    rows.push_back(row);
    nlohmann::json meta = {{"device", device}, {"date", stamp}, {"shard", r["shard"].as<std::string>()},
                           {"iterations", asked.iterations}, {"proposer", asked.proposer},
                           {"objective", to_string(asked.objective)}};
    if (auto st = write_suite_summary(out, rows, meta); !st) return report_error(st.error().message);
  }
  std::printf("suite: %zu kernel(s), summary in %s\n", rows.size(), (out / "suite-summary.md").string().c_str());
  if (interrupt_requested()) return kExitInterrupted;
  // A kernel that could not be measured makes the suite's answer incomplete: a CI job
  // must not go green on it. The summary still holds every kernel that ran.
  std::size_t failed = 0;
  std::string first;
  for (const auto& row : rows)
    if (!row.error.empty()) {
      if (!failed++) first = row.kernel + ": " + row.error;
    }
  if (failed)
    return report_error(fmt::format("{} of {} kernel(s) could not be measured (first, {}); see {}", failed, rows.size(),
                                    one_line(first, 200), (out / "suite-summary.md").string()));
  return kExitOk;
}

}  // namespace swz::cli
