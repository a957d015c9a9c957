// Option groups shared by subcommands, and small argument parsers.
#include <algorithm>
#include <ctime>
#include <sstream>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/util/text.h"

#include <fmt/format.h>

namespace swz::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"optimize", "run the loop on one kernel: baseline, proposals, check, build, verify, time, profile", cmd_optimize},
      {"init", "write a contract program from a plain CUDA/HIP kernel file (a scaffold with TODOs)", cmd_init},
      {"check", "host-only mapping check of kernels' swizzle regions (any machine, no GPU); --junit", cmd_check},
      {"predict", "predict each die's L2 hit rate and DRAM bytes for a block order, from the kernel's footprint (no GPU)", cmd_predict},
      {"build", "compile a kernel as the loop would, without running it", cmd_build},
      {"suite", "optimize a list of kernels (default kernels/*.hip and *.cu); shards and merge", cmd_suite},
      {"sweep", "baseline vs a run's best pattern across problem sizes", cmd_sweep},
      {"gate", "CI on a GPU runner: does the kernel's committed swizzle still pay against the identity order?", cmd_gate},
      {"probe", "measure the device's topology (dies, SM -> L2 side, dispatch order)", cmd_probe},
      {"compare", "compare two results (optimize --json, suite summaries) kernel by kernel; exit 1 on a regression", cmd_compare},
      {"version", "print the version", cmd_version},
  };
  return table;
}

void add_backend_options(cxxopts::Options& o) {
  o.add_options("Backend")
      ("backend", "auto, cuda (nvcc + ncu), hip (hipcc + rocprofv3) or triton (Python with torch + triton, and "
                  "ncu or rocprofv3; auto for a .py program)", cxxopts::value<std::string>()->default_value("auto"))
      ("arch", "GPU arch (sm_90, gfx942); default: from the device query", cxxopts::value<std::string>()->default_value(""))
      ("nvcc", "path to nvcc (default: PATH, then /usr/local/cuda/bin)", cxxopts::value<std::string>()->default_value(""))
      ("ncu", "path to Nsight Compute's ncu (default: PATH, then /usr/local/cuda/bin)", cxxopts::value<std::string>()->default_value(""))
      ("hipcc", "path to hipcc (default: PATH, then /opt/rocm/bin)", cxxopts::value<std::string>()->default_value(""))
      ("rocprof", "path to rocprofv3 (default: PATH, then /opt/rocm/bin)", cxxopts::value<std::string>()->default_value(""))
      ("python", "the Python that runs Triton programs, with torch and triton installed (default: python3 on PATH)",
       cxxopts::value<std::string>()->default_value(""))
      ("run-timeout", "seconds before a kernel program run is killed", cxxopts::value<int>()->default_value("120"))
      ("build-timeout", "seconds before a compile is killed", cxxopts::value<int>()->default_value("300"))
      ("profile-timeout", "seconds before a profiler run is killed", cxxopts::value<int>()->default_value("300"))
      ("profile-launches", "most kernel launches one profile collects: a run with more is profiled over "
                           "the middle ones (cuda; the hip backend profiles all); 0: every launch",
       cxxopts::value<unsigned>()->default_value("24"));
}

void add_objective_options(cxxopts::Options& o) {
  o.add_options("Objective")
      ("objective", "what makes a kernel best: time (largest significant speedup; none: keep the original), "
                    "l2 (the paper's ranking: L2 hit rate, then time) or energy (lowest significant energy per run, "
                    "measured sustained)", cxxopts::value<std::string>()->default_value("time"))
      ("rounds", "the speed judge's least interleaved rounds per regime (>= 6 for a 95 % interval; 0 turns the "
                 "judge off: one-shot timings only, no winner named)", cxxopts::value<int>()->default_value("6"));
  add_regime_options(o);
}

void add_finalists_option(cxxopts::Options& o) {
  o.add_options("Objective")
      ("finalists", "candidates the screening sends to the speed judge: the fastest one-shot times and the best "
                    "L2 hit rate, each within 3 % of the baseline or better", cxxopts::value<int>()->default_value("3"));
}

