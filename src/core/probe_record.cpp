// The probe's record: JSON form, per-device cache, and folding into a hardware
// profile (see core/probe_record.h).
#include "swizzleperf/core/probe_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "swizzleperf/util/file_io.h"

namespace swz::probe {

// ---- JSON -------------------------------------------------------------------------

void to_json(nlohmann::json& j, const Population& p) {
  j = {{"count", p.count}, {"mean", p.mean}, {"min", p.min}, {"max", p.max}, {"stddev", p.stddev}};
}
void from_json(const nlohmann::json& j, Population& p) {
  p.count = j.value("count", 0);
  p.mean = j.value("mean", 0.0);
  p.min = j.value("min", 0.0);
  p.max = j.value("max", 0.0);
  p.stddev = j.value("stddev", 0.0);
}

void to_json(nlohmann::json& j, const SideClassification& s) {
  j = {{"side", s.side}, {"populations", s.populations}, {"gap", s.gap}, {"spread", s.spread},
       {"separation", s.separation}, {"confidence", s.confidence}, {"note", s.note}};
}
void from_json(const nlohmann::json& j, SideClassification& s) {
  s.side = j.value("side", std::vector<int>{});
  if (j.contains("populations") && j.at("populations").is_array() && j.at("populations").size() == 2)
    for (int i = 0; i < 2; ++i) s.populations[i] = j.at("populations").at(i).get<Population>();
  s.gap = j.value("gap", 0.0);
  s.spread = j.value("spread", 0.0);
  s.separation = j.value("separation", 0.0);
  s.confidence = j.value("confidence", "low");
  s.note = j.value("note", "");
}

void to_json(nlohmann::json& j, const FactSource& f) {
  j = {{"how", f.how}, {"confidence", f.confidence}};
  if (!f.note.empty()) j["note"] = f.note;
}
void from_json(const nlohmann::json& j, FactSource& f) {
  f.how = j.value("how", "unknown");
  f.confidence = j.value("confidence", "low");
  f.note = j.value("note", "");
}

void to_json(nlohmann::json& j, const OrderSummary& o) {
  j = {{"blocks_per_sm", o.blocks_per_sm}, {"wave_size", o.wave_size}, {"pid_to_sm", o.pid_to_sm},
       {"pid_to_side", o.pid_to_side}, {"first_wave_is_prefix", o.first_wave_is_prefix},
       {"balanced", o.balanced}, {"later_sm_match", o.later_sm_match}, {"later_side_match", o.later_side_match}};
}
void from_json(const nlohmann::json& j, OrderSummary& o) {
  o.blocks_per_sm = j.value("blocks_per_sm", 0);
  o.wave_size = j.value("wave_size", 0);
  o.pid_to_sm = j.value("pid_to_sm", std::vector<int>{});
  o.pid_to_side = j.value("pid_to_side", std::vector<int>{});
  o.first_wave_is_prefix = j.value("first_wave_is_prefix", false);
  o.balanced = j.value("balanced", false);
  o.later_sm_match = j.value("later_sm_match", 0.0);
  o.later_side_match = j.value("later_side_match", -1.0);
}

void to_json(nlohmann::json& j, const ProbeResult& r) {
  j = nlohmann::json{
      {"schema_version", r.schema_version},
      {"vendor", r.vendor},
      {"device_name", r.device_name},
      {"arch", r.arch},
      {"sm_count", r.sm_count},
      {"l2_bytes", r.l2_bytes},
      {"driver_version", r.driver_version},
      {"created_at", r.created_at},
      {"tool_version", r.tool_version},
      {"num_l2_domains", r.num_l2_domains},
      {"ref_sm", r.ref_sm},
      {"side_method", r.side_method},
      {"sm_side", r.sm_side},
      {"sides", r.sides},
      {"side_methods_agreement", r.side_methods_agreement},
      {"wave_size", r.wave_size},
      {"blocks_per_sm", r.blocks_per_sm},
      {"first_wave_pid_to_sm", r.first_wave_pid_to_sm},
      {"first_wave_pid_to_side", r.first_wave_pid_to_side},
      {"later_waves_repeat", r.later_waves_repeat},
      {"orders", r.orders},
      {"cluster_size", r.cluster_size},
      {"gpc_groups", r.gpc_groups},
      {"gpc_groups_single_sided", r.gpc_groups_single_sided},
      {"raw", {{"fabric_sectors_per_sm", r.fabric_sectors_per_sm},
               {"l2_latency_cycles_per_sm", r.l2_latency_cycles_per_sm},
               {"extra", r.raw_extra}}},
      {"how", r.how},
      {"notes", r.notes}};
}

void from_json(const nlohmann::json& j, ProbeResult& r) {
  r.schema_version = j.value("schema_version", 1);
  r.vendor = j.value("vendor", "");
  r.device_name = j.value("device_name", "");
  r.arch = j.value("arch", "");
  r.sm_count = j.value("sm_count", 0);
  r.l2_bytes = j.value("l2_bytes", std::int64_t{0});
  r.driver_version = j.value("driver_version", -1);
  r.created_at = j.value("created_at", "");
  r.tool_version = j.value("tool_version", "");
  r.num_l2_domains = j.value("num_l2_domains", 1);
  r.ref_sm = j.value("ref_sm", 0);
  r.side_method = j.value("side_method", "");
  r.sm_side = j.value("sm_side", std::vector<int>{});
  if (j.contains("sides")) r.sides = j.at("sides").get<SideClassification>();
  r.side_methods_agreement = j.value("side_methods_agreement", -1.0);
  r.wave_size = j.value("wave_size", 0);
  r.blocks_per_sm = j.value("blocks_per_sm", 1);
  r.first_wave_pid_to_sm = j.value("first_wave_pid_to_sm", std::vector<int>{});
  r.first_wave_pid_to_side = j.value("first_wave_pid_to_side", std::vector<int>{});
  r.later_waves_repeat = j.value("later_waves_repeat", false);
  r.orders = j.value("orders", std::vector<OrderSummary>{});
  r.cluster_size = j.value("cluster_size", 0);
  r.gpc_groups = j.value("gpc_groups", std::vector<std::vector<int>>{});
  r.gpc_groups_single_sided = j.value("gpc_groups_single_sided", false);
  const auto raw = j.value("raw", nlohmann::json::object());
  // Unmeasured entries are -1; JSON null (from a NaN) reads back as -1 too.
  auto doubles = [&](const char* key) {
    std::vector<double> v;
    if (raw.contains(key) && raw.at(key).is_array())
      for (const auto& x : raw.at(key)) v.push_back(x.is_number() ? x.get<double>() : -1.0);
    return v;
  };
  r.fabric_sectors_per_sm = doubles("fabric_sectors_per_sm");
  r.l2_latency_cycles_per_sm = doubles("l2_latency_cycles_per_sm");
  r.raw_extra = raw.value("extra", nlohmann::json::object());
  r.how = j.value("how", std::map<std::string, FactSource>{});
  r.notes = j.value("notes", std::vector<std::string>{});
}

namespace {

// Every number a probe record holds (SM ids, sides, counts, per-SM sector counts,
// latencies) fits in an int; converting a larger floating-point value to an int
// field is undefined behaviour, so such a file is refused before any conversion
// (found by tests/fuzz/fuzz_probe_json).
bool numbers_in_range(const nlohmann::json& j) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    return std::isfinite(v) && v > -2147483648.0 && v < 2147483648.0;
  }
  if (j.is_structured())
    for (const auto& x : j)
      if (!numbers_in_range(x)) return false;
  return true;
}

}  // namespace

