// The real binary started without waiting, for tests that interrupt a run mid-way, and what
// the run's history holds meanwhile.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "support/fixtures.h"

namespace swz::test {

// Starts swizzleperf with args in cwd, the environment plus `env` (NAME=VALUE), its
// stdout and stderr to /dev/null; the child's pid (-1 when it could not start).
pid_t spawn_cli(const std::vector<std::string>& args, const fs::path& cwd, const std::vector<std::string>& env);

// Attempts in the history file at `history` (0 while it is missing or being replaced).
int attempts_recorded(const fs::path& history);

}  // namespace swz::test
