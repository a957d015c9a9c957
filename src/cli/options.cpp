// Option groups shared by subcommands, and small argument parsers.
#include <algorithm>
#include <ctime>
#include <sstream>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/loop/measure_settings.h"
#include "swizzleperf/util/text.h"

#include <fmt/format.h>

namespace swz::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"optimize", "run the loop on one kernel: baseline, proposals, check, build, verify, time, profile", cmd_optimize},
      {"tune", "search the kernel's declared template parameters (tiles, stages) together with the block order", cmd_tune},
      {"init", "write a contract program from a plain CUDA/HIP kernel file (a scaffold with TODOs)", cmd_init},
      {"check", "host-only mapping check of kernels' swizzle regions (any machine, no GPU); --junit", cmd_check},
      {"predict", "predict each die's L2 hit rate and DRAM bytes for a block order, from the kernel's footprint (no GPU)", cmd_predict},
      {"build", "compile a kernel as the loop would, without running it", cmd_build},
      {"template", "propose a kernel's tile, block, warp and stage constants as tunables (--llm: the model's); gated by build and output", cmd_template},
      {"suite", "optimize a list of kernels (default kernels/*.hip and *.cu); shards and merge", cmd_suite},
      {"sweep", "baseline vs a run's best pattern across problem sizes", cmd_sweep},
      {"gate", "CI on a GPU runner: does the kernel's committed swizzle still pay against the identity order?", cmd_gate},
      {"probe", "measure the device's topology (dies, SM -> L2 side, dispatch order)", cmd_probe},
      {"compare", "compare two results (optimize --json, suite summaries) kernel by kernel; exit 1 on a regression", cmd_compare},
      {"version", "print the version", cmd_version},
  };
  return table;
}

namespace {

// The machine's tools: paths, not settings (never recorded, free to differ on a resume).
void add_tool_paths(cxxopts::Options& o) {
  o.add_options("Backend")
      ("nvcc", "path to nvcc (default: PATH, then /usr/local/cuda/bin)", cxxopts::value<std::string>()->default_value(""))
      ("ncu", "path to Nsight Compute's ncu (default: PATH, then /usr/local/cuda/bin)", cxxopts::value<std::string>()->default_value(""))
      ("hipcc", "path to hipcc (default: PATH, then /opt/rocm/bin)", cxxopts::value<std::string>()->default_value(""))
      ("rocprof", "path to rocprofv3 (default: PATH, then /opt/rocm/bin)", cxxopts::value<std::string>()->default_value(""))
      ("python", "the Python that runs Triton programs, with torch and triton installed (default: python3 on PATH)",
       cxxopts::value<std::string>()->default_value(""));
}

// A row's option as cxxopts types it (count: unsigned, so "-1" fails to parse there).
std::shared_ptr<cxxopts::Value> option_value(const SettingRow& row, const std::string& default_text) {
  switch (row.type) {
    case SettingType::integer: return cxxopts::value<int>()->default_value(default_text);
    case SettingType::count: return cxxopts::value<unsigned>()->default_value(default_text);
    case SettingType::real: return cxxopts::value<double>()->default_value(default_text);
    case SettingType::text:
    case SettingType::choice:
    case SettingType::size: break;
  }
  return cxxopts::value<std::string>()->default_value(default_text);
}

// The option's value as the row's text (nullopt: `r` has no such option, or one of
// another type: a command's own option of the same name).
std::optional<std::string> option_text(const cxxopts::ParseResult& r, const SettingRow& row) {
  try {
    switch (row.type) {
      case SettingType::integer: return std::to_string(r[row.key].as<int>());
      case SettingType::count: return std::to_string(r[row.key].as<unsigned>());
      case SettingType::real: return fmt::format("{}", r[row.key].as<double>());
      case SettingType::text:
      case SettingType::choice:
      case SettingType::size: return r[row.key].as<std::string>();
    }
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The machine's compiler and profiler for `backend`: each backend reads its own pair;
// auto starts from the NVIDIA pair.
ToolOptions tool_paths_from(const cxxopts::ParseResult& r, const std::string& backend) {
  ToolOptions t;
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
  return t;
}

}  // namespace

void add_setting_options(cxxopts::Options& o, CommandSet command, const std::string& run_group) {
  for (const auto& row : settings_table()) {
    if (!row.takes(command)) continue;
    std::string group = row.group_for(command);
    if (group == "Run") group = run_group;
    o.add_options(group)(row.key, row.help_for(command), option_value(row, row.default_for(command)));
    if (std::string(row.key) == "arch") add_tool_paths(o);  // --help lists the tools after the backend and arch
  }
}

std::string read_settings(const cxxopts::ParseResult& r, CommandSet command, RunConfig& c) {
  for (const auto& row : settings_table()) {
    if (!row.takes(command)) continue;
    const auto text = option_text(r, row);
    if (!text) continue;
    if (auto st = row.set(c, *text, command); !st) return st.error().message;
  }
  return check_settings(c);
}

std::set<std::string> given_settings(const cxxopts::ParseResult& r, const RunConfig&) {
  std::set<std::string> given;
  for (const auto& row : settings_table())
    if (r.count(row.key)) given.insert(row.key);
  return given;
}

ToolOptions tool_options_for(const cxxopts::ParseResult& r, const RunConfig& c) {
  return tool_options_with(c, tool_paths_from(r, c.backend));
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
  if (const auto bad = validate_options(out, command_set(command)); !bad.empty())
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

}  // namespace

std::string validate_options(const cxxopts::ParseResult& r, CommandSet command) {
  // The settings: each given one checked by its row (its range, its values for `command`).
  for (const auto& row : settings_table()) {
    if (!given(r, row.key)) continue;
    if (const auto text = option_text(r, row))
      if (auto e = row.check(*text, command); !e.empty()) return e;
  }
  // The options of check and predict that are not run settings.
  for (const auto& e : {
           int_in(r, "check-timeout", 1, 3600, "seconds"),
           int_in(r, "dies", 0, 1024, "0: the arch's own count"),
       })
    if (!e.empty()) return e;
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
