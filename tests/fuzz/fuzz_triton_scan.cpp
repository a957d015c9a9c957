// libFuzzer target: a Triton file (user input) through the scanner (core/triton_scan: logical
// lines, functions, program ids, launches, TODO marks) and init's rewrite
// (make_triton_program). Contract: every offset a scan returns lies inside the text and is
// ordered, every line is 1-based, every mark is one line of at most 160 bytes; init gives a
// program or a one-line Error, and a program holds the identity region and is itself no
// longer accepted by init (it is under the contract). Inputs up to 1 MB (.ci/fuzz passes
// -max_len).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "swizzleperf/core/triton_init.h"
#include "swizzleperf/core/triton_scan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const swz::PySource src(text);
  std::size_t prev_end = 0;
  for (const auto& l : src.lines()) {
    if (l.begin < prev_end || l.end < l.begin || l.end > size || l.line == 0) std::abort();
    prev_end = l.end;
  }
  for (const auto& f : src.functions()) {
    if (f.name.empty() || f.line == 0 || f.first > f.def || f.def >= f.end || f.end > src.lines().size()) std::abort();
    for (const auto& id : src.program_ids(f))
      if (!(id.begin < id.end && id.end <= size && id.line_index < src.lines().size() && id.axis >= -1 && id.axis <= 2))
        std::abort();
    for (const auto& l : src.launches(f.name))
      if (!(l.begin < l.args_begin && l.args_begin <= l.args_end && l.args_end < l.end && l.end <= size && l.line > 0))
        std::abort();
  }
  for (const auto& m : src.todo_marks())
    if (m.line == 0 || m.text.size() > 160 || m.text.find('\n') != std::string::npos) std::abort();
  const auto made = swz::make_triton_program(text, "fuzz.py", std::nullopt, {}, size % 2 ? "/opt/swz/share/swizzleperf/support" : "");
  if (!made) {
    if (made.error().message.empty() || made.error().message.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  if (made->text.find("# swizzleperf:begin\n@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return pid\n") ==
          std::string::npos &&
      made->text.find("# swizzleperf:begin\r\n@triton.jit\r\ndef swizzle_pid(") == std::string::npos)
    std::abort();
  if (made->todo_count == 0 || made->text.find("swizzle_pid(tl.program_id(0), tl.num_programs(0), ") == std::string::npos)
    std::abort();
  for (const auto& w : made->warnings)
    if (w.empty() || w.find('\n') != std::string::npos) std::abort();
  if (made->text.size() <= (1u << 20) && swz::make_triton_program(made->text, "fuzz_swz.py", std::nullopt, {}, {}).ok()) std::abort();
  return 0;
}
