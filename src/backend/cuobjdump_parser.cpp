// Parser of cuobjdump's resource report (see the header for the shape it reads).
#include "swizzleperf/backend/cuobjdump_parser.h"

#include <algorithm>

#include "swizzleperf/util/name_pattern.h"

namespace swz {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The decimal value after "KEY:" among the space-separated fields of `line`; nullopt when
// absent or not a number. Values past 2^40 are capped there (no real kernel comes close).
std::optional<std::uint64_t> field(std::string_view line, std::string_view key) {
  std::size_t pos = 0;
  while (pos < line.size()) {
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view tok = line.substr(pos, end - pos);
    if (tok.size() > key.size() && tok.substr(0, key.size()) == key && tok[key.size()] == ':') {
      const std::string_view digits = tok.substr(key.size() + 1);
      if (digits.empty()) return std::nullopt;
      std::uint64_t v = 0;
      for (char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        v = std::min<std::uint64_t>(v * 10 + static_cast<unsigned>(c - '0'), 1ull << 40);
      }
      return v;
    }
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace

std::vector<KernelResources> parse_cuobjdump_resources(std::string_view text) {
  std::vector<KernelResources> out;
  std::optional<std::string> current;  // the function whose REG: line comes next
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    constexpr std::string_view kFunction = "Function ";
    if (line.size() > kFunction.size() + 1 && line.substr(0, kFunction.size()) == kFunction && line.back() == ':') {
      current = std::string(trim(line.substr(kFunction.size(), line.size() - kFunction.size() - 1)));
      continue;
    }
    if (!current) continue;
    const auto reg = field(line, "REG");
    if (!reg) continue;
    KernelResources k;
    k.function = std::move(*current);
    k.registers = static_cast<unsigned>(std::min<std::uint64_t>(*reg, 1u << 16));
    k.shared_bytes = field(line, "SHARED").value_or(0);
    k.stack_bytes = field(line, "STACK").value_or(0);
    out.push_back(std::move(k));
    current.reset();
  }
  return out;
}

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
