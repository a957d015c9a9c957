// Templating: stage one of tuning. A plain kernel program sizes its tiles, blocks, warps and
// stages with integer constants; this module finds them and proposes each as a declared
// tunable (tune/tune_space's grammar) with a range around its value, writing the program
// again with the declarations in place. A proposal is for the user to review: it names only
// constants whose name says what they size, and says which it left alone and why.
//
// What is found:
//   C++     `#define NAME 128`                     -> the guarded define with its tunable comment
//           `constexpr int NAME = 128;` (static, const int, several declarators on a line)
//                                                  -> `constexpr int NAME = SWZ_T_NAME;` under a
//                                                     guarded `#define SWZ_T_NAME 128 // swizzleperf:tunable ..`
//   Python  module-level `NAME = 128`              -> `NAME = 128  # swizzleperf:tunable ..`
//           `num_warps=8`, `num_stages=3` in a launch call
//                                                  -> lifted to module constants NUM_WARPS, NUM_STAGES
//   Noted, not proposed: `NAME: tl.constexpr = 64` defaults in a @triton.jit signature (not
//   module-level), a constant sizing a plain array (not a tile), an expression, a value that
//   is not a power of two (or, for stages, not 1..8), constants inside the swizzle region.
// A name counts when it holds BLOCK, TILE, WARP, STAGE, THREAD or GROUP (any case), or a word
// BM, BN or BK (`BM`, `kBM`, `TILE_BK`). A C++ `swizzleperf:shared-bytes` rule is proposed only
// when every `__shared__` array of a one-kernel file has dimensions made of the proposed
// tunables and literals and a known element type; otherwise none.
//
// The scan is line by line over the text with comments and string literals blanked (no regex,
// no recursion); text past kMaxTemplateScanBytes is refused, and at most kMaxTunables constants
// are proposed. The rewritten program is checked with parse_tune_space: it parses and its own
// point is the original values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/tune/tune_space.h"
#include "swizzleperf/util/result.h"

namespace swz {

inline constexpr std::size_t kMaxTemplateScanBytes = kMaxKernelFileBytes;

// How a found constant is written in the original program.
enum class ConstantForm { cpp_define, cpp_const, py_module, py_launch };
const char* constant_form_name(ConstantForm form);  // "#define", "constexpr", "module", "launch"

struct ProposedTunable {
  std::string name;      // the constant as the program names it (py_launch: "num_warps")
  std::string tunable;   // its tunable's name in the template (SWZ_T_NAME, NUM_WARPS, or name)
  std::int64_t value = 0;
  std::vector<std::int64_t> values;  // the proposed range, ascending, holding value
  ConstantForm form = ConstantForm::cpp_define;
  std::string role;      // tile | threads | warps | stages | group
  int line = 0;          // 1-based, in the original
};

struct SkippedConstant {
  std::string name;
  int line = 0;
  std::string why;  // one line
};

struct TemplateProposal {
  std::vector<ProposedTunable> tunables;  // original line order
  std::vector<SkippedConstant> skipped;
  std::optional<std::string> shared_bytes;  // the proposed rule's expression, when told
  std::string text;                         // the templated program (the original when nothing was found)
};

// The proposal for `text` (a program in `language`; `name` prefixes errors). A program whose
// own tunable declarations do not parse is an error; its declared tunables are left as they are.
Result<TemplateProposal> propose_template(std::string_view text, RegionLanguage language, const std::string& name);

// An untrusted template (an LLM's reply) of `original`: it must parse as a tune space with at
// least one tunable, still hold one swizzle region (when the original does) and the original's
// kernels (the same @triton.jit functions / __global__ kernels by name, in order), and declare
// every tunable that stands for one of the original's constants at that constant's value (its
// name, or SWZ_T_ and its name). The space, or the one-line reason it is refused. What else the
// reply changed is not compared here: the build-and-compare gate that comes after it catches a
// change that shows in the program's verify or output.
Result<TuneSpace> check_template_reply(std::string_view original, std::string_view reply, RegionLanguage language,
                                       const std::string& name);

}  // namespace swz
