// History persistence and ranking. The file is the run's source of truth:
// --resume reads it back, reports are made from it, and it is replaced only
// through write_file_atomic (core/file_io) so a crash leaves either the old or
// the new file.
#include "swizzleperf/core/history.h"

#include <algorithm>
#include "swizzleperf/util/json_field.h"
#include "swizzleperf/util/text.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace swz {

namespace {

// A define's value: an integer, or (the first form, read only) a string of decimal digits
// with an optional '-'. Anything else is not a value and is skipped.
std::optional<std::int64_t> define_value(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (!v.is_string()) return std::nullopt;
  const auto& s = v.get_ref<const std::string&>();
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return out;
}

const std::pair<AttemptStatus, const char*> kStatusNames[] = {
    {AttemptStatus::ok, "ok"},
    {AttemptStatus::proposal_failed, "proposal_failed"},
    {AttemptStatus::rejected_mapping, "rejected_mapping"},
    {AttemptStatus::rejected_region, "rejected_region"},
    {AttemptStatus::duplicate, "duplicate"},
    {AttemptStatus::build_failed, "build_failed"},
    {AttemptStatus::validation_failed, "validation_failed"},
    {AttemptStatus::run_failed, "run_failed"},
    {AttemptStatus::profile_failed, "profile_failed"},
};

template <typename T>
void put_opt(nlohmann::json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

template <typename T>
void get_opt(const nlohmann::json& j, const char* key, std::optional<T>& v) {
  if (j.contains(key) && !j.at(key).is_null()) v = j.at(key).get<T>();
}

}  // namespace

std::string to_string(AttemptStatus s) {
  for (const auto& [k, name] : kStatusNames)
    if (k == s) return name;
  return "unknown";
}

std::optional<AttemptStatus> attempt_status_from_string(const std::string& s) {
  for (const auto& [k, name] : kStatusNames)
    if (s == name) return k;
  return std::nullopt;
}

void to_json(nlohmann::json& j, const Attempt& a) {
  const auto or_empty = [](const auto& part) { return part ? nlohmann::json(*part) : nlohmann::json::object(); };
  j = nlohmann::json{{"iteration", a.iteration}, {"proposer", a.proposer}, {"label", a.label},
                     {"status", to_string(a.status)}, {"reason", a.reason}, {"region", a.region},
                     {"diff", a.diff}, {"proposal", a.proposal}, {"mapping", or_empty(a.mapping)},
                     {"build", or_empty(a.build)}, {"validation", a.validation},
                     {"stage_seconds", a.stage_seconds}, {"started_at", a.started_at},
                     {"wall_seconds", a.wall_seconds}};
  if (!a.defines.empty()) j["defines"] = a.defines;  // none: the record stays as it was before defines
  if (a.program_info) j["program_info"] = *a.program_info;
  put_opt(j, "metrics", a.metrics);
  put_opt(j, "timing", a.timing);
  put_opt(j, "speedup", a.speedup);
  // Absent when the attempt was not re-checked (reports show null / blank for them).
  put_opt(j, "speedup_ci_low", a.speedup_ci_low);
  put_opt(j, "speedup_ci_high", a.speedup_ci_high);
  put_opt(j, "significant", a.significant);
  if (a.speedup_regime != Regime::unnamed) j["speedup_regime"] = regime_label(a.speedup_regime);
  put_opt(j, "energy_ratio", a.energy_ratio);
  put_opt(j, "energy_ci_low", a.energy_ci_low);
  put_opt(j, "energy_ci_high", a.energy_ci_high);
  put_opt(j, "energy_significant", a.energy_significant);
  put_opt(j, "recheck", a.recheck);
  put_opt(j, "predicted", a.predicted);
}

void from_json(const nlohmann::json& j, Attempt& a) {
  a.iteration = int_at(j, "iteration");
  a.proposer = j.value("proposer", "");
  a.label = j.value("label", "");
  auto st = attempt_status_from_string(j.at("status").get<std::string>());
  if (!st) throw nlohmann::json::other_error::create(501, "unknown attempt status", &j);
  a.status = *st;
  a.reason = j.value("reason", "");
  a.region = j.value("region", "");
  a.diff = j.value("diff", "");
  if (auto d = j.find("defines"); d != j.end() && d->is_object())
    for (const auto& [name, value] : d->items())
      if (auto v = define_value(value)) a.defines[name] = *v;
  if (auto p = j.find("program_info"); p != j.end() && p->is_object() && !p->empty())
    a.program_info = program_info_from_json(*p);
  // A part written as {} (the stage did not run) reads back as absent.
  const auto part = [&](const char* key) -> const nlohmann::json* {
    const auto it = j.find(key);
    return it != j.end() && it->is_object() && !it->empty() ? &*it : nullptr;
  };
  if (const auto* p = part("proposal")) a.proposal = p->get<ProposalRecord>();
  if (const auto* p = part("mapping")) a.mapping = p->get<MappingRecord>();
  if (const auto* p = part("build")) a.build = p->get<BuildRecord>();
  if (const auto* p = part("validation")) a.validation = p->get<ValidationRecord>();
  if (const auto* p = part("recheck")) a.recheck = p->get<Recheck>();
  if (const auto* p = part("predicted")) a.predicted = p->get<PredictionSummary>();
  a.stage_seconds = j.value("stage_seconds", std::map<std::string, double>{});
  a.started_at = j.value("started_at", "");
  a.wall_seconds = j.value("wall_seconds", 0.0);
  get_opt(j, "metrics", a.metrics);
  get_opt(j, "timing", a.timing);
  get_opt(j, "speedup", a.speedup);
  get_opt(j, "speedup_ci_low", a.speedup_ci_low);
  get_opt(j, "speedup_ci_high", a.speedup_ci_high);
  get_opt(j, "significant", a.significant);
  if (j.contains("speedup_regime") && j["speedup_regime"].is_string())
    a.speedup_regime = regime_of_label(j["speedup_regime"].get<std::string>());
  get_opt(j, "energy_ratio", a.energy_ratio);
  get_opt(j, "energy_ci_low", a.energy_ci_low);
  get_opt(j, "energy_ci_high", a.energy_ci_high);
  get_opt(j, "energy_significant", a.energy_significant);
}

void to_json(nlohmann::json& j, const RunHistory& h) {
  j = nlohmann::json{{"format", kHistoryFormat}, {"schema_version", h.schema_version},
                     {"kernel_path", h.kernel_path}, {"kernel_name", h.kernel_name},
                     {"original_region", h.original_region}, {"kernel_hash", h.kernel_hash},
                     {"config", h.config}, {"program_info", h.program_info},
                     {"hardware", h.hardware ? nlohmann::json(*h.hardware) : nlohmann::json::object()},
                     {"created_at", h.created_at}, {"updated_at", h.updated_at}, {"state", h.state},
                     {"attempts", h.attempts}};
  if (!h.stopped_because.empty()) j["stopped_because"] = h.stopped_because;
  if (h.last_session_wall_s > 0) j["run_wall_seconds_last_session"] = h.last_session_wall_s;
  put_opt(j, "baseline", h.baseline);
  if (h.judged_attempts > 0 || h.judge) {
    j["judge"] = h.judge ? nlohmann::json(*h.judge) : nlohmann::json::object();
    j["judge"]["after_attempts"] = h.judged_attempts;
  }
}

void from_json(const nlohmann::json& j, RunHistory& h) {
  h.schema_version = int_at(j, "schema_version");
  h.kernel_path = j.at("kernel_path").get<std::string>();
  h.kernel_name = j.value("kernel_name", "");
  h.original_region = j.at("original_region").get<std::string>();
  h.kernel_hash = j.value("kernel_hash", "");
  // Schema 1 kept the program's info and the stop reason inside config.
  const auto config = j.value("config", nlohmann::json::object());
  const auto& facts = h.schema_version < 2 ? config : j;
  h.config = run_config_from_json(config, /*legacy_objective=*/true);
  h.program_info = program_info_from_json(facts.value("program_info", nlohmann::json::object()));
  if (facts.contains("stopped_because") && facts["stopped_because"].is_string())
    h.stopped_because = facts["stopped_because"].get<std::string>();
  if (facts.contains("run_wall_seconds_last_session") && facts["run_wall_seconds_last_session"].is_number())
    h.last_session_wall_s = facts["run_wall_seconds_last_session"].get<double>();
  if (auto hw = j.find("hardware"); hw != j.end() && hw->is_object() && !hw->empty()) h.hardware = hw->get<HardwareProfile>();
  h.created_at = j.value("created_at", "");
  h.updated_at = j.value("updated_at", "");
  h.state = j.value("state", "running");
  get_opt(j, "baseline", h.baseline);
  h.attempts = j.at("attempts").get<std::vector<Attempt>>();
  if (auto it = j.find("judge"); it != j.end() && it->is_object()) {
    // Only the count: no judge record (a hand-edited file); anything more is a record.
    if (it->size() > (it->contains("after_attempts") ? 1u : 0u)) h.judge = it->get<JudgeRecord>();
    if (auto n = it->find("after_attempts"); n != it->end() && n->is_number_integer())
      h.judged_attempts = static_cast<int>(std::clamp<long long>(n->get<long long>(), 0, 1 << 30));
  }
}

void set_one_shot(Attempt& a, const Attempt& baseline) {
  if (!baseline.timing || !a.timing || !(a.timing->median_ms > 0)) return;
  a.speedup = baseline.timing->median_ms / a.timing->median_ms;
  a.speedup_regime = regime_of_label(a.timing->regime);  // the program's word for it
  const auto& be = baseline.timing->energy_mj_per_run;
  const auto& ce = a.timing->energy_mj_per_run;
  if (be && ce && *be > 0 && *ce > 0) a.energy_ratio = *ce / *be;  // one-shot; the judge gives its interval
}

bool better_attempt(const Attempt& a, const Attempt& b) {
  const double ha = a.metrics && a.metrics->l2_hit_pct ? *a.metrics->l2_hit_pct : -1;
  const double hb = b.metrics && b.metrics->l2_hit_pct ? *b.metrics->l2_hit_pct : -1;
  // Hit rates within a hundredth of a point are a tie: time decides.
  if (std::abs(ha - hb) > 0.01) return ha > hb;
  const double ta = a.timing ? a.timing->median_ms : 1e300;
  const double tb = b.timing ? b.timing->median_ms : 1e300;
  if (ta != tb) return ta < tb;
  return a.iteration < b.iteration;
}

bool significantly_faster(const Attempt& a) {
  return a.significant.value_or(false) && a.speedup_ci_low && *a.speedup_ci_low > 1.0;
}

bool significantly_slower(const Attempt& a) {
  return a.significant.value_or(false) && a.speedup_ci_high && *a.speedup_ci_high < 1.0;
}

bool significantly_less_energy(const Attempt& a) {
  return a.energy_significant.value_or(false) && a.energy_ci_high && *a.energy_ci_high < 1.0;
}

bool eligible_for_best(const Attempt& a, Objective objective) {
  if (!a.validated()) return false;
  if (objective == Objective::time) return significantly_faster(a);
  if (objective == Objective::energy) return significantly_less_energy(a);
  return true;
}

bool better_attempt(const Attempt& a, const Attempt& b, Objective objective) {
  if (objective == Objective::l2) return better_attempt(a, b);
  if (objective == Objective::energy) {
    const double ea = a.energy_ratio.value_or(1e300), eb = b.energy_ratio.value_or(1e300);
    if (ea != eb) return ea < eb;  // equal energy: the time ranking below decides
  }
  const double sa = a.speedup.value_or(0), sb = b.speedup.value_or(0);
  if (sa != sb) return sa > sb;
  return better_attempt(a, b);  // equal speedups: the L2 ranking decides
}

int RunHistory::counted_attempts() const {
  int n = 0;
  for (const auto& a : attempts) n += a.status != AttemptStatus::duplicate;
  return n;
}

const Attempt* RunHistory::best() const { return best(objective()); }

const Attempt* RunHistory::best(Objective objective) const {
  const Attempt* best = nullptr;
  for (const auto& a : attempts) {
    if (eligible_for_best(a, objective) && (!best || better_attempt(a, *best, objective))) best = &a;
  }
  return best;
}

Status save_history(const std::filesystem::path& path, const RunHistory& history) {
  RunHistory copy = history;
  copy.updated_at = now_iso8601();
  copy.schema_version = kHistorySchemaVersion;  // a resumed schema-1 history is written as 2
  return write_file_atomic(path, nlohmann::json(copy).dump(2) + "\n");
}

Result<RunHistory> load_history(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return make_error("cannot read history " + path.string());
  return parse_history(*text, path.string());
}

Result<RunHistory> parse_history(std::string_view text, const std::string& name) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return make_error("history " + name + " is corrupt (not valid JSON); it was left untouched — start a new run with --run-dir or restore the file");
  // Typed look-ups only: j.value() throws when a field has another type (found by
  // tests/fuzz/fuzz_history; inputs in tests/fixtures/fuzz/fuzz_history/).
  const auto format = j.is_object() ? j.find("format") : j.end();
  if (!j.is_object() || format == j.end() || !format->is_string() || format->get<std::string>() != kHistoryFormat)
    return make_error("history " + name + " was not written by swizzleperf; it was left untouched — point --resume at a swizzleperf run directory");
  const auto sv = j.find("schema_version");
  const int version = sv != j.end() && sv->is_number_integer() ? sv->get<int>() : 0;
  if (version > kHistorySchemaVersion || version < 1)
    return make_error("history " + name + " has schema version " + std::to_string(version) +
                      ", this swizzleperf reads version " + std::to_string(kHistorySchemaVersion));
  try {
    return j.get<RunHistory>();
  } catch (const nlohmann::json::exception& e) {
    return make_error("history " + name + " is corrupt (" + e.what() + "); it was left untouched");
  }
}

}  // namespace swz
