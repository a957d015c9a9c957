// Where a program's footprint comes from: its source's footprint section (between
// `// swizzleperf:footprint-begin` and `// swizzleperf:footprint-end`), cut out, compiled with
// the host C++ compiler into a small footprint program (cached by content, so a second
// prediction of the same program compiles nothing), and run at a size. No GPU, no GPU
// compiler: prediction works for any --arch on any machine. The section is the program's own
// code (the user's, as trusted as the kernel the tool builds and runs); an LLM never edits it.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/model/footprint.h"
#include "swizzleperf/util/process.h"
#include "swizzleperf/util/result.h"

namespace swz {

struct FootprintSection {
  std::string text;           // the lines between the markers
  std::size_t first_line = 0;  // 1-based line of the first of them
};

// The section, nullopt when the program has none; an Error for a begin without an end, an
// end without a begin, or two sections.
Result<std::optional<FootprintSection>> find_footprint_section(const std::string& source_text, const std::string& name);

struct FootprintSourceOptions {
  std::string host_compiler = "c++";
  std::filesystem::path support_dir;  // kernels/support: swz_footprint.h and swz_sizes.h
  std::filesystem::path cache_dir;    // compiled footprint programs; empty: a temporary dir
  std::chrono::milliseconds compile_timeout{std::chrono::seconds(120)};
  std::chrono::milliseconds run_timeout{std::chrono::seconds(60)};
  unsigned max_launches = 3;          // launches of one run() simulated: at most this many,
  bool middle = true;                 // around the middle of the run (as the profiler's window), else the first
};

// The compiled footprint program of `kernel` (from the cache when it is there). Its Errors are
// load_footprint's. Without a usable cache dir the program goes to a new temporary directory,
// returned in *temp_dir for the caller to remove.
Result<std::filesystem::path> footprint_program(const KernelSource& kernel, const FootprintSourceOptions& options,
                                                ProcessRunner& runner, std::filesystem::path* temp_dir = nullptr);

// The footprint of `kernel` at `size` (empty: the program's default). An Error says why it
// cannot be had: no section ("declares no footprint"), no host compiler, a section that does
// not compile (its first error line), a program that refuses the size, or output the parser
// refuses.
Result<ProgramFootprint> load_footprint(const KernelSource& kernel, const std::vector<long long>& size,
                                        const FootprintSourceOptions& options, ProcessRunner& runner);

// The footprint cache's default place: $XDG_CACHE_HOME/swizzleperf/footprint, else
// $HOME/.cache/swizzleperf/footprint; empty when neither is set.
std::filesystem::path default_footprint_cache_dir();

}  // namespace swz
