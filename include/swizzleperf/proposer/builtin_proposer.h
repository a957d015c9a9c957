// Built-in proposer: no network. Parametric remap families — die round-robin
// inverse (aiter's remap_xcd), its chunked form, grouped-M / grouped-N tile
// order (Triton), grouped order composed with the die remap, and (with a
// measured dispatch table) a topology-derived family — instantiated from the
// hardware profile and the tile grid, proposed best-first. All state is derived
// from the history, so a resumed run continues exactly where it stopped.
#pragma once

#include <string>
#include <vector>

#include "swizzleperf/proposer/proposer.h"

namespace swz {

struct FamilyCandidate {
  std::string family;  // die_rr | die_chunk | grouped_m | grouped_n | grouped_m_die | topo_group
  int param = 0;       // G or C; 0 when the family has none
  std::vector<int> table;  // topo_group: measured first-wave pid -> L2 side
  std::string label() const;
};

// The region code for a candidate (a complete swizzle_pid definition).
std::string render_family(const FamilyCandidate& c);

class BuiltinProposer final : public Proposer {
 public:
  std::string name() const override { return "builtin"; }
  Result<Proposal> propose(const ProposalContext& context) override;
  // During exploration the next untried families are known whatever the results
  // (only a tried family can be dropped): they are the lookahead. None while refining.
  std::vector<Proposal> lookahead(const ProposalContext& context, int k) override;

  // The exploration order for a hardware profile and grid (exposed for tests).
  static std::vector<FamilyCandidate> seed_order(const HardwareProfile& hw, TileGrid grid);
  static std::vector<int> params_of(const std::string& family);
};

}  // namespace swz
