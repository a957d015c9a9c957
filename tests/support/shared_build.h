// A program built once for every test process that needs it. CTest runs each test in a
// process of its own, so a suite's SetUpTestSuite runs once a test, and a build made there is
// made again for each (six nvcc builds of one program for HarnessDefaults). shared_build keeps
// the program in the build tree (<build>/tests/shared-builds/NAME-<hash>), under a name that
// hashes everything that goes into it, which the caller lists in `inputs` (the source text,
// the compiler, its flags, tree_text() of the headers it includes): a change to any of them
// is a new name, so a kept program is never stale. A failed build is not kept.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "swizzleperf/util/process.h"

namespace swz::test {

struct SharedBuild {
  bool ok = false;
  std::filesystem::path path;  // the program, when ok
  std::string log;             // the build's command outcome and output, when it ran and failed
};

// The kept program for `inputs`, or `build(out)` run to make it. `build` writes the program
// to `out` (a temporary name beside the kept one, renamed into place when the build succeeds,
// so two processes building at once each leave a whole program).
SharedBuild shared_build(const std::string& name, const std::string& inputs,
                         const std::function<ProcessResult(const std::filesystem::path& out)>& build);

// Every regular file under `dir`, its path relative to `dir` and its bytes, in path order:
// an input that changes when any header under `dir` does.
std::string tree_text(const std::filesystem::path& dir);

// A compiler's identity for `inputs`: its path, size and modification time.
std::string tool_identity(const std::filesystem::path& tool);

}  // namespace swz::test
