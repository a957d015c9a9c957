#include "swizzleperf/proposer/tune_proposer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <set>
#include <utility>
#include <chrono>
#include <type_traits>

#include "swizzleperf/proposer/builtin_proposer.h"

namespace swz {

namespace {

// A candidate's define value as the record holds it (integers, or their decimal text).
using DefineValue = decltype(Candidate::defines)::mapped_type;

template <class V = DefineValue>
V define_value(std::int64_t v) {
  if constexpr (std::is_integral_v<V>) return static_cast<V>(v);
  else return std::to_string(v);
}

template <class V>
std::optional<std::int64_t> define_int(const V& v) {
  if constexpr (std::is_integral_v<V>) {
    return static_cast<std::int64_t>(v);
  } else {
    std::int64_t out = 0;
    const auto* end = v.data() + v.size();
    const auto r = std::from_chars(v.data(), end, out);
    if (r.ec != std::errc() || r.ptr != end || v.empty()) return std::nullopt;
    return out;
  }
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The point an attempt's defines name (the own value for a tunable it leaves out), or none
// when it names something that is not a tunable.
template <class Map>
std::optional<TunePoint> point_of(const TuneSpace& space, const Map& defines) {
  TunePoint p = space.own_point();
  for (const auto& [name, value] : defines) {
    const auto v = define_int(value);
    if (!v) return std::nullopt;
    bool found = false;
    for (std::size_t i = 0; i < space.tunables.size(); ++i)
      if (space.tunables[i].name == name) {
        p[i] = *v;
        found = true;
      }
    if (!found) return std::nullopt;
  }
  return p;
}

}  // namespace

std::vector<TuneOrder> tune_orders(const HardwareProfile& hw, TileGrid grid, RegionLanguage language) {
  std::vector<TuneOrder> out{{"identity", std::nullopt}};
  auto add = [&](FamilyCandidate c) {
    if (out.size() >= kMaxTuneOrders) return;
    for (const auto& o : out)
      if (o.label == c.label()) return;
    out.push_back({c.label(), c});
  };
  for (const auto& seed : BuiltinProposer::seed_order(hw, grid, nlohmann::json::object(), language)) {
    const bool grouped = seed.family == "grouped_m" || seed.family == "grouped_m_die" || seed.family == "grouped_n" ||
                         seed.family == "topo_group";
    if (!grouped) {
      add(seed);
      continue;
    }
    for (int g : {8, 16}) {
      FamilyCandidate c = seed;
      c.param = g;
      add(c);
    }
  }
  return out;
}

int tune_screen_order(const std::vector<TuneOrder>& orders) {
  for (const char* family : {"grouped_m", "grouped_m_die", "grouped_n"})
    for (std::size_t i = 0; i < orders.size(); ++i)
      if (orders[i].family && orders[i].family->family == family) return static_cast<int>(i);
  return orders.size() > 1 ? 1 : 0;
}

TuneProposer::TuneProposer(TuneSpace space, TuneSearchSettings settings, double budget_seconds, Clock clock)
    : space_(std::move(space)), settings_(settings), budget_seconds_(budget_seconds), clock_(std::move(clock)) {
  if (!clock_) clock_ = steady_seconds;
}

void TuneProposer::prepare(const ProposalContext& ctx) {
  if (search_) return;
  const TuneLimits limits = tune_limits_of(ctx.hardware);
  enumeration_ = enumerate_points(space_, limits);
  orders_ = tune_orders(ctx.hardware, ctx.grid, ctx.kernel.language());
  const int screen = tune_screen_order(orders_);
  search_ = make_tune_search_space(space_, enumeration_->points, static_cast<int>(orders_.size()), 0, screen);
  spdlog::info("tune: {} of {} points fit this device ({} pruned{}), {} orders ({}), {} trials; {} search, budget {}",
               enumeration_->points.size(), space_.size(), enumeration_->excluded,
               enumeration_->first_exclusion.empty() ? "" : "; first: " + enumeration_->first_exclusion, orders_.size(),
               orders_[static_cast<std::size_t>(screen)].label + " screens", search_->trials(),
               to_string(settings_.strategy), settings_.budget);
}

std::vector<TuneOutcome> TuneProposer::outcomes(const RunHistory& h) const {
  std::vector<TuneOutcome> out;
  // The baseline: the program's own point at its own order, not spent by the search.
  std::optional<double> base_ms;
  if (h.baseline && h.baseline->validated() && h.baseline->timing) base_ms = h.baseline->timing->median_ms;
  out.push_back({{space_.own_point(), 0}, base_ms, false});
  for (const auto& a : h.attempts) {
    const auto point = point_of(space_, a.defines);
    if (!point) continue;
    int order = -1;
    for (std::size_t i = 0; i < orders_.size(); ++i) {
      const auto& f = orders_[i].family;
      const bool same = f ? (a.proposal.family == f->family && a.proposal.param.value_or(0) == f->param)
                          : a.proposal.family.empty();
      if (same) order = static_cast<int>(i);
    }
    if (order < 0) continue;
    std::optional<double> ms;
    if (a.validated() && a.timing) ms = a.timing->median_ms;
    if (a.status == AttemptStatus::duplicate) {
      // The same mapping and defines as an earlier attempt: its time stands for this trial.
      if (a.defines.empty() && a.mapping && h.baseline) ms = base_ms;
      for (const auto& e : h.attempts)
        if (e.iteration < a.iteration && e.mapping && a.mapping && e.duplicate_key() == a.duplicate_key() && e.validated() &&
            e.timing)
          ms = e.timing->median_ms;
    }
    out.push_back({{*point, order}, ms, true});
  }
  return out;
}

std::string TuneProposer::stop_reason_for(const std::vector<TuneOutcome>& outcomes) const {
  if (!search_) return "";
  // The search's own stops (tune/tune_search's ledger), the covered space named first: a
  // larger budget would not go on.
  std::set<std::pair<std::size_t, int>> tried;
  int counted = 0;
  for (const auto& o : outcomes) {
    counted += o.counted ? 1 : 0;
    const auto it = search_->index.find(o.trial.point);
    if (it != search_->index.end() && o.trial.order >= 0 && o.trial.order < search_->orders) tried.insert({it->second, o.trial.order});
  }
  if (search_->points.empty() || tried.size() >= search_->trials()) return "every point x order of the space was tried";
  if (counted >= settings_.budget)
    return fmt::format("the tune budget of {} evaluation{} is spent", settings_.budget, settings_.budget == 1 ? "" : "s");
  return "";
}

std::string TuneProposer::stop_reason(const RunHistory& h) const { return stop_reason_for(outcomes(h)); }

Proposal TuneProposer::proposal_for(const TuneTrial& t, const ProposalContext& ctx) const {
  const TuneOrder& order = orders_[static_cast<std::size_t>(t.order)];
  Proposal p;
  p.label = order.label + " @ " + space_.describe(t.point);
  if (order.family) {
    p.region = render_family(*order.family, ctx.kernel.language());
    p.family = order.family->family;
    p.param = order.family->param;
  } else {
    p.region = ctx.kernel.region();
  }
  if (t.point != space_.own_point())
    for (const auto& [name, value] : space_.bind(t.point)) p.defines[name] = define_value(value);
  p.reasoning = fmt::format("{} search over {} points x {} orders", to_string(settings_.strategy),
                            search_ ? search_->points.size() : 0, orders_.size());
  return p;
}

Result<Proposal> TuneProposer::propose(const ProposalContext& ctx) {
  prepare(ctx);
  const double now = clock_();
  if (!started_) started_ = now;
  if (budget_seconds_ > 0 && now - *started_ >= budget_seconds_) {
    const std::string why = fmt::format("the tune search's time budget of {} s is spent", budget_seconds_);
    return exhausted_error(why, why);
  }
  const auto outcomes_now = outcomes(ctx.history);
  const auto t = next_tune_trial(*search_, outcomes_now, settings_);
  if (!t) {
    std::string why = stop_reason_for(outcomes_now);
    if (why.empty()) why = "the tune search has no trial left";
    return exhausted_error(why, why);
  }
  auto p = proposal_for(*t, ctx);
  if (const TuneOutcome* best = best_tune_outcome(outcomes_now)) {
    p.rationale = fmt::format("best so far: {} @ {} ({:.4f} ms)", orders_[static_cast<std::size_t>(best->trial.order)].label,
                              space_.describe(best->trial.point), *best->ms);
  }
  return p;
}

std::vector<Proposal> TuneProposer::lookahead(const ProposalContext& ctx, int k) {
  prepare(ctx);
  std::vector<Proposal> out;
  auto assumed = outcomes(ctx.history);
  while (static_cast<int>(out.size()) < k) {
    const auto t = next_tune_trial(*search_, assumed, settings_);
    if (!t) break;
    out.push_back(proposal_for(*t, ctx));
    assumed.push_back({*t, std::nullopt, true});
  }
  return out;
}

}  // namespace swz
