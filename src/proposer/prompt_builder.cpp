// PromptBuilder; see prompt_builder.h for the contract.
#include "swizzleperf/proposer/prompt_builder.h"
#include "swizzleperf/util/text.h"

#include "swizzleperf/core/history.h"
#include "swizzleperf/util/file_io.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace swz {

namespace {

namespace fs = std::filesystem;

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string group_thousands(double v) {
  auto n = static_cast<long long>(std::llround(v));
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string format_bytes(double bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  if (bytes >= kMiB) {
    double mib = bytes / kMiB;
    if (std::fabs(mib - std::round(mib)) < 1e-9) return fmt::format("{} MiB", std::llround(mib));
    return fmt::format("{:.1f} MiB", mib);
  }
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} bytes", std::llround(bytes));
}

std::string format_gb(double bytes) { return fmt::format("{:.3f} GB", bytes / 1e9); }

std::string format_ms(double ms) { return fmt::format("{:.4g} ms", ms); }

std::string provenance_suffix(const HardwareProfile& hw, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto it = hw.provenance.find(k); it != hw.provenance.end() && !it->second.empty())
      return " (source: " + it->second + ")";
  return {};
}

std::string die_description(const HardwareProfile& hw) {
  const int n = hw.num_dies;
  if (hw.vendor == "amd")
    return fmt::format(
        "Dies: {} XCDs (compute chiplets). Each XCD has its own L2 cache, shared by its "
        "compute units and nothing else: a workgroup hits only in the L2 of the XCD it runs "
        "on, so data read on several XCDs is fetched once per XCD.",
        n);
  if (hw.vendor == "nvidia")
    return fmt::format(
        "Dies: the L2 cache is split into {} partitions, which this tool treats as dies. "
        "An SM reads fastest through its near partition; data held by the far partition "
        "crosses the L2 fabric between them (counted as fabric sectors), so blocks that share "
        "data are best kept on the same side.",
        n);
  return fmt::format("Dies: {}, each with its own L2 cache.", n);
}

std::string dispatch_policy(const HardwareProfile& hw) {
  const auto& d = hw.dispatch;
  const int n = hw.num_dies;
  if (d.kind == "round_robin")
    return fmt::format(
        "round-robin: hardware pid p runs on die p % SWZ_NUM_DIES (here p % {0}), so "
        "consecutive pids go to different dies and pids p, p + {0}, p + 2*{0}, ... share a die",
        n);
  if (d.kind == "table") {
    std::string table;
    for (std::size_t i = 0; i < d.first_wave_die.size(); ++i)
      table += (i ? ", " : "") + std::to_string(d.first_wave_die[i]);
    return fmt::format(
        "by a measured table of {0} entries: in the first wave, hardware pid p runs on die "
        "table[p % {0}] with table = [{1}]; later waves start where earlier blocks finish",
        d.first_wave_die.size(), table);
  }
  return d.kind;
}

std::string attempt_line(const Attempt& a, const std::optional<double>& baseline_l2, bool aware) {
  std::vector<std::string> parts;
  if (aware) {
    if (a.metrics && a.metrics->l2_hit_pct) {
      std::string s = fmt::format("L2 hit rate {:.2f} %", *a.metrics->l2_hit_pct);
      if (baseline_l2) s += fmt::format(" (baseline {:.2f} %)", *baseline_l2);
      parts.push_back(s);
    } else {
      parts.push_back("L2 hit rate not measured");
    }
  }
  if (aware && a.predicted)
    parts.push_back(fmt::format("locality model predicted L2 hit rate {:.2f} %", a.predicted->l2_hit_pct));
  parts.push_back(a.timing && a.timing->reps > 0 ? "median " + format_ms(a.timing->median_ms)
                                                 : "time not measured");
  if (a.speedup && a.significant)
    parts.push_back(fmt::format("speedup {:.3f}x, 95 % interval [{:.3f}, {:.3f}], {}", *a.speedup,
                                a.speedup_ci_low.value_or(0), a.speedup_ci_high.value_or(0),
                                *a.significant ? (a.speedup_ci_low.value_or(0) > 1.0 ? "significantly faster" : "significantly slower")
                                               : "not significant"));
  else if (a.speedup)
    parts.push_back(fmt::format("speedup {:.3f}x (one-shot)", *a.speedup));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string truncate_lines(const std::string& text, int max_lines) {
  int lines = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && ++lines == max_lines) {
      int rest = 0;
      for (std::size_t j = i + 1; j < text.size(); ++j) rest += text[j] == '\n';
      if (i + 1 < text.size() && text.back() != '\n') ++rest;
      if (rest == 0) return text;
      return text.substr(0, i + 1) + fmt::format("... ({} more lines)\n", rest);
    }
  }
  return text;
}

