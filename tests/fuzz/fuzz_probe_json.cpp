// libFuzzer target: hardware.json (the probe result `swizzleperf probe` writes and
// every later run reads from its cache) through parse_probe (core/probe_record.h),
// the function load_probe uses, then apply_probe onto a matching profile and the dispatch
// table lookups the mapping check makes. Contract: a value or an Error; never a
// crash, leak or UB.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/probe_record.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = swz::probe::parse_probe(text);
  if (!p) return 0;
  swz::HardwareProfile hw;
  hw.vendor = p->vendor;
  hw.name = p->device_name;
  hw.compute_units = p->sm_count;
  hw.l2_bytes = 50 << 20;
  if (swz::probe::apply_probe(hw, *p)) {
    if (hw.num_dies < 1) std::abort();
    for (unsigned pid = 0; pid < 64; ++pid) (void)(hw.dispatch.die_of(pid, hw.num_dies) % hw.num_dies);
    (void)hw.summary();
  }
  (void)nlohmann::json(*p).dump();
  return 0;
}
