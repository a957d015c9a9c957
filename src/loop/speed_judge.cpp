// The judge's tournament and its trust rules (contract: loop/speed_judge.h).
#include "swizzleperf/loop/speed_judge.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "swizzleperf/core/metrics.h"

namespace swz {

namespace {

bool all_known(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Mann-Kendall z of the series against its index (ties count 0; continuity-corrected).
double mann_kendall_z(const std::vector<double>& x) {
  const std::size_t n = x.size();
  if (n < 3) return 0;
  long s = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) s += (x[j] > x[i]) - (x[j] < x[i]);
  const double var = static_cast<double>(n) * (n - 1) * (2 * n + 5) / 18.0;
  if (s == 0) return 0;
  return (s > 0 ? s - 1 : s + 1) / std::sqrt(var);
}

// Theil-Sen slope: the median of the pairwise slopes.
double theil_sen_slope(const std::vector<double>& x) {
  std::vector<double> slopes;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) slopes.push_back((x[j] - x[i]) / static_cast<double>(j - i));
  return slopes.empty() ? 0 : median_of(slopes);
}

// The sentence on a clock gap between the members, or "" when there is none to name:
// median clocks more than kClockGapNote apart, the same member lower in all rounds but one.
std::string clock_gap_note(const SpeedComparison& c) {
  const double bm = median_known(c.baseline_mhz), cm = median_known(c.candidate_mhz);
  if (bm <= 0 || cm <= 0 || std::abs(bm - cm) <= kClockGapNote * std::max(bm, cm)) return "";
  const bool base_lower = bm < cm;
  const std::size_t n = std::min(c.baseline_mhz.size(), c.candidate_mhz.size());
  std::size_t same_side = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (c.baseline_mhz[i] > 0 && c.candidate_mhz[i] > 0 && (c.baseline_mhz[i] < c.candidate_mhz[i]) == base_lower)
      ++same_side;
  if (same_side + 1 < n) return "";  // the gap changes sides: noise, which the pairing absorbs
  const long long lower_reasons = base_lower ? c.baseline_reasons : c.candidate_reasons;
  const std::string cap = (lower_reasons & kClockReasonSwPowerCap) ? " under the power cap" : "";
  std::string energy;
  if (c.energy) energy = fmt::format(", energy x{:.2f}", c.energy->estimate);
  const bool faster = c.ratio.estimate > 1.0;
  const std::string clocks = fmt::format("the baseline runs at {:.0f} MHz and the candidate at {:.0f} MHz{}{}", bm, cm, cap, energy);
  if (faster && base_lower) return clocks + ": part of the gain is power headroom (the order's own effect)";
  if (faster) return clocks + ": the gain holds at a lower clock";
  if (!base_lower) return clocks + ": the loss is not the clock's";
  return clocks + ": part of the loss is the candidate's lower clock (the order's own effect)";
}

// The first inconsistency in c's evidence, or "" (see the header's list).
std::string inconsistency(const SpeedComparison& c) {
  const long long hb = c.baseline_reasons & kClockReasonsHeatOrBrake, hc = c.candidate_reasons & kClockReasonsHeatOrBrake;
  if (hb != hc) {
    const bool base = (hb & ~hc) != 0;
    return fmt::format("a thermal or hardware slowdown ({}) was reported in the {}'s runs only: an event the pair "
                       "did not share, not the order",
                       joined(clock_reason_names(base ? (hb & ~hc) : (hc & ~hb))), base ? "baseline" : "candidate");
  }
  std::vector<double> logs;
  int faster = 0, slower = 0;
  for (std::size_t i = 0; i < c.baseline_ms.size() && i < c.candidate_ms.size(); ++i) {
    const double r = c.baseline_ms[i] / c.candidate_ms[i];
    logs.push_back(std::log(r));
    faster += r > 1 + kDisagreement;
    slower += r < 1 - kDisagreement;
  }
  const std::size_t n = logs.size();
  if (n >= 6) {
    const double z = mann_kendall_z(logs);
    const double change = theil_sen_slope(logs) * static_cast<double>(n - 1);
    if (std::abs(z) >= 2.58 && std::abs(change) >= std::max(0.02, 0.5 * std::abs(std::log(c.ratio.estimate)))) {
      const std::vector<double> first(logs.begin(), logs.begin() + n / 2), last(logs.end() - n / 2, logs.end());
      return fmt::format("the paired ratio trends with time ({:.3f}x in the first {} rounds, {:.3f}x in the last {}): "
                         "drift reached the difference",
                         std::exp(median_of(first)), n / 2, std::exp(median_of(last)), n / 2);
    }
  }
  if (faster >= 2 && slower >= 2)
    return fmt::format("the rounds disagree: {} faster and {} slower by more than {:.0f} %", faster, slower, kDisagreement * 100);
  return "";
}

}  // namespace

