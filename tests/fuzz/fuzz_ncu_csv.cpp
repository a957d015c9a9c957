// libFuzzer target: Nsight Compute CSV output (untrusted profiler stdout) through
// parse_ncu_csv. Contract: any bytes give a Metrics or a one-line Error, never a
// crash, leak, UB or exception.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "swizzleperf/backend/ncu_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto m = swz::parse_ncu_csv(text)) {
    // A parsed hit rate is a percentage of counted sectors, or ncu's own printed value.
    if (m->l2_hit_pct && !(*m->l2_hit_pct >= 0 && *m->l2_hit_pct <= 100)) std::abort();
  } else if (m.error().message.empty() || m.error().message.find('\n') != std::string::npos) {
    std::abort();  // errors are one non-empty line
  }
  return 0;
}
