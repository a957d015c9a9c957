#include "swizzleperf/core/run_config.h"

#include <fmt/format.h>

#include <functional>

#include "swizzleperf/util/json_field.h"

namespace swz {

std::string to_string(Objective o) {
  switch (o) {
    case Objective::time: return "time";
    case Objective::l2: return "l2";
    case Objective::energy: return "energy";
  }
  return "l2";
}

std::optional<Objective> objective_from_string(const std::string& s) {
  if (s == "time") return Objective::time;
  if (s == "l2") return Objective::l2;
  if (s == "energy") return Objective::energy;
  return std::nullopt;
}

std::string to_string(Regime r) {
  switch (r) {
    case Regime::burst: return "burst";
    case Regime::sustained: return "sustained";
    case Regime::both: return "both";
    case Regime::unnamed: return "unnamed";
  }
  return "unnamed";
}

std::optional<Regime> regime_from_string(const std::string& s) {
  if (s == "burst") return Regime::burst;
  if (s == "sustained") return Regime::sustained;
  if (s == "both") return Regime::both;
  return std::nullopt;
}

std::vector<Regime> RegimeSettings::measured() const {
  if (regime == Regime::both) return {Regime::burst, Regime::sustained};
  return {regime};
}

Regime RegimeSettings::screening(Objective objective) const {
  if (regime == Regime::unnamed) return Regime::unnamed;
  if (regime == Regime::sustained || objective == Objective::energy) return Regime::sustained;
  return Regime::burst;
}

std::vector<std::string> RegimeSettings::program_args() const {
  if (regime == Regime::unnamed) return {};
  return {"--throttle-threshold", fmt::format("{}", throttle_threshold), "--recovery-ms", std::to_string(recovery_ms),
          "--max-discards", std::to_string(max_discards), "--settle-seconds", fmt::format("{}", settle_s),
          "--sustain-seconds", fmt::format("{}", sustain_s)};
}

std::string size_text(const std::vector<int>& size) {
  if (size.empty()) return "default";
  std::string s;
  for (int v : size) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

namespace {

// One setting: its option name, whether a resume may change it, its value as text,
// and how to copy it from one config to another.
struct Setting {
  const char* name;
  bool fixed;
  std::function<std::string(const RunConfig&)> text;
  std::function<void(RunConfig&, const RunConfig&)> copy;
};

#define SWZ_SETTING(NAME, FIXED, FIELD, TEXT)                                           \
  Setting {                                                                            \
    NAME, FIXED, [](const RunConfig& c) { return TEXT(c.FIELD); },                     \
        [](RunConfig& d, const RunConfig& s) { d.FIELD = s.FIELD; }                    \
  }

std::string int_text(int v) { return std::to_string(v); }
std::string str_text(const std::string& v) { return v.empty() ? "\"\"" : v; }
std::string double_text(double v) { return fmt::format("{}", v); }
std::string objective_text(Objective o) { return to_string(o); }
std::string regime_text(Regime r) { return to_string(r); }

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = {
      SWZ_SETTING("objective", true, objective, objective_text),
      SWZ_SETTING("size", true, size, size_text),
      SWZ_SETTING("backend", true, backend, str_text),
      SWZ_SETTING("arch", true, arch, str_text),
      SWZ_SETTING("reps", true, time_reps, int_text),
      SWZ_SETTING("warmup", true, warmup, int_text),
      SWZ_SETTING("profile-launches", true, profile_launches, int_text),
      SWZ_SETTING("regime", true, timing.regime, regime_text),
      SWZ_SETTING("throttle-threshold", true, timing.throttle_threshold, double_text),
      SWZ_SETTING("recovery-ms", true, timing.recovery_ms, int_text),
      SWZ_SETTING("max-discards", true, timing.max_discards, int_text),
      SWZ_SETTING("settle-seconds", true, timing.settle_s, double_text),
      SWZ_SETTING("sustain-seconds", true, timing.sustain_s, double_text),
      SWZ_SETTING("pause-ms", true, timing.pause_ms, int_text),
      SWZ_SETTING("iterations", false, iterations, int_text),
      SWZ_SETTING("rounds", false, recheck_rounds, int_text),
      SWZ_SETTING("max-rounds", false, timing.max_rounds, int_text),
      SWZ_SETTING("judge-seconds", false, timing.judge_s, double_text),
      SWZ_SETTING("finalists", false, finalists, int_text),
      SWZ_SETTING("proposer", false, proposer, str_text),
      SWZ_SETTING("locality-model", false, locality_model, str_text),
      SWZ_SETTING("base-url", false, llm.base_url, str_text),
      SWZ_SETTING("api-key-env", false, llm.api_key_env, str_text),
      SWZ_SETTING("model", false, llm.model, str_text),
      SWZ_SETTING("temperature", false, llm.temperature, double_text),
      SWZ_SETTING("max-tokens", false, llm.max_tokens, int_text),
      SWZ_SETTING("llm-timeout", false, llm.timeout_s, int_text),
      SWZ_SETTING("context", false, llm.context, str_text),
      SWZ_SETTING("build-jobs", false, build_jobs, int_text),
      SWZ_SETTING("host-cxx", false, host_cxx, str_text),
      SWZ_SETTING("run-timeout", false, run_timeout_s, int_text),
      SWZ_SETTING("build-timeout", false, build_timeout_s, int_text),
      SWZ_SETTING("profile-timeout", false, profile_timeout_s, int_text),
  };
  return table;
}

#undef SWZ_SETTING

std::string str_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

double double_or(const nlohmann::json& j, const char* key, double fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

}  // namespace

std::vector<SettingView> describe_settings(const RunConfig& c) {
  std::vector<SettingView> out;
  for (const auto& s : settings()) out.push_back({s.name, s.fixed, s.text(c)});
  return out;
}

Result<RunConfig> resume_config(const RunConfig& recorded, const RunConfig& asked, const std::set<std::string>& given,
                                const std::string& now, int next_iteration) {
  RunConfig out = recorded;
  for (const auto& s : settings()) {
    if (!given.count(s.name)) continue;
    const std::string was = s.text(recorded), want = s.text(asked);
    if (was == want) continue;
    if (s.name == std::string("backend") && asked.backend == "auto") continue;
    if (s.fixed)
      return make_error(fmt::format(
          "--{} {} on --resume: this run was measured with {} {}, and a resumed run keeps what 'best' means and how "
          "it is measured; drop --{}, or start a new run with --run-dir",
          s.name, want, s.name, was, s.name));
    s.copy(out, asked);
    out.changes.push_back({s.name, was, want, now, next_iteration});
  }
  return out;
}

void to_json(nlohmann::json& j, const LlmSettings& s) {
  j = {{"base_url", s.base_url}, {"api_key_env", s.api_key_env}, {"model", s.model},
       {"temperature", s.temperature}, {"max_tokens", s.max_tokens}, {"timeout_s", s.timeout_s},
       {"context", s.context}};
}

void to_json(nlohmann::json& j, const SettingChange& c) {
  j = {{"setting", c.setting}, {"from", c.from}, {"to", c.to}, {"at", c.at}, {"from_iteration", c.from_iteration}};
}

void to_json(nlohmann::json& j, const RunConfig& c) {
  j = {{"command", c.command},
       {"objective", to_string(c.objective)},
       {"size", c.size},
       {"backend", c.backend},
       {"arch", c.arch},
       {"reps", c.time_reps},
       {"warmup", c.warmup},
       {"profile_launches", c.profile_launches},
       {"regime", to_string(c.timing.regime)},
       {"throttle_threshold", c.timing.throttle_threshold},
       {"recovery_ms", c.timing.recovery_ms},
       {"max_discards", c.timing.max_discards},
       {"settle_seconds", c.timing.settle_s},
       {"sustain_seconds", c.timing.sustain_s},
       {"pause_ms", c.timing.pause_ms},
       {"iterations", c.iterations},
       {"recheck_rounds", c.recheck_rounds},
       {"max_rounds", c.timing.max_rounds},
       {"judge_seconds", c.timing.judge_s},
       {"finalists", c.finalists},
       {"recheck_every_candidate", c.recheck_every_candidate},
       {"proposer", c.proposer},
       {"locality_model", c.locality_model},
       {"proposer_config", c.llm},
       {"build_jobs", c.build_jobs},
       {"host_cxx", c.host_cxx},
       {"run_timeout_s", c.run_timeout_s},
       {"build_timeout_s", c.build_timeout_s},
       {"profile_timeout_s", c.profile_timeout_s},
       {"changes", c.changes}};
  if (!c.suite.empty()) j["suite"] = c.suite;
}

RunConfig run_config_from_json(const nlohmann::json& j, bool legacy_objective) {
  RunConfig c;
  if (!j.is_object()) return c;
  c.command = str_or(j, "command", c.command);
  c.suite = str_or(j, "suite", "");
  if (auto o = objective_from_string(str_or(j, "objective", "")))
    c.objective = *o;
  else if (legacy_objective)
    c.objective = Objective::l2;
  if (j.contains("size") && j["size"].is_array())
    for (std::size_t i = 0; i < j["size"].size(); ++i)
      if (const int v = int_or(j["size"], i, 0); v > 0) c.size.push_back(v);
  c.backend = str_or(j, "backend", c.backend);
  c.arch = str_or(j, "arch", c.arch);
  c.time_reps = int_or(j, "reps", c.time_reps);
  c.warmup = int_or(j, "warmup", c.warmup);
  c.profile_launches = int_or(j, "profile_launches", c.profile_launches);
  // No "regime": written before regimes existed (unnamed, timed as then).
  if (auto r = regime_from_string(str_or(j, "regime", ""))) c.timing.regime = *r;
  c.timing.throttle_threshold = double_or(j, "throttle_threshold", c.timing.throttle_threshold);
  c.timing.recovery_ms = int_or(j, "recovery_ms", c.timing.recovery_ms);
  c.timing.max_discards = int_or(j, "max_discards", c.timing.max_discards);
  c.timing.settle_s = double_or(j, "settle_seconds", c.timing.settle_s);
  c.timing.sustain_s = double_or(j, "sustain_seconds", c.timing.sustain_s);
  c.timing.pause_ms = int_or(j, "pause_ms", c.timing.pause_ms);
  c.iterations = int_or(j, "iterations", c.iterations);
  c.recheck_rounds = int_or(j, "recheck_rounds", c.recheck_rounds);
  c.timing.max_rounds = int_or(j, "max_rounds", c.timing.max_rounds);
  c.timing.judge_s = double_or(j, "judge_seconds", c.timing.judge_s);
  c.finalists = int_or(j, "finalists", c.finalists);
  if (j.contains("recheck_every_candidate") && j["recheck_every_candidate"].is_boolean())
    c.recheck_every_candidate = j["recheck_every_candidate"].get<bool>();
  c.proposer = str_or(j, "proposer", c.proposer);
  c.locality_model = str_or(j, "locality_model", "off");
  if (const auto p = j.find("proposer_config"); p != j.end() && p->is_object()) {
    c.llm.base_url = str_or(*p, "base_url", c.llm.base_url);
    c.llm.api_key_env = str_or(*p, "api_key_env", c.llm.api_key_env);
    c.llm.model = str_or(*p, "model", c.llm.model);
    c.llm.temperature = double_or(*p, "temperature", c.llm.temperature);
    c.llm.max_tokens = int_or(*p, "max_tokens", c.llm.max_tokens);
    c.llm.timeout_s = int_or(*p, "timeout_s", c.llm.timeout_s);
    c.llm.context = str_or(*p, "context", c.llm.context);
  }
  c.build_jobs = int_or(j, "build_jobs", c.build_jobs);
  c.host_cxx = str_or(j, "host_cxx", c.host_cxx);
  c.run_timeout_s = int_or(j, "run_timeout_s", c.run_timeout_s);
  c.build_timeout_s = int_or(j, "build_timeout_s", c.build_timeout_s);
  c.profile_timeout_s = int_or(j, "profile_timeout_s", c.profile_timeout_s);
  if (const auto ch = j.find("changes"); ch != j.end() && ch->is_array())
    for (const auto& e : *ch)
      if (e.is_object())
        c.changes.push_back({str_or(e, "setting", ""), str_or(e, "from", ""), str_or(e, "to", ""), str_or(e, "at", ""),
                             int_or(e, "from_iteration", 0)});
  return c;
}

}  // namespace swz
