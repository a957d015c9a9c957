// A run directory named on the command line (`optimize --resume DIR`, `sweep --run
// DIR`): checked before anything reads it, so a wrong path gets its real cause in one
// line ("does not exist", "is a file, not a run directory") instead of a bare "cannot
// read history".
#pragma once

#include <filesystem>
#include <string>

#include "swizzleperf/util/result.h"

namespace swz::cli {

// Ok when `dir` is a directory holding history.json. The Error starts with `option`
// and the path ("--resume empty.cu is a file, not a run directory: ...") and says what
// to give instead.
Status check_run_dir_arg(const std::filesystem::path& dir, const std::string& option);

}  // namespace swz::cli
