#include "support/power_capped_gpu.h"

#include <algorithm>
#include <cmath>

#include "swizzleperf/core/metrics.h"

namespace swz::test {

PowerCappedGpu::PowerCappedGpu(std::vector<SimMember> members, PowerModel model)
    : members_(std::move(members)), m_(model), requests_(members_.size(), 0), rng_(model.seed) {}

double PowerCappedGpu::clock_mhz(std::size_t member) const {
  const SimMember& s = members_[member];
  const double cap = (m_.sustained ? m_.sustained_cap_w : m_.burst_cap_w) * (1 + m_.drift_per_s * now_);
  // The compute part's power goes with clock^2 (voltage follows frequency); DRAM's does not.
  const double compute_budget = cap - m_.idle_w - m_.dram_w * s.traffic;
  if (compute_budget >= m_.compute_w) return m_.boost_mhz;
  return m_.boost_mhz * std::sqrt(std::max(compute_budget, 0.05 * m_.compute_w) / m_.compute_w);
}

Result<MemberSample> PowerCappedGpu::time(std::size_t member) {
  if (member >= members_.size()) return make_error("no such member");
  const int k = ++requests_[member];
  MemberSample out;
  double mhz = clock_mhz(member);
  for (const auto& [who, req] : throttled_)
    if (who == member && req == k) {
      mhz *= 0.7;
      out.reasons |= 0x8;  // hw_slowdown
    }
  if (mhz < m_.boost_mhz) out.reasons |= kClockReasonSwPowerCap;
  const SimMember& s = members_[member];
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double slow = 1 + s.self_drift_per_s * now_;
  out.ms = (s.compute_ms * m_.boost_mhz / mhz + s.memory_ms) * slow * (1 + m_.noise * u(rng_));
  out.mhz = mhz;
  if (m_.sustained) {
    const double watts = m_.idle_w + m_.compute_w * (mhz / m_.boost_mhz) * (mhz / m_.boost_mhz) + m_.dram_w * s.traffic;
    out.mj = watts * out.ms / 1000.0 * 1000.0;  // W x ms = mJ
  }
  now_ += m_.sustained ? m_.sustained_window_s : m_.burst_request_s;
  return out;
}

Status PowerCappedGpu::warm(std::size_t member, double seconds) {
  if (member >= members_.size()) return make_error("no such member");
  now_ += seconds;
  return ok_status();
}

}  // namespace swz::test
