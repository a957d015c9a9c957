// RunConfig: the one home of a run's settings. The CLI fills it from options,
// the loop reads it, history.json is its serialisation (the "config" object), and
// a resumed run starts from the recorded one. Nothing else holds a setting.
//
// Every setting is one row of settings_table() (below), in the spirit of ccache's
// config key table: its option name, type, default, help, the commands that take
// it, its validation, its key in history.json and its resume rule. The options
// (cli/options), describe_settings, resume_config and the JSON are derived from the
// rows; no other list of settings exists.
//
// Resume rules (resume_config): a setting that defines what "best" means or how a
// number is measured (objective, size, backend, arch, reps, warm-up, the profile
// window, the power regime and its rules) is fixed for a run's life: naming a different value on --resume is
// refused with one line, because the recorded baseline and attempts were judged
// under the old one. Every other setting (iterations, re-check rounds, timeouts,
// the proposer and its LLM settings, build jobs, host compiler) may change: the new
// value is applied and the change recorded in `changes`, with when and from which
// attempt on, so a reader of the history knows which attempts ran under which.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/util/result.h"

namespace swz {

// What "best" means (--objective). time: the validated candidate with the largest
// significant speedup (> 1); none when nothing is significantly faster. l2: the
// paper's ranking, highest L2 hit rate then lowest time (reports flag a best that is
// significantly slower than the baseline).
// energy: the validated candidate with the lowest energy per run whose energy ratio
// against the baseline is significantly below 1 (measured in the sustained regime,
// the only one where the counter can attribute energy to runs; docs/timing.md).
enum class Objective { time, l2, energy };
std::string to_string(Objective o);
std::optional<Objective> objective_from_string(const std::string& s);

// The power regime a speed measurement is taken in (--regime; docs/timing.md).
// burst: short requests after a pause, samples taken below the throttle threshold
// discarded and re-taken; sustained: back-to-back passes for seconds, only the
// settled window timed; both: every re-check in both. unnamed: a history written
// before regimes existed (its programs were timed without regime options; a resumed
// one goes on that way).
enum class Regime { burst, sustained, both, unnamed };
std::string to_string(Regime r);
std::optional<Regime> regime_from_string(const std::string& s);  // burst | sustained | both

// How the program is asked to time itself in each regime (its time-mode options).
struct RegimeSettings {
  Regime regime = Regime::unnamed;      // the CLI's default is both (--regime)
  double throttle_threshold = 0.75;     // burst: discard a sample below this x the device's clock rate; 0: never
  int recovery_ms = 50;                 // burst: wait after a discarded sample
  int max_discards = 30;                // burst: discards per request before the regime counts as not reached
  // sustained: back-to-back passes that bring the GPU to its power cap before timing:
  // once per judge tournament (the baseline, untimed), and before a one-shot timing.
  double settle_s = 2.0;
  // sustained: one timed window of back-to-back passes (each member's, in every round
  // of the judge; the one-shot timing's). A history from before the judge's tournament ran 3.
  double sustain_s = 1.0;
  // Both: the re-check's pause before each request to a serving program after the
  // first (--pause-ms; a history from before the setting ran with 250). Back to back,
  // the two programs' requests skewed the ratio on the H100: gemm_tc's best order
  // measured 1.23x [1.14, 1.25] served back to back (SM clock down to 1800 MHz,
  // software power cap engaged) but 1.31x one time process per run and 1.31-1.32x
  // with a pause of 0.1, 0.25 or 0.5 s (bench/results/2026-11-23-h100-recheck-modes).
  int pause_ms = 250;
  // The judge (loop/speed_judge): rounds past --rounds until a verdict is decisive, at
  // most max_rounds, and no round starts after judge_s seconds of a regime's tournament.
  int max_rounds = 12;
  double judge_s = 30;
  // The regimes a re-check measures, in order (unnamed: one, without regime options).
  std::vector<Regime> measured() const;
  // The regime of the one-shot timing in evaluate: sustained when the re-check
  // measures sustained only or `objective` is energy, burst otherwise.
  Regime screening(Objective objective) const;
  // The program's time-mode options for the regimes' rules ({} for unnamed); the
  // regime itself is named per request (`--regime R`, or `time R` to a serving program).
  std::vector<std::string> program_args() const;
};

// The LLM proposer's settings as recorded (the API key itself never: only the name
// of the variable that holds it).
struct LlmSettings {
  std::string base_url;                 // empty: $OPENAI_BASE_URL, else the OpenAI API
  std::string api_key_env = "OPENAI_API_KEY";
  std::string model = "gpt-4o";
  double temperature = 0.2;
  int max_tokens = 4096;
  int timeout_s = 120;
  std::string context = "aware";        // aware | unaware | overload
};

// The tune search's settings (swizzleperf tune; tune/tune_search.h says what each does).
// The strategy and seed fix the sequence of trials, so a resume keeps them; the budgets
// may grow.
struct TuneSettings {
  std::string strategy = "guided";      // guided | exhaustive | random
  int budget = 60;                      // evaluations (attempts) of the search
  double budget_s = 0;                  // wall seconds of one session's search; 0: no limit
  int seed = 1;                         // random's sample and guided's screening sample
};

// One setting changed on a resume: applied from attempt `from_iteration` on.
struct SettingChange {
  std::string setting;                  // the option's name, e.g. "iterations"
  std::string from, to;                 // values as the option takes them
  std::string at;                       // ISO-8601 UTC
  int from_iteration = 0;
};

struct RunConfig {
  std::string command = "optimize";     // optimize | suite | gate
  std::string suite;                    // the suite's output dir, when a suite ran it
  // Fixed for the run's life (see resume rules above).
  // The CLI's default is time (--objective); a config that never named one ranks
  // like a history written before the option existed: by L2.
  Objective objective = Objective::l2;
  std::vector<int> size;                // --size for the program; empty: its default
  std::string backend = "auto";         // cuda | hip (auto until resolved)
  std::string arch;                     // empty: from the device query
  int time_reps = 30;
  int warmup = 5;
  int profile_launches = 24;            // the profile window's size (backend ToolOptions)
  RegimeSettings timing;                // the power regime and its rules
  // May change on resume.
  int iterations = 10;                  // attempts that reach the GPU or the check (duplicates excluded)
  int recheck_rounds = 6;               // the judge's least interleaved rounds per regime; 0: no judge
  int finalists = 3;                    // optimize: candidates the screening sends to the judge
  // Which screened candidates are profiled: each (every one), winner (only the baseline and,
  // after the judge, the winner) or auto (each for the LLM proposer or the l2 objective,
  // which read every profile; else winner). loop/measure_settings resolves it.
  std::string profile = "auto";
  bool recheck_every_candidate = false; // gate: its one candidate is always re-checked
  std::string proposer = "auto";        // auto | builtin | llm | committed
  // on: the locality model (model/) predicts every candidate from the program's footprint,
  // the built-in proposer ranks by it and the history keeps predictions; off: not used.
  // A history written before the setting existed reads as off.
  std::string locality_model = "on";
  LlmSettings llm;
  int build_jobs = 0;                   // 0: BuildPool::default_jobs()
  std::string host_cxx = "c++";
  int run_timeout_s = 120;
  int build_timeout_s = 300;
  int profile_timeout_s = 300;
  TuneSettings tune;                    // tune only
  std::vector<SettingChange> changes;   // what resumes changed, oldest first
};

void to_json(nlohmann::json& j, const LlmSettings& s);
void to_json(nlohmann::json& j, const SettingChange& c);
void to_json(nlohmann::json& j, const RunConfig& c);
// Lenient: a missing or wrongly typed field keeps its default (histories are edited
// by hand and fuzzed). `legacy_objective`: a config without "objective" was written
// before the option existed and was ranked by L2.
RunConfig run_config_from_json(const nlohmann::json& j, bool legacy_objective = true);

// ---- the settings table ------------------------------------------------------

// The commands that take run settings, as bits of a CommandSet.
enum SettingCommand : unsigned { kOptimize = 1u, kSuite = 2u, kGate = 4u, kSweep = 8u, kBuild = 16u, kProbe = 32u, kTune = 64u };
using CommandSet = unsigned;
constexpr CommandSet kAnyCommand = kOptimize | kSuite | kGate | kSweep | kBuild | kProbe | kTune;
// A command's bit by its name ("sweep"); kAnyCommand for one that takes no run
// settings of its own (check, predict: their options of the same name are checked alike).
CommandSet command_set(const std::string& name);

// How a row's option is typed and checked. integer, count and real are numbers in a
// range (count: >= 0, clamped to the range's top); choice is one of a list; size a
// comma list of positive integers (empty: the program's default); text anything.
enum class SettingType { integer, count, real, text, choice, size };
// fixed: a resume may not change it (what "best" means, how a number is measured);
// may_change: a resume applies the new value and records the change.
enum class OnResume { fixed, may_change };

// The largest value in a --size: a program's size values are ints.
constexpr long long kMaxSizeValue = 1LL << 30;

struct SettingRow {
  // A number's accepted range. The message for a value outside it is "--KEY V: " and
  // then `says`, or "use LO..HI" ("use more than LO and at most HI" when lo_open),
  // with " (why)" after it.
  struct Range {
    double lo = 0, hi = 0;
    bool lo_open = false, hi_open = false;
    bool zero_too = false;        // 0 also accepted (the feature off)
    const char* says = nullptr;
    const char* why = nullptr;
  };
  // One value of a choice, and the commands that accept it.
  struct Choice {
    const char* value;
    CommandSet commands = kAnyCommand;
  };
  // What differs for some commands; nullptr / empty: the row's own.
  struct Variant {
    CommandSet commands;
    const char* group = nullptr;
    const char* default_text = nullptr;
    const char* help = nullptr;
    std::optional<Range> range;
  };

