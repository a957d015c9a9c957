// `swizzleperf init kernel.py`: a plain Triton file (one or more @triton.jit kernels, the one
// to port reading its program id from `tl.program_id(0)` on a 1-D launch over tiles, and
// possibly a host wrapper launching it `kernel[grid](...)`) turned into a Triton program
// under the contract (docs/kernel-contract.md §6), finished by filling in its
// `# swizzleperf:TODO` lines. What is written:
//   1. a header comment (where it came from, what to do next, a TODO for the default-grid line);
//   2. the input's leading imports, then what the contract needs that they lack (os, sys,
//      torch, triton, triton.language as tl), the sys.path line that finds swz_triton.py, its
//      import and the identity region;
//   3. the rest of the input as it was, except: the ported kernel takes its tile from
//      `swizzle_pid(tl.program_id(0), tl.num_programs(0), grid_m, grid_n)`, grid_m and
//      grid_n being the kernel's own `tl.cdiv(...)` tile counts (the program-id line moves
//      below them when they come later) or a TODO; a kernel that orders its tiles itself
//      (a GROUP* parameter) gets a TODO to launch it with 1 or drop the grouping; the file's
//      `if __name__ == "__main__":` block is kept for reference under `if False:`;
//   4. a SwzProgram skeleton whose run() holds the wrapper's launch on (grid_m * grid_n,)
//      programs, and the contract's `__main__`.
// Everything is found by core/triton_scan; nothing here touches a file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "swizzleperf/core/kernel_init.h"
#include "swizzleperf/util/result.h"

namespace swz {

// The contract program made from `text` (the contents of `input`, a .py file). `kernel` picks
// the @triton.jit kernel to port when several read tl.program_id(0); `output` is the path the
// program will be written to (its directory places the sys.path line; empty:
// default_init_output(input)); `support_dir` is the directory holding swz_triton.py as the
// binary finds it (absolute; empty when unknown: the sys.path line is then a TODO). Errors,
// one line each: more than kMaxKernelFileBytes, a file already under the contract, no
// @triton.jit kernel, none (or `kernel` not one) that reads tl.program_id(0), several and no
// `kernel`.
Result<InitResult> make_triton_program(std::string_view text, const std::filesystem::path& input,
                                       const std::optional<std::string>& kernel, const std::filesystem::path& output,
                                       const std::filesystem::path& support_dir);

}  // namespace swz