Status judge_comparison(SpeedComparison& c) {
  auto ratio = paired_ratio_interval(c.baseline_ms, c.candidate_ms);
  if (!ratio) return ratio.error();
  c.ratio = *ratio;
  c.energy.reset();
  if (all_known(c.baseline_mj) && all_known(c.candidate_mj) && c.baseline_mj.size() == c.candidate_mj.size())
    if (auto e = paired_ratio_interval(c.candidate_mj, c.baseline_mj)) c.energy = *e;
  c.clock_note = clock_gap_note(c);
  if (c.trusted) {
    c.untrusted = inconsistency(c);
    c.trusted = c.untrusted.empty();
  }
  return ok_status();
}

std::vector<int> round_order(const std::vector<int>& active, int round) {
  std::vector<int> order = active;
  if (order.empty()) return order;
  const int k = static_cast<int>(order.size());
  std::rotate(order.begin(), order.begin() + (round % k), order.end());
  if ((round / k) % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

namespace {

// Candidate i's comparison from the members' series (core/judge_record's fill_series:
// the rounds it ran) and their clock events.
SpeedComparison comparison_of(const Tournament& t, std::size_t i) {
  const MemberSeries& b = t.members[0];
  const MemberSeries& m = t.members[i + 1];
  SpeedComparison c;
  c.label = m.label;
  fill_series(c, t, i);
  c.baseline_discarded = b.discarded;
  c.candidate_discarded = m.discarded;
  c.baseline_reasons = b.reasons;
  c.candidate_reasons = m.reasons;
  c.clock_reasons = b.reasons | m.reasons;
  const MemberSeries& failed = !b.problem.empty() ? b : m;
  if (!failed.problem.empty()) {
    c.trusted = false;
    c.untrusted = fmt::format("the {} regime was not reached in a {} run: {}", regime_label(t.regime),
                              &failed == &b ? "baseline" : "candidate", failed.problem);
  }
  return c;
}

}  // namespace

Result<Tournament> run_tournament(MemberTimer& timer, Regime regime, const JudgeSettings& s,
                                  const std::vector<std::string>& labels) {
  const std::size_t m = timer.members();
  if (m < 2) return make_error("a speed tournament needs the baseline and at least one candidate");
  if (s.min_rounds < 1 || s.max_rounds < s.min_rounds)
    return make_error(fmt::format("a speed tournament needs 1 <= rounds <= max rounds, got {} and {}", s.min_rounds, s.max_rounds));
  Tournament t;
  t.regime = regime;
  t.served = timer.served();
  const bool sustained = regime == Regime::sustained;
  t.pause_ms = sustained ? 0 : static_cast<int>(s.pause.count());
  t.members.resize(m);
  for (std::size_t i = 0; i < m; ++i)
    t.members[i].label = i < labels.size() ? labels[i] : (i == 0 ? "baseline" : fmt::format("candidate {}", i));
  t.candidates.resize(m - 1);
  const double t0 = timer.now_s();
  if (sustained && s.warm_s > 0) {
    if (auto st = timer.warm(0, s.warm_s); !st) return st.error();
    t.warm_seconds = timer.now_s() - t0;
  }
  std::vector<int> active;
  for (std::size_t i = 0; i < m; ++i) active.push_back(static_cast<int>(i));
  const auto leave = [&](int member, const std::string& why) {
    t.candidates[member - 1].left_after = t.rounds;
    t.candidates[member - 1].left_because = why;
    active.erase(std::find(active.begin(), active.end(), member));
  };
  for (int round = 0; round < s.max_rounds; ++round) {
    if (round >= s.min_rounds) {
      // The race: who leaves, and is the one left decisive?
      int leader = -1;
      std::vector<PairedRatio> vs_base(m);
      for (int c : active) {
        if (c == 0) continue;
        const auto& ms = t.members[c].ms;
        auto r = paired_ratio_interval(std::vector<double>(t.members[0].ms.begin(), t.members[0].ms.begin() + ms.size()), ms);
        if (!r) return r.error();
        vs_base[c] = *r;
        if (leader < 0 || r->estimate > vs_base[leader].estimate) leader = c;
      }
      for (int c : std::vector<int>(active)) {
        if (c == 0 || c == leader) continue;
        auto vs_leader = paired_ratio_interval(t.members[c].ms, t.members[leader].ms);
        if (vs_leader && vs_leader->significant && vs_leader->low > 1.0)
          leave(c, fmt::format("significantly slower than {} ({:.3f}x its time)", t.members[leader].label, vs_leader->estimate));
        else if (vs_base[c].significant && vs_base[c].high < 1.0)
          leave(c, "significantly slower than the baseline");
      }
      if (active.size() == 2 && vs_base[leader].significant) {
        t.stop = vs_base[leader].low > 1.0 ? "decisive: one candidate left, significantly faster than the baseline"
                                           : "decisive: every candidate is significantly slower than the baseline";
        break;
      }
      if (timer.now_s() - t0 >= s.budget_s) {
        t.stop = fmt::format("time budget ({:.0f} s) spent after {} rounds", s.budget_s, t.rounds);
        break;
      }
    }
    t.order.push_back(round_order(active, round));
    for (int member : t.order.back()) {
      if (interrupt_requested()) return interrupted_error();
      if (!sustained && t.runs > 0) timer.pause(s.pause);
      auto sample = timer.time(static_cast<std::size_t>(member));
      if (!sample) return sample.error();
      ++t.runs;
      MemberSeries& ser = t.members[member];
      ser.ms.push_back(sample->ms);
      ser.mhz.push_back(sample->mhz);
      ser.mj.push_back(sample->mj);
      ser.reasons |= sample->reasons;
      ser.discarded += sample->discarded;
      if (!sample->reached && ser.problem.empty())
        ser.problem = sample->problem.empty() ? "the program did not say why" : sample->problem;
    }
    ++t.rounds;
  }
  if (t.stop.empty()) t.stop = fmt::format("{} rounds, the most asked (--max-rounds)", t.rounds);
  t.seconds = timer.now_s() - t0;
  for (std::size_t i = 0; i + 1 < m; ++i) {
    SpeedComparison c = comparison_of(t, i);
    c.left_after = t.candidates[i].left_after;
    c.left_because = t.candidates[i].left_because;
    if (auto st = judge_comparison(c); !st) return st.error();
    t.candidates[i] = std::move(c);
    if (t.leader < 0 || t.candidates[i].ratio.estimate > t.candidates[t.leader].ratio.estimate) t.leader = static_cast<int>(i);
  }
  return t;
}

Result<SpeedComparison> compare_speed(Backend& backend, const std::filesystem::path& exe_base,
                                      const std::filesystem::path& exe_cand, const std::vector<std::string>& args,
                                      Regime regime, const JudgeSettings& settings,
                                      std::chrono::seconds timeout) {
  ProgramTimer timer(backend, {exe_base, exe_cand}, {"baseline", "candidate"}, args, regime_label(regime), timeout);
  timer.start();
  auto t = run_tournament(timer, regime, settings);
  if (!t) return t.error();
  return t->candidates.front();
}

}  // namespace swz
