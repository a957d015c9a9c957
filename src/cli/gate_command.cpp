// `swizzleperf gate KERNEL.hip`: the CI question "does our committed swizzle still
// pay on this GPU, driver and size?". The kernel as committed (its own region) is
// the candidate; the same file with the identity region is the baseline. Both go
// through the optimize loop's own stages (validator, host mapping check, build,
// verify against the CPU reference, full-size output equal to the identity's,
// interleaved timing with the significance test, profile) as a one-attempt run,
// so a gate judges exactly what optimize measured. Verdict:
//   time: fail when the speedup's 95 % interval lies wholly below --min-speedup
//         (the committed swizzle is significantly slower than asked) in any power
//         regime measured (--regime, default both), or when a measurement could
//         not be trusted (the regime was not reached, the clock moved within a
//         burst pair): a gate that could not measure what was asked never passes;
//   L2:   with --min-l2-gain P, fail when committed L2 - identity L2 < P points;
//   any validation failure of the committed kernel fails the gate.
// Exit 0 pays, 1 no longer pays / validation failed, 2 bad input or environment,
// 130 interrupted.
#include <fmt/format.h>

#include <ctime>

#include "swizzleperf/backend/backend_factory.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/util/junit.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/loop/optimizer.h"
#include "swizzleperf/proposer/fixed_proposer.h"
#include "swizzleperf/report/report.h"
#include "swizzleperf/report/run_reports.h"
#include "swizzleperf/util/file_io.h"

