// Seeded fault injection for the fake tools (fake_nvcc, fake_ncu), used by the
// fault soak in bench/reliability.py. Off unless SWZ_FAKE_FAULT_RATE > 0.
//   SWZ_FAKE_FAULT_RATE=P      probability (0..1) that one call injects a fault
//   SWZ_FAKE_FAULT_SEED=N      seed (default 1); the decision is a hash of the seed,
//                              the tool and its argv, so a call is reproducible
//   SWZ_FAKE_FAULTS=k1,k2,...  the kinds allowed (default: every kind the tool has)
//   SWZ_FAKE_FAULT_LOG=FILE    one line per injected fault: "TOOL KIND ARGV..."
//   SWZ_FAKE_FAULT_SKIP=TEXT   calls with an argument containing TEXT are never faulted
//                              (e.g. "/baseline/", so that a soak reaches the attempts)
// Only the C++ standard library is used (header-only, included by each fake).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace swz_fake {

inline std::uint64_t fnv1a(std::uint64_t h, const std::string& s) {
  for (unsigned char c : s) { h ^= c; h *= 1099511628211ull; }
  return h;
}

// The fault kind this call injects, or "" for none. `kinds`: what the tool can do.
inline std::string pick_fault(const std::string& tool, int argc, char** argv, const std::vector<std::string>& kinds) {
  const char* rate_s = std::getenv("SWZ_FAKE_FAULT_RATE");
  const double rate = rate_s ? std::strtod(rate_s, nullptr) : 0.0;
  if (!(rate > 0)) return "";
  std::vector<std::string> allowed;
  const char* only = std::getenv("SWZ_FAKE_FAULTS");
  for (const auto& k : kinds)
    if (!only || !*only || ("," + std::string(only) + ",").find("," + k + ",") != std::string::npos) allowed.push_back(k);
  if (allowed.empty()) return "";
  if (const char* skip = std::getenv("SWZ_FAKE_FAULT_SKIP"); skip && *skip)
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]).find(skip) != std::string::npos) return "";
  const char* seed = std::getenv("SWZ_FAKE_FAULT_SEED");
  std::uint64_t h = fnv1a(14695981039346656037ull, std::string(seed ? seed : "1") + "\n" + tool);
  std::string line = tool;
  for (int i = 1; i < argc; ++i) { h = fnv1a(h, std::string("\n") + argv[i]); line += std::string(" ") + argv[i]; }
  h ^= h >> 29; h *= 0xbf58476d1ce4e5b9ull; h ^= h >> 32;
  if (static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0) >= rate) return "";
  const std::string kind = allowed[(h & 0x7ff) % allowed.size()];
  if (const char* log = std::getenv("SWZ_FAKE_FAULT_LOG"); log && *log) {
    if (FILE* f = std::fopen(log, "a")) {
      const std::string out = tool + " " + kind + " " + line.substr(tool.size() + (argc > 1 ? 1 : 0)) + "\n";
      std::fwrite(out.data(), 1, out.size(), f);
      std::fclose(f);
    }
  }
  return kind;
}

}  // namespace swz_fake
