// The judge's records and their JSON (contract: core/judge_record.h).
#include "swizzleperf/core/judge_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "swizzleperf/core/metrics.h"
#include "swizzleperf/util/json_field.h"

namespace swz {

namespace {

// Lenient field readers: a missing or wrongly typed field gives the fallback.
double num_or(const nlohmann::json& j, const char* key, double fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

long long big_or(const nlohmann::json& j, const char* key, long long fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : fallback;
}

bool flag_or(const nlohmann::json& j, const char* key, bool fallback) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

std::string text_or(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// A per-round series; null (the platform did not say) and anything not a number read as -1.
std::vector<double> series(const nlohmann::json& j, const char* key) {
  std::vector<double> out;
  if (!j.is_object() || !j.contains(key) || !j[key].is_array()) return out;
  for (const auto& x : j[key]) out.push_back(x.is_number() ? x.get<double>() : -1.0);
  return out;
}

nlohmann::json known_or_null(const std::vector<double>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (double x : v) out.push_back(x >= 0 ? nlohmann::json(x) : nlohmann::json());
  return out;
}

nlohmann::json regime_json(Regime r) {
  const std::string s = regime_label(r);
  return s.empty() ? nlohmann::json() : nlohmann::json(s);
}

Regime regime_at(const nlohmann::json& j) { return regime_of_label(text_or(j, "regime")); }

// The first n values of v (fewer when v is shorter: a hand-edited record).
std::vector<double> first_of(const std::vector<double>& v, std::size_t n) {
  return std::vector<double>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size())));
}

}  // namespace

std::string regime_label(Regime r) {
  if (r == Regime::burst || r == Regime::sustained) return to_string(r);
  return "";
}

Regime regime_of_label(const std::string& s) {
  if (s == "burst") return Regime::burst;
  if (s == "sustained") return Regime::sustained;
  return Regime::unnamed;
}

double median_known(const std::vector<double>& v) {
  std::vector<double> known;
  for (double x : v)
    if (x >= 0) known.push_back(x);
  return known.empty() ? -1 : median_of(known);
}

void to_json(nlohmann::json& j, const SpeedComparison& c) {
  nlohmann::json ratios = nlohmann::json::array();
  for (std::size_t i = 0; i < c.baseline_ms.size() && i < c.candidate_ms.size(); ++i)
    ratios.push_back(c.baseline_ms[i] / c.candidate_ms[i]);
  j = {{"regime", regime_json(c.regime)},
       {"speedup", c.ratio.estimate}, {"ci_low", c.ratio.low}, {"ci_high", c.ratio.high},
       {"confidence", c.ratio.confidence}, {"level", c.ratio.level}, {"significant", c.ratio.significant},
       {"rounds", c.ratio.n}, {"runs", c.runs}, {"served", c.served}, {"pause_ms", c.pause_ms}, {"seconds", c.seconds},
       {"baseline_ms", c.baseline_ms}, {"candidate_ms", c.candidate_ms}, {"ratios", ratios},
       {"method", std::string("sign-test interval of the median per-round ratio baseline/candidate; members interleaved, "
                              "their order rotated and reversed from round to round") +
                      (c.served ? fmt::format("; programs kept running in serve mode (inputs set up once), {} ms pause before each request", c.pause_ms)
                                : std::string("; one time-mode process per run"))}};
  if (!c.label.empty()) j["label"] = c.label;
  if (c.left_after > 0) {
    j["left_after_round"] = c.left_after;
    j["left_because"] = c.left_because;
  }
  if (c.regime == Regime::unnamed) return;
  j["baseline_mhz"] = known_or_null(c.baseline_mhz);
  j["candidate_mhz"] = known_or_null(c.candidate_mhz);
  const double bm = median_known(c.baseline_mhz), cm = median_known(c.candidate_mhz);
  j["baseline_mhz_median"] = bm >= 0 ? nlohmann::json(bm) : nlohmann::json();
  j["candidate_mhz_median"] = cm >= 0 ? nlohmann::json(cm) : nlohmann::json();
  j["baseline_discarded"] = c.baseline_discarded;
  j["candidate_discarded"] = c.candidate_discarded;
  j["clock_reasons"] = c.clock_reasons;
  j["clock_reason_names"] = clock_reason_names(c.clock_reasons);
  j["baseline_mj"] = known_or_null(c.baseline_mj);
  j["candidate_mj"] = known_or_null(c.candidate_mj);
  if (c.energy) {
    j["energy_ratio"] = c.energy->estimate;
    j["energy_ci_low"] = c.energy->low;
    j["energy_ci_high"] = c.energy->high;
    j["energy_significant"] = c.energy->significant;
    j["baseline_mj_median"] = median_known(c.baseline_mj);
    j["candidate_mj_median"] = median_known(c.candidate_mj);
  } else {
    j["energy_ratio"] = nullptr;
  }
  j["baseline_clock_reasons"] = c.baseline_reasons;
  j["candidate_clock_reasons"] = c.candidate_reasons;
  if (!c.clock_note.empty()) j["clock_note"] = c.clock_note;
  j["trusted"] = c.trusted;
  if (!c.trusted) j["untrusted"] = c.untrusted;
}

