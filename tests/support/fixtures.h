// Shared test fixtures: paths to committed fixtures, the source tree and the
// built binaries, temp dirs that clean up, and a helper to run the real binary.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace swz::test {

namespace fs = std::filesystem;

// Defined in paths.cpp, the one file compiled with the build's paths, so every
// other test file compiles the same in any checkout (ccache hits across worktrees).
fs::path source_dir();
fs::path fixture_path(const std::string& rel);
fs::path binary_path();
fs::path fake_dir();
// The tests' build directory (<build>/tests): what tests keep between runs (shared_build.h).
fs::path test_build_dir();

std::string read_text(const fs::path& p);
void write_text(const fs::path& p, const std::string& text);

// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  fs::path path_;
};

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the real swizzleperf binary with args, cwd, extra env (NAME=VALUE) and a timeout.
CliRun run_cli(const std::vector<std::string>& args, const fs::path& cwd = {},
               const std::vector<std::string>& env = {}, int timeout_s = 120);

// True when an executable named `tool` is on PATH.
bool have_tool(const std::string& tool);
// The compilers the build tests use: on PATH, else at their usual install location
// (/usr/local/cuda/bin, /opt/rocm/bin); "" when absent (the test skips).
std::string nvcc_path();
std::string hipcc_path();

// kernels/<name>.hip copied into tmp (tmp/<name>.hip), for runs that write beside it.
fs::path copy_kernel(const TempDir& tmp, const std::string& name);
// `optimize KERNEL` through the fake nvcc / ncu with the built-in proposer, 3 reps, no
// pause between re-check requests.
std::vector<std::string> fake_optimize_args(const fs::path& kernel, const fs::path& run_dir, int iterations);

// Does text contain part?
bool has(const std::string& text, const std::string& part);
// Is arg one of argv? The value after `flag` in argv ("" when absent).
bool has_arg(const std::vector<std::string>& argv, const std::string& arg);
std::string value_after(const std::vector<std::string>& argv, const std::string& flag);

}  // namespace swz::test
