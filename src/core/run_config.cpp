#include "swizzleperf/core/run_config.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <type_traits>

#include "swizzleperf/util/json_field.h"
#include "swizzleperf/util/text.h"

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

CommandSet command_set(const std::string& name) {
  if (name == "optimize") return kOptimize;
  if (name == "suite") return kSuite;
  if (name == "gate") return kGate;
  if (name == "sweep") return kSweep;
  if (name == "build") return kBuild;
  if (name == "probe") return kProbe;
  if (name == "tune") return kTune;
  return kAnyCommand;
}

namespace {

// ---- a row's value as text and JSON, by the member's type ----------------------

std::string str_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

std::string value_text(int v) { return std::to_string(v); }
std::string value_text(double v) { return fmt::format("{}", v); }
std::string value_text(const std::string& v) { return v.empty() ? "\"\"" : v; }
std::string value_text(Objective o) { return to_string(o); }
std::string value_text(Regime r) { return to_string(r); }
std::string value_text(const std::vector<int>& size) { return size_text(size); }

// Whole text as a number (strtoll / strtod consume all of it, no blanks around).
std::optional<long long> whole_number(const std::string& s) {
  if (s.empty() || s.front() == ' ') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return v;
}
std::optional<double> real_number(const std::string& s) {
  if (s.empty() || s.front() == ' ') return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

// From text check() accepted; `top`: a count's largest value (larger ones are clamped).
void parse_into(const std::string& s, std::optional<long long> top, int& v) {
  long long n = whole_number(s).value_or(0);
  if (top && n > *top) n = *top;
  v = static_cast<int>(n);
}
void parse_into(const std::string& s, std::optional<long long>, double& v) { v = real_number(s).value_or(0); }
void parse_into(const std::string& s, std::optional<long long>, std::string& v) { v = s; }
void parse_into(const std::string& s, std::optional<long long>, Objective& v) { v = objective_from_string(s).value_or(v); }
void parse_into(const std::string& s, std::optional<long long>, Regime& v) { v = regime_from_string(s).value_or(v); }
void parse_into(const std::string& s, std::optional<long long>, std::vector<int>& v) {
  v.clear();
  if (s.empty()) return;
  if (auto n = parse_positive_list(s, kMaxSizeValue))
    for (long long x : *n) v.push_back(static_cast<int>(x));
}

nlohmann::json json_of(int v) { return v; }
nlohmann::json json_of(double v) { return v; }
nlohmann::json json_of(const std::string& v) { return v; }
nlohmann::json json_of(Objective o) { return to_string(o); }
nlohmann::json json_of(Regime r) { return to_string(r); }
nlohmann::json json_of(const std::vector<int>& v) { return v; }

// Lenient reads of j[key]: a missing or wrongly typed value keeps v.
void read_json(const nlohmann::json& j, const char* key, int& v) { v = int_or(j, key, v); }
void read_json(const nlohmann::json& j, const char* key, double& v) {
  if (j.contains(key) && j[key].is_number()) v = j[key].get<double>();
}
void read_json(const nlohmann::json& j, const char* key, std::string& v) {
  if (j.contains(key) && j[key].is_string()) v = j[key].get<std::string>();
}
void read_json(const nlohmann::json& j, const char* key, Objective& v) {
  if (j.contains(key) && j[key].is_string()) v = objective_from_string(j[key].get<std::string>()).value_or(v);
}
void read_json(const nlohmann::json& j, const char* key, Regime& v) {
  if (j.contains(key) && j[key].is_string()) v = regime_from_string(j[key].get<std::string>()).value_or(v);
}
void read_json(const nlohmann::json& j, const char* key, std::vector<int>& v) {
  if (!j.contains(key) || !j[key].is_array()) return;
  v.clear();  // only positive ints are kept: a hand-edited "x" or -1 is dropped
  for (std::size_t i = 0; i < j[key].size(); ++i)
    if (const int x = int_or(j[key], i, 0); x > 0) v.push_back(x);
}

// The JSON object a row lives in: the config itself or its nested object.
const nlohmann::json* object_in(const nlohmann::json& j, const char* nested) {
  if (!nested) return &j;
  const auto it = j.find(nested);
  return it != j.end() && it->is_object() ? &*it : nullptr;
}

// ---- building rows -----------------------------------------------------------

// A row's member: the accessor from which its text, assign, JSON and copy are made.
#define SWZ_MEMBER(FIELD) +[](RunConfig& c) -> decltype((c.FIELD)) { return c.FIELD; }

// The row's fields in the order they read best in the table below.
struct RowSpec {
  SettingRow row;
  RowSpec& in(const char* group, CommandSet commands) { row.group = group; row.commands = commands; return *this; }
  RowSpec& fixed() { row.on_resume = OnResume::fixed; return *this; }
  RowSpec& def(const char* text) { row.default_text = text; return *this; }
  RowSpec& help(const char* text) { row.help = text; return *this; }
  RowSpec& range(SettingRow::Range r) { row.range = r; return *this; }
  RowSpec& one_of(std::vector<SettingRow::Choice> c) { row.choices = std::move(c); return *this; }
  RowSpec& json(const char* key, const char* nested = nullptr) { row.json_key = key; row.json_object = nested; return *this; }
  RowSpec& absent(const char* text) { row.absent = text; return *this; }
  RowSpec& matches_any(const char* text) { row.matches_any = text; return *this; }
  RowSpec& omitted_at_default() { row.omitted_at_default = true; return *this; }
  RowSpec& variant(CommandSet commands, const char* group, const char* default_text, const char* help,
                   std::optional<SettingRow::Range> range = std::nullopt) {
    row.variants.push_back({commands, group, default_text, help, range});
    return *this;
  }
};

RowSpec setting_row(const char* key, SettingType type) {
  RowSpec s;
  SettingRow& r = s.row;
  r.key = key;
  r.type = type;
  r.on_resume = OnResume::may_change;
  r.commands = 0;
  r.group = "Run";
  r.default_text = "";
  r.help = "";
  r.json_object = nullptr;
  r.json_key = nullptr;
  r.absent = nullptr;
  r.matches_any = nullptr;
  return s;
}

SettingRow::Range range_between(double lo, double hi, const char* why = nullptr) {
  SettingRow::Range r;
  r.lo = lo;
  r.hi = hi;
  r.why = why;
  return r;
}
SettingRow::Range range_above(double lo, double hi) {
  SettingRow::Range r = range_between(lo, hi);
  r.lo_open = true;
  return r;
}

// The row's functions on its member, once its type, range and JSON key are set.
template <class T>
SettingRow finish_row(RowSpec spec, T& (*field)(RunConfig&)) {
  SettingRow r = std::move(spec.row);
  // The accessor takes a RunConfig& (one lambda per row); reading never writes through it.
  auto get = [field](const RunConfig& c) -> const T& { return field(const_cast<RunConfig&>(c)); };
  std::optional<long long> top;
  if (r.type == SettingType::count && r.range) top = static_cast<long long>(r.range->hi);
  r.text = [get](const RunConfig& c) { return value_text(get(c)); };
  r.copy = [field, get](RunConfig& to, const RunConfig& from) { field(to) = get(from); };
  r.assign = [field, top](RunConfig& c, const std::string& s) { parse_into(s, top, field(c)); };
  const char* key = r.json_key;
  const char* nested = r.json_object;
  r.write = [get, key, nested](nlohmann::json& j, const RunConfig& c) {
    (nested ? j[nested][key] : j[key]) = json_of(get(c));
  };
  r.read = [field, key, nested](RunConfig& c, const nlohmann::json& j) {
    if (const nlohmann::json* o = object_in(j, nested)) read_json(*o, key, field(c));
  };
  return r;
}

// One row: SWZ_ROW("key", type, RunConfig member, .in(...).def(...)...).
#define SWZ_ROW(KEY, TYPE, FIELD, ...) finish_row(setting_row(KEY, TYPE) __VA_ARGS__, SWZ_MEMBER(FIELD))

constexpr CommandSet kRun = kOptimize | kSuite;              // the commands that run the optimize loop with a proposer
constexpr CommandSet kMeasure = kOptimize | kSuite | kGate | kSweep | kTune;  // the commands that time programs
constexpr CommandSet kTools = kMeasure | kBuild | kProbe;    // the commands that run the vendor tools

using ST = SettingType;

std::vector<SettingRow> make_table() {
  SettingRow::Range rounds = range_between(6, 1000);
  rounds.zero_too = true;
  rounds.says = "a 95 % interval needs at least 6 rounds (5 agreeing rounds still leave a 6.25 % chance); use 6..1000, "
                "or 0 for no re-check";
  SettingRow::Range gate_rounds = range_between(6, 1000);
  gate_rounds.says = "a 95 % interval needs at least 6 rounds (5 agreeing rounds still leave a 6.25 % chance); use 6..1000";
  SettingRow::Range throttle = range_between(0, 1);
  throttle.hi_open = true;
  throttle.says = "use a fraction of the device's clock rate in [0, 1) (0: never discard)";
  SettingRow::Range launches = range_between(0, 1 << 20);
  SettingRow::Range seconds_or_none = range_above(0, 604800);
  seconds_or_none.zero_too = true;
  seconds_or_none.says = "use more than 0 and at most 604800 seconds, or 0 for no limit";
  const char* seconds = "seconds";
  return {
      // ---- the run (each command's own group) ----
      SWZ_ROW("iterations", ST::integer, iterations,
              .in("Run", kRun).def("10").help("attempts to make (duplicates of earlier mappings are not counted)")
              .variant(kSuite, nullptr, nullptr, "attempts per kernel")
              .range(range_between(1, 1000)).json("iterations")),
      SWZ_ROW("size", ST::size, size,
              .in("Run", kOptimize | kGate | kTune).fixed().def("").help("problem size passed to the program as --size (e.g. 8192,8192,2048)")
              .json("size")),
      SWZ_ROW("reps", ST::integer, time_reps,
              .in("Run", kMeasure).fixed().def("30").help("timed repetitions per measurement (median reported)")
              .variant(kGate, nullptr, nullptr, "timed repetitions per round (median reported)")
              .variant(kSweep, nullptr, "20", "timed repetitions per size (median reported)")
              .range(range_between(1, 100000)).json("reps")),
      SWZ_ROW("warmup", ST::integer, warmup,
              .in("Run", kMeasure).fixed().def("5").help("untimed warm-up runs before timing")
              .variant(kGate, nullptr, nullptr, "untimed warm-up runs before each round")
              .variant(kSweep, nullptr, "3", nullptr)
              .range(range_between(0, 10000)).json("warmup")),
      SWZ_ROW("host-cxx", ST::text, host_cxx,
              .in("Run", kMeasure).def("c++").help("host C++ compiler for the mapping check").json("host_cxx")),
      SWZ_ROW("build-jobs", ST::integer, build_jobs,
              .in("Run", kRun | kTune).def("0").help("concurrent kernel builds, the proposer's next candidates built ahead (1: serial; "
                                             "0: min(cores-1, 4), memory permitting)")
              .range(range_between(0, 64, "0: automatic")).json("build_jobs")),
      // ---- what "best" means, and the judge ----
      SWZ_ROW("objective", ST::choice, objective,
              .in("Objective", kRun | kSweep).fixed().def("time")
              .help("what makes a kernel best: time (largest significant speedup; none: keep the original), l2 (the "
                    "paper's ranking: L2 hit rate, then time) or energy (lowest significant energy per run, measured "
                    "sustained)")
              // sweep's verdict judges time or L2 only: it has no energy verdict, so it does not take energy.
              .variant(kSweep, nullptr, nullptr, "what the verdict judges: time (significantly faster helps, "
                                                  "significantly slower hurts) or l2 (the L2 hit rate, then time)")
              .one_of({{"time"}, {"l2"}, {"energy", kRun}}).json("objective")),
      SWZ_ROW("rounds", ST::integer, recheck_rounds,
              .in("Objective", kMeasure).def("6")
              .help("the speed judge's least interleaved rounds per regime (>= 6 for a 95 % interval; 0 turns the judge "
                    "off: one-shot timings only, no winner named)")
              .variant(kGate, "Run", "10", "interleaved identity/committed timing rounds (>= 6 for a 95 % interval)",
                        gate_rounds)
              .range(rounds).json("recheck_rounds")),
      SWZ_ROW("finalists", ST::integer, finalists,
              .in("Objective", kRun | kTune).def("3")
              .help("candidates the screening sends to the speed judge: the fastest one-shot times and the best L2 hit "
                    "rate, each within 3 % of the baseline or better")
              .range(range_between(1, 32, "candidates the screening sends to the speed judge")).json("finalists")),
      SWZ_ROW("profile", ST::choice, profile,
              .in("Objective", kRun).def("auto")
              .help("which screened candidates the profiler measures: each, winner (only the baseline and the judge's "
                    "winner; finalists chosen by time and the predicted L2) or auto (each with the llm proposer or "
                    "--objective l2, which read every profile; else winner: a profile can cost half a candidate)")
              .one_of({{"auto"}, {"each"}, {"winner"}}).json("profile").absent("each")),
      // ---- the power regime ----
      SWZ_ROW("regime", ST::choice, timing.regime,
              .in("Power regime", kMeasure).fixed().def("both")
              .help("the power regime of the speed judge: burst (short requests after a pause, throttled samples "
                    "discarded), sustained (the GPU held at its power cap, members' windows back to back, energy per run) "
                    "or both (a winner must win in both)")
              .one_of({{"burst"}, {"sustained"}, {"both"}}).json("regime")),
      SWZ_ROW("throttle-threshold", ST::real, timing.throttle_threshold,
              .in("Power regime", kMeasure).fixed().def("0.75")
              .help("burst: discard a sample whose SM clock is below this fraction of the device's clock rate, and "
                    "re-take it (0: never discard)")
              .range(throttle).json("throttle_threshold")),
      SWZ_ROW("recovery-ms", ST::integer, timing.recovery_ms,
              .in("Power regime", kMeasure).fixed().def("50").help("burst: wait this long after a discarded sample")
              .range(range_between(0, 60000)).json("recovery_ms")),
      SWZ_ROW("max-discards", ST::integer, timing.max_discards,
              .in("Power regime", kMeasure).fixed().def("30")
              .help("burst: discarded samples per request before the regime counts as not reached")
              .range(range_between(0, 100000)).json("max_discards")),
      SWZ_ROW("settle-seconds", ST::real, timing.settle_s,
              .in("Power regime", kMeasure).fixed().def("2")
              .help("sustained: back-to-back passes that bring the GPU to its power cap, once per judge tournament and "
                    "before a one-shot timing")
              .range(range_between(0, 600)).json("settle_seconds")),
      SWZ_ROW("sustain-seconds", ST::real, timing.sustain_s,
              .in("Power regime", kMeasure).fixed().def("1")
              .help("sustained: one timed window of back-to-back passes (each member's, per judge round)")
              .range(range_above(0, 600)).json("sustain_seconds")),
      SWZ_ROW("pause-ms", ST::integer, timing.pause_ms,
              .in("Power regime", kMeasure).fixed().def("250")
              .help("burst: the judge's pause before each request after the first (the GPU cools; back to back, requests "
                    "skew the ratio)")
              .range(range_between(0, 60000)).json("pause_ms")),
      SWZ_ROW("max-rounds", ST::integer, timing.max_rounds,
              .in("Power regime", kMeasure).def("12")
              .help("the judge's most rounds per regime: it stops earlier once one candidate is left and decisive")
              .range(range_between(1, 1000, "rounds past --rounds until a verdict is decisive")).json("max_rounds")),
      SWZ_ROW("judge-seconds", ST::real, timing.judge_s,
              .in("Power regime", kMeasure).def("30")
              .help("the judge's time budget per regime: no round starts after it (the --rounds least always run); more "
                    "buys narrower intervals. With every default the judge took about 40 s on a GEMM like "
                    "kernels/tc/gemm_tc.hip, whose whole run took about 80 s screening 5 candidates (docs/timing.md)")
              .range(range_above(0, 86400)).json("judge_seconds")),
      // ---- the proposer ----
      SWZ_ROW("proposer", ST::choice, proposer,
              .in("Proposer", kRun).def("auto").help("auto (llm when an LLM is configured, else builtin), builtin or llm")
              .one_of({{"auto"}, {"builtin"}, {"llm"}}).json("proposer")),
      SWZ_ROW("locality-model", ST::choice, locality_model,
              .in("Proposer", kRun).def("on")
              .help("on: predict every candidate's L2 from the program's footprint, rank the built-in candidates by it "
                    "and keep predictions in the history; off: explore without it")
              .one_of({{"on"}, {"off"}}).json("locality_model").absent("off")),
      SWZ_ROW("base-url", ST::text, llm.base_url,
              .in("LLM", kRun).def("").help("OpenAI-compatible base URL (default: $OPENAI_BASE_URL, else https://api.openai.com/v1)")
              .json("base_url", "proposer_config")),
      SWZ_ROW("api-key-env", ST::text, llm.api_key_env,
              .in("LLM", kRun).def("OPENAI_API_KEY").help("environment variable holding the API key (optional for local servers)")
              .json("api_key_env", "proposer_config")),
      SWZ_ROW("model", ST::text, llm.model,
              .in("LLM", kRun).def("gpt-4o").help("model name").json("model", "proposer_config")),
      SWZ_ROW("temperature", ST::real, llm.temperature,
              .in("LLM", kRun).def("0.2").help("sampling temperature").range(range_between(0, 2))
              .json("temperature", "proposer_config")),
      SWZ_ROW("max-tokens", ST::integer, llm.max_tokens,
              .in("LLM", kRun).def("4096").help("max completion tokens per call").range(range_between(1, 1000000))
              .json("max_tokens", "proposer_config")),
      SWZ_ROW("llm-timeout", ST::integer, llm.timeout_s,
              .in("LLM", kRun).def("120").help("seconds per LLM request").range(range_between(1, 3600, seconds))
              .json("timeout_s", "proposer_config")),
      SWZ_ROW("context", ST::choice, llm.context,
              .in("LLM", kRun).def("aware")
              .help("hardware context in prompts: aware (default), unaware or overload (the paper's three arms)")
              .one_of({{"aware"}, {"unaware"}, {"overload"}}).json("context", "proposer_config")),
      // ---- the backend and its tools' limits ----
      SWZ_ROW("backend", ST::choice, backend,
              .in("Backend", kTools).fixed().def("auto")
              .help("auto, cuda (nvcc + ncu), hip (hipcc + rocprofv3) or triton (Python with torch + triton, and ncu or "
                    "rocprofv3; auto for a .py program)")
              .one_of({{"auto"}, {"cuda"}, {"hip"}, {"triton"}}).json("backend").matches_any("auto")),
      SWZ_ROW("arch", ST::text, arch,
              .in("Backend", kTools).fixed().def("").help("GPU arch (sm_90, gfx942); default: from the device query")
              .json("arch")),
      SWZ_ROW("run-timeout", ST::integer, run_timeout_s,
              .in("Backend", kTools).def("120").help("seconds before a kernel program run is killed")
              .range(range_between(1, 86400, seconds)).json("run_timeout_s")),
      SWZ_ROW("build-timeout", ST::integer, build_timeout_s,
              .in("Backend", kTools).def("300").help("seconds before a compile is killed")
              .range(range_between(1, 86400, seconds)).json("build_timeout_s")),
      SWZ_ROW("profile-timeout", ST::integer, profile_timeout_s,
              .in("Backend", kTools).def("300").help("seconds before a profiler run is killed")
              .range(range_between(1, 86400, seconds)).json("profile_timeout_s")),
      SWZ_ROW("profile-launches", ST::count, profile_launches,
              .in("Backend", kTools).fixed().def("24")
              .help("most kernel launches one profile collects: a run with more is profiled over the middle ones (cuda; "
                    "the hip backend profiles all); 0: every launch")
              .range(launches).json("profile_launches")),
      // ---- the tune search (tune only; kept out of other runs' records) ----
      SWZ_ROW("strategy", ST::choice, tune.strategy,
              .in("Tune", kTune).fixed().def("guided")
              .help("how the space of parameters x orders is searched: guided (screen points at a grouped order, "
                    "every order on the best few, then climb one parameter one step at a time), exhaustive (every "
                    "point x every order) or random (a seeded sample)")
              .one_of({{"guided"}, {"exhaustive"}, {"random"}}).json("strategy", "tune").omitted_at_default()),
      SWZ_ROW("budget", ST::integer, tune.budget,
              .in("Tune", kTune).def("60")
              .help("evaluations of the search (each builds, checks and times one point at one order); a resume may "
                    "raise it to go on")
              .range(range_between(1, 10000, "evaluations")).json("budget", "tune").omitted_at_default()),
      SWZ_ROW("budget-seconds", ST::real, tune.budget_s,
              .in("Tune", kTune).def("0")
              .help("wall seconds of the search in one session: no new evaluation starts after it (0: no limit; "
                    "the judge runs after it)")
              .range(seconds_or_none).json("budget_seconds", "tune").omitted_at_default()),
      SWZ_ROW("seed", ST::integer, tune.seed,
              .in("Tune", kTune).fixed().def("1")
              .help("the seed of the random strategy's sample and of the guided search's screening sample")
              .range(range_between(0, 2147483647)).json("seed", "tune").omitted_at_default()),
  };
}

#undef SWZ_ROW
#undef SWZ_MEMBER

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

const std::vector<SettingRow>& settings_table() {
  static const std::vector<SettingRow> table = make_table();
  return table;
}

const SettingRow* find_setting(const std::string& key) {
  for (const auto& r : settings_table())
    if (key == r.key) return &r;
  return nullptr;
}

const char* SettingRow::group_for(CommandSet command) const {
  for (const auto& v : variants)
    if ((v.commands & command) && v.group) return v.group;
  return group;
}

const char* SettingRow::default_for(CommandSet command) const {
  for (const auto& v : variants)
    if ((v.commands & command) && v.default_text) return v.default_text;
  return default_text;
}

const char* SettingRow::help_for(CommandSet command) const {
  for (const auto& v : variants)
    if ((v.commands & command) && v.help) return v.help;
  return help;
}

std::optional<SettingRow::Range> SettingRow::range_for(CommandSet command) const {
  for (const auto& v : variants)
    if ((v.commands & command) && v.range) return v.range;
  return range;
}

std::vector<std::string> SettingRow::choices_for(CommandSet command) const {
  std::vector<std::string> out;
  for (const auto& c : choices)
    if (c.commands & command) out.emplace_back(c.value);
  return out;
}

std::string SettingRow::check(const std::string& text, CommandSet command) const {
  const std::string name = std::string("--") + key;
  switch (type) {
    case SettingType::text:
      return "";
    case SettingType::size: {
      if (text.empty()) return "";
      auto n = parse_positive_list(text, kMaxSizeValue);
      return n ? "" : name + " '" + one_line(text, 60) + "': " + n.error().message;
    }
    case SettingType::choice: {
      const auto values = choices_for(command);
      for (const auto& v : values)
        if (v == text) return "";
      std::string list;
      for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
      return name + " '" + one_line(text, 40) + "' is not one of: " + list;
    }
    case SettingType::integer:
    case SettingType::count:
    case SettingType::real:
      break;
  }
  std::optional<double> v;
  if (type == SettingType::real) {
    v = real_number(text);
  } else if (auto n = whole_number(text)) {
    v = static_cast<double>(*n);
    if (type == SettingType::integer && (*n < -2147483648LL || *n > 2147483647LL)) v.reset();
  }
  if (!v) return name + " '" + one_line(text, 40) + "' is not a " + (type == SettingType::real ? "number" : "whole number");
  const auto r = range_for(command);
  if (!r) return "";
  if (type == SettingType::count) return *v >= 0 ? "" : fmt::format("{} {}: use 0 or more", name, text);
  if (r->zero_too && *v == 0) return "";
  const bool low_ok = r->lo_open ? *v > r->lo : *v >= r->lo;
  const bool high_ok = r->hi_open ? *v < r->hi : *v <= r->hi;
  if (low_ok && high_ok) return "";
  std::string says = r->says ? r->says
                     : r->lo_open ? fmt::format("use more than {} and at most {}", number_text(r->lo), number_text(r->hi))
                                  : fmt::format("use {}..{}", number_text(r->lo), number_text(r->hi));
  return fmt::format("{} {}: {}{}", name, type == SettingType::real ? number_text(*v) : text, says,
                     r->why ? std::string(" (") + r->why + ")" : "");
}

Status SettingRow::set(RunConfig& c, const std::string& text, CommandSet command) const {
  if (auto e = check(text, command); !e.empty()) return make_error(e);
  assign(c, text);
  return ok_status();
}

std::string check_settings(const RunConfig& c) {
  if (c.objective != Objective::energy) return "";
  if (c.timing.regime == Regime::burst)
    return "--objective energy with --regime burst: energy per run is measured in the sustained regime only (a burst's "
           "runs are too short for the energy counter); use --regime sustained or both";
  if (c.recheck_rounds == 0)
    return "--objective energy with --rounds 0: the energy ratio's interval comes from the re-check; use --rounds 6 or more";
  return "";
}

RunConfig default_config(CommandSet command) {
  RunConfig c;
  for (const auto& r : settings_table())
    if (r.takes(command)) r.assign(c, r.default_for(command));
  return c;
}

std::vector<SettingView> describe_settings(const RunConfig& c) {
  std::vector<SettingView> out;
  for (const auto& r : settings_table()) out.push_back({r.key, r.on_resume == OnResume::fixed, r.text(c)});
  return out;
}

Result<RunConfig> resume_config(const RunConfig& recorded, const RunConfig& asked, const std::set<std::string>& given,
                                const std::string& now, int next_iteration) {
  RunConfig out = recorded;
  for (const auto& s : settings_table()) {
    if (!given.count(s.key)) continue;
    const std::string was = s.text(recorded), want = s.text(asked);
    if (was == want) continue;
    if (s.matches_any && want == s.matches_any) continue;
    if (s.on_resume == OnResume::fixed)
      return make_error(fmt::format(
          "--{} {} on --resume: this run was measured with {} {}, and a resumed run keeps what 'best' means and how "
          "it is measured; drop --{}, or start a new run with --run-dir",
          s.key, want, s.key, was, s.key));
    s.copy(out, asked);
    out.changes.push_back({s.key, was, want, now, next_iteration});
  }
  return out;
}

void to_json(nlohmann::json& j, const LlmSettings& s) {
  RunConfig c;
  c.llm = s;
  nlohmann::json whole;
  to_json(whole, c);
  j = whole["proposer_config"];
}

void to_json(nlohmann::json& j, const SettingChange& c) {
  j = {{"setting", c.setting}, {"from", c.from}, {"to", c.to}, {"at", c.at}, {"from_iteration", c.from_iteration}};
}

// The settings from the table; the record's own fields (which command, the suite,
// the gate's always-re-check, the changes) by hand: they are not options.
void to_json(nlohmann::json& j, const RunConfig& c) {
  j = nlohmann::json::object();
  const CommandSet command = command_set(c.command);
  for (const auto& r : settings_table()) {
    if (r.omitted_at_default && !(r.commands & command) && r.text(c) == r.text(RunConfig{})) continue;
    r.write(j, c);
  }
  j["command"] = c.command;
  j["recheck_every_candidate"] = c.recheck_every_candidate;
  j["changes"] = c.changes;
  if (!c.suite.empty()) j["suite"] = c.suite;
}

RunConfig run_config_from_json(const nlohmann::json& j, bool legacy_objective) {
  RunConfig c;
  if (!j.is_object()) return c;
  c.command = str_or(j, "command", c.command);
  c.suite = str_or(j, "suite", "");
  for (const auto& r : settings_table()) {
    if (r.absent) r.assign(c, r.absent);  // written before the setting existed, or a wrongly typed value
    r.read(c, j);
  }
  // No "objective": written before the option existed, and ranked by L2 (RunConfig's
  // own default); a caller that knows better passes false and keeps that default too.
  (void)legacy_objective;
  if (j.contains("recheck_every_candidate") && j["recheck_every_candidate"].is_boolean())
    c.recheck_every_candidate = j["recheck_every_candidate"].get<bool>();
  if (const auto ch = j.find("changes"); ch != j.end() && ch->is_array())
    for (const auto& e : *ch)
      if (e.is_object())
        c.changes.push_back({str_or(e, "setting", ""), str_or(e, "from", ""), str_or(e, "to", ""), str_or(e, "at", ""),
                             int_or(e, "from_iteration", 0)});
  return c;
}

}  // namespace swz