void from_json(const nlohmann::json& j, SpeedComparison& c) {
  c = SpeedComparison{};
  c.regime = regime_at(j);
  c.label = text_or(j, "label");
  c.ratio.estimate = num_or(j, "speedup", c.ratio.estimate);
  c.ratio.low = num_or(j, "ci_low", c.ratio.low);
  c.ratio.high = num_or(j, "ci_high", c.ratio.high);
  c.ratio.confidence = num_or(j, "confidence", c.ratio.confidence);
  c.ratio.level = num_or(j, "level", c.ratio.level);
  c.ratio.significant = flag_or(j, "significant", false);
  c.ratio.n = int_or(j, "rounds", 0);
  c.runs = int_or(j, "runs", 0);
  c.served = flag_or(j, "served", false);
  c.pause_ms = int_or(j, "pause_ms", 0);
  c.seconds = num_or(j, "seconds", 0);
  c.baseline_ms = series(j, "baseline_ms");
  c.candidate_ms = series(j, "candidate_ms");
  c.left_after = int_or(j, "left_after_round", 0);
  c.left_because = text_or(j, "left_because");
  if (c.regime == Regime::unnamed) return;
  c.baseline_mhz = series(j, "baseline_mhz");
  c.candidate_mhz = series(j, "candidate_mhz");
  c.baseline_discarded = int_or(j, "baseline_discarded", 0);
  c.candidate_discarded = int_or(j, "candidate_discarded", 0);
  c.clock_reasons = big_or(j, "clock_reasons", 0);
  c.baseline_mj = series(j, "baseline_mj");
  c.candidate_mj = series(j, "candidate_mj");
  if (j.contains("energy_ratio") && j["energy_ratio"].is_number()) {
    PairedRatio e;
    e.estimate = j["energy_ratio"].get<double>();
    e.low = num_or(j, "energy_ci_low", e.low);
    e.high = num_or(j, "energy_ci_high", e.high);
    e.significant = flag_or(j, "energy_significant", false);
    c.energy = e;
  }
  c.baseline_reasons = big_or(j, "baseline_clock_reasons", 0);
  c.candidate_reasons = big_or(j, "candidate_clock_reasons", 0);
  c.clock_note = text_or(j, "clock_note");
  c.trusted = flag_or(j, "trusted", true);
  c.untrusted = text_or(j, "untrusted");
}

void fill_series(SpeedComparison& c, const Tournament& t, std::size_t i) {
  c.regime = t.regime;
  c.seconds = t.seconds;
  c.runs = t.runs;
  c.served = t.served;
  c.pause_ms = t.pause_ms;
  if (t.members.empty() || i + 1 >= t.members.size()) return;
  const MemberSeries& b = t.members[0];
  const MemberSeries& m = t.members[i + 1];
  const std::size_t n = m.ms.size();
  c.baseline_ms = first_of(b.ms, n);
  c.candidate_ms = m.ms;
  c.baseline_mhz = first_of(b.mhz, n);
  c.candidate_mhz = m.mhz;
  c.baseline_mj = first_of(b.mj, n);
  c.candidate_mj = m.mj;
}

void to_json(nlohmann::json& j, const Tournament& t) {
  nlohmann::json members = nlohmann::json::array();
  for (const auto& m : t.members) {
    nlohmann::json o = {{"label", m.label}, {"ms", m.ms}, {"mhz", known_or_null(m.mhz)}, {"mj", known_or_null(m.mj)},
                        {"clock_reasons", m.reasons}, {"clock_reason_names", clock_reason_names(m.reasons)},
                        {"discarded", m.discarded}};
    if (!m.problem.empty()) o["regime_problem"] = m.problem;
    members.push_back(std::move(o));
  }
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& c : t.candidates) {
    nlohmann::json o = c;
    // The per-round data is in `members`; the verdict and its ratios stay here.
    for (const char* k : {"baseline_ms", "candidate_ms", "baseline_mhz", "candidate_mhz", "baseline_mj", "candidate_mj",
                          "method", "seconds", "runs", "served", "pause_ms", "regime"})
      o.erase(k);
    candidates.push_back(std::move(o));
  }
  j = {{"regime", regime_json(t.regime)},
       {"members", members}, {"order", t.order}, {"candidates", candidates}, {"rounds", t.rounds}, {"runs", t.runs},
       {"seconds", t.seconds}, {"warm_seconds", t.warm_seconds}, {"served", t.served}, {"pause_ms", t.pause_ms},
       {"stop", t.stop}, {"leader", t.leader >= 0 ? nlohmann::json(t.leader + 1) : nlohmann::json()}};
}

