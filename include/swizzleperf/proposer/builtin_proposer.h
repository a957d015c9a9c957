// Built-in proposer: no network. Parametric remap families — die round-robin
// inverse (aiter's remap_xcd), its chunked form, grouped-M / grouped-N tile
// order (Triton), grouped order composed with the die remap, (with a measured
// dispatch table) a topology-derived family, and, for programs whose info hints say
// their grid columns are separate problems (attention: one (batch, head) per column),
// column-major order, longest-first for causal work and GQA-group order — instantiated from the
// hardware profile and the tile grid, proposed best-first. All state is derived
// from the history, so a resumed run continues exactly where it stopped. With the locality
// model (ProposalContext::predictor) every family and parameter is predicted and the
// candidates are tried best-predicted first, skipping families that broke, regressed or
// (objective time) were measured and not faster.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "swizzleperf/proposer/family_candidate.h"
#include "swizzleperf/proposer/proposer.h"

namespace swz {


// The region code for a candidate (a complete swizzle_pid definition), in the program's
// language: C++, or Python for a Triton program (topo_group has no Python form).
std::string render_family(const FamilyCandidate& c, RegionLanguage language = RegionLanguage::cpp);

class BuiltinProposer final : public Proposer {
 public:
  std::string name() const override { return "builtin"; }
  Result<Proposal> propose(const ProposalContext& context) override;
  // propose()'s answer now and the ones after it, each computed as if the earlier ones
  // had been tried (exact while exploring, a guess while refining).
  std::vector<Proposal> lookahead(const ProposalContext& context, int k) override;

  // The exploration order for a hardware profile and grid (exposed for tests).
  // `hints` is the program's optional info "hints" object ({"causal": bool, "n_group": G,
  // "n_group_stride": S}); with hints, the tile-order families for independent grid
  // columns (col_major, longest_first when causal, gqa_group when G > 1) come first.
  // For a Triton program (language python) topo_group, which has no Python form, is left out.
  static std::vector<FamilyCandidate> seed_order(const HardwareProfile& hw, TileGrid grid,
                                                 const nlohmann::json& hints = nlohmann::json::object(),
                                                 RegionLanguage language = RegionLanguage::cpp);
  static std::vector<int> params_of(const std::string& family);
  // Every candidate: each family of seed_order with each of its parameters (the locality
  // model ranks them all; without it the proposer explores seed_order and refines).
  static std::vector<FamilyCandidate> all_candidates(const HardwareProfile& hw, TileGrid grid,
                                                     const nlohmann::json& hints = nlohmann::json::object(),
                                                     RegionLanguage language = RegionLanguage::cpp);

 private:
  Result<Proposal> propose_assuming(const ProposalContext& context, const std::set<std::pair<std::string, int>>& assumed);
  static std::vector<FamilyCandidate> seed_order_plain(const HardwareProfile& hw, TileGrid grid);
};

}  // namespace swz
