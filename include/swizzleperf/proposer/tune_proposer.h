// TuneProposer ("tune"): template parameters searched together with the block order.
// It owns the program's TuneSpace, the points the device's limits leave, the orders to try
// (the program's own and the built-in families for this hardware) and the search settings
// (tune/tune_search), and turns each trial the search picks into a Proposal: the order's
// region, the point's build defines (none for the program's own configuration) and a
// label "<order> @ NAME=V ...". Like the built-in proposer it keeps no state of its own
// beyond what the history holds: the outcomes are read back from ctx.history at every
// call (the baseline is the own point at the own order), so a resumed run continues the
// same sequence without measuring a trial again.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/proposer/family_candidate.h"
#include "swizzleperf/proposer/proposer.h"
#include "swizzleperf/tune/tune_limits.h"
#include "swizzleperf/tune/tune_search.h"
#include "swizzleperf/tune/tune_space.h"

namespace swz {

// The most orders a tune run tries: each one multiplies the space.
inline constexpr std::size_t kMaxTuneOrders = 8;

// One block order of the search: the program's own region, or a built-in family member.
struct TuneOrder {
  std::string label;                      // "identity" or the family's label, e.g. "grouped_m(G=8)"
  std::optional<FamilyCandidate> family;  // none: the program's own region
};

// The orders for hardware `hw` and the program's grid: the program's own first, then the
// built-in proposer's families for this hardware (BuiltinProposer::seed_order), the grouped
// ones with G = 8 and 16, at most kMaxTuneOrders in all.
std::vector<TuneOrder> tune_orders(const HardwareProfile& hw, TileGrid grid, RegionLanguage language);

// The order the guided search screens at: grouped_m (the first grouped family), else the first
// built-in one, else the program's own.
int tune_screen_order(const std::vector<TuneOrder>& orders);


class TuneProposer final : public Proposer {
 public:
  // Seconds since some fixed start, for the time budget (tests pass their own).
  using Clock = std::function<double()>;
  // budget_seconds: no proposal after this many seconds of this session (0: no limit).
  TuneProposer(TuneSpace space, TuneSearchSettings settings, double budget_seconds = 0, Clock clock = {});

  std::string name() const override { return "tune"; }
  Result<Proposal> propose(const ProposalContext& ctx) override;
  // The next k trials assuming the ones before fail (exact for exhaustive, a guess for
  // the others, whose next trial depends on the times).
  std::vector<Proposal> lookahead(const ProposalContext& ctx, int k) override;

  // The history's trials and their outcomes: the baseline (uncounted), then each attempt
  // whose defines and order are in the space (a duplicate takes the time of the attempt it
  // duplicates; anything not validated is a failure).
  std::vector<TuneOutcome> outcomes(const RunHistory& h) const;
  // Why the search ends at this history, in the words the run records (RunHistory::
  // stopped_because): "every point x order of the space was tried", "the tune budget of 60
  // evaluations is spent"; "" while a trial is left (or before the first propose). The time
  // budget is propose's own: it ends the session, not the search.
  std::string stop_reason(const RunHistory& h) const;
  // Set by the first propose (the device's limits prune the space): the pruned points and the orders.
  const std::optional<TuneEnumeration>& enumeration() const { return enumeration_; }
  const std::vector<TuneOrder>& orders() const { return orders_; }
  const TuneSpace& space() const { return space_; }

 private:
  void prepare(const ProposalContext& ctx);
  Proposal proposal_for(const TuneTrial& t, const ProposalContext& ctx) const;
  std::string stop_reason_for(const std::vector<TuneOutcome>& outcomes) const;

  TuneSpace space_;
  TuneSearchSettings settings_;
  double budget_seconds_ = 0;
  Clock clock_;
  std::optional<double> started_;
  std::optional<TuneEnumeration> enumeration_;
  std::vector<TuneOrder> orders_;
  std::optional<TuneSearchSpace> search_;
};

}  // namespace swz