namespace swz::cli {

namespace {

constexpr const char* kIdentityRegion =
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  // identity: the hardware's order (written by swizzleperf gate)\n"
    "  return pid;\n"
    "}\n";
constexpr const char* kPyIdentityRegion =
    "# identity: the hardware's order (written by swizzleperf gate)\n"
    "@triton.jit\n"
    "def swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
    "    return pid\n";

nlohmann::json brief(const Attempt& a) {
  nlohmann::json j = {{"label", a.label}, {"status", to_string(a.status)}, {"reason", a.reason}};
  j["l2_hit_pct"] = a.metrics && a.metrics->l2_hit_pct ? nlohmann::json(*a.metrics->l2_hit_pct) : nlohmann::json();
  j["median_ms"] = a.timing ? nlohmann::json(a.timing->median_ms) : nlohmann::json();
  j["speedup"] = a.speedup ? nlohmann::json(*a.speedup) : nlohmann::json();
  j["speedup_ci_low"] = a.speedup_ci_low ? nlohmann::json(*a.speedup_ci_low) : nlohmann::json();
  j["speedup_ci_high"] = a.speedup_ci_high ? nlohmann::json(*a.speedup_ci_high) : nlohmann::json();
  j["significant"] = a.significant ? nlohmann::json(*a.significant) : nlohmann::json();
  j["speedup_regime"] = a.speedup_regime == Regime::unnamed ? nlohmann::json() : nlohmann::json(regime_label(a.speedup_regime));
  if (auto r = regimes_json(a); !r.empty()) j["regimes"] = r;
  if (a.energy_ratio) j["energy_ratio"] = *a.energy_ratio;
  if (a.recheck && !a.recheck->untrusted.empty()) j["untrusted"] = a.recheck->untrusted;
  return j;
}

}  // namespace

int cmd_gate(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf gate", "Does the kernel's committed swizzle still pay against the identity order? (GPU)");
  o.positional_help("KERNEL.hip|.cu");
  o.add_options()("kernel", "kernel file whose region is the committed swizzle", cxxopts::value<std::string>())(
      "h,help", "show this help");
  o.add_options("Gate")
      ("min-speedup", "fail when the speedup's 95 % interval lies wholly below X (1.0: must not be significantly slower)",
       cxxopts::value<double>()->default_value("1.0"))
      ("min-l2-gain", "also fail unless the committed L2 hit rate beats the identity's by P points (unset: not checked)",
       cxxopts::value<double>())
      ("run-dir", "keep the gate's run here (default: runs/gate-<kernel>-<UTC time>)", cxxopts::value<std::string>()->default_value(""))
      ("json", "print the result as JSON on stdout (compare reads it)")
      ("junit", "write a JUnit XML report with one testcase to FILE", cxxopts::value<std::string>()->default_value(""));
  add_setting_options(o, kGate, "Gate");
  o.parse_positional({"kernel"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "gate", {"", "Gate", "Power regime", "Backend"}, r)) return *done;
  if (!r.count("kernel")) return report_error("gate needs a kernel file: swizzleperf gate KERNEL.hip");
  const std::filesystem::path kernel_path = r["kernel"].as<std::string>();
  auto kernel = KernelSource::load(kernel_path);
  if (!kernel) return report_error(kernel.error().message);
  if (auto st = check_no_todo(*kernel); !st) return report_error(st.error().message);
  // Refused here, before any GPU time, with the kernel's path in the message (the
  // loop validates it again where it enters as the run's one proposal).
  auto committed_region = ValidRegion::make(kernel->region(), kernel->language());
  if (!committed_region) return report_error(kernel_path.string() + ": " + committed_region.error().message);
  const double min_speedup = r["min-speedup"].as<double>();
  if (!(min_speedup > 0 && min_speedup < 100)) return report_error("--min-speedup must be a positive ratio such as 1.0 or 1.05");
  std::optional<double> min_l2_gain;
  if (r.count("min-l2-gain")) min_l2_gain = r["min-l2-gain"].as<double>();

  RunConfig config;
  config.command = "gate";
  if (const auto e = read_settings(r, kGate, config); !e.empty()) return report_error(e);
  // What a gate is: one candidate, the committed one, always judged by time.
  config.iterations = 1;
  config.objective = Objective::time;
  config.recheck_every_candidate = true;
  config.proposer = "committed";
  auto resolved = backend_for_kernel(config.backend, kernel_path);
  if (!resolved) return report_error(resolved.error().message);
  config.backend = *resolved;
  // Refusals first: nothing is written before the GPU, compiler and profiler are known.
  RealProcessRunner runner;
  auto backend = make_backend(config.backend, runner, tool_options_for(r, config));
  if (!backend) return report_error(backend.error().message + " (gate measures on a GPU; `check` runs anywhere)");
  if (auto st = (*backend)->preflight(true); !st) return report_error(st.error().message);
  if (auto st = (*backend)->accepts_source(kernel_path, kernel->text()); !st) return report_error(st.error().message);
  config.backend = (*backend)->name();
  std::filesystem::path run_dir = r["run-dir"].as<std::string>();
  if (run_dir.empty()) run_dir = std::filesystem::path("runs") / fmt::format("gate-{}-{}", kernel->name(), utc_stamp());
  std::error_code ec;
  if (std::filesystem::exists(run_dir / "history.json", ec))
    return report_error("run dir " + run_dir.string() + " already holds a run: pass another --run-dir");
  const bool made_dir = !std::filesystem::exists(run_dir, ec);
  std::filesystem::create_directories(run_dir, ec);
  if (ec) return report_error("cannot create " + run_dir.string() + ": " + ec.message());
  // A run that stops before its history exists leaves nothing behind.
  auto discard = [&] {
    std::error_code e;
    if (made_dir && !std::filesystem::exists(run_dir / "history.json", e)) std::filesystem::remove_all(run_dir, e);
  };
  // The baseline is the same program with the identity region, kept beside the run.
  auto identity = kernel->splice(kernel->language() == RegionLanguage::python ? kPyIdentityRegion : kIdentityRegion);
  if (!identity) return report_error(identity.error().message);
  const auto identity_path = run_dir / (kernel->name() + ".identity" + source_extension(kernel->language()));
  if (auto st = write_file_atomic(identity_path, *identity); !st) {
    discard();
    return report_error(st.error().message);
  }
  auto opened = open_new_run(config, identity_path, run_dir);
  if (!opened) {
    discard();
    return report_error(opened.error().message);
  }

  FixedProposer proposer("committed", {{"committed", committed_region->code(), "the kernel's own region, as committed"}});
  RunReportWriter reports(run_dir);
  Optimizer optimizer(**backend, proposer, runner, std::move(*opened), {&reports});
  const auto t0 = std::chrono::steady_clock::now();
  auto result = optimizer.run();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!result) {
    discard();
    if (result.error().interrupted()) return kExitInterrupted;
    return report_error(result.error().message);
  }
  if (result->interrupted()) return kExitInterrupted;

