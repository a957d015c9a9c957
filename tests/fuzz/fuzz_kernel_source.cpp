// libFuzzer target: a kernel file (user input) through KernelSource::parse (the
// region splitter) and validate_region. Contract: a KernelSource or a one-line
// Error; for a parsed source, splicing its own region back gives the file
// unchanged, and the region passes validate_region.
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
  if (!swz::validate_region(region)) std::abort();
  auto same = k->splice(region);
  if (!same || *same != k->text()) std::abort();
  if (auto g = k->default_grid(); g && (g->m == 0 || g->n == 0)) std::abort();
  return 0;
}
