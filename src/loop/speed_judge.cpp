// Interleaved timing of two programs and its paired-ratio verdict.
#include "swizzleperf/loop/speed_judge.h"

#include <fmt/format.h>

namespace swz {

void to_json(nlohmann::json& j, const SpeedComparison& c) {
  j = {{"speedup", c.ratio.estimate}, {"ci_low", c.ratio.low}, {"ci_high", c.ratio.high},
       {"confidence", c.ratio.confidence}, {"level", c.ratio.level}, {"significant", c.ratio.significant},
       {"rounds", c.ratio.n}, {"runs", c.runs}, {"seconds", c.seconds},
       {"baseline_ms", c.baseline_ms}, {"candidate_ms", c.candidate_ms},
       {"method", "sign-test interval of the median per-round ratio baseline/candidate, rounds interleaved A B A B"}};
}

Result<SpeedComparison> compare_speed(Backend& backend, const std::filesystem::path& exe_base,
                                      const std::filesystem::path& exe_cand, const std::vector<std::string>& args,
                                      int rounds, std::chrono::seconds timeout) {
  if (rounds < 1) return make_error(fmt::format("a speed comparison needs at least 1 round, got {}", rounds));
  const auto t0 = std::chrono::steady_clock::now();
  SpeedComparison c;
  auto time_one = [&](const std::filesystem::path& exe, const char* who) -> Result<double> {
    auto r = backend.run_program(exe, args, timeout);
    ++c.runs;
    if (!r.process.success() || !r.json.is_object() || !r.json.contains("median_ms") || !r.json["median_ms"].is_number())
      return make_error(fmt::format("{} time mode failed in the speed re-check: {}: {}", who, r.process.describe(),
                                    tail_lines(r.process.err + r.process.out, 1)));
    return r.json["median_ms"].get<double>();
  };
  for (int i = 0; i < rounds; ++i) {
    if (interrupt_requested()) return make_error("interrupted");
    auto a = time_one(exe_base, "baseline");
    if (!a) return a.error();
    auto b = time_one(exe_cand, "candidate");
    if (!b) return b.error();
    c.baseline_ms.push_back(*a);
    c.candidate_ms.push_back(*b);
  }
  auto ratio = paired_ratio_interval(c.baseline_ms, c.candidate_ms);
  if (!ratio) return ratio.error();
  c.ratio = *ratio;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

}  // namespace swz