  const char* key;                 // the option's name (--KEY), the name a change is recorded under
  SettingType type;
  OnResume on_resume;
  CommandSet commands;             // the commands that take it
  const char* group;               // --help's group; "Run": the command's own group
  const char* default_text;        // the option's default, as the option takes it
  const char* help;
  std::vector<Variant> variants;
  std::optional<Range> range;
  std::vector<Choice> choices;
  const char* json_object;         // history.json: nullptr, or the config's nested object ("proposer_config")
  const char* json_key;            // the key in it
  const char* absent;              // the value of a history written before the setting existed; nullptr: RunConfig's default
  const char* matches_any;         // a value that, asked on a resume, matches any recorded one ("auto"); nullptr: none
  // history.json leaves the row out while it holds its default, unless the run's command
  // takes it: a row that only some commands take (tune's) does not change the record of
  // the others' runs. Read back, a missing value is the default.
  bool omitted_at_default = false;

  // The value as text (empty text shown as ""; size as "default" or "a,b,c").
  std::function<std::string(const RunConfig&)> text;
  // The member from an option's text that check() accepted.
  std::function<void(RunConfig&, const std::string&)> assign;
  // The member into history.json's object, and back (lenient: a missing or wrongly
  // typed value keeps what the config holds).
  std::function<void(nlohmann::json&, const RunConfig&)> write;
  std::function<void(RunConfig&, const nlohmann::json&)> read;
  std::function<void(RunConfig&, const RunConfig&)> copy;

