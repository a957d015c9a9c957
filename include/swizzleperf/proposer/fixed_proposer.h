// FixedProposer: proposes given regions once each, in order, then is exhausted.
// `gate` uses it for the committed region (the kernel as committed is the one
// candidate); a user's list of hand-written patterns would be another. An entry may
// carry a tuning point's defines (empty: the program as written), proposed with it.
#pragma once

#include <string>
#include <vector>

#include "swizzleperf/proposer/proposer.h"

namespace swz {

struct FixedRegion {
  std::string label;
  std::string region;
  std::string rationale;
  Defines defines = {};  // the point's parameters, NAME -> value
};

class FixedProposer final : public Proposer {
 public:
  FixedProposer(std::string name, std::vector<FixedRegion> regions)
      : name_(std::move(name)), regions_(std::move(regions)) {}
  std::string name() const override { return name_; }
  Result<Proposal> propose(const ProposalContext& context) override;

 private:
  std::string name_;
  std::vector<FixedRegion> regions_;
  std::size_t next_ = 0;
};

}  // namespace swz
