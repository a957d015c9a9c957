// rocprofv3 counter_collection.csv / agent_info.csv -> Metrics / RocprofAgentInfo
// (see rocprof_parser.h for the contract).
#include "swizzleperf/backend/rocprof_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "swizzleperf/util/csv.h"
#include "swizzleperf/util/name_pattern.h"

namespace swz {

namespace {

constexpr std::string_view kHit = "TCC_HIT_sum";
constexpr std::string_view kMiss = "TCC_MISS_sum";

std::optional<std::size_t> column(const std::vector<std::string>& header, std::string_view name) {
  auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header.begin());
}

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// Timestamps are ns since boot and can exceed 2^53, so they are read as
// integers to keep their differences exact.
std::optional<std::uint64_t> parse_u64(std::string_view s) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Error field_count_error(std::string_view file, std::size_t line, std::size_t got, std::size_t want) {
  return Error{"rocprofv3 " + std::string(file) + " line " + std::to_string(line) + " has " +
               std::to_string(got) + " fields, the header has " + std::to_string(want) +
               " (truncated file?)"};
}

struct Dispatch {
  std::map<std::string, double, std::less<>> counters;
  std::optional<std::uint64_t> start, end;
};

}  // namespace

namespace {
Result<Metrics> parse_rocprof_counters_text(std::string_view csv, std::string_view kernel_regex) {
  constexpr std::string_view file = "counter_collection.csv";
  if (is_blank(csv)) {
    return Error{"rocprofv3 counter_collection.csv is empty (no kernel dispatch was profiled)"};
  }
  auto parsed = parse_csv(csv);
  if (!parsed) return Error{"rocprofv3 " + std::string(file) + ": " + parsed.error().message};
  const auto& rows = parsed.value();
  // Not blank, yet no record: a byte-order mark alone (found by fuzz_rocprof_csv).
  if (rows.empty()) return Error{"rocprofv3 counter_collection.csv is empty (no kernel dispatch was profiled)"};
  const auto& header = rows.front().fields;

  std::vector<std::string> missing;
  auto require = [&](std::string_view name) {
    auto c = column(header, name);
    if (!c) missing.emplace_back(name);
    return c.value_or(0);
  };
  const std::size_t c_dispatch = require("Dispatch_Id");
  const std::size_t c_kernel = require("Kernel_Name");
  const std::size_t c_counter = require("Counter_Name");
  const std::size_t c_value = require("Counter_Value");
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    return Error{"rocprofv3 " + std::string(file) + " header lacks column(s) " + list +
                 " (is this a rocprofv3 counter collection CSV?)"};
  }
  const auto c_start = column(header, "Start_Timestamp");
  const auto c_end = column(header, "End_Timestamp");

  // The kernel names and the pattern are untrusted: NamePattern, not std::regex,
  // which backtracks and recurses without bound.
  std::optional<NamePattern> re;
  if (!kernel_regex.empty()) {
    auto compiled = NamePattern::compile(kernel_regex);
    if (!compiled) {
      return Error{"invalid kernel regex '" + std::string(kernel_regex) + "': " + compiled.error().message};
    }
    re.emplace(std::move(compiled).value());
  }

