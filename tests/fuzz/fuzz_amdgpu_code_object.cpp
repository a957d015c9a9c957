// libFuzzer target: an AMD program's bytes (untrusted: the user's build) through
// amdgcn_code_objects, and llvm-readelf --notes output (a tool's stdout) through
// parse_amdgpu_metadata_notes. Contract: every code object found lies inside the input,
// every count is bounded; never a crash, leak, UB or exception.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "swizzleperf/backend/amdgpu_code_object_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto objects = swz::amdgcn_code_objects(bytes)) {
    for (const auto& o : *objects)
      if (o.offset > size || o.size > size - o.offset || o.size == 0) std::abort();
  } else if (objects.error().message.empty() || objects.error().message.find('\n') != std::string::npos) {
    std::abort();
  }
  for (const auto& k : swz::parse_amdgpu_metadata_notes(bytes))
    if (k.function.empty() || k.registers > (2u << 20) || k.shared_bytes > (1ull << 40) || k.stack_bytes > (1ull << 40))
      std::abort();
  return 0;
}