void from_json(const nlohmann::json& j, Tournament& t) {
  t = Tournament{};
  t.regime = regime_at(j);
  if (j.contains("members") && j["members"].is_array())
    for (const auto& o : j["members"]) {
      MemberSeries m;
      m.label = text_or(o, "label");
      m.ms = series(o, "ms");
      m.mhz = series(o, "mhz");
      m.mj = series(o, "mj");
      m.reasons = big_or(o, "clock_reasons", 0);
      m.discarded = int_or(o, "discarded", 0);
      m.problem = text_or(o, "regime_problem");
      t.members.push_back(std::move(m));
    }
  if (j.contains("order") && j["order"].is_array())
    for (const auto& round : j["order"]) {
      std::vector<int> members;
      if (round.is_array())
        for (const auto& x : round) members.push_back(int_value_or(x, -1));
      t.order.push_back(std::move(members));
    }
  t.rounds = int_or(j, "rounds", 0);
  t.runs = int_or(j, "runs", 0);
  t.seconds = num_or(j, "seconds", 0);
  t.warm_seconds = num_or(j, "warm_seconds", 0);
  t.served = flag_or(j, "served", false);
  t.pause_ms = int_or(j, "pause_ms", 0);
  t.stop = text_or(j, "stop");
  const int leader = int_or(j, "leader", 0);
  t.leader = leader > 0 ? leader - 1 : -1;
  if (j.contains("candidates") && j["candidates"].is_array())
    for (const auto& o : j["candidates"]) {
      // A candidate's record leaves out the tournament's regime and its series: put back.
      nlohmann::json named = o.is_object() ? o : nlohmann::json::object();
      named["regime"] = regime_json(t.regime);
      SpeedComparison c = named.get<SpeedComparison>();
      fill_series(c, t, t.candidates.size());
      t.candidates.push_back(std::move(c));
    }
}

void to_json(nlohmann::json& j, const Recheck& r) {
  j = nlohmann::json::object();
  if (const SpeedComparison* first = r.first()) {
    j = *first;
    nlohmann::json regimes = nlohmann::json::object();
    for (const auto& c : r.regimes)
      if (c.regime != Regime::unnamed) regimes[regime_label(c.regime)] = c;
    if (!regimes.empty()) j["regimes"] = regimes;
  }
  if (r.one_shot_speedup) j["one_shot_speedup"] = *r.one_shot_speedup;
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.untrusted.empty()) j["untrusted"] = r.untrusted;
}

void from_json(const nlohmann::json& j, Recheck& r) {
  r = Recheck{};
  if (j.contains("one_shot_speedup") && j["one_shot_speedup"].is_number())
    r.one_shot_speedup = j["one_shot_speedup"].get<double>();
  r.error = text_or(j, "error");
  r.untrusted = text_or(j, "untrusted");
  if (const auto it = j.find("regimes"); it != j.end() && it->is_object()) {
    for (const char* name : {"burst", "sustained"})  // the order measured
      if (it->contains(name) && (*it)[name].is_object()) r.regimes.push_back((*it)[name].get<SpeedComparison>());
  } else if (j.contains("speedup") && j["speedup"].is_number()) {
    r.regimes.push_back(j.get<SpeedComparison>());  // one regime (or unnamed: a history from before regimes)
  }
}

void to_json(nlohmann::json& j, const JudgeRecord& r) {
  j = {{"finalists", nlohmann::json::array()}, {"tournaments", r.tournaments}};
  for (const auto& f : r.finalists)
    j["finalists"].push_back({{"iteration", f.iteration}, {"label", f.label}, {"one_shot_speedup", f.one_shot_speedup}});
  if (r.seconds) j["seconds"] = *r.seconds;
  if (!r.why_none.empty()) j["why_none"] = r.why_none;
}

void from_json(const nlohmann::json& j, JudgeRecord& r) {
  r = JudgeRecord{};
  if (j.contains("finalists") && j["finalists"].is_array())
    for (const auto& o : j["finalists"])
      r.finalists.push_back({int_or(o, "iteration", 0), text_or(o, "label"), num_or(o, "one_shot_speedup", 0)});
  if (j.contains("tournaments") && j["tournaments"].is_array())
    for (const auto& o : j["tournaments"]) r.tournaments.push_back(o.get<Tournament>());
  if (j.contains("seconds") && j["seconds"].is_number()) r.seconds = j["seconds"].get<double>();
  r.why_none = text_or(j, "why_none");
}

}  // namespace swz
