// Nsight Compute CSV -> Metrics (see ncu_parser.h for the contract).
#include "swizzleperf/backend/ncu_parser.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "swizzleperf/util/csv.h"

namespace swz {

namespace {

constexpr std::string_view kHitRate = "lts__t_sector_hit_rate.pct";
constexpr std::string_view kSectors = "lts__t_sectors.sum";
constexpr std::string_view kHits = "lts__t_sectors_lookup_hit.sum";
constexpr std::string_view kMisses = "lts__t_sectors_lookup_miss.sum";
constexpr std::string_view kFabric = "lts__t_sectors_srcunit_ltcfabric.sum";
constexpr std::string_view kDramRead = "dram__bytes_read.sum";
constexpr std::string_view kDramWrite = "dram__bytes_write.sum";
constexpr std::string_view kDuration = "gpu__time_duration.sum";

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Scale to the unit ncu uses with --print-units base: bytes (and other
// counts) unprefixed, durations in ns. ncu 2025.3 prints durations as "ns"
// (measured); older releases spelled them "nsecond", "usecond", ... Its
// prefixes are decimal (Kbyte = 1000 bytes). Other units ("%", "sector",
// "cycle/nsecond", "") pass unchanged.
double to_base_units(double value, std::string_view unit) {
  if (unit == "ns" || unit == "nsecond") return value;
  if (unit == "us" || unit == "usecond") return value * 1e3;
  if (unit == "ms" || unit == "msecond") return value * 1e6;
  if (unit == "s" || unit == "second") return value * 1e9;
  const bool letter_follows = unit.size() >= 2 && ((unit[1] >= 'a' && unit[1] <= 'z') || (unit[1] >= 'A' && unit[1] <= 'Z'));
  if (letter_follows) {
    switch (unit[0]) {
      case 'K': return value * 1e3;
      case 'M': return value * 1e6;
      case 'G': return value * 1e9;
      case 'T': return value * 1e12;
      default: break;
    }
  }
  return value;
}

// Counters (.sum; .avg over units of a counter) add across launches. Rates,
// percentages, maxima and launch attributes do not, and are kept in raw only
// when there is a single launch.
bool is_additive(std::string_view name, std::string_view unit) {
  return unit != "%" && (ends_with(name, ".sum") || ends_with(name, ".avg"));
}

struct Launch {
  std::map<std::string, double, std::less<>> values;
};

struct Column {
  std::size_t id, metric, unit, value;
  bool has_unit;
};

std::optional<Column> header_columns(const std::vector<std::string>& f) {
  auto find = [&](std::string_view name) -> std::optional<std::size_t> {
    auto it = std::find(f.begin(), f.end(), name);
    if (it == f.end()) return std::nullopt;
    return static_cast<std::size_t>(it - f.begin());
  };
  auto id = find("ID"), metric = find("Metric Name"), value = find("Metric Value");
  if (!id || !metric || !value) return std::nullopt;
  auto unit = find("Metric Unit");
  return Column{*id, *metric, unit.value_or(0), *value, unit.has_value()};
}

std::string first_line_with(std::string_view text, std::string_view marker) {
  const auto at = text.find(marker);
  if (at == std::string_view::npos) return {};
  const auto begin = text.rfind('\n', at);
  auto line = text.substr(begin == std::string_view::npos ? 0 : begin + 1);
  line = line.substr(0, line.find('\n'));
  while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return std::string(line);
}

// ncu 2025 follows "No kernels were profiled." with "Available Kernels:" and
// numbered names; they tell the user what the regex should have matched.
std::string available_kernels(std::string_view text) {
  const auto at = text.find("Available Kernels:");
  if (at == std::string_view::npos) return {};
  std::string names;
  std::size_t pos = text.find('\n', at);
  while (pos != std::string_view::npos && pos + 1 < text.size()) {
    const std::size_t begin = pos + 1;
    pos = text.find('\n', begin);
    auto line = text.substr(begin, pos == std::string_view::npos ? std::string_view::npos : pos - begin);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    const auto dot = line.find(". ");
    if (dot == 0 || dot == std::string_view::npos ||
        line.substr(0, dot).find_first_not_of("0123456789") != std::string_view::npos) {
      break;
    }
    names += (names.empty() ? "" : ", ") + std::string(line.substr(dot + 2));
  }
  return names;
}

Error no_kernel_error(std::string_view text) {
  std::string msg =
      "ncu profiled no kernel (check that the --kernel-name regex matches a kernel the program "
      "launches, and that the program ran to completion)";
  if (auto names = available_kernels(text); !names.empty()) msg += "; kernels launched: " + names;
  if (auto err = first_line_with(text, "==ERROR=="); !err.empty()) msg += "; ncu said: " + err;
  return Error{msg};
}

}  // namespace

std::vector<std::string> ncu_default_metrics() {
  return {std::string(kHitRate), std::string(kSectors),  std::string(kHits),
          std::string(kMisses),  std::string(kFabric),   std::string(kDramRead),
          std::string(kDramWrite), std::string(kDuration)};
}

namespace {

Result<Metrics> parse_ncu_csv_text(std::string_view text);


}  // namespace

Result<Metrics> parse_ncu_csv(std::string_view text) {
  auto r = parse_ncu_csv_text(text);
  if (!r) return Error{one_line(r.error().message), r.error().fatal};
  return r;
}

namespace {

Result<Metrics> parse_ncu_csv_text(std::string_view text) {
  if (text.find("ERR_NVGPUCTRPERM") != std::string_view::npos) {
    return Error{
        "ncu was refused access to the GPU performance counters (ERR_NVGPUCTRPERM): run it as root, "
        "or enable access for all users with the nvidia kernel module option "
        "NVreg_RestrictProfilingToAdminUsers=0 (see https://developer.nvidia.com/ERR_NVGPUCTRPERM)"};
  }
  if (text.find("No kernels were profiled") != std::string_view::npos) return no_kernel_error(text);

  // The table follows arbitrary program output, so it is found by its header
  // rather than by a line count.
  std::size_t offset = 0, line_no = 1;
  std::optional<std::size_t> header_offset;
  std::size_t header_line = 0;
  while (offset < text.size()) {
    const auto nl = text.find('\n', offset);
    const auto line = text.substr(offset, nl == std::string_view::npos ? std::string_view::npos : nl - offset);
    if (line.find("Metric Value") != std::string_view::npos && header_columns(split_csv_line(line))) {
      header_offset = offset;
      header_line = line_no;
      break;
    }
    if (nl == std::string_view::npos) break;
    offset = nl + 1;
    ++line_no;
  }
  if (!header_offset) return no_kernel_error(text);

  auto parsed = parse_csv(text.substr(*header_offset));
  if (!parsed) return Error{"ncu CSV: " + parsed.error().message};
  const auto& rows = parsed.value();
  if (rows.empty()) return no_kernel_error(text);
  const auto& header = rows.front().fields;
  const Column col = *header_columns(header);
  const std::size_t needed = std::max({col.id, col.metric, col.value, col.has_unit ? col.unit : 0}) + 1;

  std::vector<std::string> order;  // launch IDs in the order ncu printed them
  std::map<std::string, Launch, std::less<>> launches;
  std::map<std::string, bool, std::less<>> additive;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r].fields;
    const std::size_t line = header_line + rows[r].line - 1;
    if (!f.empty() && starts_with(f[0], "==")) continue;  // ncu's own messages after the table
    if (f == header) continue;
    if (f.size() < needed) {
      return Error{"ncu CSV line " + std::to_string(line) + " has " + std::to_string(f.size()) +
                   " fields, the header has " + std::to_string(header.size()) + " (truncated output?)"};
    }
    const std::string& name = f[col.metric];
    if (name.empty()) continue;  // rule/analysis rows carry no metric
    const std::string& id = f[col.id];
    const std::string unit = col.has_unit ? f[col.unit] : std::string();
    auto value = parse_number(f[col.value]);
    if (!value) {
      return Error{"ncu metric " + name + " of launch ID " + id + " has a value that is not a number: '" +
                   f[col.value] + "' (line " + std::to_string(line) + ")"};
    }
    auto [it, inserted] = launches.try_emplace(id);
    if (inserted) order.push_back(id);
    // A metric listed under two sections is one measurement, not two.
    it->second.values.try_emplace(name, to_base_units(*value, unit));
    additive.try_emplace(name, is_additive(name, unit));
  }
  if (order.empty()) return no_kernel_error(text);

