// libFuzzer target: cuobjdump --dump-resource-usage output (a tool's stdout, untrusted)
// through parse_cuobjdump_resources and registers_of. Contract: any bytes give a list
// (possibly empty) of functions with bounded numbers, never a crash, leak, UB or exception.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "swizzleperf/backend/cuobjdump_parser.h"
#include "swizzleperf/util/name_pattern.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto report = swz::parse_cuobjdump_resources(text);
  for (const auto& k : report)
    if (k.registers > (1u << 16) || k.shared_bytes > (1ull << 40) || k.stack_bytes > (1ull << 40)) std::abort();
  static const auto all = swz::NamePattern::compile("_kernel");
  if (all) (void)swz::registers_of(report, *all);
  return 0;
}
