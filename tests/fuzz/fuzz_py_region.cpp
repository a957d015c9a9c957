// libFuzzer target for the Triton region front end (core/py_region.h). Every
// input, and the input indented as the body of swizzle_pid (so the fuzzer reaches
// the statement and expression paths quickly), must be either rejected with a
// usable one-line reason whose line lies within the input, or accepted; an
// accepted region must translate, and the translation must pass the C++ region
// validator (the promise the mapping check relies on: one evaluator, two front
// ends) -- otherwise __builtin_trap(). With SWZ_FUZZ_COMPILE=1 every translation
// is also compiled with the host compiler as the mapping evaluator would (slow;
// for long runs).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/py_region.h"
#include "swizzleperf/core/region_validator.h"
#include "swizzleperf/util/process.h"

namespace {

constexpr std::size_t kPyFuzzMaxInput = 1u << 20;

[[noreturn]] void py_fuzz_fail(const char* what, std::string_view input, const swz::RegionVerdict& v,
                               const std::string& extra = {}) {
  std::fprintf(stderr, "invariant broken: %s\nverdict: ok=%d line=%d token='%s' reason='%s'\n%s\ninput (%zu bytes):\n%.*s\n",
               what, v.ok ? 1 : 0, v.line, v.token.c_str(), v.reason.c_str(), extra.c_str(), input.size(),
               static_cast<int>(input.size() > 4096 ? 4096 : input.size()), input.data());
  __builtin_trap();
}

void py_fuzz_compile(const std::string& cpp, std::string_view input, const swz::RegionVerdict& v) {
  static const bool enabled = [] {
    const char* e = std::getenv("SWZ_FUZZ_COMPILE");
    return e && std::string(e) == "1";
  }();
  if (!enabled) return;
  const std::string path = "/tmp/swz_fuzz_py_region_" + std::to_string(::getpid()) + ".cpp";
  {
    std::ofstream out(path, std::ios::binary);
    out << "#define SWZ_HD\n#define SWZ_NUM_DIES 8\nstruct SwizzleGrid { unsigned m; unsigned n; };\n" << cpp << "\n";
  }
  swz::RealProcessRunner runner;
  swz::ProcessSpec spec;
  spec.argv = {"c++", "-std=c++17", "-fsyntax-only", "-w", path};
  spec.timeout = std::chrono::seconds(60);
  auto r = runner.run(spec);
  if (r.started && !r.success()) py_fuzz_fail("translation does not compile", input, v, cpp + "\n" + r.err);
}

void py_fuzz_check(std::string_view input) {
  const swz::RegionVerdict v = swz::validate_py_region(input);
  const swz::RegionVerdict again = swz::validate_py_region(input);
  if (v.ok != again.ok || v.line != again.line || v.token != again.token || v.reason != again.reason)
    py_fuzz_fail("not deterministic", input, v);
  int lines = 1;
  for (char c : input) lines += c == '\n';
  auto t = swz::translate_py_region(input);
  if (t.ok() != v.ok) py_fuzz_fail("translate_py_region disagrees with validate_py_region", input, v);
  if (!v.ok) {
    if (v.reason.empty()) py_fuzz_fail("rejection without a reason", input, v);
    const std::string m = v.message();
    if (m.empty() || m.find('\n') != std::string::npos || m.size() > 400) py_fuzz_fail("message is not one short line", input, v);
    if (t.error().message != "swizzle region rejected: " + m) py_fuzz_fail("translate's error is not the verdict", input, v);
    if (v.line == 0) {  // only about the whole region: its size, or its translation's
      if (input.size() <= swz::kMaxRegionBytes && v.reason.find("C++ translation") == std::string::npos)
        py_fuzz_fail("line 0 for a region within the size limit", input, v);
      return;
    }
    if (v.token.empty()) py_fuzz_fail("rejection without a token", input, v);
    if (v.line < 1 || v.line > lines) py_fuzz_fail("rejection line outside the input", input, v);
    return;
  }
  if (!v.message().empty()) py_fuzz_fail("accepted with a message", input, v);
  if (input.find("swizzle_pid") == std::string_view::npos) py_fuzz_fail("accepted without swizzle_pid", input, v);
  const swz::RegionVerdict cpp = swz::validate_region_code(*t);
  if (!cpp.ok) py_fuzz_fail("the translation is rejected by the C++ validator", input, v, cpp.message() + "\n" + *t);
  py_fuzz_compile(*t, input, v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kPyFuzzMaxInput) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  py_fuzz_check(input);
  if (size < 4096) {
    std::string wrapped = "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    ";
    for (char c : input) {
      wrapped += c;
      if (c == '\n') wrapped += "    ";
    }
    wrapped += "\n    return pid\n";
    py_fuzz_check(wrapped);
  }
  return 0;
}