  Metrics m;
  m.launches = static_cast<int>(order.size());
  std::map<std::string, int, std::less<>> present;
  for (const auto& id : order) {
    for (const auto& [name, v] : launches[id].values) {
      ++present[name];
      if (additive[name]) m.raw[name] += v;
      else if (order.size() == 1) m.raw[name] = v;
    }
  }

  auto complete_sum = [&](std::string_view name) -> std::optional<double> {
    auto it = present.find(name);
    if (it == present.end() || it->second != m.launches || !additive[std::string(name)]) return std::nullopt;
    return m.raw.at(std::string(name));
  };
  m.l2_sectors = complete_sum(kSectors);
  m.l2_hits = complete_sum(kHits);
  m.l2_misses = complete_sum(kMisses);
  m.fabric_sectors = complete_sum(kFabric);
  m.dram_read_bytes = complete_sum(kDramRead);
  m.dram_write_bytes = complete_sum(kDramWrite);
  m.profiler_time_ns = complete_sum(kDuration);

  // Hit rate from summed counters; a mean of per-launch percentages would
  // weight a tiny launch like a huge one. hits/sectors first: that is how ncu
  // defines lts__t_sector_hit_rate.pct (measured on H100, ncu 2025.3: 50.41 %
  // printed = 3,226,754 hits / 6,400,895 sectors, whereas hits + misses =
  // 6,370,855 would give 50.65 %).
  if (m.l2_hits && m.l2_sectors && *m.l2_sectors > 0) {
    m.l2_hit_pct = 100.0 * (*m.l2_hits / *m.l2_sectors);
  } else if (m.l2_hits && m.l2_misses && *m.l2_hits + *m.l2_misses > 0) {
    m.l2_hit_pct = 100.0 * (*m.l2_hits / (*m.l2_hits + *m.l2_misses));
  } else if (present.count(kHitRate)) {
    if (m.launches == 1) {
      m.l2_hit_pct = launches[order.front()].values.at(std::string(kHitRate));
    } else {
      double weighted = 0, weight = 0;
      for (const auto& id : order) {
        const auto& vals = launches[id].values;
        auto pct = vals.find(kHitRate);
        if (pct == vals.end()) continue;
        auto sectors = vals.find(kSectors);
        if (sectors == vals.end()) {
          return Error{"cannot combine " + std::string(kHitRate) + " over " + std::to_string(m.launches) +
                       " launches without " + std::string(kSectors) + " for launch ID " + id +
                       " (percentages are not averaged); add lts__t_sectors.sum, or "
                       "lts__t_sectors_lookup_hit.sum and lts__t_sectors_lookup_miss.sum, to the metrics"};
        }
        weighted += pct->second * sectors->second;
        weight += sectors->second;
      }
      if (weight > 0) m.l2_hit_pct = weighted / weight;
    }
  }
  // A value scaled by its unit or summed over launches can overflow to inf, and
  // inf / inf is NaN (found by tests/fuzz/fuzz_ncu_csv): no ranking can use it,
  // and JSON would store it as null.
  for (const auto& [name, value] : m.raw)
    if (!std::isfinite(value)) return make_error("ncu's " + name + " is out of range (" + std::to_string(value) + ")");
  if (m.l2_hit_pct && !std::isfinite(*m.l2_hit_pct)) return make_error("ncu's L2 hit rate is not a finite number");
  // A share of counted sectors, or ncu's own percentage: outside [0, 100] only in
  // a damaged or hand-made file (negative counts, more hits than sectors), and a
  // ranking built on it would be nonsense. The ratio is taken before the * 100
  // above so that a full hit rate is exactly 100.
  if (m.l2_hit_pct && (*m.l2_hit_pct < 0 || *m.l2_hit_pct > 100)) {
    return make_error("ncu's L2 hit rate is " + std::to_string(*m.l2_hit_pct) +
                      " %, outside 0-100 (negative counts or more hits than sectors); the file is damaged");
  }
  return m;
}

}  // namespace

}  // namespace swz
