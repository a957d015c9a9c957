// `swizzleperf compare OLD NEW`: two results files (optimize --json, a suite
// summary, gate --json, or run/suite dirs), kernel by kernel; a Markdown table
// on stdout for a pull-request comment; exit 1 on a regression.
#include <cmath>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/util/text.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/report/compare.h"

namespace swz::cli {

int cmd_compare(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf compare",
                     "Compare two results (optimize --json output, suite-summary.json, gate --json output, or a run or suite dir) "
                     "kernel by kernel; exit 1 when NEW regressed. Kernels in only one file are listed, not failures.");
  o.positional_help("OLD NEW");
  o.add_options()("files", "OLD and NEW", cxxopts::value<std::vector<std::string>>())("h,help", "show this help");
  o.add_options("Thresholds")
      ("max-slowdown", "largest allowed slowdown of the best kernel, as a fraction (0.03 = 3 %)", cxxopts::value<double>()->default_value("0.03"))
      ("max-l2-drop", "largest allowed drop of the best L2 hit rate, in percentage points", cxxopts::value<double>()->default_value("1.0"));
  o.add_options("Devices")("allow-other-device", "compare results measured on different devices (refused by default: "
                                                  "their times are not comparable)");
  o.add_options("Output")("junit", "also write a JUnit XML file: one testcase per kernel in both files", cxxopts::value<std::string>()->default_value(""));
  o.parse_positional({"files"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "compare", {"", "Thresholds", "Devices", "Output"}, r)) return *done;
  const auto files = r.count("files") ? r["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() != 2)
    return report_error("compare needs exactly two results: swizzleperf compare OLD NEW (got " + std::to_string(files.size()) + ")");
  CompareThresholds t{r["max-slowdown"].as<double>(), r["max-l2-drop"].as<double>()};
  if (!std::isfinite(t.max_slowdown) || t.max_slowdown < 0)
    return report_error("--max-slowdown must be a fraction >= 0 (e.g. 0.03 for 3 %)");
  if (!std::isfinite(t.max_l2_drop) || t.max_l2_drop < 0) return report_error("--max-l2-drop must be >= 0 percentage points");
  auto old_set = load_results(files[0]);
  if (!old_set) return report_error(old_set.error().message);
  auto new_set = load_results(files[1]);
  if (!new_set) return report_error(new_set.error().message);
  // Refusals come before any output: a CI job must not read a table that judged nothing.
  if (!old_set->device.empty() && !new_set->device.empty() && old_set->device != new_set->device &&
      !r.count("allow-other-device"))
    return report_error("OLD was measured on '" + one_line(old_set->device, 80) + "', NEW on '" + one_line(new_set->device, 80) +
                        "': times from different devices are not comparable; pass --allow-other-device to compare anyway");
  if (auto st = check_same_regimes(*old_set, *new_set); !st) return report_error(st.error().message);
  const auto c = compare_results(*old_set, *new_set, t);
  if (c.in_both() == 0) {
    auto names = [](const ResultSet& s) {
      std::string out;
      for (std::size_t i = 0; i < s.kernels.size() && i < 5; ++i) out += (i ? ", " : "") + s.kernels[i].kernel;
      if (s.kernels.size() > 5) out += ", ...";
      return out.empty() ? std::string("none") : out;
    };
    return report_error("OLD and NEW have no kernel in common (OLD: " + names(*old_set) + "; NEW: " + names(*new_set) +
                        "): nothing was compared");
  }
  std::fputs(render_compare_markdown(c).c_str(), stdout);
  if (auto j = r["junit"].as<std::string>(); !j.empty())
    if (auto st = write_junit(j, compare_junit(c)); !st) return report_error(st.error().message);
  return c.regressions() ? kExitFailed : kExitOk;
}

}  // namespace swz::cli
