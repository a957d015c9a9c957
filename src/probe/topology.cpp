// Topology analysis: dispatch order, L2-side classification, GPC groups, and the
// ProbeResult's JSON form. Pure functions; the probe runner feeds them.
#include "swizzleperf/probe/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

namespace swz::probe {

// ---- dispatch order ---------------------------------------------------------

Result<WaveOrder> first_wave_order(const std::vector<BlockRecord>& records, int num_sms, int blocks_per_sm) {
  if (num_sms < 1 || blocks_per_sm < 1) return make_error("order: SM count and blocks per SM must be positive");
  WaveOrder o;
  o.num_sms = num_sms;
  o.blocks_per_sm = blocks_per_sm;
  o.wave_size = num_sms * blocks_per_sm;
  const int n = static_cast<int>(records.size());
  if (n < o.wave_size)
    return make_error(fmt::format("order: {} block records, fewer than one wave of {} blocks", n, o.wave_size));
  std::vector<const BlockRecord*> by_pid(n, nullptr);
  for (const auto& r : records) {
    if (r.pid < 0 || r.pid >= n) return make_error(fmt::format("order: pid {} outside 0..{}", r.pid, n - 1));
    if (by_pid[r.pid]) return make_error(fmt::format("order: pid {} recorded twice", r.pid));
    if (r.smid < 0) return make_error(fmt::format("order: block {} has no SM id (it never ran?)", r.pid));
    by_pid[r.pid] = &r;
  }
  const int w = o.wave_size;
  o.pid_to_sm.resize(w);
  std::map<int, int> per_sm;
  std::int64_t first_last = 0, later_first = 0;
  bool any_later = false;
  for (int p = 0; p < n; ++p) {
    const auto& r = *by_pid[p];
    if (p < w) {
      o.pid_to_sm[p] = r.smid;
      ++per_sm[r.smid];
      first_last = p == 0 ? r.t_ns : std::max(first_last, r.t_ns);
    } else {
      later_first = any_later ? std::min(later_first, r.t_ns) : r.t_ns;
      any_later = true;
    }
  }
  o.first_wave_is_prefix = !any_later || first_last < later_first;
  o.balanced = static_cast<int>(per_sm.size()) == num_sms &&
               std::all_of(per_sm.begin(), per_sm.end(), [&](const auto& kv) { return kv.second == blocks_per_sm; });
  int match = 0;
  for (int p = w; p < n; ++p) match += by_pid[p]->smid == o.pid_to_sm[p % w];
  o.later_blocks = n - w;
  o.later_sm_match = o.later_blocks ? static_cast<double>(match) / o.later_blocks : 0.0;
  o.later_waves_repeat = o.later_blocks > 0 && o.later_sm_match >= 0.99;
  return o;
}

// ---- L2 sides -----------------------------------------------------------------

namespace {

Population stats(const std::vector<double>& v) {
  Population p;
  p.count = static_cast<int>(v.size());
  if (v.empty()) return p;
  p.min = *std::min_element(v.begin(), v.end());
  p.max = *std::max_element(v.begin(), v.end());
  p.mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  double ss = 0;
  for (double x : v) ss += (x - p.mean) * (x - p.mean);
  p.stddev = std::sqrt(ss / v.size());
  return p;
}

}  // namespace

SideClassification classify_sides(const std::vector<double>& values, int ref_sm) {
  SideClassification c;
  c.side.assign(values.size(), -1);
  std::vector<std::pair<double, int>> pts;
  for (int i = 0; i < static_cast<int>(values.size()); ++i)
    if (std::isfinite(values[i]) && values[i] >= 0) pts.emplace_back(values[i], i);
  if (pts.size() < 2) {
    c.note = "fewer than 2 SMs were measured";
    return c;
  }
  std::sort(pts.begin(), pts.end());
  // Exact 1-D 2-means: the best split of the sorted values into a low and a high run.
  const std::size_t n = pts.size();
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    s1[i + 1] = s1[i] + pts[i].first;
    s2[i + 1] = s2[i] + pts[i].first * pts[i].first;
  }
  auto sse = [&](std::size_t a, std::size_t b) {  // [a, b)
    const double k = static_cast<double>(b - a), s = s1[b] - s1[a];
    return (s2[b] - s2[a]) - s * s / k;
  };
  std::size_t split = 1;
  double best = sse(0, 1) + sse(1, n);
  for (std::size_t i = 2; i < n; ++i) {
    const double cost = sse(0, i) + sse(i, n);
    if (cost < best - 1e-9 * std::max(1.0, std::abs(best))) {
      best = cost;
      split = i;
    }
  }
  std::vector<double> low, high;
  bool ref_measured = false, ref_low = true;
  for (std::size_t i = 0; i < n; ++i) {
    (i < split ? low : high).push_back(pts[i].first);
    if (pts[i].second == ref_sm) {
      ref_measured = true;
      ref_low = i < split;
    }
  }
  const int low_label = ref_low ? 0 : 1;
  for (std::size_t i = 0; i < n; ++i) c.side[pts[i].second] = i < split ? low_label : 1 - low_label;
  const Population pl = stats(low), ph = stats(high);
  c.populations[low_label] = pl;
  c.populations[1 - low_label] = ph;
  c.gap = std::max(0.0, ph.min - pl.max);
  c.spread = std::max(pl.stddev, ph.stddev);
  c.separation = c.spread > 0 ? std::min(1e6, c.gap / c.spread) : (c.gap > 0 ? 1e6 : 0.0);
  const double scale = std::max(std::abs(pl.mean), std::abs(ph.mean));
  const double rel_gap = scale > 0 ? c.gap / scale : 0.0;
  std::vector<std::string> why;
  if (pl.count < 2 || ph.count < 2) why.push_back(fmt::format("a side has fewer than 2 SMs ({} / {})", pl.count, ph.count));
  if (c.separation < 4) why.push_back(fmt::format("the populations are not well separated (gap / spread = {:.2f} < 4)", c.separation));
  if (rel_gap < 0.1) why.push_back(fmt::format("the gap is only {:.1f}% of the values", 100 * rel_gap));
  if (ref_measured && !ref_low) why.push_back(fmt::format("the reference SM {} fell in the high population", ref_sm));
  if (!ref_measured) why.push_back(fmt::format("the reference SM {} was not measured", ref_sm));
  if (why.empty()) {
    c.confidence = "high";
  } else {
    c.confidence = "low";
    for (std::size_t i = 0; i < why.size(); ++i) c.note += (i ? "; " : "") + why[i];
  }
  return c;
}

