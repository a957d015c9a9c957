// libFuzzer target: rocprofv3's counter_collection.csv and agent_info.csv (untrusted
// profiler files) through parse_rocprof_counters (no filter, and the kernel regex the
// loop uses) and parse_rocprof_agent_info. Contract: a value or a one-line Error.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "swizzleperf/backend/rocprof_parser.h"

namespace {
void check_error_line(const swz::Error& e) {
  if (e.message.empty() || e.message.find('\n') != std::string::npos) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::string_view regex : {std::string_view{}, std::string_view{"gemm_kernel"}}) {
    auto m = swz::parse_rocprof_counters(text, regex);
    if (m) {
      if (m->l2_hit_pct && !(*m->l2_hit_pct >= 0 && *m->l2_hit_pct <= 100)) std::abort();
    } else {
      check_error_line(m.error());
    }
  }
  if (auto a = swz::parse_rocprof_agent_info(text); !a) check_error_line(a.error());
  return 0;
}
