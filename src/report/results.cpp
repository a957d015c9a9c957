// Results files -> KernelResult rows. The shape decides the reader; anything
// else is refused with a line naming the file and the shapes accepted.
#include "swizzleperf/report/results.h"
#include "swizzleperf/util/json_field.h"

#include <algorithm>

#include <fmt/format.h>

#include "swizzleperf/core/history.h"
#include "swizzleperf/report/report.h"
#include "swizzleperf/util/file_io.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

std::string str(const nlohmann::json& j, const char* k) {
  return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : "";
}

// The statistics fields, wherever a writer put them (the best brief first, then the top).
void read_extras(const nlohmann::json& brief, const nlohmann::json& top, KernelResult& r) {
  for (const auto* j : {&brief, &top}) {
    if (!r.speedup_ci_low) read_optional(*j, "speedup_ci_low", r.speedup_ci_low);
    if (!r.speedup_ci_high) read_optional(*j, "speedup_ci_high", r.speedup_ci_high);
    if (!r.significant) read_optional(*j, "significant", r.significant);
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

KernelResult from_suite_row(const nlohmann::json& j) {
  KernelResult r;
  r.kernel = kernel_key(str(j, "kernel"));
  r.validated = j.value("validated", false);
  r.error = str(j, "error");
  r.pattern = str(j, "best_pattern");
  read_optional(j, "baseline_l2_hit_pct", r.baseline_l2);
  read_optional(j, "best_l2_hit_pct", r.best_l2);
  read_optional(j, "baseline_ms", r.baseline_ms);
  read_optional(j, "best_ms", r.best_ms);
  read_optional(j, "speedup", r.speedup);
  read_extras(j, j, r);
  return r;
}

KernelResult from_single(const nlohmann::json& j) {
  KernelResult r;
  r.kernel = kernel_key(str(j, "kernel"));
  const auto& base = j["baseline"];
  read_optional(base, "l2_hit_pct", r.baseline_l2);
  read_optional(base, "median_ms", r.baseline_ms);
  const char* best_key = j.contains("best") && j["best"].is_object() ? "best"
                         : j.contains("committed") && j["committed"].is_object() ? "committed" : nullptr;
  if (best_key) {
    const auto& b = j[best_key];
    r.validated = str(b, "status").empty() || str(b, "status") == "ok";
    r.pattern = str(b, "label");
    read_optional(b, "l2_hit_pct", r.best_l2);
    read_optional(b, "median_ms", r.best_ms);
    read_optional(b, "speedup", r.speedup);
    if (!r.validated) r.error = str(b, "reason");
    read_extras(b, j, r);
  } else {
    r.error = str(j, "error");
    if (r.error.empty()) r.error = "no validated kernel (state " + (str(j, "state").empty() ? "?" : str(j, "state")) + ")";
    read_extras(nlohmann::json::object(), j, r);
  }
  if (!r.speedup) read_optional(j, "speedup", r.speedup);
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
      if (is_single(k)) s.kernels.push_back(from_single(k));
      else if (is_suite_row(k)) s.kernels.push_back(from_suite_row(k));
      else return refuse();
    }
  } else if (is_single(j)) {
    s.kind = j.contains("committed") ? "gate" : "optimize";
    s.device = str(j, "device");
    s.kernels.push_back(from_single(j));
  } else if (j.is_array() && !j.empty()) {
    s.kind = "list";
    for (const auto& k : j) {
      if (is_single(k)) s.kernels.push_back(from_single(k));
      else if (is_suite_row(k)) s.kernels.push_back(from_suite_row(k));
      else return refuse();
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
