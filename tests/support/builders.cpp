// Test builders (see builders.h).
#include "support/builders.h"

#include <type_traits>

namespace swz::test {

Metrics metrics_with(double l2_hit_pct, std::optional<double> dram_read_bytes, std::optional<double> dram_write_bytes,
                     std::optional<double> fabric_sectors) {
  Metrics m;
  m.l2_hit_pct = l2_hit_pct;
  m.dram_read_bytes = dram_read_bytes;
  m.dram_write_bytes = dram_write_bytes;
  m.fabric_sectors = fabric_sectors;
  return m;
}

AttemptBuilder::AttemptBuilder(int iteration) {
  a_.iteration = iteration;
  a_.label = "it" + std::to_string(iteration);
  a_.proposer = iteration == 0 ? "baseline" : "builtin";
}

AttemptBuilder& AttemptBuilder::label(std::string label) {
  a_.label = std::move(label);
  return *this;
}
AttemptBuilder& AttemptBuilder::proposer(std::string proposer) {
  a_.proposer = std::move(proposer);
  return *this;
}
AttemptBuilder& AttemptBuilder::status(AttemptStatus status, std::string reason) {
  a_.status = status;
  a_.reason = std::move(reason);
  return *this;
}
AttemptBuilder& AttemptBuilder::region(std::string region) {
  a_.region = std::move(region);
  return *this;
}
AttemptBuilder& AttemptBuilder::family(const std::string& family, int param) {
  a_.proposal.family = family;
  a_.proposal.param = param;
  return *this;
}
AttemptBuilder& AttemptBuilder::l2(double l2_hit_pct) {
  if (!a_.metrics) a_.metrics = Metrics{};
  a_.metrics->l2_hit_pct = l2_hit_pct;
  return *this;
}
AttemptBuilder& AttemptBuilder::metrics(Metrics m) {
  a_.metrics = std::move(m);
  return *this;
}
AttemptBuilder& AttemptBuilder::ms(double median_ms, int reps) {
  a_.timing = Timing{median_ms, median_ms, median_ms, reps};
  return *this;
}
AttemptBuilder& AttemptBuilder::speedup(std::optional<double> s) {
  a_.speedup = s;
  return *this;
}

AttemptBuilder& AttemptBuilder::defines(const std::map<std::string, std::int64_t>& defines) {
  // A generic lambda, so that only the branch of the map's real value type is instantiated.
  auto fill = [&defines](auto& out) {
    using Value = typename std::decay_t<decltype(out)>::mapped_type;
    out.clear();
    for (const auto& kv : defines) {
      if constexpr (std::is_same_v<Value, std::string>)
        out[kv.first] = std::to_string(kv.second);
      else
        out[kv.first] = static_cast<Value>(kv.second);
    }
  };
  fill(a_.defines);
  return *this;
}
AttemptBuilder& AttemptBuilder::wall(double seconds) {
  a_.wall_seconds = seconds;
  return *this;
}

RunHistory history_with(std::optional<Attempt> baseline, std::vector<Attempt> attempts, const std::string& kernel_name) {
  RunHistory h;
  h.kernel_path = "/k/" + kernel_name + ".hip";
  h.kernel_name = kernel_name;
  h.state = "completed";
  h.baseline = std::move(baseline);
  h.attempts = std::move(attempts);
  return h;
}

}  // namespace swz::test
