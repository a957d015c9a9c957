// ValidRegion: the language's validator, then kernel_source's checks of a region on its
// own, then (Python) the translation into the C++ subset, which must itself pass the C++
// validator: a translator bug can make a region fail, never let one through unchecked.
#include "swizzleperf/core/valid_region.h"

#include "swizzleperf/core/py_region.h"

namespace swz {

RegionVerdict validate_region_in(std::string_view code, RegionLanguage language) {
  return language == RegionLanguage::python ? validate_py_region(code) : validate_region_code(code);
}

Status check_region_in(std::string_view code, RegionLanguage language) {
  auto v = validate_region_in(code, language);
  if (v.ok) return ok_status();
  return make_error("swizzle region rejected: " + v.message());
}

Result<ValidRegion> ValidRegion::make(std::string code, RegionLanguage language, RegionVerdict* verdict) {
  const RegionVerdict v = validate_region_in(code, language);
  if (verdict) *verdict = v;
  if (!v.ok) return make_error("swizzle region rejected: " + v.message());
  if (auto st = validate_region(code, language); !st) return st.error();
  std::string translated;
  if (language == RegionLanguage::python) {
    auto t = translate_py_region(code);
    if (!t) return t.error();
    if (auto cv = validate_region_code(*t); !cv.ok)
      return make_error("swizzle region rejected: its C++ translation does not validate (" + cv.message() +
                        "): a bug in swizzleperf's translator, please report it with the region");
    translated = std::move(*t);
  }
  return ValidRegion(std::move(code), language, std::move(translated));
}

Result<std::map<int, ValidRegion>> validate_recorded_regions(const RunHistory& history, RegionLanguage language) {
  if (history.baseline)
    if (auto v = validate_region_in(history.baseline->region, language); !v.ok)
      return make_error("the recorded baseline's region is rejected: " + v.message() + "; start a new run");
  std::map<int, ValidRegion> out;
  for (const auto& a : history.attempts) {
    if (a.status != AttemptStatus::ok) continue;
    RegionVerdict verdict;
    auto r = ValidRegion::make(a.region, language, &verdict);
    if (!r)
      return make_error("attempt " + std::to_string(a.iteration) + " (" + a.label +
                        ") is recorded as ok but its region is rejected: " +
                        (verdict.ok ? r.error().message : verdict.message()) +
                        "; refusing to resume from this history (start a new run)");
    out.emplace(a.iteration, std::move(*r));
  }
  return out;
}

Status check_recorded_regions(const RunHistory& history, RegionLanguage language) {
  if (auto r = validate_recorded_regions(history, language); !r) return r.error();
  return ok_status();
}

}  // namespace swz
