// The judge over a run's finalists (contract: loop/finalist_judge.h).
#include "swizzleperf/loop/finalist_judge.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <vector>

#include "swizzleperf/loop/finalists.h"

namespace swz {

namespace fs = std::filesystem;

Status ensure_program(Backend& backend, const HardwareProfile& hw, const fs::path& dir, const std::string& source_name,
                      const Defines& defines) {
  std::error_code ec;
  if (fs::exists(dir / "kernel", ec)) return ok_status();
  BuildRequest request{dir / source_name, dir / "kernel", hw.num_dies, hw.arch};
  request.defines = defines;
  auto built = backend.build(request);
  if (!built || !built->ok)
    return make_error("could not rebuild " + (dir / source_name).string() + " for the speed judge: " +
                      (built ? built->failure : built.error().message));
  return ok_status();
}

JudgeRecord judge_finalists(RunHistory& h, AttemptPipeline& pipeline, Backend& backend, const HardwareProfile& hw,
                            const RunDirs& dirs) {
  const RunConfig& c = h.config;
  for (auto& a : h.attempts)
    if (a.recheck) clear_verdict(a, h.baseline ? &*h.baseline : nullptr);
  const auto picked = select_finalists(h, c.finalists);
  JudgeRecord record;
  if (picked.empty()) {
    record.why_none = fmt::format("no validated candidate came within {:.0f} % of the baseline in its one-shot timing",
                                  kFinalistSlack * 100);
    return record;
  }
  std::vector<Attempt*> finalists;
  std::vector<fs::path> exes;
  for (std::size_t i : picked) {
    Attempt& a = h.attempts[i];
    if (auto st = ensure_program(backend, hw, dirs.attempt_dir(a.iteration), dirs.source_name, a.defines); !st) {
      a.recheck = Recheck{a.speedup.value_or(0), st.error().message, {}, ""};
      continue;
    }
    finalists.push_back(&a);
    exes.push_back(dirs.attempt_dir(a.iteration) / "kernel");
    record.finalists.push_back({a.iteration, a.label, a.speedup.value_or(0)});
  }
  if (auto st = ensure_program(backend, hw, dirs.baseline_dir, dirs.source_name); !st) {
    // Recorded as a finalist's own rebuild failure is (the screening's speedup stands as it is).
    for (Attempt* a : finalists) a->recheck = Recheck{std::nullopt, st.error().message, {}, ""};
    finalists.clear();
  }
  if (finalists.empty()) return record;
  spdlog::info("speed judge: the baseline and {} finalist(s), interleaved, {}", finalists.size(),
               c.timing.regime == Regime::both ? "burst then sustained" : to_string(c.timing.regime));
  const auto t0 = std::chrono::steady_clock::now();
  record.tournaments = pipeline.judge(finalists, exes, dirs.baseline_dir / "kernel");
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return record;
}

void profile_winner(RunHistory& h, AttemptPipeline& pipeline, Backend& backend, const HardwareProfile& hw,
                    const RunDirs& dirs) {
  const Attempt* best = h.best();
  if (best == nullptr || best->metrics) return;
  Attempt& winner = h.attempts[static_cast<std::size_t>(best - h.attempts.data())];
  const fs::path dir = dirs.attempt_dir(winner.iteration);
  if (auto st = ensure_program(backend, hw, dir, dirs.source_name, winner.defines); !st) {
    spdlog::warn("the winner was not profiled: {}", st.error().message);
    return;
  }
  Attempt probe = winner;  // a failed profile leaves the winner as it was judged
  const StageResult r = pipeline.profile(probe, dir / "kernel", dir);
  if (!r.passed()) {
    if (r.end == StageEnd::failed) spdlog::warn("the winner was not profiled: {}", probe.reason);
    return;
  }
  winner.metrics = probe.metrics;
  winner.stage_seconds["profile"] = probe.stage_seconds["profile"];
}

}  // namespace swz
