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
// The accepted subset is documented in docs/kernel-contract.md §1.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "swizzleperf/core/history.h"
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

// A region that passed both checks where it entered the tool (the validator above
// and kernel_source's validate_region): the only form in which region code reaches
// a stage that compiles or runs it. Made once, at entry (a proposal, the kernel
// file, a history on resume), and carried from there.
class ValidRegion {
 public:
  // Error: "swizzle region rejected: ..." (validator) or validate_region's message.
  // verdict, when given, receives the validator's own verdict (ok when it passed).
  static Result<ValidRegion> make(std::string code, RegionVerdict* verdict = nullptr);
  const std::string& code() const { return code_; }

 private:
  explicit ValidRegion(std::string code) : code_(std::move(code)) {}
  std::string code_;
};

// --resume: every region a loaded history will use again must still pass: the
// baseline's and every `ok` attempt's (best.hip and `sweep --run` splice them).
// Attempts that failed stay recorded as they are. The Error names the attempt.
// Returns the validated regions of the ok attempts, by iteration.
Result<std::map<int, ValidRegion>> validate_recorded_regions(const RunHistory& history);
// The same, as a Status.
Status check_recorded_regions(const RunHistory& history);

}  // namespace swz
