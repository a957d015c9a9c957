#include "swizzleperf/proposer/family_candidate.h"

#include <fmt/format.h>

namespace swz {

std::string FamilyCandidate::label() const {
  if (family == "die_rr") return "die_rr";
  if (family == "col_major") return "col_major";
  if (family == "gqa_group") return fmt::format("gqa_group(G={},S={})", n_group, n_stride);
  const char* p = (family == "die_chunk") ? "C" : "G";
  return fmt::format("{}({}={})", family, p, param);
}

}  // namespace swz
