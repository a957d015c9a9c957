#include "swizzleperf/loop/measure_settings.h"

namespace swz {

MeasureSetup measure_setup_from(const RunConfig& c) {
  MeasureSetup s;
  s.size = c.size;
  s.time_reps = c.time_reps;
  s.warmup = c.warmup;
  s.recheck_rounds = c.recheck_rounds;
  s.max_rounds = c.timing.max_rounds;
  s.judge_s = c.timing.judge_s;
  s.timing = c.timing;
  s.objective = c.objective;
  s.host_cxx = c.host_cxx;
  s.profile_launches = c.profile_launches;
  return s;
}

bool profile_each(const RunConfig& c, const std::string& proposer) {
  if (c.profile == "each") return true;
  if (c.profile == "winner") return false;
  // gate reports its one candidate's L2 against the baseline's, whatever its verdict.
  return proposer == "llm" || c.objective == Objective::l2 || c.command == "gate";
}

ToolOptions tool_options_with(const RunConfig& c, ToolOptions tools) {
  tools.arch = c.arch;
  tools.run_timeout = std::chrono::seconds(c.run_timeout_s);
  tools.build_timeout = std::chrono::seconds(c.build_timeout_s);
  tools.profile_timeout = std::chrono::seconds(c.profile_timeout_s);
  tools.profile_launches = c.profile_launches;
  return tools;
}

}  // namespace swz
