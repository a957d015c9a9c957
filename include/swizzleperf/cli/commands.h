// Subcommand entry points and the option groups they share.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/cli/default_arch.h"
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/mapping_check.h"
#include "swizzleperf/core/run_config.h"
#include "swizzleperf/model/footprint_source.h"
#include "swizzleperf/model/machine_model.h"

namespace swz::cli {

int cmd_optimize(const std::vector<std::string>& args);
int cmd_check(const std::vector<std::string>& args);
int cmd_build(const std::vector<std::string>& args);
int cmd_version(const std::vector<std::string>& args);
int cmd_suite(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_probe(const std::vector<std::string>& args);
int cmd_gate(const std::vector<std::string>& args);
int cmd_compare(const std::vector<std::string>& args);
int cmd_init(const std::vector<std::string>& args);
int cmd_predict(const std::vector<std::string>& args);

// optimize on a machine with no GPU: host mapping analysis of the candidates under the
// die model of `hw` (`choice`: why that arch, when --arch was not given), as a table
// after one model line (or JSON on stdout with `json`), then the one error line, exit 2:
// nothing was measured.
int host_only_analysis(const KernelSource& kernel, const HardwareProfile& hw, const ArchChoice* choice,
                       const std::string& host_cxx, const std::string& why, bool json);

// The locality model's settings shared by predict and check --predict (the "Model" group).
struct ModelSettings {
  HardwareProfile hw;
  std::optional<ArchChoice> arch_choice;  // set when --arch was not given: what was chosen and why
  MachineModel machine;
  std::vector<long long> size;  // empty: the program's default
  FootprintSourceOptions footprint;
  MappingCheckOptions mapping;
};
void add_model_options(cxxopts::Options& o, const std::string& arch_default_text);
// The settings for `kernel` (the file whose kind picks the arch when --arch is not given).
Result<ModelSettings> model_settings_from(const cxxopts::ParseResult& r, const std::filesystem::path& kernel);

// Option groups reused by several subcommands.
void add_backend_options(cxxopts::Options& o);
// The tool options for `backend` (cuda, hip or auto): each reads its own --nvcc/--ncu
// or --hipcc/--rocprof pair.
ToolOptions tool_options_from(const cxxopts::ParseResult& r, const std::string& backend);

// The --help text of `o` (the given groups, or all): each default said once. cxxopts
// appends "(default: X)" to every option with a default value, "(default: \"\")"
// for empty ones; where the description already says its default (e.g. "default:
// PATH, then /usr/local/cuda/bin"), or the value is empty (nothing to say), that
// suffix is dropped. Long lines are wrapped under the description column.
std::string help_text(cxxopts::Options& o, const std::vector<std::string>& groups = {});
// The "Objective" group: --objective time|l2|energy and --rounds (the interleaved
// re-check), and the "Power regime" group (add_regime_options).
void add_objective_options(cxxopts::Options& o);
// The "Power regime" group: --regime burst|sustained|both and its rules
// (--throttle-threshold, --recovery-ms, --max-discards, --settle-seconds, --sustain-seconds, --pause-ms)
// and the judge's --max-rounds and --judge-seconds.
void add_regime_options(cxxopts::Options& o);
// --finalists (optimize, suite): read by read_objective_settings.
void add_finalists_option(cxxopts::Options& o);
// Reads that group into `timing`; false with a one-line error for a bad value.
bool regime_options_from(const cxxopts::ParseResult& r, RegimeSettings& timing, std::string& error);
// Reads them; false with a one-line message on a bad value.
bool objective_options_from(const cxxopts::ParseResult& r, Objective& objective, int& rounds, RegimeSettings& timing,
                            std::string& error);

// The run settings of the shared groups into c: the Backend group (backend, arch,
// timeouts, profile launches) and the Objective group (objective, rounds; "" or
// the one-line error). The command's own options it reads itself.
void read_backend_settings(const cxxopts::ParseResult& r, RunConfig& c);
std::string read_objective_settings(const cxxopts::ParseResult& r, RunConfig& c);
// The run settings named on the command line (option names, as describe_settings
// names them): what a resume is asked to change.
std::set<std::string> given_settings(const cxxopts::ParseResult& r, const RunConfig& c);
// The tools for c's backend: paths from the Backend group, limits from c.
ToolOptions tool_options_for(const cxxopts::ParseResult& r, const RunConfig& c);

// Parses a subcommand's args into out. Returns the exit code when the command is
// already done: after a one-line parse error that points at `swizzleperf COMMAND
// --help`, or after printing --help (help_text with help_groups); nullopt to go on.
std::optional<int> parse_command(cxxopts::Options& o, const std::vector<std::string>& args, const std::string& command,
                                 const std::vector<std::string>& help_groups, cxxopts::ParseResult& out);

// Every option a command defines among the shared ones (run, backend, proposer,
// objective), checked against its range or its list of values, with or without a
// GPU and before any work: "" when all hold, else the one-line message.
std::string validate_options(const cxxopts::ParseResult& r);

// "20261123-114900": UTC now, for default run-dir names.
std::string utc_stamp();

// The largest number in a --size: a program's size values are ints.
constexpr long long kMaxSizeValue = 1LL << 30;
// A --size value ("4096,32768,1024") as numbers, each from 1 to kMaxSizeValue (util/text
// parse_positive_list). The Error is the whole message, naming `option`:
// "--size '999999999999': 999999999999 is out of range (at most 1,073,741,824)",
// "--size '1,x': 'x' is not a positive integer". Every command's --size (and sweep's
// --sizes items) is read here.
Result<std::vector<int>> parse_size_option(const std::string& value, const std::string& option = "--size");

}  // namespace swz::cli