Result<ProbeResult> parse_probe(std::string_view text, const std::string& name) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("device_name") || !j.contains("how"))
    return make_error(name + " is not a swizzleperf probe result");
  // Typed look-up: j.value() throws when the field has another type (found by
  // tests/fuzz/fuzz_probe_json; inputs in tests/fixtures/fuzz/fuzz_probe_json/).
  const auto sv = j.find("schema_version");
  if (sv != j.end() && !(sv->is_number_integer() && sv->get<long long>() <= 1))
    return make_error(name + " was written by a newer swizzleperf (or is damaged): schema_version " + sv->dump());
  if (!numbers_in_range(j)) return make_error(name + " holds a number out of range: not a swizzleperf probe result");
  try {
    return j.get<ProbeResult>();
  } catch (const nlohmann::json::exception& e) {
    return make_error(name + ": " + e.what());
  }
}

bool apply_probe(HardwareProfile& h, const ProbeResult& p) {
  if (p.device_name != h.name || (h.compute_units > 0 && p.sm_count != h.compute_units)) return false;
  const bool table = !p.first_wave_pid_to_side.empty() &&
                     std::none_of(p.first_wave_pid_to_side.begin(), p.first_wave_pid_to_side.end(), [](int s) { return s < 0; });
  if (!table || p.num_l2_domains < 1) return false;
  const auto side_how = p.how.count("sm_side") ? p.how.at("sm_side") : FactSource{};
  if (p.vendor == "nvidia" && !p.sides_known()) return false;
  h.num_dies = p.num_l2_domains;
  if (h.l2_bytes > 0) h.l2_bytes_per_die = h.l2_bytes / h.num_dies;
  h.dispatch.kind = "table";
  h.dispatch.first_wave_die = p.first_wave_pid_to_side;
  const std::string how = side_how.how.empty() ? "measured" : side_how.how;
  h.dispatch.source = how == "arch table" ? "documented" : "measured";
  if (p.vendor == "nvidia") {
    h.dispatch.note = fmt::format(
        "measured by `swizzleperf probe`: the first wave of {} blocks reaches SMs in a fixed order; "
        "first-wave pid -> L2 side is the table; {}",
        p.wave_size,
        p.later_waves_repeat ? "later waves repeat it"
                             : "later waves do NOT repeat it (blocks go to whichever SM frees first), so the table "
                               "holds for pid < wave size only");
  } else {
    h.dispatch.note = fmt::format("die of a block = table[pid % {}] ({} by `swizzleperf probe`)",
                                  p.first_wave_pid_to_side.size(), how);
  }
  h.provenance["num_dies"] = "probe (" + how + ")";
  h.provenance["dispatch"] = "probe (" + how + ")";
  return true;
}


