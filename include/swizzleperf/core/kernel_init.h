// `swizzleperf init`: a plain CUDA/HIP kernel file turned into a contract program
// (docs/kernel-contract.md) that a person finishes by filling in its
// `swizzleperf:TODO` lines. What is written:
//   1. a header comment (where the file came from, what to do next, and a TODO for
//      the default-grid line);
//   2. the input's leading include block as it was, `#include "swz_harness.h"` and
//      the identity swizzle region;
//   3. the rest of the input byte for byte, except: the chosen kernel takes a last
//      parameter `dim3 swz_grid` and starts by taking its block from swizzle_pid
//      (blockIdx.x/y/z -> swz_block_idx.x/y/z, gridDim.x/y/z -> swz_grid.x/y/z in its
//      body); each launch of it outside main launches swz_flat_grid(G) blocks and
//      passes G; main is kept under `#if 0` for reference; what init cannot rewrite
//      (a bare blockIdx, a helper that reads blockIdx) gets a TODO and a warning;
//   4. a SwzProgram skeleton whose run() holds the original launch, rewritten.
// Everything is found by core/cuda_scan; nothing here touches a file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/util/result.h"

namespace swz {

struct InitResult {
  std::string text;            // the new program
  std::string kernel;          // the kernel it was made from
  int grid_dims = 1;           // 1, 2 or 3: the highest member (.x/.y/.z) the kernel and its helpers read
  std::size_t todo_count = 0;  // swizzleperf:TODO comments in `text` (any the input had included)
  // One line each, "LINE: what was left for the user", LINE a line of the input; in
  // line order.
  std::vector<std::string> warnings;
};

// `<dir>/<stem>_swz<ext>`: blur.cu -> blur_swz.cu.
std::filesystem::path default_init_output(const std::filesystem::path& input);

// A .cu, .hip or .cuh name; else the Error "init takes a .cu or .hip file ...".
Status check_init_input_name(const std::filesystem::path& input);
// The output's language (language_of: .py is Python, anything else C++) must be the
// input's: C++ written to blur.py would be taken for a Triton program by every command.
// The Error names -o, both languages and the endings to use.
Status check_init_output_name(const std::filesystem::path& input, const std::filesystem::path& output);

// The contract program made from `text` (the contents of `input`, which names it in
// messages and in the program). `kernel` picks one when the file defines several;
// `output` is the path the program will be written to (only its file name is used,
// in the header's instructions; empty: default_init_output(input)). Errors, one line
// each: a name init does not take, more than kMaxKernelFileBytes, a file already
// under the contract, no __global__ kernel, several and no `kernel`, `kernel` not
// among them (the names are listed), no launch of the kernel.
Result<InitResult> make_contract_program(std::string_view text, const std::filesystem::path& input,
                                         const std::optional<std::string>& kernel,
                                         const std::filesystem::path& output = {});

}  // namespace swz