  const auto& h = result->history;
  std::vector<std::string> failures;
  nlohmann::json committed = nullptr;
  if (h.attempts.empty()) {
    failures.push_back("the committed region was not evaluated");
  } else {
    const Attempt& a = h.attempts.front();
    committed = brief(a);
    if (a.status == AttemptStatus::duplicate) {
      failures.push_back("the committed region computes the identity order: there is no swizzle to gate");
    } else if (!a.validated()) {
      failures.push_back(fmt::format("the committed kernel failed ({}): {}", to_string(a.status), a.reason));
    } else {
      const auto views = regime_views(a);
      if (!a.speedup_ci_high || !a.speedup || views.empty())
        failures.push_back("no interleaved timing of the committed kernel" +
                           (a.recheck && !a.recheck->error.empty() ? ": " + a.recheck->error : std::string()));
      else if (views.size() < config.timing.measured().size())
        failures.push_back("the re-check measured " + views.front().name() + " only: " + (a.recheck ? a.recheck->error : ""));
      for (const auto& v : views) {
        if (!v.trusted)
          failures.push_back(fmt::format("the {} measurement cannot be trusted: {}", v.name(), v.untrusted));
        else if (v.high < min_speedup)
          failures.push_back(fmt::format("{}speedup {:.3f}x [{:.3f}, {:.3f}] is significantly below --min-speedup {:.3f}",
                                         v.name().empty() ? "" : v.name() + " ", v.speedup, v.low, v.high, min_speedup));
      }
      if (min_l2_gain) {
        const bool have = a.metrics && a.metrics->l2_hit_pct && h.baseline && h.baseline->metrics &&
                          h.baseline->metrics->l2_hit_pct;
        const double gain = have ? *a.metrics->l2_hit_pct - *h.baseline->metrics->l2_hit_pct : 0;
        if (!have)
          failures.push_back("no L2 hit rate measured for the identity or the committed kernel");
        else if (gain < *min_l2_gain)
          failures.push_back(fmt::format("L2 hit rate gain {:+.2f} points is below --min-l2-gain {:.2f}", gain, *min_l2_gain));
      }
    }
  }
  const bool pays = failures.empty();
  std::string reason;
  for (const auto& f : failures) reason += (reason.empty() ? "" : "; ") + f;
  std::string line;
  std::string speeds;  // "1.300x [1.29, 1.31] burst; 1.219x [1.21, 1.23] sustained"
  if (!h.attempts.empty())
    for (const auto& v : regime_views(h.attempts.front()))
      speeds += fmt::format("{}{:.3f}x [{:.3f}, {:.3f}]{}", speeds.empty() ? "" : "; ", v.speedup, v.low, v.high,
                            v.name().empty() ? "" : " " + v.name());
  if (!committed.is_null() && committed["speedup"].is_number() && !speeds.empty())
    line = fmt::format("{} {}: committed {} vs identity, L2 {} -> {}", pays ? "PAYS" : "FAIL", kernel_path.string(), speeds,
                       h.baseline && h.baseline->metrics && h.baseline->metrics->l2_hit_pct
                           ? fmt::format("{:.2f}%", *h.baseline->metrics->l2_hit_pct) : "n/a",
                       committed["l2_hit_pct"].is_number() ? fmt::format("{:.2f}%", committed["l2_hit_pct"].get<double>()) : "n/a");
  else
    line = fmt::format("{} {}", pays ? "PAYS" : "FAIL", kernel_path.string());
  if (!pays) line += " — " + reason;

  nlohmann::json j = {{"kind", "gate"},
                      {"kernel", kernel_path.string()},
                      {"device", h.hardware ? h.hardware->name : std::string()},
                      {"verdict", pays ? "pays" : "fail"},
                      {"reasons", failures},
                      {"min_speedup", min_speedup},
                      {"min_l2_gain", min_l2_gain ? nlohmann::json(*min_l2_gain) : nlohmann::json()},
                      {"rounds", config.recheck_rounds},
                      {"regime", to_string(config.timing.regime)},
                      {"run_dir", run_dir.string()},
                      {"seconds", seconds},
                      {"baseline", h.baseline ? brief(*h.baseline) : nlohmann::json()},
                      {"committed", committed}};
  if (j["baseline"].is_object()) j["baseline"]["label"] = "identity";
  if (auto junit = r["junit"].as<std::string>(); !junit.empty()) {
    JUnitSuite suite{"swizzleperf gate", "", {}};
    suite.cases.push_back({kernel_path.string(), "swizzleperf.gate", seconds, !pays, reason, line, "regression"});
    if (auto st = write_junit(junit, suite); !st) return report_error(st.error().message);
  }
  if (r.count("json")) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::puts(j.dump(2).c_str());
  } else {
    std::printf("%s\n", line.c_str());
  }
  return pays ? kExitOk : kExitFailed;
}

}  // namespace swz::cli
