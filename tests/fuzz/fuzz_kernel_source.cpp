// libFuzzer target: a kernel file (user input) through KernelSource::parse (the
// region splitter), validate_region, parse_tile_grid and declared_size_arity.
// Contract: a KernelSource or a one-line Error; for a parsed source whose region
// passes validate_region, splicing it back gives the file unchanged. Inputs up to
// 1 MB (.ci/fuzz passes -max_len): a ~30 KB region once overflowed the stack of
// a std::regex (fixture tests/fixtures/fuzz/fuzz_kernel_source/).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "swizzleperf/core/kernel_source.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)swz::validate_region(text);
  auto k = swz::KernelSource::parse(std::string(text), "fuzz.hip");
  if (!k) {
    if (k.error().message.empty() || k.error().message.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const std::string region = k->region();
  if (region.size() > swz::kMaxRegionBytes) std::abort();
  if (auto st = swz::validate_region(region); st) {
    auto same = k->splice(region);
    if (!same || *same != k->text()) std::abort();
  } else if (st.error().message.empty() || st.error().message.find('\n') != std::string::npos) {
    std::abort();
  }
  if (auto g = k->default_grid(); g && (g->m == 0 || g->n == 0)) std::abort();
  (void)k->declared_size_arity();
  if (auto g = swz::parse_tile_grid(text.substr(0, 64)); g && (g->num_pids() == 0 || g->num_pids() > swz::kMaxGridPids))
    std::abort();
  return 0;
}
