// PromptBuilder: fills the text templates in prompts/ for the two LLM calls —
// the one-time memory analysis and the per-attempt optimize call — with the
// kernel, its baseline measurements, the memory analysis, every earlier attempt
// and the hardware context. The context mode is one of the paper's three arms:
// aware (filtered hardware facts), unaware (no hardware, die or L2 information
// at all) and overload (a long unfiltered architecture text instead of the
// facts). Templates use `{{name}}`; a placeholder with no value is an error, so
// a template edit cannot silently send a prompt with a hole in it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/util/result.h"
#include "swizzleperf/proposer/proposer.h"

namespace swz {

enum class ContextMode { aware, unaware, overload };
std::string to_string(ContextMode mode);
// "aware" | "unaware" | "overload"; anything else is an Error listing the three.
Result<ContextMode> parse_context_mode(std::string_view text);

// Replaces every `{{name}}` (name: letters, digits, '_') by values[name]; a name
// not in values is an Error naming it and `template_name`. Values are inserted
// verbatim and not scanned again. Text like `{{ x` or `{{}}` stays as is.
Result<std::string> fill_template(std::string_view text,
                                  const std::map<std::string, std::string>& values,
                                  const std::string& template_name);

// The files of a prompts/ directory.
struct PromptTemplates {
  std::string system;                 // system.txt
  std::string memory_analysis;        // memory_analysis.txt
  std::string optimize;               // optimize.txt
  std::string hardware_aware;         // hardware_aware.txt
  std::string architecture_overload;  // architecture_overload.md
  std::string objective_time;         // objective_time.txt: goal line, then the rule (--objective time)
  std::string objective_l2;           // objective_l2.txt: the same for --objective l2
  nlohmann::json reply_schema;        // reply_schema.json
  // A Triton program's region is Python: triton/memory_analysis.txt and triton/optimize.txt
  // take the place of the two above (the other files serve both languages).
  std::string memory_analysis_triton;
  std::string optimize_triton;
};

// Errors name the missing or unreadable file (and the schema's JSON error).
Result<PromptTemplates> load_prompt_templates(const std::filesystem::path& dir);

struct OptimizeExtras {
  // The server refused response_format: describe the JSON answer in the prompt.
  bool schema_in_prompt = false;
  // Non-empty when asking again after a reply that repeated an earlier attempt.
  std::string retry_note;
};

class PromptBuilder {
 public:
  PromptBuilder(PromptTemplates templates, ContextMode mode);
  static Result<PromptBuilder> load(const std::filesystem::path& dir, ContextMode mode);

  ContextMode mode() const { return mode_; }
  const nlohmann::json& reply_schema() const { return t_.reply_schema; }

  Result<std::string> system_prompt() const;
  Result<std::string> memory_analysis_prompt(const KernelSource& kernel, TileGrid grid) const;
  Result<std::string> optimize_prompt(const ProposalContext& context,
                                      std::string_view memory_analysis,
                                      const OptimizeExtras& extras = {}) const;

  // The parts, public so tests and reports can look at them on their own.
  // aware: hardware_aware.txt filled; overload: the architecture text; unaware: "".
  Result<std::string> hardware_section(const HardwareProfile& hw) const;
  // The baseline's bottleneck report; unaware mode reports its time only.
  std::string baseline_report(const RunHistory& history) const;
  // Every earlier attempt, oldest first, compactly.
  std::string history_section(const RunHistory& history) const;

 private:
  PromptTemplates t_;
  ContextMode mode_;
};

// The line of a region that declares swizzle_pid, trimmed ("" when absent).
std::string swizzle_signature(std::string_view region);

}  // namespace swz
