// run_cli: the real swizzleperf binary as a subprocess, through the library's
// own process runner (argv, timeout, process-group kill).
#include "support/fixtures.h"

#include "swizzleperf/util/process.h"

namespace swz::test {

CliRun run_cli(const std::vector<std::string>& args, const fs::path& cwd, const std::vector<std::string>& env,
               int timeout_s) {
  ProcessSpec spec;
  spec.argv.push_back(binary_path().string());
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = cwd;
  for (const auto& kv : env) {
    auto eq = kv.find('=');
    spec.env.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
  }
  spec.timeout = std::chrono::seconds(timeout_s);
  RealProcessRunner runner;
  auto r = runner.run(spec);
  CliRun out;
  out.exit_code = r.started && r.term_signal == 0 && !r.timed_out ? r.exit_code : -1;
  out.out = r.out;
  out.err = r.err;
  return out;
}

}  // namespace swz::test
