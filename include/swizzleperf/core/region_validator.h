// Region validator: the swizzle region is untrusted code (LLM output, a file
// someone sent), so before anything compiles or runs it, it must parse as a
// small C++ subset that can only compute integers: SWZ_HD functions over
// integral parameters and a SwizzleGrid (by value, `.m`/`.n`), integral locals,
// if/else, for/while, return/break/continue, integer literals, the arithmetic,
// bitwise, comparison, logical, ternary and assignment operators, SWZ_NUM_DIES,
// integral casts and calls to functions the region defines (declared before the
// call, no recursion). Everything else is rejected with ONE line naming the
// line (counted within the region, from 1) and the offending token, e.g.
//   line 3: 'system': call to a function not defined in the region
// The accepted subset is documented in docs/kernel-contract.md §1. A Triton program's
// region (Python) has its own validator, core/py_region; core/valid_region picks one by
// the program's language and makes the ValidRegion the rest of the tool carries.
#pragma once

#include <string>
#include <string_view>

#include "swizzleperf/util/result.h"

namespace swz {

struct RegionVerdict {
  bool ok = false;
  int line = 0;        // 1-based line within the region; 0 when ok
  std::string token;   // the offending token as written (shortened when long)
  std::string reason;  // why it is rejected
  // "line 3: 'system': call to a function not defined in the region"; "" when ok.
  std::string message() const;
};

// Never throws, for any bytes.
RegionVerdict validate_region_code(std::string_view code);

// The same as a Status: an Error whose message is "swizzle region rejected: <message()>".
Status check_region_code(std::string_view code);

}  // namespace swz
