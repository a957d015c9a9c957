// Parser of cuobjdump's resource report (see the header for the shape it reads).
#include "swizzleperf/backend/cuobjdump_parser.h"

#include <algorithm>
#include <optional>


namespace swz {

namespace {

std::string_view strip_blanks(std::string_view s) {
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
    const std::string_view line = strip_blanks(text.substr(pos, end - pos));
    pos = end + 1;
    constexpr std::string_view kFunction = "Function ";
    if (line.size() > kFunction.size() + 1 && line.substr(0, kFunction.size()) == kFunction && line.back() == ':') {
      current = std::string(strip_blanks(line.substr(kFunction.size(), line.size() - kFunction.size() - 1)));
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

}  // namespace swz
