// libFuzzer target: a CUDA/HIP file (user input) through the scanner (find_kernels,
// find_launches, unswizzled_block_uses, todo_marks) and init's rewrite
// (make_contract_program). Contract: every offset a scan returns lies inside the text
// and is ordered (params before body, grid inside the launch), every line and column
// is 1-based, every mark is one line of at most 160 bytes; init gives a program or a
// one-line Error, and a program holds the identity region and is itself no longer
// accepted by init (it is under the contract). Inputs up to 1 MB (.ci/fuzz passes
// -max_len).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "swizzleperf/core/cuda_scan.h"
#include "swizzleperf/core/kernel_init.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& k : swz::find_kernels(text)) {
    if (k.name.empty() || k.line == 0) std::abort();
    if (!(k.name_begin < k.params_open && k.params_open < k.params_close && k.params_close < k.body_open &&
          k.body_open < k.body_close && k.body_close < size))
      std::abort();
  }
  for (const auto& l : swz::find_launches(text)) {
    if (l.kernel.empty() || l.grid.empty() || l.block.empty() || l.line == 0) std::abort();
    if (!(l.begin <= l.grid_begin && l.grid_begin < l.grid_end && l.grid_end <= l.append_at && l.append_at < l.end &&
          l.end <= size))
      std::abort();
  }
  for (const auto& u : swz::unswizzled_block_uses(text))
    if (u.line == 0 || u.column == 0 || u.text.empty()) std::abort();
  for (const auto& m : swz::todo_marks(text))
    if (m.line == 0 || m.text.size() > 160 || m.text.find('\n') != std::string::npos) std::abort();
  const auto made = swz::make_contract_program(text, "fuzz.cu", std::nullopt);
  if (!made) {
    if (made.error().message.empty() || made.error().message.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  if (made->text.find("// swizzleperf:begin\nSWZ_HD unsigned swizzle_pid(") == std::string::npos &&
      made->text.find("// swizzleperf:begin\r\nSWZ_HD unsigned swizzle_pid(") == std::string::npos)
    std::abort();
  if (made->grid_dims < 1 || made->grid_dims > 3 || made->todo_count == 0) std::abort();
  for (const auto& w : made->warnings)
    if (w.empty() || w.find('\n') != std::string::npos) std::abort();
  if (made->text.size() <= (1u << 20) && swz::make_contract_program(made->text, "fuzz_swz.cu", std::nullopt).ok()) std::abort();
  return 0;
}