void add_regime_options(cxxopts::Options& o) {
  o.add_options("Power regime")
      ("regime", "the power regime of the speed judge: burst (short requests after a pause, throttled samples "
                 "discarded), sustained (the GPU held at its power cap, members' windows back to back, energy per run) "
                 "or both (a winner must win in both)", cxxopts::value<std::string>()->default_value("both"))
      ("throttle-threshold", "burst: discard a sample whose SM clock is below this fraction of the device's clock "
                             "rate, and re-take it (0: never discard)", cxxopts::value<double>()->default_value("0.75"))
      ("recovery-ms", "burst: wait this long after a discarded sample", cxxopts::value<int>()->default_value("50"))
      ("max-discards", "burst: discarded samples per request before the regime counts as not reached",
       cxxopts::value<int>()->default_value("30"))
      ("settle-seconds", "sustained: back-to-back passes that bring the GPU to its power cap, once per judge "
                         "tournament and before a one-shot timing", cxxopts::value<double>()->default_value("2"))
      ("sustain-seconds", "sustained: one timed window of back-to-back passes (each member's, per judge round)",
       cxxopts::value<double>()->default_value("1"))
      ("pause-ms", "burst: the judge's pause before each request after the first (the GPU cools; back to back, "
                   "requests skew the ratio)", cxxopts::value<int>()->default_value("250"))
      ("max-rounds", "the judge's most rounds per regime: it stops earlier once one candidate is left and decisive",
       cxxopts::value<int>()->default_value("12"))
      ("judge-seconds", "the judge's time budget per regime: no round starts after it (the --rounds least always run); "
                        "more buys narrower intervals. With every default the judge took about 40 s on a GEMM like "
                        "kernels/tc/gemm_tc.hip, whose whole run took about 80 s screening 5 candidates (docs/timing.md)",
       cxxopts::value<double>()->default_value("30"));
}

bool objective_options_from(const cxxopts::ParseResult& r, Objective& objective, int& rounds, RegimeSettings& timing,
                            std::string& error) {
  const auto name = r["objective"].as<std::string>();
  auto o = objective_from_string(name);
  if (!o) {
    error = "--objective '" + one_line(name, 40) + "' is not one of: time, l2, energy";
    return false;
  }
  objective = *o;
  rounds = r["rounds"].as<int>();
  if (rounds != 0 && (rounds < 6 || rounds > 1000)) {
    error = "--rounds " + std::to_string(rounds) +
            ": a 95 % interval needs at least 6 rounds (5 agreeing rounds still leave a 6.25 % chance); use 6..1000, or 0 for no re-check";
    return false;
  }
  if (!regime_options_from(r, timing, error)) return false;
  if (objective == Objective::energy && timing.regime == Regime::burst) {
    error = "--objective energy with --regime burst: energy per run is measured in the sustained regime only (a burst's "
            "runs are too short for the energy counter); use --regime sustained or both";
  } else if (objective == Objective::energy && rounds == 0) {
    error = "--objective energy with --rounds 0: the energy ratio's interval comes from the re-check; use --rounds 6 or more";
  }
  return error.empty();
}

