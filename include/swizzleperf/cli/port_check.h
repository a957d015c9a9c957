// Port checks: what `swizzleperf check` finds wrong in a kernel program beyond its
// swizzle region, on a machine with no GPU. A port to the contract can fail in ways the
// mapping check never sees: a TODO of `swizzleperf init` left unfilled, a halo load that
// still reads blockIdx.y (so the block order bypasses the swizzle and a "faster" order
// computes the wrong tiles only at some sizes), a default-grid comment that disagrees with
// the program (so the host mapping check proves bijection on the wrong grid).
//
// Two layers:
//  - source_findings: the text alone, no tools. TODO marks are errors; block-index uses
//    outside swizzle_pid, and a 2-D/3-D launch left in run() (not swz_flat_grid), are
//    warnings (errors under --strict).
//  - program_findings: with a compiler and no GPU. The program is built for `info` only
//    (BuildRequest::info_only), `info` runs at the default size and at every verify size
//    it lists; its grid is compared with the default-grid comment, and each size must pass
//    the program's own size checks and report a grid and a footprint. For a 2-D port whose
//    source shows which size value bounds the kernel's x and y block index
//    (launch_axis_sizes), info also runs with each of those values halved (else doubled):
//    a grid whose rows move for x's value (columns for y's) is a swapped launch_grid. `info`
//    touches no GPU by contract, so this runs anywhere the compiler does. What no host check
//    sees (a wrong reference, wrong arithmetic) only the program's verify on a GPU shows.
// A finding is a fact about the kernel (exit 1 in check); an Error from program_findings
// is an environment problem (the compiler cannot be started, interrupted).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/program_info.h"
#include "swizzleperf/util/result.h"

namespace swz::cli {

struct PortFinding {
  bool error = false;    // false: a warning
  std::size_t line = 0;  // 1-based line in the kernel file; 0 when none applies
  std::string text;      // one line, no trailing period
};

// TODO marks (errors), block-index uses that bypass swizzle_pid and launches in run() that
// bypass swz_flat_grid (warnings, errors when `strict`), in file order.
std::vector<PortFinding> source_findings(const KernelSource& kernel, bool strict);

struct ProgramFacts {
  bool built = false;                // false: it did not compile (a finding says why)
  std::optional<ProgramInfo> info;   // `info` at the default size, when it ran
  std::size_t sizes_checked = 0;     // verify sizes run through `info --size`
  double build_seconds = 0;
  std::vector<PortFinding> findings;
};

struct ProgramCheckOptions {
  std::filesystem::path work_dir;    // where the program is built
  int num_dies = 1;                  // -DSWZ_NUM_DIES for the build (info reports it)
  std::string arch;                  // the backend's arch for the build ("" : its default)
  std::chrono::seconds run_timeout{30};
  std::size_t max_sizes = 16;        // verify sizes checked at most
};

// Builds `kernel` for info with `backend` and checks what the program says about itself.
Result<ProgramFacts> program_findings(const KernelSource& kernel, Backend& backend, const ProgramCheckOptions& options);

// What no host check can see, only the program's `verify` on a GPU (optimize's first step):
// one line, printed under a PASS.
extern const char* const kVerifyOnlyNote;

// "blur_swz.cu:12: error: ..." (no line: "blur_swz.cu: error: ...").
std::string format_finding(const std::string& file, const PortFinding& f);

}  // namespace swz::cli
