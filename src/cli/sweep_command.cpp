// `swizzleperf sweep`: the best pattern of a run (or a region file) against the
// baseline across sizes.
#include <fmt/format.h>

#include <sstream>

#include "swizzleperf/backend/backend_factory.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/run_dir_arg.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/loop/sweep.h"
#include "swizzleperf/util/file_io.h"

namespace swz::cli {

int cmd_sweep(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf sweep", "Measure the baseline against one pattern across problem sizes.");
  o.positional_help("KERNEL.hip|.cu");
  o.add_options()("kernel", "kernel file", cxxopts::value<std::string>())("h,help", "show this help");
  o.add_options("Sweep")
      ("sizes", "sizes separated by ';' or ' ', each a comma list for the program's --size (e.g. \"2048,2048,1024;4096,4096,1024\")", cxxopts::value<std::string>()->default_value(""))
      ("run", "take the pattern from this run dir's best attempt", cxxopts::value<std::string>()->default_value(""))
      ("region", "take the pattern from a file holding a swizzle region", cxxopts::value<std::string>()->default_value(""))
      ("out", "output directory (default: runs/sweep-<kernel>)", cxxopts::value<std::string>()->default_value(""))
      ("json", "print the report as JSON on stdout");
  add_setting_options(o, kSweep, "Sweep");
  o.parse_positional({"kernel"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "sweep", {"", "Sweep", "Objective", "Power regime", "Backend"}, r)) return *done;
  if (!r.count("kernel")) return report_error("sweep needs a kernel file: swizzleperf sweep KERNEL.hip --run RUN_DIR --sizes ...");
  SweepOptions opt;
  if (const auto e = read_settings(r, kSweep, opt.settings); !e.empty()) return report_error(e);
  const Objective objective = opt.settings.objective;
  opt.kernel = r["kernel"].as<std::string>();
  auto k = KernelSource::load(opt.kernel);
  if (!k) return report_error(k.error().message);
  if (auto st = check_no_todo(*k); !st) return report_error(st.error().message);
  std::string sizes = r["sizes"].as<std::string>();
  for (char& c : sizes)
    if (c == ' ') c = ';';
  std::stringstream ss(sizes);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (item.empty()) continue;
    auto s = parse_size_option(item, "--sizes");
    if (!s) return report_error(s.error().message);
    opt.sizes.push_back(std::move(*s));
  }
  if (opt.sizes.empty()) return report_error("sweep needs --sizes, e.g. --sizes \"2048,8192,1024;4096,32768,1024\"");
  if (auto run = r["run"].as<std::string>(); !run.empty()) {
    if (auto st = check_run_dir_arg(run, "--run"); !st) return report_error(st.error().message);
    auto h = load_history(std::filesystem::path(run) / "history.json");
    if (!h) return report_error(h.error().message);
    const Attempt* best = h->best(objective);
    if (!best && objective == Objective::time && h->best(Objective::l2))
      return report_error("run " + run + " has no significantly faster attempt to sweep under --objective time; "
                          "use --objective l2 to sweep its best-L2 pattern");
    if (!best) return report_error("run " + run + " has no validated attempt to sweep");
    opt.region = best->region;
    opt.label = best->label;
  } else if (auto file = r["region"].as<std::string>(); !file.empty()) {
    auto text = read_file(file);
    if (!text) return report_error(text.error().message + " (--region names a file holding a swizzle region)");
    opt.region = *text;
    opt.label = std::filesystem::path(file).filename().string();
  } else {
    return report_error("sweep needs a pattern: --run RUN_DIR (its best attempt) or --region FILE");
  }
  if (auto st = validate_region(opt.region, k->language()); !st) return report_error(st.error().message);
  if (auto st = check_region_in(opt.region, k->language()); !st) return report_error(opt.label + ": " + st.error().message);
  opt.out_dir = r["out"].as<std::string>();
  if (opt.out_dir.empty()) opt.out_dir = std::filesystem::path("runs") / ("sweep-" + k->name());
  RealProcessRunner runner;
  auto resolved = backend_for_kernel(opt.settings.backend, k->path());
  if (!resolved) return report_error(resolved.error().message);
  opt.settings.backend = *resolved;
  auto backend = make_backend(opt.settings.backend, runner, tool_options_for(r, opt.settings));
  if (!backend) return report_error(backend.error().message);
  auto report = run_sweep(**backend, runner, opt);
  if (!report) return report_error(report.error().message);
  if (r.count("json")) std::puts(nlohmann::json(*report).dump(2).c_str());
  else std::fputs(render_sweep_markdown(*report).c_str(), stdout);
  return kExitOk;
}

}  // namespace swz::cli
