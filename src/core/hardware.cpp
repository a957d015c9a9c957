// Hardware profiles: the device query's facts, completed from an arch table
// where a query cannot tell (die count, dispatch policy), each fact tagged with
// where it came from so prompts and reports never overstate what is known.
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/util/json_field.h"

#include <fmt/format.h>

namespace swz {

namespace {

struct ArchEntry {
  const char* prefix;   // arch string prefix
  const char* vendor;
  int dies;
  std::int64_t l2_per_die;  // 0: total / dies
  const char* dispatch_kind;
  const char* dispatch_source;
  const char* note;
  int default_cus;
  std::int64_t default_l2;
  const char* example_name;
};

// gfx942/940/941: MI300 family. 8 XCDs in SPX mode, 4 MB L2 per XCD, workgroups
// round-robin over XCDs (AMD's own kernel code: aiter's remap_xcd). NVIDIA parts with a
// split L2: 2 partitions; which SMs sit on which side is not documented.
const ArchEntry kArchTable[] = {
    {"gfx942", "amd", 8, 4 << 20, "round_robin", "documented",
     "workgroups are dispatched round-robin over XCDs: xcd = pid % 8 (SPX mode)", 304, 32 << 20,
     "AMD Instinct MI300X"},
    {"gfx941", "amd", 8, 4 << 20, "round_robin", "documented",
     "workgroups are dispatched round-robin over XCDs: xcd = pid % 8 (SPX mode)", 304, 32 << 20,
     "AMD Instinct MI300X"},
    {"gfx940", "amd", 8, 4 << 20, "round_robin", "documented",
     "workgroups are dispatched round-robin over XCDs: xcd = pid % 8 (SPX mode)", 304, 32 << 20,
     "AMD Instinct MI300 (gfx940)"},
    {"gfx90a", "amd", 1, 0, "round_robin", "documented", "one L2 per GCD", 110, 8 << 20,
     "AMD Instinct MI250X (one GCD)"},
    {"sm_90", "nvidia", 2, 0, "round_robin", "assumed",
     "the L2 is split into 2 partitions joined by a fabric; NVIDIA does not document which SMs "
     "use which partition or in what order blocks reach SMs; assumed side = pid % 2 until "
     "`swizzleperf probe` measures it",
     132, 52428800, "NVIDIA H100 80GB HBM3"},
    {"sm_80", "nvidia", 2, 0, "round_robin", "assumed",
     "the L2 is split into 2 partitions; side of a block assumed pid % 2 until measured", 108,
     41943040, "NVIDIA A100"},
};

const ArchEntry* lookup_arch(const std::string& arch) {
  for (const auto& e : kArchTable)
    if (arch.rfind(e.prefix, 0) == 0) return &e;
  return nullptr;
}

void apply_arch(HardwareProfile& h, const ArchEntry* e) {
  if (!e) {
    h.num_dies = 1;
    h.l2_bytes_per_die = h.l2_bytes;
    h.dispatch = DispatchModel{"round_robin", {}, "assumed", "unknown architecture: one die assumed"};
    h.provenance["num_dies"] = "assumed (arch not in the table)";
    return;
  }
  h.num_dies = e->dies;
  h.l2_bytes_per_die = e->l2_per_die ? e->l2_per_die : (e->dies ? h.l2_bytes / e->dies : h.l2_bytes);
  h.dispatch = DispatchModel{e->dispatch_kind, {}, e->dispatch_source, e->note};
  h.provenance["num_dies"] = std::string("arch table (") + e->prefix + ")";
  h.provenance["l2_bytes_per_die"] = e->l2_per_die ? std::string("arch table") : std::string("query / dies");
  h.provenance["dispatch"] = e->dispatch_source;
}

}  // namespace

int DispatchModel::die_of(unsigned pid, int num_dies) const {
  if (kind == "table" && !first_wave_die.empty())
    return first_wave_die[pid % first_wave_die.size()];
  return num_dies > 0 ? static_cast<int>(pid % static_cast<unsigned>(num_dies)) : 0;
}

std::string HardwareProfile::summary() const {
  std::string s = fmt::format("{} ({}, {}): {} compute units, L2 {:.1f} MiB in {} die(s) of {:.1f} MiB",
                              name, vendor, arch, compute_units, l2_bytes / 1048576.0, num_dies,
                              l2_bytes_per_die / 1048576.0);
  s += fmt::format("\ndispatch: {} [{}]", dispatch.note.empty() ? dispatch.kind : dispatch.note, dispatch.source);
  return s;
}

void to_json(nlohmann::json& j, const DispatchModel& d) {
  j = nlohmann::json{{"kind", d.kind}, {"source", d.source}, {"note", d.note}};
  if (!d.first_wave_die.empty()) j["first_wave_die"] = d.first_wave_die;
}

void from_json(const nlohmann::json& j, DispatchModel& d) {
  d.kind = j.value("kind", "round_robin");
  d.source = j.value("source", "assumed");
  d.note = j.value("note", "");
  d.first_wave_die.clear();
  if (j.contains("first_wave_die") && j["first_wave_die"].is_array())  // history.json is text: no float-to-int UB
    for (const auto& x : j["first_wave_die"]) d.first_wave_die.push_back(int_value_or(x, 0));
}

void to_json(nlohmann::json& j, const HardwareProfile& h) {
  j = nlohmann::json{{"vendor", h.vendor}, {"name", h.name}, {"arch", h.arch},
                     {"compute_units", h.compute_units}, {"l2_bytes", h.l2_bytes},
                     {"num_dies", h.num_dies}, {"l2_bytes_per_die", h.l2_bytes_per_die},
                     {"dispatch", h.dispatch}, {"provenance", h.provenance},
                     {"device_query", h.device_query}};
}

void from_json(const nlohmann::json& j, HardwareProfile& h) {
  h.vendor = j.value("vendor", "");
  h.name = j.value("name", "");
  h.arch = j.value("arch", "");
  h.compute_units = int_or(j, "compute_units", 0);
  // Integers only (history.json is text a user may edit: a float is never converted).
  const auto bytes = [&](const char* key) {
    return j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : std::int64_t{0};
  };
  h.l2_bytes = bytes("l2_bytes");
  h.num_dies = int_or(j, "num_dies", 1);
  h.l2_bytes_per_die = bytes("l2_bytes_per_die");
  if (j.contains("dispatch")) h.dispatch = j.at("dispatch").get<DispatchModel>();
  h.provenance = j.value("provenance", std::map<std::string, std::string>{});
  h.device_query = j.value("device_query", nlohmann::json::object());
}

Result<HardwareProfile> profile_from_device_query(const nlohmann::json& q) {
  if (!q.is_object() || !q.contains("name") || !q.contains("arch"))
    return make_error("device query returned no device description");
  HardwareProfile h;
  h.device_query = q;
  h.name = q.value("name", "");
  h.arch = q.value("arch", "");
  // gcnArchName may carry feature flags: "gfx942:sramecc+:xnack-".
  if (auto colon = h.arch.find(':'); colon != std::string::npos) h.arch = h.arch.substr(0, colon);
  h.vendor = q.value("vendor", h.arch.rfind("gfx", 0) == 0 ? "amd" : "nvidia");
  h.compute_units = int_or(q, "compute_units", 0);
  h.l2_bytes = q.value("l2_bytes", std::int64_t{0});
  h.provenance["name"] = h.provenance["compute_units"] = h.provenance["l2_bytes"] = "device query";
  const ArchEntry* e = lookup_arch(h.arch);
  apply_arch(h, e);
  const int xcc = q.value("num_xcc", -1);
  if (h.vendor == "amd" && xcc > 0) {
    h.num_dies = xcc;
    h.provenance["num_dies"] = "device query (hipDeviceAttributeNumberOfXccs)";
    if (e && e->l2_per_die == 0) h.l2_bytes_per_die = h.l2_bytes / xcc;
  }
  return h;
}

Result<HardwareProfile> profile_from_arch(const std::string& arch_or_alias) {
  std::string arch = arch_or_alias;
  if (arch == "mi300x" || arch == "MI300X" || arch == "mi300") arch = "gfx942";
  if (arch == "h100" || arch == "H100" || arch == "h200" || arch == "H200") arch = "sm_90";
  if (arch == "a100" || arch == "A100") arch = "sm_80";
  const ArchEntry* e = lookup_arch(arch);
  if (!e)
    return make_error("unknown arch '" + arch_or_alias + "': use one of gfx942, gfx940, gfx90a, sm_90, sm_80 (or mi300x, h100, a100), or --dies N");
  HardwareProfile h;
  h.vendor = e->vendor;
  h.name = std::string(e->example_name) + " (from the arch table, no device queried)";
  h.arch = arch;
  h.compute_units = e->default_cus;
  h.l2_bytes = e->default_l2;
  apply_arch(h, e);
  h.provenance["name"] = h.provenance["compute_units"] = h.provenance["l2_bytes"] = "arch table";
  return h;
}

}  // namespace swz
