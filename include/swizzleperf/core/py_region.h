// Triton swizzle regions: the region of a Triton (.py) program, between the
// lines `# swizzleperf:begin` and `# swizzleperf:end`, holds `@triton.jit`
// functions, one of them `swizzle_pid(pid, num_pids, grid_m, grid_n)`. It is
// untrusted text (LLM output), so it is accepted only when it parses as a small
// Python subset that can only compute int32 values, and it is then translated
// into the C++ region subset (region_validator.h) so that the one confined host
// evaluator of the mapping check checks both languages: one evaluator, two
// front ends.
//
// The subset, its int32 semantics and the limits are stated at the top of
// src/core/py_region.cpp; in short:
//  - top level: only `@triton.jit` + `def name(p1, p2, ...):` definitions, names
//    unique, one of them swizzle_pid with exactly 4 parameters;
//  - statements: `x = e`, `x op= e` (+ - * // % << >> & | ^), if/elif/else,
//    return e, pass; expressions over int32 and bool: literals up to 2**31 - 1,
//    True/False, names, SWZ_NUM_DIES, calls to functions defined EARLIER in the
//    region, tl.cdiv/tl.minimum/tl.maximum, unary - + ~ not, binary
//    + - * // % << >> & | ^, one comparison, and/or, `a if c else b`;
//  - static types (int or bool, no promotion of bool), definite assignment,
//    every path ends in return;
//  - limits: 64 KiB of text, 10,000 tokens, 200 levels of parser nesting, and a
//    nesting bound on what the C++ translation needs (so that it passes the C++
//    validator's own bound of 200).
// Rejections are ONE line naming the line within the region (1-based) and the
// token, like the C++ validator's: "line 3: 'system': call to a function not
// defined in the region".
#pragma once

#include <string>
#include <string_view>

#include "swizzleperf/core/region_validator.h"  // RegionVerdict
#include "swizzleperf/util/result.h"

namespace swz {

// Validates a Triton swizzle region (the Python subset above). Never throws, any
// bytes, linear time (with the bounds above); the verdict's message() has the C++
// validator's form: "line L: 'TOKEN': reason" (line 0 and the reason alone for
// the whole region: its size, or its translation's size).
RegionVerdict validate_py_region(std::string_view code);

// A validated region translated to the C++ region subset: the text passes
// validate_region_code() and defines
//   SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid)
// which converts its arguments to int32 and calls the translated Python
// swizzle_pid(pid, num_pids, grid.m, grid.n); the int32 result is returned cast to
// unsigned (a negative result becomes a huge pid, which the bijection check
// refuses). Python names become py_<name> (pyu<name> for a name starting with
// '_'); the helpers the translation uses are named swz_py_*. A division or
// remainder by zero is left to trap in the evaluator (the mapping check reports
// the crash). Error (message "swizzle region rejected: <verdict.message()>") when
// the region does not validate. Never throws.
Result<std::string> translate_py_region(std::string_view code);

}  // namespace swz
