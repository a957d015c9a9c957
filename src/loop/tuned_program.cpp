// A tuning point's program text (contract: loop/tuned_program.h).
#include "swizzleperf/loop/tuned_program.h"

#include <string>

#include "swizzleperf/tune/tune_space.h"

namespace swz {

Defines own_configuration(const KernelSource& kernel) {
  auto space = parse_tune_space(kernel.text(), kernel.language(), kernel.path().filename().string());
  if (!space || space->empty()) return {};
  return space->bind(space->own_point());
}

Result<std::string> program_with(const KernelSource& kernel, const ValidRegion& region, const Defines& defines) {
  auto spliced = kernel.splice(region.code());
  if (!spliced || defines.empty()) return spliced;
  const std::string name = kernel.path().filename().string();
  // A C++ build takes any -DNAME=V; a define the program does not declare as a tunable
  // goes first in the file as the #define the build passed (a Triton build refuses one).
  Defines declared, undeclared;
  const Defines own = own_configuration(kernel);
  for (const auto& [define, value] : defines)
    (own.count(define) || kernel.language() != RegionLanguage::cpp ? declared : undeclared)[define] = value;
  auto text = declared.empty() ? std::move(spliced) : with_tunable_values(*spliced, kernel.language(), declared, name);
  if (!text && kernel.language() == RegionLanguage::cpp) {
    // A value the declaration does not list (the build took it all the same): as a #define too.
    for (const auto& [define, value] : declared) undeclared[define] = value;
    text = kernel.splice(region.code());
  }
  if (!text || undeclared.empty()) return text;
  std::string head;
  for (const auto& [define, value] : undeclared)
    head += "#define " + define + " " + std::to_string(value) + "  // the build define this program was measured with\n";
  return head + *text;
}

}  // namespace swz
