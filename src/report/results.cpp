// Results files -> KernelResult rows. The shape decides the reader; anything
// else is refused with a line naming the file and the shapes accepted.
#include "swizzleperf/report/results.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "swizzleperf/core/history.h"
#include "swizzleperf/report/report.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

std::string str(const nlohmann::json& j, const char* k) {
  return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : "";
}

// What a measured number may be. A hand-edited or corrupt file once compared "no
// regression" against a time of -1 ms; an impossible value is refused, never judged.
enum class Measure { hit_pct, ms, ratio };

bool possible(Measure m, double v) {
  if (!std::isfinite(v)) return false;
  return m == Measure::hit_pct ? v >= 0 && v <= 100 : v > 0;
}

const char* rule(Measure m) {
  switch (m) {
    case Measure::hit_pct: return "an L2 hit rate is a percentage from 0 to 100";
    case Measure::ms: return "a time is a positive number of milliseconds";
    case Measure::ratio: return "a speedup is a positive number";
  }
  return "";
}

// Reads the fields of one result, refusing the first impossible one: `where` names
// the file and kernel, `prefix` the brief ("best.") the fields are in.
class FieldReader {
 public:
  explicit FieldReader(std::string where) : where_(std::move(where)) {}
  // v = j[key] when it is a possible m; absent or null leaves v unset.
  void number(const nlohmann::json& j, const std::string& prefix, const char* key, Measure m, std::optional<double>& v) {
    const auto* x = field(j, key);
    if (!x) return;
    if (x->is_number() && possible(m, x->get<double>())) {
      v = x->get<double>();
      return;
    }
    refuse(prefix + key, *x, rule(m));
  }
  void flag(const nlohmann::json& j, const std::string& prefix, const char* key, std::optional<bool>& v) {
    const auto* x = field(j, key);
    if (!x) return;
    if (x->is_boolean()) v = x->get<bool>();
    else refuse(prefix + key, *x, "it must be true or false");
  }
  Status status() const { return error_.empty() ? ok_status() : Status(make_error(error_)); }

 private:
  const nlohmann::json* field(const nlohmann::json& j, const char* key) const {
    if (!error_.empty() || !j.is_object()) return nullptr;
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  void refuse(const std::string& field, const nlohmann::json& x, const char* why) {
    // dump() of a double nlohmann cannot print (a NaN from another writer) is "null".
    error_ = fmt::format("{}: {} is {}: {}; the file is corrupt or was edited by hand, so it is not compared", where_,
                         field, one_line(x.dump(), 40), why);
  }
  std::string where_;
  std::string error_;
};

// The statistics fields, wherever a writer put them (the best brief first, then the top).
void read_extras(const nlohmann::json& brief, const std::string& brief_name, const nlohmann::json& top, KernelResult& r,
                 FieldReader& f) {
  const std::pair<const nlohmann::json*, std::string> places[] = {{&brief, brief_name}, {&top, ""}};
  for (const auto& [j, prefix] : places) {
    if (!r.speedup_ci_low) f.number(*j, prefix, "speedup_ci_low", Measure::ratio, r.speedup_ci_low);
    if (!r.speedup_ci_high) f.number(*j, prefix, "speedup_ci_high", Measure::ratio, r.speedup_ci_high);
    if (!r.significant) f.flag(*j, prefix, "significant", r.significant);
    if (r.objective.empty()) r.objective = str(*j, "objective");
    if (r.regime.empty()) r.regime = str(*j, "speedup_regime");
  }
}

bool is_suite_row(const nlohmann::json& j) {
  return j.is_object() && j.contains("kernel") && (j.contains("best_l2_hit_pct") || j.contains("baseline_l2_hit_pct") ||
                                                   j.contains("best_ms") || j.contains("validated"));
}

bool is_single(const nlohmann::json& j) {
  return j.is_object() && j.contains("kernel") && j["kernel"].is_string() && j.contains("baseline") && j["baseline"].is_object();
}

std::string where(const std::string& source, const KernelResult& r) {
  return fmt::format("{}: kernel {}", source, one_line(r.kernel, 80));
}

Result<KernelResult> from_suite_row(const nlohmann::json& j, const std::string& source) {
  KernelResult r;
  r.kernel = kernel_key(str(j, "kernel"));
  r.validated = j.value("validated", false);
  r.error = str(j, "error");
  r.pattern = str(j, "best_pattern");
  FieldReader f(where(source, r));
  f.number(j, "", "baseline_l2_hit_pct", Measure::hit_pct, r.baseline_l2);
  f.number(j, "", "best_l2_hit_pct", Measure::hit_pct, r.best_l2);
  f.number(j, "", "baseline_ms", Measure::ms, r.baseline_ms);
  f.number(j, "", "best_ms", Measure::ms, r.best_ms);
  f.number(j, "", "speedup", Measure::ratio, r.speedup);
  read_extras(j, "", j, r, f);
  if (auto st = f.status(); !st) return st.error();
  return r;
}

Result<KernelResult> from_single(const nlohmann::json& j, const std::string& source) {
  KernelResult r;
  r.kernel = kernel_key(str(j, "kernel"));
  FieldReader f(where(source, r));
  const auto& base = j["baseline"];
  f.number(base, "baseline.", "l2_hit_pct", Measure::hit_pct, r.baseline_l2);
  f.number(base, "baseline.", "median_ms", Measure::ms, r.baseline_ms);
  const char* best_key = j.contains("best") && j["best"].is_object() ? "best"
                         : j.contains("committed") && j["committed"].is_object() ? "committed" : nullptr;
  if (best_key) {
    const auto& b = j[best_key];
    const std::string prefix = std::string(best_key) + ".";
    r.validated = str(b, "status").empty() || str(b, "status") == "ok";
    r.pattern = str(b, "label");
    f.number(b, prefix, "l2_hit_pct", Measure::hit_pct, r.best_l2);
    f.number(b, prefix, "median_ms", Measure::ms, r.best_ms);
    f.number(b, prefix, "speedup", Measure::ratio, r.speedup);
    if (!r.validated) r.error = str(b, "reason");
    read_extras(b, prefix, j, r, f);
  } else {
    r.error = str(j, "error");
    if (r.error.empty()) r.error = "no validated kernel (state " + (str(j, "state").empty() ? "?" : str(j, "state")) + ")";
    read_extras(nlohmann::json::object(), "", j, r, f);
  }
  if (!r.speedup) f.number(j, "", "speedup", Measure::ratio, r.speedup);
  if (auto st = f.status(); !st) return st.error();
  return r;
}

}  // namespace