  bool takes(CommandSet command) const { return (commands & command) != 0; }
  const char* group_for(CommandSet command) const;
  const char* default_for(CommandSet command) const;
  const char* help_for(CommandSet command) const;
  std::optional<Range> range_for(CommandSet command) const;
  std::vector<std::string> choices_for(CommandSet command) const;
  // "" when `text` is a value `command` accepts, else the one-line message naming --KEY.
  std::string check(const std::string& text, CommandSet command) const;
  // check, then assign.
  Status set(RunConfig& c, const std::string& text, CommandSet command) const;
};

// Every setting, in the order --help lists them and a resume reads them.
const std::vector<SettingRow>& settings_table();
const SettingRow* find_setting(const std::string& key);
// The rules between settings (energy needs the sustained regime and the re-check):
// "" or the one-line message.
std::string check_settings(const RunConfig& c);
// A config with every setting `command` takes at the command's default.
RunConfig default_config(CommandSet command);

// The settings in resume order: name (as the option), whether fixed, and its value
// as text. The resume rules and the tests both read this table.
struct SettingView {
  std::string name;
  bool fixed;
  std::string value;
};
std::vector<SettingView> describe_settings(const RunConfig& c);

// The config a resumed run goes on with: `recorded`, with each setting named in
// `given` (option names, as describe_settings names them) taken from `asked`.
// A fixed setting whose asked value differs is an Error naming it, both values
// and what to do; a changeable one that differs is applied and appended to
// changes (at `now`, from attempt `next_iteration`). A given setting equal to the
// recorded value changes nothing. backend "auto" matches any recorded backend.
Result<RunConfig> resume_config(const RunConfig& recorded, const RunConfig& asked, const std::set<std::string>& given,
                                const std::string& now, int next_iteration);

// "8192,8192,2048" (empty: "default").
std::string size_text(const std::vector<int>& size);

}  // namespace swz
