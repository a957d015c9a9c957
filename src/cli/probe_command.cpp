// `swizzleperf probe`: measure the device's topology (L2 sides, first-wave
// dispatch order, GPC groups) and write hardware.json (docs/probe.md).
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/probe/probe_runner.h"

namespace swz::cli {

namespace {

std::string side_string(const std::vector<int>& sides, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < sides.size() && i < n; ++i) {
    if (i && i % 8 == 0) s += ' ';
    s += sides[i] < 0 ? '?' : static_cast<char>('0' + sides[i] % 10);
  }
  return s;
}

std::string human_number(double v) {
  if (v >= 1000) return fmt::format("{:.0f}", v);
  return fmt::format("{:.1f}", v);
}

void print_summary(const probe::ProbeOutcome& out) {
  const auto& r = out.result;
  auto how = [&](const char* fact) {
    auto it = r.how.find(fact);
    return it == r.how.end() ? std::string("unknown") : it->second.how + ", " + it->second.confidence + " confidence";
  };
  std::printf("%s (%s, %s): %d %s, L2 %.1f MiB, driver %d\n", r.device_name.c_str(), r.vendor.c_str(), r.arch.c_str(),
              r.sm_count, r.vendor == "amd" ? "CUs" : "SMs", r.l2_bytes / 1048576.0, r.driver_version);
  std::printf("L2 domains: %d [%s]\n", r.num_l2_domains, how("num_l2_domains").c_str());
  if (r.vendor == "nvidia") {
    if (r.side_method.empty()) {
      std::printf("L2 sides: not measured (%s)\n", r.how.count("sm_side") ? r.how.at("sm_side").note.c_str() : "");
    } else {
      std::map<int, std::vector<int>> by_side;
      for (int sm = 0; sm < static_cast<int>(r.sm_side.size()); ++sm)
        if (r.sm_side[sm] >= 0) by_side[r.sm_side[sm]].push_back(sm);
      const char* unit = r.side_method == "ncu_fabric" ? "fabric sectors" : "cycles";
      std::printf("L2 sides by %s (ref SM %d) [%s]:\n", r.side_method == "ncu_fabric" ? "ncu fabric sectors" : "L2-hit latency",
                  r.ref_sm, how("sm_side").c_str());
      for (int s = 0; s < 2; ++s) {
        const auto& p = r.sides.populations[s];
        std::printf("  side %d%s: %zu SMs, %s %s..%s (mean %s): %s\n", s, s == 0 ? " (ref)" : "", by_side[s].size(), unit,
                    human_number(p.min).c_str(), human_number(p.max).c_str(), human_number(p.mean).c_str(),
                    probe::format_id_ranges(by_side[s]).c_str());
      }
      std::printf("  separation (gap / spread): %.1f", r.sides.separation);
      if (r.side_methods_agreement >= 0)
        std::printf("; fabric and latency methods agree on %.0f%% of SMs", 100 * r.side_methods_agreement);
      std::printf("\n");
      if (!r.sides.note.empty()) std::printf("  note: %s\n", r.sides.note.c_str());
    }
    std::printf("first wave (%d blocks, %d per SM) pid -> SM: ", r.wave_size, r.blocks_per_sm);
    for (std::size_t i = 0; i < r.first_wave_pid_to_sm.size() && i < 16; ++i) std::printf("%s%d", i ? " " : "", r.first_wave_pid_to_sm[i]);
    std::printf(" ...\n");
    if (!r.first_wave_pid_to_side.empty())
      std::printf("first wave pid -> side (first 32): %s\n", side_string(r.first_wave_pid_to_side, 32).c_str());
    std::printf("later waves repeat the first wave's SMs: %s [%s]\n", r.later_waves_repeat ? "yes" : "no",
                r.how.count("later_waves_repeat") ? r.how.at("later_waves_repeat").note.c_str() : "");
    if (!r.gpc_groups.empty()) {
      std::printf("GPC groups (clusters up to %d): %zu groups%s\n", r.cluster_size, r.gpc_groups.size(),
                  r.side_method.empty() ? "" : (r.gpc_groups_single_sided ? ", each on one L2 side" : ", some span both sides"));
      for (const auto& g : r.gpc_groups) {
        const int side = !g.empty() && g.front() < static_cast<int>(r.sm_side.size()) ? r.sm_side[g.front()] : -1;
        std::printf("  [%s]%s\n", probe::format_id_ranges(g).c_str(), side >= 0 ? fmt::format(" side {}", side).c_str() : "");
      }
    }
  } else {
    std::printf("block -> die table (pid %% %zu): %s [%s]\n", r.first_wave_pid_to_side.size(),
                side_string(r.first_wave_pid_to_side, 64).c_str(), how("first_wave_pid_to_side").c_str());
  }
  for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
  std::printf("wrote %s", out.written.string().c_str());
  if (!out.cached.empty()) std::printf(" (cached as %s)", out.cached.string().c_str());
  std::printf("\n");
}

}  // namespace

int cmd_probe(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf probe",
                     "Measure the device's topology: which SMs share an L2 side (H100: 2 partitions), the order in "
                     "which blocks reach SMs, GPC groups; AMD: which XCD each block runs on. Writes hardware.json.");
  o.add_options()("h,help", "show this help");
  add_setting_options(o, kProbe, "");
  o.add_options("Probe")
      ("out", "where to write the result", cxxopts::value<std::string>()->default_value("hardware.json"))
      ("ref", "reference SM whose L2 side is side 0", cxxopts::value<int>()->default_value("0"))
      ("work-dir", "keep the probe program and raw profiler output here (default: a temp dir, removed)",
       cxxopts::value<std::string>()->default_value(""))
      ("no-cache", "do not write the per-device cache (~/.cache/swizzleperf)")
      ("json", "print the result as JSON on stdout instead of the summary");
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "probe", {}, r)) return *done;
  if (!r.unmatched().empty()) return report_error("probe takes no positional arguments (got '" + r.unmatched().front() + "')");
  probe::ProbeOptions po;
  RunConfig settings;
  if (const auto e = read_settings(r, kProbe, settings); !e.empty()) return report_error(e);
  po.backend = settings.backend;
  po.tools = tool_options_for(r, settings);
  po.out = r["out"].as<std::string>();
  po.work_dir = r["work-dir"].as<std::string>();
  po.ref_sm = r["ref"].as<int>();
  po.write_cache = !r.count("no-cache");
  const bool json = r.count("json") > 0;
  if (!json) po.progress = [](const std::string& s) { std::fprintf(stderr, "probe: %s\n", s.c_str()); };
  RealProcessRunner runner;
  auto out = probe::run_probe(po, runner);
  if (!out) {
    if (interrupt_requested()) return kExitInterrupted;
    return report_error(out.error().message);
  }
  if (json) {
    nlohmann::json j = out->result;
    std::puts(j.dump(2).c_str());
  } else {
    print_summary(*out);
  }
  // On NVIDIA the point of the probe is the L2 sides: not measuring them cleanly is a failed run.
  if (out->result.vendor == "nvidia" && !out->result.sides_known()) return kExitFailed;
  return kExitOk;
}

}  // namespace swz::cli
