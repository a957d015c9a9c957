// A run directory named on the command line, checked before it is read (run_dir_arg.h).
#include "swizzleperf/cli/run_dir_arg.h"

#include "swizzleperf/util/text.h"

namespace swz::cli {

namespace fs = std::filesystem;

Status check_run_dir_arg(const fs::path& dir, const std::string& option) {
  const std::string named = option + " " + one_line(dir.string(), 200);
  const std::string give = "give the directory an optimize run wrote (runs/<kernel>-<time>, holding history.json)";
  std::error_code ec;
  const auto st = fs::status(dir, ec);
  if (!fs::exists(st)) return make_error(named + " does not exist: " + give);
  if (!fs::is_directory(st)) return make_error(named + " is a file, not a run directory: " + give);
  if (!fs::exists(dir / "history.json", ec))
    return make_error(named + " is not a run directory (it holds no history.json): " + give);
  return ok_status();
}

}  // namespace swz::cli