bool regime_options_from(const cxxopts::ParseResult& r, RegimeSettings& timing, std::string& error) {
  const auto regime_name = r["regime"].as<std::string>();
  auto regime = regime_from_string(regime_name);
  if (!regime) {
    error = "--regime '" + one_line(regime_name, 40) + "' is not one of: burst, sustained, both";
    return false;
  }
  timing.regime = *regime;
  timing.throttle_threshold = r["throttle-threshold"].as<double>();
  timing.recovery_ms = r["recovery-ms"].as<int>();
  timing.max_discards = r["max-discards"].as<int>();
  timing.settle_s = r["settle-seconds"].as<double>();
  timing.sustain_s = r["sustain-seconds"].as<double>();
  timing.pause_ms = r["pause-ms"].as<int>();
  timing.max_rounds = r["max-rounds"].as<int>();
  timing.judge_s = r["judge-seconds"].as<double>();
  if (!(timing.throttle_threshold >= 0 && timing.throttle_threshold < 1)) {
    error = fmt::format("--throttle-threshold {}: use a fraction of the device's clock rate in [0, 1) (0: never discard)",
                        timing.throttle_threshold);
  } else if (timing.recovery_ms < 0 || timing.recovery_ms > 60000) {
    error = fmt::format("--recovery-ms {}: use 0..60000", timing.recovery_ms);
  } else if (timing.max_discards < 0 || timing.max_discards > 100000) {
    error = fmt::format("--max-discards {}: use 0..100000", timing.max_discards);
  } else if (!(timing.settle_s >= 0 && timing.settle_s <= 600)) {
    error = fmt::format("--settle-seconds {}: use 0..600", timing.settle_s);
  } else if (!(timing.sustain_s > 0 && timing.sustain_s <= 600)) {
    error = fmt::format("--sustain-seconds {}: use more than 0 and at most 600", timing.sustain_s);
  } else if (timing.pause_ms < 0 || timing.pause_ms > 60000) {
    error = fmt::format("--pause-ms {}: use 0..60000", timing.pause_ms);
  } else if (timing.max_rounds < 1 || timing.max_rounds > 1000) {
    error = fmt::format("--max-rounds {}: use 1..1000 (rounds past --rounds until a verdict is decisive)", timing.max_rounds);
  } else if (!(timing.judge_s > 0 && timing.judge_s <= 86400)) {
    error = fmt::format("--judge-seconds {}: use more than 0 and at most 86400", timing.judge_s);
  }
  return error.empty();
}

void read_backend_settings(const cxxopts::ParseResult& r, RunConfig& c) {
  c.backend = r["backend"].as<std::string>();
  c.arch = r["arch"].as<std::string>();
  c.run_timeout_s = r["run-timeout"].as<int>();
  c.build_timeout_s = r["build-timeout"].as<int>();
  c.profile_timeout_s = r["profile-timeout"].as<int>();
  c.profile_launches = static_cast<int>(std::min(r["profile-launches"].as<unsigned>(), 1u << 20));
}

std::string read_objective_settings(const cxxopts::ParseResult& r, RunConfig& c) {
  std::string error;
  if (!objective_options_from(r, c.objective, c.recheck_rounds, c.timing, error)) return error;
  c.finalists = r["finalists"].as<int>();
  if (c.finalists < 1 || c.finalists > 32)
    return fmt::format("--finalists {}: use 1..32 (candidates the screening sends to the speed judge)", c.finalists);
  return "";
}

std::set<std::string> given_settings(const cxxopts::ParseResult& r, const RunConfig& c) {
  std::set<std::string> given;
  for (const auto& s : describe_settings(c))
    if (r.count(s.name)) given.insert(s.name);
  return given;
}

ToolOptions tool_options_for(const cxxopts::ParseResult& r, const RunConfig& c) {
  ToolOptions t = tool_options_from(r, c.backend);
  t.arch = c.arch;
  t.run_timeout = std::chrono::seconds(c.run_timeout_s);
  t.build_timeout = std::chrono::seconds(c.build_timeout_s);
  t.profile_timeout = std::chrono::seconds(c.profile_timeout_s);
  t.profile_launches = c.profile_launches;
  return t;
}

ToolOptions tool_options_from(const cxxopts::ParseResult& r, const std::string& backend) {
  ToolOptions t;
  // Each backend reads its own tool pair; auto starts from the NVIDIA pair.
  if (backend == "hip") {
    t.compiler = r["hipcc"].as<std::string>();
    t.profiler = r["rocprof"].as<std::string>();
  } else if (backend == "triton") {  // the interpreter, and the vendor's profiler
    t.compiler = r["python"].as<std::string>();
    t.profiler = amd_gpu_present() ? r["rocprof"].as<std::string>() : r["ncu"].as<std::string>();
  } else {
    t.compiler = r["nvcc"].as<std::string>();
    t.profiler = r["ncu"].as<std::string>();
  }
  t.arch = r["arch"].as<std::string>();
  t.run_timeout = std::chrono::seconds(r["run-timeout"].as<int>());
  t.build_timeout = std::chrono::seconds(r["build-timeout"].as<int>());
  t.profile_timeout = std::chrono::seconds(r["profile-timeout"].as<int>());
  t.profile_launches = static_cast<int>(std::min(r["profile-launches"].as<unsigned>(), 1u << 20));
  return t;
}

