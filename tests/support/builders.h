// Test builders for the loop's records: attempts, metrics and histories, so unit
// tests state only what matters to them ("attempt 3, ok, 85 % L2, 2 ms") instead of
// filling structs field by field in every file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "swizzleperf/core/history.h"

namespace swz::test {

// Metrics with an L2 hit rate and, optionally, the traffic counters.
Metrics metrics_with(double l2_hit_pct, std::optional<double> dram_read_bytes = std::nullopt,
                     std::optional<double> dram_write_bytes = std::nullopt,
                     std::optional<double> fabric_sectors = std::nullopt);

// A fluent Attempt: AttemptBuilder(3).label("grouped_m(G=8)").l2(85).ms(2.0).build().
class AttemptBuilder {
 public:
  explicit AttemptBuilder(int iteration);
  AttemptBuilder& label(std::string label);
  AttemptBuilder& proposer(std::string proposer);
  AttemptBuilder& status(AttemptStatus status, std::string reason = "");
  AttemptBuilder& region(std::string region);
  AttemptBuilder& family(const std::string& family, int param);  // proposal {family, param}
  AttemptBuilder& l2(double l2_hit_pct);                          // metrics with this hit rate
  AttemptBuilder& metrics(Metrics m);
  AttemptBuilder& ms(double median_ms, int reps = 10);           // timing: median = min = max
  AttemptBuilder& speedup(std::optional<double> s);
  // Build defines (a tuning point), written in whatever type Attempt::defines holds.
  AttemptBuilder& defines(const std::map<std::string, std::int64_t>& defines);
  AttemptBuilder& wall(double seconds);                           // wall_seconds
  Attempt build() const { return a_; }
  operator Attempt() const { return a_; }  // NOLINT: builders read best without .build()

 private:
  Attempt a_;
};

// A completed history of `kernel_name` with a baseline and attempts.
RunHistory history_with(std::optional<Attempt> baseline, std::vector<Attempt> attempts,
                        const std::string& kernel_name = "gemm");

}  // namespace swz::test
