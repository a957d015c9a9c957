// Test support: file helpers, temp dirs and tool lookup (see fixtures.h).
// run_cli lives in run_cli.cpp. Helpers throw on failure: in a test an
// exception is a clear failure, which is all that is wanted there.
#include "support/fixtures.h"
#include "support/tier_guard.h"

#include <algorithm>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <unistd.h>

namespace swz::test {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + p.string());
  out << text;
  if (!out) throw std::runtime_error("failed writing " + p.string());
}

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "swz-test-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;  // a destructor must not throw; a leftover temp dir is harmless
  fs::remove_all(path_, ec);
}

ScopedEnv::ScopedEnv(const char* name, const std::string& value) : name_(name) {
  if (const char* old = std::getenv(name)) {
    old_ = old;
    had_ = true;
  }
  ::setenv(name, value.c_str(), 1);
}

ScopedEnv::~ScopedEnv() {
  if (had_)
    ::setenv(name_, old_.c_str(), 1);
  else
    ::unsetenv(name_);
}

bool have_tool(const std::string& tool) {
  expect_outside_unit_tier("the tool '" + tool + "'");
  if (tool.find('/') != std::string::npos) return ::access(tool.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string_view rest(path);
  while (true) {
    const auto colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    const fs::path candidate = fs::path(dir) / tool;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    rest.remove_prefix(colon + 1);
  }
}

namespace {
std::string tool_or_usual(const std::string& name, const std::string& usual) {
  if (have_tool(name)) return name;
  return ::access(usual.c_str(), X_OK) == 0 ? usual : "";
}
}  // namespace

std::string nvcc_path() { return tool_or_usual("nvcc", "/usr/local/cuda/bin/nvcc"); }
std::string hipcc_path() { return tool_or_usual("hipcc", "/opt/rocm/bin/hipcc"); }

fs::path copy_kernel(const TempDir& tmp, const std::string& name) {
  auto dst = tmp / (name + ".hip");
  write_text(dst, read_text(source_dir() / "kernels" / (name + ".hip")));
  return dst;
}

std::vector<std::string> fake_optimize_args(const fs::path& kernel, const fs::path& run_dir, int iterations) {
  return {"optimize", kernel.string(), "--backend", "cuda", "--proposer", "builtin",
          "--nvcc", (fake_dir() / "fake_nvcc").string(), "--ncu", (fake_dir() / "fake_ncu").string(),
          "--run-dir", run_dir.string(), "--iterations", std::to_string(iterations), "--reps", "3",
          // The pause that lets a GPU cool between re-check requests only slows a fake run
          // (SpeedJudge tests the default pause; this asks for none).
          "--pause-ms", "0",
          // The loop's tests read every candidate's profile (reports, the best-L2 line);
          // OptimizeE2E.TheDefaultProfilesTheBaselineAndTheWinnerOnly runs the default.
          "--profile", "each",
          // The fakes' L2 and timings follow rules of their own, not the locality model's, so
          // the loop's tests explore in the plain order; LocalityModelE2E runs with the model
          // (and sets the last value).
          "--locality-model", "off"};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool has_arg(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

std::string value_after(const std::vector<std::string>& argv, const std::string& flag) {
  auto it = std::find(argv.begin(), argv.end(), flag);
  return it == argv.end() || it + 1 == argv.end() ? "" : *(it + 1);
}

}  // namespace swz::test