namespace {

// Drops cxxopts' trailing "(default: ...)" when the line has an earlier "default"
// of its own, and any "(default: "")".
std::string one_default(std::string line) {
  const std::string empty = " (default: \"\")";
  if (auto p = line.find(empty); p != std::string::npos) line.erase(p, empty.size());
  const auto last = line.rfind(" (default: ");
  if (last != std::string::npos && line.back() == ')') {
    const auto earlier = line.substr(0, last);
    if (earlier.find("default") != std::string::npos) line.erase(last);
  }
  return line;
}

// Wraps an option line at `width`, continuation lines indented to the column where
// the description starts (cxxopts pads the option column with spaces).
std::string wrap(const std::string& line, std::size_t width) {
  if (line.size() <= width) return line;
  // The description starts after the first run of 2+ spaces that follows the option name.
  const std::size_t name = line.find_first_not_of(' ');
  std::size_t col = name == std::string::npos ? std::string::npos : line.find("  ", name);
  while (col != std::string::npos && col < line.size() && line[col] == ' ') ++col;
  if (col == std::string::npos || col >= width / 2) col = 8;
  std::string out, cur = line;
  while (cur.size() > width) {
    auto cut = cur.rfind(' ', width);
    if (cut == std::string::npos || cut <= col) break;
    out += cur.substr(0, cut) + "\n";
    cur = std::string(col, ' ') + cur.substr(cut + 1);
  }
  return out + cur;
}

}  // namespace

std::string help_text(cxxopts::Options& o, const std::vector<std::string>& groups) {
  o.set_width(10000);  // one line per option: the suffix rule above reads whole lines
  const std::string raw = groups.empty() ? o.help() : o.help(groups);
  std::string out;
  std::stringstream ss(raw);
  std::string line;
  while (std::getline(ss, line)) out += wrap(one_default(line), 100) + "\n";
  return out;
}

namespace {

// The option whose value cxxopts could not parse: cxxopts names only the value
// ("Argument '-1' failed to parse"), so find the option it was given to.
std::string option_of_bad_value(const std::vector<std::string>& args, const std::string& what) {
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a.rfind("--", 0) != 0) continue;
    const auto eq = a.find('=');
    const std::string name = eq == std::string::npos ? a : a.substr(0, eq);
    const std::string value = eq != std::string::npos ? a.substr(eq + 1) : (i + 1 < args.size() ? args[i + 1] : "");
    for (const char* q : {"\u2018", "'"})  // cxxopts quotes with U+2018/U+2019, or ' without unicode
      if (!value.empty() && what.find(q + value) != std::string::npos) return name;
  }
  return "";
}

}  // namespace

std::optional<int> parse_command(cxxopts::Options& o, const std::vector<std::string>& args, const std::string& command,
                                 const std::vector<std::string>& help_groups, cxxopts::ParseResult& out) {
  std::vector<const char*> argv{"swizzleperf"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    out = o.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
    const std::string opt = option_of_bad_value(args, e.what());
    return report_error((opt.empty() ? "" : opt + ": ") + std::string(e.what()) + " (see 'swizzleperf " + command +
                        " --help' for the values it takes)");
  } catch (const cxxopts::exceptions::exception& e) {
    return report_error(std::string(e.what()) + " (see 'swizzleperf " + command + " --help')");
  }
  if (out.count("help")) {
    std::fputs(help_text(o, help_groups).c_str(), stdout);
    return kExitOk;
  }
  // An argument no option took (a second kernel file, a stray word) is an error, not
  // something to ignore: the user meant it for something.
  if (!out.unmatched().empty())
    return report_error("unexpected argument '" + one_line(out.unmatched().front(), 80) + "' (see 'swizzleperf " + command +
                        " --help' for what it takes)");
  if (const auto bad = validate_options(out); !bad.empty())
    return report_error(bad + " (see 'swizzleperf " + command + " --help')");
  return std::nullopt;
}