std::vector<int> pid_to_side(const std::vector<int>& pid_to_sm, const std::vector<int>& sm_side) {
  std::vector<int> out(pid_to_sm.size(), -1);
  for (std::size_t p = 0; p < pid_to_sm.size(); ++p) {
    const int sm = pid_to_sm[p];
    if (sm >= 0 && sm < static_cast<int>(sm_side.size())) out[p] = sm_side[sm];
  }
  return out;
}

double later_wave_side_match(const std::vector<BlockRecord>& records, const WaveOrder& order,
                             const std::vector<int>& sm_side) {
  const int w = order.wave_size;
  if (w <= 0 || static_cast<int>(order.pid_to_sm.size()) != w) return -1;
  auto side_of = [&](int sm) { return sm >= 0 && sm < static_cast<int>(sm_side.size()) ? sm_side[sm] : -1; };
  int total = 0, match = 0;
  for (const auto& r : records) {
    if (r.pid < w) continue;
    const int a = side_of(r.smid), b = side_of(order.pid_to_sm[r.pid % w]);
    if (a < 0 || b < 0) continue;
    ++total;
    match += a == b;
  }
  return total ? static_cast<double>(match) / total : -1;
}

double side_agreement(const std::vector<int>& a, const std::vector<int>& b) {
  int total = 0, same = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] < 0 || b[i] < 0) continue;
    ++total;
    same += a[i] == b[i];
  }
  return total ? static_cast<double>(same) / total : -1;
}

// ---- GPCs -----------------------------------------------------------------------

std::vector<std::vector<int>> gpc_groups(const std::vector<ClusterRecord>& records) {
  std::map<int, int> parent;
  std::function<int(int)> find = [&](int x) {
    int r = x;
    while (parent[r] != r) r = parent[r];
    while (parent[x] != r) {
      const int next = parent[x];
      parent[x] = r;
      x = next;
    }
    return r;
  };
  std::map<std::pair<int, int>, int> first_sm;  // (size, cluster) -> an SM of it
  for (const auto& r : records) {
    if (r.smid < 0) continue;
    parent.try_emplace(r.smid, r.smid);
    auto [it, inserted] = first_sm.try_emplace({r.cluster_size, r.cluster}, r.smid);
    if (!inserted) {
      const int a = find(r.smid), b = find(it->second);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::map<int, std::vector<int>> by_root;
  for (const auto& kv : parent) by_root[find(kv.first)].push_back(kv.first);
  std::vector<std::vector<int>> groups;
  for (auto& kv : by_root) groups.push_back(std::move(kv.second));  // roots are the smallest ids: sorted
  std::sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x.front() < y.front(); });
  return groups;
}

bool groups_single_sided(const std::vector<std::vector<int>>& groups, const std::vector<int>& sm_side) {
  for (const auto& g : groups) {
    std::set<int> sides;
    for (int sm : g)
      if (sm >= 0 && sm < static_cast<int>(sm_side.size()) && sm_side[sm] >= 0) sides.insert(sm_side[sm]);
    if (sides.size() > 1) return false;
  }
  return true;
}

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

Result<ProbeResult> parse_probe(std::string_view text, const std::string& name) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("device_name") || !j.contains("how"))
    return make_error(name + " is not a swizzleperf probe result");
  // Typed look-up: j.value() throws when the field has another type (found by
  // tests/fuzz/fuzz_probe_json; inputs in tests/fixtures/fuzz/fuzz_probe_json/).
  const auto sv = j.find("schema_version");
  if (sv != j.end() && !(sv->is_number_integer() && sv->get<long long>() <= 1))
    return make_error(name + " was written by a newer swizzleperf (or is damaged): schema_version " + sv->dump());
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

std::string format_id_ranges(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t k = i;
    while (k + 1 < ids.size() && ids[k + 1] == ids[k] + 1) ++k;
    if (!out.empty()) out += ' ';
    out += k == i ? std::to_string(ids[i]) : fmt::format("{}-{}", ids[i], ids[k]);
    i = k + 1;
  }
  return out;
}

}  // namespace swz::probe
