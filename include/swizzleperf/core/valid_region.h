// ValidRegion: a swizzle region that passed its language's validator where it entered
// the tool (a proposal, the kernel file, a history on resume): the only form in which
// region code reaches a stage that compiles or runs it. A C++ region (a .hip/.cu
// program) is checked by core/region_validator; a Python region (a Triton program) by
// core/py_region, which also translates it into the C++ subset, so the host mapping
// check runs every region through one confined evaluator.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "swizzleperf/core/history.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/region_validator.h"
#include "swizzleperf/util/result.h"

namespace swz {

// The language's validator: validate_region_code (C++) or validate_py_region (Python).
RegionVerdict validate_region_in(std::string_view code, RegionLanguage language);
// The same as a Status: an Error whose message is "swizzle region rejected: <message()>".
Status check_region_in(std::string_view code, RegionLanguage language);

class ValidRegion {
 public:
  // Error: "swizzle region rejected: ..." (the validator) or validate_region's message.
  // verdict, when given, receives the validator's own verdict (ok when it passed).
  static Result<ValidRegion> make(std::string code, RegionLanguage language, RegionVerdict* verdict = nullptr);
  // A C++ region (the form most tests use).
  static Result<ValidRegion> make(std::string code, RegionVerdict* verdict = nullptr) {
    return make(std::move(code), RegionLanguage::cpp, verdict);
  }
  // The region as written, in its language: what is spliced into the program.
  const std::string& code() const { return code_; }
  RegionLanguage language() const { return language_; }
  // The region in the C++ subset, for the host evaluator: code() itself, or a Python
  // region's translation (itself validated by region_validator when it was made).
  const std::string& evaluable_code() const { return language_ == RegionLanguage::cpp ? code_ : translated_; }

 private:
  ValidRegion(std::string code, RegionLanguage language, std::string translated)
      : code_(std::move(code)), language_(language), translated_(std::move(translated)) {}
  std::string code_;
  RegionLanguage language_ = RegionLanguage::cpp;
  std::string translated_;
};

// --resume: every region a loaded history will use again must still pass: the
// baseline's and every `ok` attempt's (the best program and `sweep --run` splice them).
// Attempts that failed stay recorded as they are. The Error names the attempt.
// Returns the validated regions of the ok attempts, by iteration.
Result<std::map<int, ValidRegion>> validate_recorded_regions(const RunHistory& history,
                                                             RegionLanguage language = RegionLanguage::cpp);
// The same, as a Status.
Status check_recorded_regions(const RunHistory& history, RegionLanguage language = RegionLanguage::cpp);

}  // namespace swz