std::string ensure_newline(std::string s) {
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

}  // namespace

std::string to_string(ContextMode mode) {
  switch (mode) {
    case ContextMode::aware: return "aware";
    case ContextMode::unaware: return "unaware";
    case ContextMode::overload: return "overload";
  }
  return "aware";
}

Result<ContextMode> parse_context_mode(std::string_view text) {
  if (text == "aware") return ContextMode::aware;
  if (text == "unaware") return ContextMode::unaware;
  if (text == "overload") return ContextMode::overload;
  return make_error("unknown context mode '" + std::string(text) +
                    "' (expected aware, unaware or overload)");
}

Result<std::string> fill_template(std::string_view text,
                                  const std::map<std::string, std::string>& values,
                                  const std::string& template_name) {
  std::string out;
  out.reserve(text.size() * 2);
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "{{") != 0) {
      out += text[i++];
      continue;
    }
    std::size_t j = i + 2;
    while (j < text.size() && is_name_char(text[j])) ++j;
    if (j == i + 2 || text.compare(j, 2, "}}") != 0) {
      out += text[i++];
      continue;
    }
    std::string name(text.substr(i + 2, j - i - 2));
    auto it = values.find(name);
    if (it == values.end())
      return make_error("prompt template " + template_name + ": unknown placeholder {{" + name + "}}");
    std::size_t after = j + 2;
    // A placeholder alone on its line that expands to nothing takes its line (and
    // one blank line after it) away, so optional sections leave no holes.
    std::size_t line_start = out.find_last_of('\n');
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    bool alone_before = trim(std::string_view(out).substr(line_start)).empty();
    std::size_t eol = text.find('\n', after);
    bool alone_after = trim(text.substr(after, eol == std::string_view::npos ? std::string_view::npos
                                                                              : eol - after))
                           .empty();
    if (it->second.empty() && alone_before && alone_after) {
      out.resize(line_start);
      i = eol == std::string_view::npos ? text.size() : eol + 1;
      if (i < text.size() && text[i] == '\n') ++i;
      continue;
    }
    out += it->second;
    i = after;
  }
  return out;
}

Result<PromptTemplates> load_prompt_templates(const fs::path& dir) {
  PromptTemplates t;
  struct Item {
    const char* file;
    std::string* into;
  } items[] = {{"system.txt", &t.system},
               {"memory_analysis.txt", &t.memory_analysis},
               {"optimize.txt", &t.optimize},
               {"hardware_aware.txt", &t.hardware_aware},
               {"architecture_overload.md", &t.architecture_overload},
               {"objective_time.txt", &t.objective_time},
               {"objective_l2.txt", &t.objective_l2}};
  for (auto& item : items) {
    auto text = read_file(dir / item.file);
    if (!text) return make_error("cannot read prompt template " + (dir / item.file).string());
    *item.into = std::move(*text);
  }
  auto schema_text = read_file(dir / "reply_schema.json");
  if (!schema_text) return make_error("cannot read prompt template " + (dir / "reply_schema.json").string());
  auto schema = nlohmann::json::parse(*schema_text, nullptr, false);
  if (schema.is_discarded() || !schema.is_object())
    return make_error("prompt file " + (dir / "reply_schema.json").string() + " is not a JSON object");
  t.reply_schema = std::move(schema);
  for (auto& item : {Item{"triton/memory_analysis.txt", &t.memory_analysis_triton}, Item{"triton/optimize.txt", &t.optimize_triton}}) {
    auto text = read_file(dir / item.file);
    if (!text) return make_error("cannot read prompt template " + (dir / item.file).string());
    *item.into = std::move(*text);
  }
  return t;
}

