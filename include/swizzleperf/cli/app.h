// The command-line front: a table of subcommands, each with its own options
// and --help. main() only calls run_app(); exceptions abort and are caught there.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace swz::cli {

struct Command {
  const char* name;
  const char* summary;
  std::function<int(const std::vector<std::string>& args)> run;  // args after the subcommand
};

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;      // the check found a problem / a run failed its goal
inline constexpr int kExitError = 2;       // bad input or an environment problem
inline constexpr int kExitInterrupted = 130;

const std::vector<Command>& commands();
int run_app(int argc, char** argv);

// "swizzleperf: error: <message>" on stderr; returns kExitError. When the command
// was given --json (set_json_errors), also {"ok": false, "error": ..., "exit_code": 2}
// on stdout, so that --json is JSON on stdout on every path.
int report_error(const std::string& message);
// The same, for a command that has a result to show: under --json, `result` with
// ok false, the error and the exit code on stdout (one JSON document, not two);
// the error line on stderr either way. Returns kExitError.
int report_error_in(nlohmann::json result, const std::string& message);
void set_json_errors(bool on);
// Closest subcommand name within edit distance 3, or "".
std::string suggest_command(const std::string& typed);

}  // namespace swz::cli
