// libFuzzer target for the region validator. Every input, and the
// input wrapped as the body of swizzle_pid (so the fuzzer reaches the parser's
// deep paths quickly), must be either rejected with a usable one-line reason
// whose line lies within the input, or accepted; an accepted region must hold
// none of the raw features the validator promises to keep out and must define
// swizzle_pid. With SWZ_FUZZ_COMPILE=1 every accepted region is also compiled
// with the host compiler as the mapping evaluator would (slow; for long runs):
// acceptance must imply compilability.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "swizzleperf/util/process.h"
#include "swizzleperf/core/region_validator.h"

namespace {

void fail(const char* what, std::string_view input, const swz::RegionVerdict& v) {
  std::fprintf(stderr, "invariant broken: %s\nverdict: ok=%d line=%d token='%s' reason='%s'\ninput (%zu bytes):\n%.*s\n", what,
               v.ok ? 1 : 0, v.line, v.token.c_str(), v.reason.c_str(), input.size(), static_cast<int>(input.size()),
               input.data());
  std::abort();
}

void compile_accepted(const std::string& region) {
  static const bool enabled = [] {
    const char* e = std::getenv("SWZ_FUZZ_COMPILE");
    return e && std::string(e) == "1";
  }();
  if (!enabled) return;
  const std::string path = "/tmp/swz_fuzz_region_" + std::to_string(::getpid()) + ".cpp";
  {
    std::ofstream out(path, std::ios::binary);
    out << "#define SWZ_HD\n#define SWZ_NUM_DIES 8\nstruct SwizzleGrid { unsigned m; unsigned n; };\n" << region << "\n";
  }
  swz::RealProcessRunner runner;
  swz::ProcessSpec spec;
  spec.argv = {"c++", "-std=c++17", "-fsyntax-only", "-w", path};
  spec.timeout = std::chrono::seconds(60);
  auto r = runner.run(spec);
  if (r.started && !r.success()) {
    std::fprintf(stderr, "accepted region does not compile:\n%s\n%s\n", region.c_str(), r.err.c_str());
    std::abort();
  }
}

void check(std::string_view input) {
  const swz::RegionVerdict v = swz::validate_region_code(input);
  const swz::RegionVerdict again = swz::validate_region_code(input);
  if (v.ok != again.ok || v.line != again.line || v.token != again.token || v.reason != again.reason)
    fail("not deterministic", input, v);
  const auto st = swz::check_region_code(input);
  if (static_cast<bool>(st) != v.ok) fail("check_region_code disagrees", input, v);
  int lines = 1;
  for (char c : input) lines += c == '\n';
  if (!v.ok) {
    if (v.reason.empty()) fail("rejection without a reason", input, v);
    if (v.token.empty()) fail("rejection without a token", input, v);
    if (v.line < 1 || v.line > lines) fail("rejection line outside the input", input, v);
    const std::string m = v.message();
    if (m.empty() || m.find('\n') != std::string::npos || m.size() > 400) fail("message is not one short line", input, v);
    return;
  }
  if (!v.message().empty()) fail("accepted with a message", input, v);
  if (input.find("swizzle_pid") == std::string_view::npos) fail("accepted without swizzle_pid", input, v);
  for (char c : input)
    if (c == '\0' || c == '\\') fail("accepted with a NUL or a backslash", input, v);
  compile_accepted(std::string(input));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check(input);
  if (size < 4096) {
    std::string wrapped = "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n";
    wrapped.append(input);
    wrapped += "\n  return pid;\n}\n";
    check(wrapped);
  }
  return 0;
}
