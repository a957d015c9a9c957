// Lookups in the compiler's resource report (see the header).
#include "swizzleperf/backend/kernel_resources.h"

#include <algorithm>

#include "swizzleperf/util/name_pattern.h"

namespace swz {

std::optional<MatchedRegisters> registers_of(const std::vector<KernelResources>& report, const NamePattern& kernels) {
  MatchedRegisters m;
  for (const auto& k : report) {
    if (!kernels.search(k.function)) continue;
    m.registers = std::max(m.registers, k.registers);
    ++m.functions;
  }
  if (m.functions == 0) return std::nullopt;
  return m;
}

std::optional<MatchedRegisters> registers_of_kernel(const std::vector<KernelResources>& report, std::string_view name) {
  if (name.empty()) return std::nullopt;
  const std::string token = std::to_string(name.size()) + std::string(name);
  MatchedRegisters m;
  for (const auto& k : report) {
    bool is = k.function == name;
    // <length><name>, not the tail of a longer length ("114fdtd..." is not "14fdtd...").
    for (std::size_t at = k.function.find(token); !is && at != std::string::npos; at = k.function.find(token, at + 1))
      is = at == 0 || k.function[at - 1] < '0' || k.function[at - 1] > '9';
    if (!is) continue;
    m.registers = std::max(m.registers, k.registers);
    ++m.functions;
  }
  if (m.functions == 0) return std::nullopt;
  return m;
}

}  // namespace swz