// ---- cache --------------------------------------------------------------------------

fs::path probe_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x && fs::path(x).is_absolute()) return fs::path(x) / "swizzleperf";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "swizzleperf";
  return {};
}

std::string probe_cache_name(const std::string& device_name, int driver_version, int sm_count) {
  std::string s;
  for (char c : device_name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    if (ok) {
      s += c;
    } else if (s.empty() || s.back() != '_') {
      s += '_';
    }
  }
  while (!s.empty() && (s.back() == '_' || s.back() == '.')) s.pop_back();
  while (!s.empty() && (s.front() == '_' || s.front() == '.')) s.erase(0, 1);
  if (s.empty()) s = "unknown";
  if (s.size() > 100) s.resize(100);
  return fmt::format("probe-{}-{}-{}.json", s, driver_version, sm_count);
}

Status save_probe(const ProbeResult& result, const fs::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  nlohmann::json j = result;
  return write_file_atomic(path, j.dump(2) + "\n");
}

Result<ProbeResult> load_probe(const fs::path& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_probe(*text, path.string());
}

std::optional<ProbeResult> load_cached_probe(const HardwareProfile& hw) {
  const auto dir = probe_cache_dir();
  if (dir.empty()) return std::nullopt;
  const int driver = hw.device_query.is_object() ? hw.device_query.value("driver_version", -1) : -1;
  auto r = load_probe(dir / probe_cache_name(hw.name, driver, hw.compute_units));
  if (!r) return std::nullopt;
  if (r->device_name != hw.name || r->sm_count != hw.compute_units || r->driver_version != driver) return std::nullopt;
  return std::move(*r);
}

}  // namespace swz::probe