  std::vector<std::string> order;        // dispatch ids as first seen
  std::vector<std::string> kernels_seen; // for the "nothing matched" message
  std::map<std::string, Dispatch, std::less<>> dispatches;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r].fields;
    if (f.size() != header.size()) return field_count_error(file, rows[r].line, f.size(), header.size());
    const std::string& kernel = f[c_kernel];
    if (std::find(kernels_seen.begin(), kernels_seen.end(), kernel) == kernels_seen.end()) {
      kernels_seen.push_back(kernel);
    }
    if (re && !re->search(kernel)) continue;

    const std::string& counter = f[c_counter];
    auto value = parse_number(f[c_value]);
    if (!value) {
      return Error{"rocprofv3 counter " + counter + " has a value that is not a number: '" + f[c_value] +
                   "' (" + std::string(file) + " line " + std::to_string(rows[r].line) + ")"};
    }
    // A counter counts events: a negative one is a damaged file, and would put
    // the hit rate outside [0, 100] (found by tests/fuzz/fuzz_rocprof_csv).
    if (*value < 0) {
      return Error{"rocprofv3 counter " + counter + " is negative (" + f[c_value] + ", " + std::string(file) +
                   " line " + std::to_string(rows[r].line) + "); counters count events, so the file is damaged"};
    }
    auto [it, inserted] = dispatches.try_emplace(f[c_dispatch]);
    if (inserted) order.push_back(f[c_dispatch]);
    Dispatch& d = it->second;
    // Hardware instances are already summed by rocprofv3; a repeated name
    // within one dispatch is another dimension of the same counter.
    d.counters[counter] += *value;
    if (c_start && c_end && !d.start) {
      d.start = parse_u64(f[*c_start]);
      d.end = parse_u64(f[*c_end]);
    }
  }

  if (order.empty()) {
    if (rows.size() == 1) return Error{"rocprofv3 " + std::string(file) + " has a header but no dispatch"};
    std::string seen;
    for (std::size_t i = 0; i < kernels_seen.size() && i < 5; ++i) seen += (i ? "; " : "") + kernels_seen[i];
    if (kernels_seen.size() > 5) seen += "; ... (" + std::to_string(kernels_seen.size()) + " kernels)";
    return Error{"no rocprofv3 dispatch matched kernel regex '" + std::string(kernel_regex) +
                 "' (kernels seen: " + seen + ")"};
  }

  for (std::string_view required : {kHit, kMiss}) {
    std::size_t have = 0;
    std::string lacking;
    for (const auto& id : order) {
      if (dispatches[id].counters.count(required)) ++have;
      else if (lacking.empty()) lacking = id;
    }
    if (have == 0) {
      return Error{"rocprofv3 output has no " + std::string(required) +
                   " counter for the profiled kernels (collect it with --pmc TCC_HIT_sum TCC_MISS_sum)"};
    }
    if (!lacking.empty()) {
      return Error{"rocprofv3 output lacks " + std::string(required) + " for dispatch " + lacking +
                   " although other dispatches have it"};
    }
  }

  Metrics m;
  m.launches = static_cast<int>(order.size());
  bool all_timed = c_start && c_end;
  double time_ns = 0;
  for (const auto& id : order) {
    const Dispatch& d = dispatches[id];
    for (const auto& [name, v] : d.counters) m.raw[name] += v;
    if (d.start && d.end && *d.end > *d.start) time_ns += static_cast<double>(*d.end - *d.start);
    else all_timed = false;
  }
  // Summed over dimensions and dispatches, huge values can overflow to inf,
  // and then no ratio of them means anything.
  for (const auto& [name, v] : m.raw) {
    if (!std::isfinite(v)) {
      return Error{"rocprofv3 counter " + name + " sums to more than a double holds; the file is damaged"};
    }
  }
  const double hits = m.raw.at(std::string(kHit));
  const double misses = m.raw.at(std::string(kMiss));
  m.l2_hits = hits;
  m.l2_misses = misses;
  m.l2_sectors = hits + misses;
  // The ratio first: 100 * hits overflows to inf for hits near DBL_MAX (found by
  // tests/fuzz/fuzz_rocprof_csv), whereas hits / (hits + misses) lies in [0, 1].
  if (!std::isfinite(hits + misses)) {
    return Error{"rocprofv3 counters " + std::string(kHit) + " and " + std::string(kMiss) +
                 " sum to more than a double holds; the file is damaged"};
  }
  if (hits + misses > 0) m.l2_hit_pct = 100.0 * (hits / (hits + misses));
  if (all_timed) m.profiler_time_ns = time_ns;
  return m;
}

