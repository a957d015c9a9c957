// PowerCappedGpu: a MemberTimer (loop/member_timer.h) that answers from a model of a
// GPU under its power cap, in simulated time, so the speed judge's rules are tested
// in-process on the physics that makes them hard (docs/timing.md):
//  - an order's clock depends on its own DRAM traffic: a member draws
//    idle + compute + dram_w * traffic watts at the boost clock; above the cap the clock
//    drops until it fits (power ~ clock^2 for the compute part), so the identity order
//    of a GEMM that streams its weights from DRAM runs slower in every round;
//  - in a burst the GPU has cooled during the pause and holds more headroom (the cap is
//    burst_cap_w); in sustained it has not (sustained_cap_w);
//  - a drift: the cap slides by drift_per_s per simulated second (the slow warm-up of a
//    GPU at its cap), touching every member alike;
//  - noise: each request's time times (1 + noise * u), u uniform in [-1, 1], seeded;
//  - an external throttling event: member m's k-th request runs at 70 % clock and
//    reports a hardware slowdown (NVML 0x8), hitting that member only.
// A member's time is compute_ms at the boost clock, scaled by boost / clock, plus
// memory_ms that no clock changes. Every number is a model for tests, not a measurement.
#pragma once

#include <random>
#include <vector>

#include "swizzleperf/loop/member_timer.h"

namespace swz::test {

struct SimMember {
  double compute_ms = 1.0;  // at the boost clock
  double memory_ms = 0.0;   // clock-independent
  double traffic = 0.0;     // DRAM traffic, 0..1 (1: the whole DRAM bandwidth)
  double self_drift_per_s = 0;  // this member alone slows by this fraction per simulated second
};

struct PowerModel {
  double boost_mhz = 1980;
  double idle_w = 100, compute_w = 450, dram_w = 250;  // at the boost clock, full traffic
  double burst_cap_w = 700, sustained_cap_w = 600;
  double drift_per_s = 0;      // the cap's slide per simulated second (e.g. -0.002: 0.2 % down)
  double noise = 0.005;        // relative, per request
  double burst_request_s = 0.06, sustained_window_s = 1.0;
  bool sustained = false;
  unsigned seed = 1;
};

class PowerCappedGpu final : public MemberTimer {
 public:
  PowerCappedGpu(std::vector<SimMember> members, PowerModel model);
  // Member m's k-th request (counting from 1) runs at 70 % clock, reason hw_slowdown.
  void throttle(std::size_t member, int request) { throttled_.push_back({member, request}); }

  std::size_t members() const override { return members_.size(); }
  Result<MemberSample> time(std::size_t member) override;
  Status warm(std::size_t member, double seconds) override;
  void pause(std::chrono::milliseconds ms) override { now_ += ms.count() / 1000.0; }
  double now_s() const override { return now_; }

  // The clock member m runs at now (no noise, no event): what a test expects.
  double clock_mhz(std::size_t member) const;
  // Requests made so far, per member.
  const std::vector<int>& requests() const { return requests_; }

 private:
  std::vector<SimMember> members_;
  PowerModel m_;
  std::vector<std::pair<std::size_t, int>> throttled_;
  std::vector<int> requests_;
  std::mt19937 rng_;
  double now_ = 0;
};

}  // namespace swz::test