std::string swizzle_signature(std::string_view region) {
  std::size_t pos = region.find("swizzle_pid");
  if (pos == std::string_view::npos) return {};
  std::size_t start = region.rfind('\n', pos);
  start = start == std::string_view::npos ? 0 : start + 1;
  std::size_t close = region.find(')', pos);
  std::size_t end = close == std::string_view::npos ? region.find('\n', pos) : close + 1;
  return collapse_spaces(region.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

PromptBuilder::PromptBuilder(PromptTemplates templates, ContextMode mode)
    : t_(std::move(templates)), mode_(mode) {}

Result<PromptBuilder> PromptBuilder::load(const fs::path& dir, ContextMode mode) {
  auto t = load_prompt_templates(dir);
  if (!t) return t.error();
  return PromptBuilder(std::move(*t), mode);
}

Result<std::string> PromptBuilder::system_prompt() const {
  return fill_template(t_.system, {}, "system.txt");
}

Result<std::string> PromptBuilder::memory_analysis_prompt(const KernelSource& kernel, TileGrid grid) const {
  const bool py = kernel.language() == RegionLanguage::python;
  return fill_template(py ? t_.memory_analysis_triton : t_.memory_analysis,
                       {{"kernel_name", kernel.name()},
                        {"kernel_code", trim(kernel.text())},
                        {"grid_m", std::to_string(grid.m)},
                        {"grid_n", std::to_string(grid.n)},
                        {"num_pids", std::to_string(grid.num_pids())}},
                       py ? "triton/memory_analysis.txt" : "memory_analysis.txt");
}

Result<std::string> PromptBuilder::hardware_section(const HardwareProfile& hw) const {
  if (mode_ == ContextMode::unaware) return std::string();
  if (mode_ == ContextMode::overload) return trim(t_.architecture_overload);
  const bool amd = hw.vendor == "amd";
  const bool nvidia = hw.vendor == "nvidia";
  std::string provenance;
  for (const auto& [fact, source] : hw.provenance)
    provenance += (provenance.empty() ? "" : "; ") + fact + ": " + source;
  if (!provenance.empty()) provenance = "- Where these facts come from: " + provenance + ".";
  std::int64_t per_die = hw.l2_bytes_per_die > 0 ? hw.l2_bytes_per_die
                         : hw.num_dies > 0       ? hw.l2_bytes / hw.num_dies
                                                 : hw.l2_bytes;
  auto filled = fill_template(
      t_.hardware_aware,
      {{"device_name", hw.name.empty() ? "unknown" : hw.name},
       {"vendor", hw.vendor.empty() ? "unknown vendor" : (amd ? "AMD" : nvidia ? "NVIDIA" : hw.vendor)},
       {"arch", hw.arch.empty() ? "unknown arch" : hw.arch},
       {"num_dies", std::to_string(hw.num_dies)},
       {"die_description", die_description(hw)},
       {"l2_per_die", format_bytes(static_cast<double>(per_die))},
       {"l2_total", format_bytes(static_cast<double>(hw.l2_bytes))},
       {"l2_source", provenance_suffix(hw, {"l2_bytes_per_die", "l2_bytes", "l2"})},
       {"compute_units", std::to_string(hw.compute_units)},
       {"cu_word", amd ? "CUs" : nvidia ? "SMs" : "compute units"},
       {"cus_per_die", std::to_string(hw.compute_units_per_die())},
       {"cu_source", provenance_suffix(hw, {"compute_units"})},
       {"dispatch_policy", dispatch_policy(hw)},
       {"dispatch_source", hw.dispatch.source.empty() ? "assumed" : hw.dispatch.source},
       {"dispatch_note", hw.dispatch.note.empty() ? "" : " " + trim(hw.dispatch.note)},
       {"provenance", provenance}},
      "hardware_aware.txt");
  if (!filled) return filled;
  return trim(*filled);
}

std::string PromptBuilder::baseline_report(const RunHistory& history) const {
  if (!history.baseline) return "(no baseline measurements yet)";
  const Attempt& b = *history.baseline;
  std::string out;
  if (mode_ != ContextMode::unaware) {
    if (b.metrics) {
      const Metrics& m = *b.metrics;
      if (m.l2_hit_pct) {
        out += fmt::format("- L2 hit rate: {:.2f} %", *m.l2_hit_pct);
        if (m.l2_hits && m.l2_sectors)
          out += " (" + group_thousands(*m.l2_hits) + " hits of " + group_thousands(*m.l2_sectors) +
                 " sectors)";
        out += "\n";
      } else if (m.l2_hits && m.l2_sectors) {
        out += "- L2: " + group_thousands(*m.l2_hits) + " hits of " + group_thousands(*m.l2_sectors) +
               " sectors\n";
      }
      if (m.l2_misses) out += "- L2 misses: " + group_thousands(*m.l2_misses) + "\n";
      if (m.dram_read_bytes || m.dram_write_bytes) {
        out += "- DRAM traffic:";
        if (m.dram_read_bytes) out += " " + format_gb(*m.dram_read_bytes) + " read";
        if (m.dram_read_bytes && m.dram_write_bytes) out += ",";
        if (m.dram_write_bytes) out += " " + format_gb(*m.dram_write_bytes) + " written";
        out += "\n";
      }
      if (m.fabric_sectors)
        out += "- L2 sectors that crossed the fabric between L2 partitions: " +
               group_thousands(*m.fabric_sectors) + "\n";
      if (m.launches_total > 0)
        out += fmt::format("- Kernel launches profiled together: {} of the run's {} (launches {}..{}, the middle)\n",
                           m.launches, m.launches_total, m.launch_skip + 1, m.launch_skip + m.launches);
      else if (m.launches > 1)
        out += fmt::format("- Kernel launches profiled together: {}\n", m.launches);
    } else {
      out += "- (not profiled)\n";
    }
    if (b.predicted)
      out += fmt::format("- The locality model (a simulation of each die's L2 from the program's declared footprint) "
                         "predicted an L2 hit rate of {:.2f} % for this order; each attempt below shows its prediction "
                         "next to its measurement, so you can judge how far to trust it\n",
                         b.predicted->l2_hit_pct);
  }
  if (b.timing && b.timing->reps > 0)
    out += fmt::format("- Time: median {} (min {}, max {}, {} runs)\n", format_ms(b.timing->median_ms),
                       format_ms(b.timing->min_ms), format_ms(b.timing->max_ms), b.timing->reps);
  else
    out += "- Time: not measured\n";
  return trim(out);
}

std::string PromptBuilder::history_section(const RunHistory& history) const {
  if (history.attempts.empty()) return "(none yet: this is the first attempt)";
  const bool aware = mode_ != ContextMode::unaware;
  std::optional<double> baseline_l2;
  if (history.baseline && history.baseline->metrics) baseline_l2 = history.baseline->metrics->l2_hit_pct;
  std::string out;
  for (const Attempt& a : history.attempts) {
    out += fmt::format("## Iteration {}: {} ({}, status: {})\n", a.iteration,
                       a.label.empty() ? "unnamed" : a.label,
                       a.proposer.empty() ? "unknown proposer" : a.proposer, to_string(a.status));
    if (a.status == AttemptStatus::ok || a.metrics || a.timing)
      out += "- " + attempt_line(a, baseline_l2, aware) + "\n";
    else if (aware && a.predicted)
      out += fmt::format("- locality model predicted L2 hit rate {:.2f} % (not measured)\n", a.predicted->l2_hit_pct);
    if (!a.reason.empty()) out += "- Reason: " + trim(a.reason) + "\n";
    std::string diff = a.diff;
    if (diff.empty() && !a.region.empty())
      diff = unified_diff(history.original_region, a.region, "original", "attempt");
    if (!diff.empty())
      out += "- Diff against the original region:\n```diff\n" + ensure_newline(truncate_lines(diff, 80)) +
             "```\n";
    else if (a.region.empty())
      out += "- (no code was produced)\n";
    else
      out += "- (same code as the original region)\n";
    out += "\n";
  }
  return trim(out);
}

Result<std::string> PromptBuilder::optimize_prompt(const ProposalContext& context,
                                                   std::string_view memory_analysis,
                                                   const OptimizeExtras& extras) const {
  const bool unaware = mode_ == ContextMode::unaware;
  auto hardware = hardware_section(context.hardware);
  if (!hardware) return hardware;
  std::string region = !context.history.original_region.empty() ? context.history.original_region
                                                                 : context.kernel.region();
  // Aware arms: the goal line and the rule come from prompts/objective_<objective>.txt.
  const std::string& rule_text =
      context.history.objective() == Objective::time ? t_.objective_time : t_.objective_l2;
  const auto nl = rule_text.find('\n');
  std::string objective = unaware ? "make the kernel faster by improving how its workgroups reuse data."
                                  : trim(rule_text.substr(0, nl));
  std::string objective_rule = unaware || nl == std::string::npos ? "" : trim(rule_text.substr(nl + 1));
  std::string die_rule =
      unaware ? ""
              : "- Use the compile-time constant SWZ_NUM_DIES for the number of dies, never a literal\n"
                "  such as 8: the tool defines it when it builds the kernel, so one pattern\n"
                "  serves every device.";
  std::string output_format;
  if (extras.schema_in_prompt) {
    output_format =
        "Answer with one JSON object and nothing else, in a ```json fenced block, with exactly\n"
        "the fields reasoning (string), critique (array of objects {attempt, what_it_did,\n"
        "why_it_fell_short}), rationale (string) and code (string: the complete new region,\n"
        "newlines written as \\n). The object must match this JSON schema:\n```json\n" +
        t_.reply_schema.dump(2) + "\n```";
  } else {
    output_format =
        "Answer with a JSON object with the fields reasoning, critique, rationale and code,\n"
        "as the response format's schema describes; \"code\" holds the complete new region.";
  }
  std::string analysis = trim(memory_analysis);
  const bool py = context.kernel.language() == RegionLanguage::python;
  return fill_template(py ? t_.optimize_triton : t_.optimize,
                       {{"objective", objective},
                        {"objective_rule", objective_rule},
                        {"kernel_name", context.kernel.name()},
                        {"kernel_code", trim(context.kernel.text())},
                        {"region", trim(region)},
                        {"signature", swizzle_signature(region)},
                        {"grid_m", std::to_string(context.grid.m)},
                        {"grid_n", std::to_string(context.grid.n)},
                        {"num_pids", std::to_string(context.grid.num_pids())},
                        {"baseline_report", baseline_report(context.history)},
                        {"memory_analysis", analysis.empty() ? "(none)" : analysis},
                        {"history", history_section(context.history)},
                        {"hardware_section", *hardware},
                        {"die_rule", die_rule},
                        {"retry_note", trim(extras.retry_note)},
                        {"output_format", output_format}},
                       py ? "triton/optimize.txt" : "optimize.txt");
}

}  // namespace swz