Result<RocprofAgentInfo> parse_rocprof_agent_info_text(std::string_view csv) {
  constexpr std::string_view file = "agent_info.csv";
  if (is_blank(csv)) return Error{"rocprofv3 agent_info.csv is empty"};
  auto parsed = parse_csv(csv);
  if (!parsed) return Error{"rocprofv3 " + std::string(file) + ": " + parsed.error().message};
  const auto& rows = parsed.value();
  if (rows.empty()) return Error{"rocprofv3 agent_info.csv is empty"};  // a byte-order mark alone
  const auto& header = rows.front().fields;

  const auto c_type = column(header, "Agent_Type");
  const auto c_name = column(header, "Name");
  const auto c_target = column(header, "Gfx_Target_Version");
  const auto c_cu = column(header, "Cu_Count");
  if (!c_cu) return Error{"rocprofv3 agent_info.csv header lacks column Cu_Count"};
  if (!c_name && !c_target) {
    return Error{"rocprofv3 agent_info.csv header lacks both Name and Gfx_Target_Version"};
  }

  const std::vector<std::string>* gpu = nullptr;
  for (std::size_t r = 1; r < rows.size() && !gpu; ++r) {
    const auto& f = rows[r].fields;
    if (f.size() != header.size()) return field_count_error(file, rows[r].line, f.size(), header.size());
    // Without Agent_Type, a GPU agent is the one whose ISA name is gfx*.
    const bool is_gpu = c_type ? f[*c_type] == "GPU" : (c_name && f[*c_name].rfind("gfx", 0) == 0);
    if (is_gpu) gpu = &f;
  }
  if (!gpu) return Error{"rocprofv3 agent_info.csv lists no GPU agent"};
  const auto& f = *gpu;

  auto get_int = [&](std::optional<std::size_t> c) -> std::optional<int> {
    if (!c) return std::nullopt;
    // A value that is not a whole number an int holds counts as absent.
    auto v = parse_whole_number(f[*c], std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    if (!v) return std::nullopt;
    return static_cast<int>(*v);
  };

  RocprofAgentInfo info;
  if (c_name && f[*c_name].rfind("gfx", 0) == 0) {
    info.arch = f[*c_name];
  } else if (auto v = get_int(c_target); v && *v > 0) {
    // KFD encodes gfx<major><minor><stepping> as major*10000 + minor*100 +
    // stepping, stepping printed in hex (90010 -> gfx90a).
    const int major = *v / 10000, minor = (*v / 100) % 100, step = *v % 100;
    const char hex[] = "0123456789abcdef";
    info.arch = "gfx" + std::to_string(major) + std::to_string(minor) + (step < 16 ? std::string(1, hex[step]) : std::to_string(step));
  } else {
    return Error{"rocprofv3 agent_info.csv gives no gfx architecture for the GPU agent"};
  }
  if (auto p = column(header, "Product_Name")) info.product_name = f[*p];
  auto cu = get_int(c_cu);
  if (!cu || *cu <= 0) return Error{"rocprofv3 agent_info.csv has no valid Cu_Count for " + info.arch};
  info.cu_count = *cu;
  info.num_xcc = get_int(column(header, "Num_Xcc"));
  info.simd_count = get_int(column(header, "Simd_Count"));
  info.wave_front_size = get_int(column(header, "Wave_Front_Size"));
  info.node_id = get_int(column(header, "Node_Id"));
  return info;
}

}  // namespace

// Errors echo fields of the CSV, and a quoted field may span lines: every error is
// made one line here (found by tests/fuzz/fuzz_rocprof_csv).
Result<Metrics> parse_rocprof_counters(std::string_view csv, std::string_view kernel_regex) {
  auto r = parse_rocprof_counters_text(csv, kernel_regex);
  if (!r) return Error{one_line(r.error().message), r.error().fatal};
  return r;
}

Result<RocprofAgentInfo> parse_rocprof_agent_info(std::string_view csv) {
  auto r = parse_rocprof_agent_info_text(csv);
  if (!r) return Error{one_line(r.error().message), r.error().fatal};
  return r;
}

}  // namespace swz
