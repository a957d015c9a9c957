#include "swizzleperf/proposer/fixed_proposer.h"

namespace swz {

Result<Proposal> FixedProposer::propose(const ProposalContext&) {
  if (next_ >= regions_.size()) return exhausted_error("every given region was proposed");
  const FixedRegion& r = regions_[next_++];
  Proposal p;
  p.region = r.region;
  p.label = r.label;
  p.rationale = r.rationale;
  p.defines = r.defines;
  return p;
}

}  // namespace swz
