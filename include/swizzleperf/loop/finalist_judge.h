// The speed judge over a run's finalists, once the search is over (again on a
// resume that added attempts): every earlier verdict undone (loop/finalists'
// clear_verdict), the finalists chosen (select_finalists), a program a resumed run
// lost rebuilt, and the baseline and the finalists timed in the judge's tournaments
// (AttemptPipeline::judge). Each finalist's verdict goes into its attempt
// (Attempt::recheck); the run's record is returned for RunHistory::judge. A rebuild
// that fails is recorded in that finalist's re-check (the baseline's, in every
// finalist's) and never fails the run.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/core/judge_record.h"
#include "swizzleperf/loop/attempt_pipeline.h"

namespace swz {

// Where a run keeps its programs: an attempt's dir, the baseline's, the source's name
// in them (kernel.hip or kernel.py); each dir's binary is `kernel`.
struct RunDirs {
  std::function<std::filesystem::path(int)> attempt_dir;
  std::filesystem::path baseline_dir;
  std::string source_name;
};

// dir/kernel, rebuilt from dir/<source_name> (with the attempt's defines) when it is
// missing (a resumed run: the binaries went with the last session).
Status ensure_program(Backend& backend, const HardwareProfile& hw, const std::filesystem::path& dir,
                      const std::string& source_name, const Defines& defines = {});

// The judge over h's finalists (h.config's rounds and finalist count); Ctrl-C leaves
// the record unfinished (the caller does not keep it: a resume judges again).
JudgeRecord judge_finalists(RunHistory& h, AttemptPipeline& pipeline, Backend& backend, const HardwareProfile& hw,
                            const RunDirs& dirs);
// `--profile winner`: the run's best after the judge, profiled once (a report shows its
// L2 hit rate against the baseline's) unless it already was. A profile that fails is
// logged and leaves the winner as judged.
void profile_winner(RunHistory& h, AttemptPipeline& pipeline, Backend& backend, const HardwareProfile& hw,
                    const RunDirs& dirs);

}  // namespace swz