namespace {

// Given on the command line. count() is 0 for an option the command does not define
// and for one left at its default (defaults are valid by construction).
bool given(const cxxopts::ParseResult& r, const char* name) { return r.count(name) > 0; }

std::string int_in(const cxxopts::ParseResult& r, const char* name, long lo, long hi, const std::string& why = "") {
  if (!given(r, name)) return "";
  const long v = r[name].as<int>();
  if (v >= lo && v <= hi) return "";
  return fmt::format("--{} {}: use {}..{}{}", name, v, lo, hi, why.empty() ? "" : " (" + why + ")");
}

std::string one_of(const cxxopts::ParseResult& r, const char* name, const std::vector<std::string>& values) {
  if (!given(r, name)) return "";
  const auto v = r[name].as<std::string>();
  if (std::find(values.begin(), values.end(), v) != values.end()) return "";
  std::string list;
  for (const auto& x : values) list += (list.empty() ? "" : ", ") + x;
  return "--" + std::string(name) + " '" + one_line(v, 40) + "' is not one of: " + list;
}

}  // namespace

std::string validate_options(const cxxopts::ParseResult& r) {
  for (const auto& e : {
           int_in(r, "iterations", 1, 1000),
           int_in(r, "reps", 1, 100000),
           int_in(r, "warmup", 0, 10000),
           int_in(r, "build-jobs", 0, 64, "0: automatic"),
           int_in(r, "run-timeout", 1, 86400, "seconds"),
           int_in(r, "build-timeout", 1, 86400, "seconds"),
           int_in(r, "profile-timeout", 1, 86400, "seconds"),
           int_in(r, "max-tokens", 1, 1000000),
           int_in(r, "llm-timeout", 1, 3600, "seconds"),
           int_in(r, "check-timeout", 1, 3600, "seconds"),
           int_in(r, "dies", 0, 1024, "0: the arch's own count"),
           one_of(r, "backend", {"auto", "cuda", "hip", "triton"}),
           one_of(r, "proposer", {"auto", "builtin", "llm"}),
           one_of(r, "context", {"aware", "unaware", "overload"}),
           one_of(r, "objective", {"time", "l2", "energy"}),
           one_of(r, "regime", {"burst", "sustained", "both"}),
       })
    if (!e.empty()) return e;
  if (given(r, "temperature")) {
    const double t = r["temperature"].as<double>();
    if (!(t >= 0 && t <= 2)) return fmt::format("--temperature {}: use 0..2", t);
  }
  if (given(r, "size")) {
    if (const auto s = r["size"].as<std::string>(); !s.empty())
      if (auto size = parse_size_option(s); !size) return size.error().message;
  }
  return "";
}

std::string utc_stamp() { return utc_now("%Y%m%d-%H%M%S"); }

Result<std::vector<int>> parse_size_option(const std::string& value, const std::string& option) {
  auto numbers = parse_positive_list(value, kMaxSizeValue);
  if (!numbers) return make_error(option + " '" + one_line(value, 60) + "': " + numbers.error().message);
  return std::vector<int>(numbers->begin(), numbers->end());
}

int cmd_version(const std::vector<std::string>& args) {
  // `version` takes nothing: an extra word is refused (exit 2) as every other command
  // refuses an unexpected argument.
  for (const auto& a : args)
    if (a != "--help" && a != "-h")
      return report_error("unexpected argument '" + one_line(a, 60) + "': version takes none (swizzleperf version)");
  std::printf("swizzleperf %s\n", SWZ_VERSION);
  return kExitOk;
}

}  // namespace swz::cli
