// Subcommand table, top-level help, "did you mean", and the one place where an
// exception is turned into an error line.
#include "swizzleperf/cli/app.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <exception>

#include <nlohmann/json.hpp>

#include "swizzleperf/cli/commands.h"
#include "swizzleperf/util/process.h"

namespace swz::cli {

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

void print_usage(std::FILE* to) {
  std::string s = "usage: swizzleperf <command> [options]\n\n"
                  "Finds hardware-aware swizzles (workgroup-id remaps) that make a GPU kernel faster by keeping blocks\n"
                  "that share data on one die's L2.\n\ncommands:\n";
  for (const auto& c : commands()) s += fmt::format("  {:<10} {}\n", c.name, c.summary);
  s += "\nRun 'swizzleperf <command> --help' for a command's options.\n";
  std::fputs(s.c_str(), to);
}

}  // namespace

namespace {
bool g_json_errors = false;  // the command was given --json: errors go to stdout as JSON too
}  // namespace

int report_error(const std::string& message) {
  std::fprintf(stderr, "swizzleperf: error: %s\n", message.c_str());
  if (g_json_errors) {
    // A CI script that reads stdout as JSON gets JSON on this path too.
    const nlohmann::json j = {{"ok", false}, {"error", message}, {"exit_code", kExitError}};
    std::puts(j.dump(2).c_str());
  }
  return kExitError;
}

int report_error_in(nlohmann::json result, const std::string& message) {
  if (g_json_errors) {
    result["ok"] = false;
    result["error"] = message;
    result["exit_code"] = kExitError;
    std::puts(result.dump(2).c_str());
  }
  std::fprintf(stderr, "swizzleperf: error: %s\n", message.c_str());
  return kExitError;
}

void set_json_errors(bool on) { g_json_errors = on; }

std::string suggest_command(const std::string& typed) {
  std::string best;
  std::size_t best_d = 4;
  for (const auto& c : commands()) {
    std::size_t d = edit_distance(typed, c.name);
    if (d < best_d) {
      best_d = d;
      best = c.name;
    }
  }
  return best;
}

int run_app(int argc, char** argv) {
  try {
    auto logger = spdlog::stderr_color_mt("swizzleperf");
    logger->set_pattern("%v");
    spdlog::set_default_logger(logger);
    if (const char* v = std::getenv("SWIZZLEPERF_VERBOSE"); v && *v == '1') spdlog::set_level(spdlog::level::debug);
    install_interrupt_handler();
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
      print_usage(stderr);
      return kExitError;
    }
    const std::string name = args.front();
    if (name == "--help" || name == "-h" || name == "help") {
      print_usage(stdout);
      return kExitOk;
    }
    if (name == "--version") return cmd_version({});
    set_json_errors(std::find(args.begin() + 1, args.end(), "--json") != args.end());
    for (const auto& c : commands())
      if (name == c.name) return c.run({args.begin() + 1, args.end()});
    std::string msg = "unknown command '" + name + "'";
    if (auto s = suggest_command(name); !s.empty()) msg += "; did you mean '" + s + "'?";
    else msg += "; run 'swizzleperf --help' for the list";
    return report_error(msg);
  } catch (const std::exception& e) {
    return report_error(std::string("internal error: ") + e.what());
  }
}

}  // namespace swz::cli
