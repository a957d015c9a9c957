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
int cmd_template(const std::vector<std::string>& args);
int cmd_tune(const std::vector<std::string>& args);

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

// The run settings' options, all from core/run_config's settings table: each row
// `command` takes, declared with the command's default and help in its group ("Run"
// rows go to `run_group`, the command's own), and with the backend the tools' paths
// (--nvcc, --ncu, --hipcc, --rocprof, --python: the machine's, not settings).
void add_setting_options(cxxopts::Options& o, CommandSet command, const std::string& run_group);
// Every setting `command` takes into c, each checked by its row, then the rules
// between them (check_settings): "" or the one-line message.
std::string read_settings(const cxxopts::ParseResult& r, CommandSet command, RunConfig& c);

// The --help text of `o` (the given groups, or all): each default said once. cxxopts
// appends "(default: X)" to every option with a default value, "(default: \"\")"
// for empty ones; where the description already says its default (e.g. "default:
// PATH, then /usr/local/cuda/bin"), or the value is empty (nothing to say), that
// suffix is dropped. Long lines are wrapped under the description column.
std::string help_text(cxxopts::Options& o, const std::vector<std::string>& groups = {});
// The run settings named on the command line (option names, as describe_settings
// names them): what a resume is asked to change.
std::set<std::string> given_settings(const cxxopts::ParseResult& r, const RunConfig& c);
// The tools for c's backend (cuda, hip, triton or auto): the compiler and profiler
// paths of that backend from the Backend group (auto: the NVIDIA pair), the arch and
// limits from c.
ToolOptions tool_options_for(const cxxopts::ParseResult& r, const RunConfig& c);

// Parses a subcommand's args into out. Returns the exit code when the command is
// already done: after a one-line parse error that points at `swizzleperf COMMAND
// --help`, or after printing --help (help_text with help_groups); nullopt to go on.
std::optional<int> parse_command(cxxopts::Options& o, const std::vector<std::string>& args, const std::string& command,
                                 const std::vector<std::string>& help_groups, cxxopts::ParseResult& out);

// Every option a command defines that is a run setting, checked by its row (its
// range, and its values for `command`: sweep takes no --objective energy), and the
// check and predict options that are not settings, with or without a GPU and before
// any work: "" when all hold, else the one-line message.
std::string validate_options(const cxxopts::ParseResult& r, CommandSet command = kAnyCommand);

// "20261123-114900": UTC now, for default run-dir names.
std::string utc_stamp();

// A --size value ("4096,32768,1024") as numbers, each from 1 to kMaxSizeValue (util/text
// parse_positive_list). The Error is the whole message, naming `option`:
// "--size '999999999999': 999999999999 is out of range (at most 1,073,741,824)",
// "--size '1,x': 'x' is not a positive integer". Every command's --size (and sweep's
// --sizes items) is read here.
Result<std::vector<int>> parse_size_option(const std::string& value, const std::string& option = "--size");

}  // namespace swz::cli