const KernelResult* ResultSet::find(const std::string& kernel) const {
  for (const auto& k : kernels)
    if (k.kernel == kernel) return &k;
  return nullptr;
}

std::string kernel_key(const std::string& kernel_or_path) {
  const fs::path p(kernel_or_path);
  return p.has_extension() || kernel_or_path.find('/') != std::string::npos ? p.stem().string() : kernel_or_path;
}

Result<ResultSet> results_from_json(const nlohmann::json& j, const std::string& source) {
  ResultSet s;
  s.source = source;
  auto refuse = [&] {
    return make_error(source + " is not a swizzleperf result: expected `optimize --json` output, a suite-summary.json, " +
                      "`gate --json` output, or a run or suite directory");
  };
  if (j.is_object() && j.contains("kernels") && j["kernels"].is_array()) {
    s.kind = "suite";
    s.device = str(j, "device");
    for (const auto& k : j["kernels"]) {
      if (!is_single(k) && !is_suite_row(k)) return refuse();
      auto row = is_single(k) ? from_single(k, source) : from_suite_row(k, source);
      if (!row) return row.error();
      s.kernels.push_back(std::move(*row));
    }
  } else if (is_single(j)) {
    s.kind = j.contains("committed") ? "gate" : "optimize";
    s.device = str(j, "device");
    auto row = from_single(j, source);
    if (!row) return row.error();
    s.kernels.push_back(std::move(*row));
  } else if (j.is_array() && !j.empty()) {
    s.kind = "list";
    for (const auto& k : j) {
      if (!is_single(k) && !is_suite_row(k)) return refuse();
      auto row = is_single(k) ? from_single(k, source) : from_suite_row(k, source);
      if (!row) return row.error();
      s.kernels.push_back(std::move(*row));
      if (s.device.empty()) s.device = str(k, "device");
    }
  } else {
    return refuse();
  }
  for (const auto& k : s.kernels)
    if (k.kernel.empty()) return make_error(source + ": a result without a kernel name");
  // One row per kernel: a later row for the same kernel replaces the earlier.
  std::vector<KernelResult> unique;
  for (const auto& k : s.kernels) {
    auto same = std::find_if(unique.begin(), unique.end(), [&](const KernelResult& u) { return u.kernel == k.kernel; });
    if (same == unique.end()) unique.push_back(k);
    else *same = k;
  }
  s.kernels = std::move(unique);
  return s;
}

Result<ResultSet> load_results(const fs::path& path) {
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) {
    if (fs::exists(path / "suite-summary.json", ec)) {
      file = path / "suite-summary.json";
    } else if (fs::exists(path / "history.json", ec)) {
      auto h = load_history(path / "history.json");
      if (!h) return h.error();
      OptimizeSummary summary{*h, path, {}, h->state == "interrupted" ? RunEnd::interrupted : RunEnd::completed};
      return results_from_json(summary_json(summary), path.string());
    } else {
      return make_error(path.string() + " is a directory with neither suite-summary.json nor history.json");
    }
  }
  if (!fs::exists(file, ec)) return make_error(file.string() + " does not exist");
  auto text = read_file(file);
  if (!text) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return make_error(file.string() + " is not valid JSON");
  return results_from_json(j, path.string());
}

Status check_same_regimes(const ResultSet& old_set, const ResultSet& new_set) {
  for (const auto& o : old_set.kernels) {
    const KernelResult* n = new_set.find(o.kernel);
    if (!n || o.regime == n->regime) continue;
    auto said = [](const std::string& r) { return r.empty() ? std::string("no named regime") : "the " + r + " regime"; };
    return make_error(fmt::format("{}: OLD's speedup was measured in {}, NEW's in {}: numbers of different power regimes "
                                  "are not comparable; measure both with the same --regime (docs/timing.md)",
                                  o.kernel, said(o.regime), said(n->regime)));
  }
  return ok_status();
}

}  // namespace swz
