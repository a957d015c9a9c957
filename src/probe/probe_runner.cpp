// `swizzleperf probe` on the device: build and run the topology probe, profile
// its reader launches with ncu, assemble and store the ProbeResult.
#include "swizzleperf/backend/backend_factory.h"
#include "swizzleperf/probe/probe_runner.h"
#include "swizzleperf/util/stats.h"
#include "swizzleperf/util/text.h"
#include "swizzleperf/util/file_io.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/util/csv.h"
#include "swizzleperf/util/text.h"

namespace swz::probe {

namespace {

// A program's own one-line error ({"mode":"error","error":...}) or its last stderr line.
std::string program_failure(const ProgramRun& run) {
  std::string why = run.process.describe();
  if (run.json.is_object() && run.json.contains("error")) return why + ": " + run.json.value("error", "");
  const auto tail = tail_lines(run.process.err.empty() ? run.process.out : run.process.err, 1);
  return tail.empty() ? why : why + ": " + trim(tail);
}

std::vector<int> int_list(const nlohmann::json& j, const char* key) {
  std::vector<int> v;
  if (j.is_object() && j.contains(key) && j.at(key).is_array())
    for (const auto& x : j.at(key)) v.push_back(x.is_number_integer() ? x.get<int>() : -1);
  return v;
}

class TempWorkDir {
 public:
  explicit TempWorkDir(fs::path given) : path_(std::move(given)) {
    if (path_.empty()) {
      path_ = fs::temp_directory_path() / fmt::format("swizzleperf-probe-{}", ::getpid());
      owned_ = true;
    }
    std::error_code ec;
    fs::create_directories(path_, ec);
  }
  ~TempWorkDir() {
    if (owned_) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  TempWorkDir(const TempWorkDir&) = delete;
  TempWorkDir& operator=(const TempWorkDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool owned_ = false;
};

FactSource fact(std::string how, std::string confidence, std::string note = {}) {
  return FactSource{std::move(how), std::move(confidence), std::move(note)};
}

}  // namespace

// ---- ncu CSV, per launch ------------------------------------------------------------

Result<std::vector<NcuLaunch>> parse_ncu_launches(std::string_view text) {
  // The table starts at the header line; everything before it is ncu's and the program's chatter.
  std::size_t pos = 0, header_at = std::string_view::npos;
  while (pos < text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const auto line = text.substr(pos, eol - pos);
    if (line.rfind("\"ID\"", 0) == 0 && line.find("\"Metric Value\"") != std::string_view::npos) {
      header_at = pos;
      break;
    }
    pos = eol + 1;
  }
  if (header_at == std::string_view::npos) {
    if (text.find("ERR_NVGPUCTRPERM") != std::string_view::npos)
      return make_error("ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM): run as root or allow profiling for all users");
    if (text.find("No kernels were profiled") != std::string_view::npos)
      return make_error("ncu profiled no kernel (no probe_reader launch matched)");
    return make_error("ncu printed no CSV table");
  }
  auto rows = parse_csv(text.substr(header_at));
  if (!rows) return rows.error();
  if (rows->empty()) return make_error("ncu printed no CSV table");
  const auto& header = rows->front().fields;
  auto col = [&](const char* name) -> int {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  };
  const int c_id = col("ID"), c_kernel = col("Kernel Name"), c_metric = col("Metric Name"), c_value = col("Metric Value");
  if (c_id < 0 || c_metric < 0 || c_value < 0) return make_error("ncu CSV lacks the ID / Metric Name / Metric Value columns");
  std::map<long, NcuLaunch> by_id;
  for (std::size_t i = 1; i < rows->size(); ++i) {
    const auto& f = (*rows)[i].fields;
    const auto need = static_cast<std::size_t>(std::max({c_id, c_kernel, c_metric, c_value}));
    if (f.size() <= need) continue;  // a stray line after the table (==PROF== / ==WARNING==)
    const auto id = parse_whole_number(f[c_id], 0, 1ll << 53);
    if (!id) continue;  // not a table row
    const auto value = parse_number(f[c_value]);
    if (!value)
      return make_error(fmt::format("ncu CSV line {}: {} has no readable value ('{}')", (*rows)[i].line, f[c_metric], f[c_value]));
    auto& launch = by_id[static_cast<long>(*id)];
    launch.id = static_cast<long>(*id);
    if (c_kernel >= 0) launch.kernel = f[c_kernel];
    launch.metrics[f[c_metric]] = *value;
  }
  if (by_id.empty()) return make_error("ncu CSV has a header but no launches");
  std::vector<NcuLaunch> out;
  for (auto& kv : by_id) out.push_back(std::move(kv.second));
  return out;
}

nlohmann::json find_mode_json(std::string_view text, std::string_view mode) {
  nlohmann::json found;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const auto line = trim(text.substr(pos, eol - pos));
    pos = eol + 1;
    if (line.empty() || line.front() != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.value("mode", "") == mode) found = std::move(j);
  }
  return found;
}

Result<std::vector<double>> per_sm_metric(const std::vector<NcuLaunch>& launches, const std::vector<int>& targets,
                                          int num_sms, const std::string& metric) {
  if (launches.size() != targets.size())
    return make_error(fmt::format("ncu profiled {} reader launches but the program made {}", launches.size(), targets.size()));
  int size = num_sms;
  for (int t : targets) size = std::max(size, t + 1);
  std::vector<std::vector<double>> per(size);
  for (std::size_t k = 0; k < launches.size(); ++k) {
    auto it = launches[k].metrics.find(metric);
    if (it == launches[k].metrics.end())
      return make_error(fmt::format("ncu reported no {} for launch {}", metric, launches[k].id));
    if (targets[k] >= 0) per[targets[k]].push_back(it->second);
  }
  std::vector<double> out(size, -1.0);
  for (int s = 0; s < size; ++s)
    if (!per[s].empty()) out[s] = median_of(per[s]);
  return out;
}

std::vector<std::string> probe_build_argv(const std::string& nvcc, const fs::path& source, const fs::path& output,
                                          const std::string& arch) {
  return {nvcc, "-arch=" + (arch.empty() ? std::string("native") : arch), "-O2", "-std=c++17", "-o", output.string(),
          source.string()};
}

std::vector<std::string> side_ncu_argv(const std::string& ncu, const fs::path& exe, int ref_sm) {
  // --cache-control none: no flush between the writer and the profiled reader.
  return {ncu, "--csv", "--print-units", "base", "--cache-control", "none", "--clock-control", "base",
          "--kernel-name", "regex:probe_reader", "--metrics", kFabricMetric, exe.string(), "side", "--ref",
          std::to_string(ref_sm)};
}

// ---- assembling -----------------------------------------------------------------------

namespace {

std::vector<BlockRecord> block_records(const nlohmann::json& order) {
  std::vector<BlockRecord> recs;
  for (const auto& r : order.value("records", nlohmann::json::array()))
    if (r.is_array() && r.size() >= 3) recs.push_back({r[0].get<int>(), r[1].get<int>(), r[2].get<std::int64_t>()});
  return recs;
}

OrderSummary summarize(const WaveOrder& o, const std::vector<BlockRecord>& recs, const std::vector<int>& sm_side,
                       bool sides) {
  OrderSummary s;
  s.blocks_per_sm = o.blocks_per_sm;
  s.wave_size = o.wave_size;
  s.pid_to_sm = o.pid_to_sm;
  s.first_wave_is_prefix = o.first_wave_is_prefix;
  s.balanced = o.balanced;
  s.later_sm_match = o.later_sm_match;
  if (sides) {
    s.pid_to_side = pid_to_side(o.pid_to_sm, sm_side);
    s.later_side_match = later_wave_side_match(recs, o, sm_side);
  }
  return s;
}

void base_facts(ProbeResult& r, const HardwareProfile& hw) {
  r.vendor = hw.vendor;
  r.device_name = hw.name;
  r.arch = hw.arch;
  r.sm_count = hw.compute_units;
  r.l2_bytes = hw.l2_bytes;
  r.driver_version = hw.device_query.is_object() ? hw.device_query.value("driver_version", -1) : -1;
  const bool queried = hw.provenance.count("compute_units") && hw.provenance.at("compute_units") == "device query";
  const auto src = queried ? fact("device query", "high") : fact("arch table", "medium", "no device was queried");
  r.how["device_name"] = r.how["sm_count"] = r.how["l2_bytes"] = src;
  r.how["arch"] = src;
}

}  // namespace

Result<ProbeResult> assemble_cuda_probe(const CudaProbeInputs& in) {
  ProbeResult r;
  base_facts(r, in.hw);
  r.vendor = "nvidia";
  r.ref_sm = in.ref_sm;
  r.notes = in.notes;
  if (!in.order_k1.is_object()) return make_error("the dispatch-order measurement (order mode) gave no result");
  const int num_sms = in.order_k1.value("num_sms", in.hw.compute_units);
  if (r.sm_count <= 0) r.sm_count = num_sms;
  const auto recs1 = block_records(in.order_k1);
  auto o1 = first_wave_order(recs1, num_sms, in.order_k1.value("blocks_per_sm", 1));
  if (!o1) return o1.error();

  // ---- sides: ncu fabric sectors, L2-hit latency
  std::optional<SideClassification> fab, lat;
  if (!in.side_ncu_output.empty()) {
    const auto side = find_mode_json(in.side_ncu_output, "side");
    auto launches = parse_ncu_launches(in.side_ncu_output);
    if (side.is_null()) {
      r.notes.push_back("ncu side run: the program printed no result line");
    } else if (!launches) {
      r.notes.push_back("ncu side run: " + launches.error().message);
    } else {
      std::vector<NcuLaunch> readers;
      for (auto& l : *launches)
        if (l.kernel.find("probe_reader") != std::string::npos) readers.push_back(l);
      auto values = per_sm_metric(readers, int_list(side, "targets"), num_sms, kFabricMetric);
      if (!values) {
        r.notes.push_back("ncu side run: " + values.error().message);
      } else {
        r.fabric_sectors_per_sm = *values;
        fab = classify_sides(*values, in.ref_sm);
        if (!side.value("writer_ok", true)) {
          fab->confidence = "low";
          fab->note += std::string(fab->note.empty() ? "" : "; ") + "the writer did not always run on the reference SM";
        }
        r.raw_extra["ncu_fabric"] = *fab;
        r.raw_extra["ncu_fabric"]["bytes_read_per_launch"] = side.value("bytes", 0);
      }
    }
  }
  if (in.latency.is_object()) {
    const auto targets = int_list(in.latency, "targets");
    const auto means = in.latency.value("mean_cycles", nlohmann::json::array());
    int size = num_sms;
    for (int t : targets) size = std::max(size, t + 1);
    std::vector<double> values(size, -1.0);
    for (std::size_t k = 0; k < targets.size() && k < means.size(); ++k)
      if (targets[k] >= 0 && means[k].is_number()) values[targets[k]] = means[k].get<double>();
    r.l2_latency_cycles_per_sm = values;
    lat = classify_sides(values, in.ref_sm);
    if (!in.latency.value("writer_ok", true)) {
      lat->confidence = "low";
      lat->note += std::string(lat->note.empty() ? "" : "; ") + "the warm-up did not always run on the reference SM";
    }
    r.raw_extra["l2_latency"] = *lat;
  }
  const SideClassification* chosen = nullptr;
  if (fab && fab->confidence == "high") {
    chosen = &*fab;
    r.side_method = "ncu_fabric";
  } else if (lat && lat->confidence == "high") {
    chosen = &*lat;
    r.side_method = "l2_latency";
  } else if (fab) {
    chosen = &*fab;
    r.side_method = "ncu_fabric";
  } else if (lat) {
    chosen = &*lat;
    r.side_method = "l2_latency";
  }
  if (fab && lat) r.side_methods_agreement = side_agreement(fab->side, lat->side);
  if (chosen) {
    r.sides = *chosen;
    r.sm_side = chosen->side;
    if (fab && lat && fab->confidence == "high" && lat->confidence == "high" && r.side_methods_agreement < 0.99) {
      r.sides.confidence = "low";
      r.sides.note = fmt::format("ncu fabric sectors and L2 latency disagree on {:.0f}% of the SMs",
                                 100 * (1 - r.side_methods_agreement));
    }
  }
  const bool sides = r.sides_known();
  const std::string method_word = r.side_method == "ncu_fabric" ? "ncu fabric sectors (lts__t_sectors_srcunit_ltcfabric.sum) per SM after SM " + std::to_string(in.ref_sm) + " read the data"
                                                                : "L2-hit latency per SM after SM " + std::to_string(in.ref_sm) + " read the data";
  if (chosen) {
    std::string note = method_word;
    if (r.side_methods_agreement >= 0) note += fmt::format("; the other method agrees on {:.0f}% of the SMs", 100 * r.side_methods_agreement);
    if (!r.sides.note.empty()) note += "; " + r.sides.note;
    r.how["sm_side"] = fact("measured", r.sides.confidence, note);
  } else {
    r.how["sm_side"] = fact("unknown", "low", "neither ncu nor the latency probe gave a measurement");
  }
  if (sides) {
    r.num_l2_domains = 2;
    r.how["num_l2_domains"] = fact("measured", "high", "the SMs split into two clean populations");
  } else {
    r.num_l2_domains = std::max(1, in.hw.num_dies);
    r.how["num_l2_domains"] = fact("arch table", "medium", "sides were not measured cleanly; value from the arch table");
  }

  // ---- dispatch order
  r.wave_size = o1->wave_size;
  r.blocks_per_sm = o1->blocks_per_sm;
  r.first_wave_pid_to_sm = o1->pid_to_sm;
  r.later_waves_repeat = o1->later_waves_repeat;
  r.orders.push_back(summarize(*o1, recs1, r.sm_side, chosen != nullptr));
  if (chosen) r.first_wave_pid_to_side = pid_to_side(o1->pid_to_sm, r.sm_side);
  const bool order_clean = o1->first_wave_is_prefix && o1->balanced;
  r.how["first_wave_pid_to_sm"] =
      fact("measured", order_clean ? "high" : "low",
           order_clean ? fmt::format("{} spinning blocks, {} per SM; pids 0..{} started first, one per SM slot", recs1.size(),
                                     o1->blocks_per_sm, o1->wave_size - 1)
                       : std::string("the first wave was not pids 0..W-1 on distinct SM slots"));
  r.how["first_wave_pid_to_side"] = fact(chosen ? "measured" : "unknown", chosen ? r.sides.confidence : "low",
                                         "first_wave_pid_to_sm composed with sm_side");
  r.how["later_waves_repeat"] =
      fact("measured", o1->later_blocks > 0 ? "high" : "low",
           fmt::format("{:.1f}% of {} later-wave blocks ran on the SM of pid % {}", 100 * o1->later_sm_match,
                       o1->later_blocks, o1->wave_size));
  if (in.order_k2.is_object()) {
    const auto recs2 = block_records(in.order_k2);
    auto o2 = first_wave_order(recs2, num_sms, in.order_k2.value("blocks_per_sm", 2));
    if (o2)
      r.orders.push_back(summarize(*o2, recs2, r.sm_side, chosen != nullptr));
    else
      r.notes.push_back("order with 2 blocks per SM: " + o2.error().message);
  }

  // ---- GPCs
  if (in.cluster.is_object()) {
    std::vector<ClusterRecord> cr;
    for (const auto& x : in.cluster.value("records", nlohmann::json::array()))
      if (x.is_array() && x.size() >= 3) cr.push_back({x[0].get<int>(), x[1].get<int>(), x[2].get<int>()});
    r.gpc_groups = gpc_groups(cr);
    r.cluster_size = in.cluster.value("cluster_size", 0);
    r.gpc_groups_single_sided = chosen && groups_single_sided(r.gpc_groups, r.sm_side);
    int covered = 0;
    std::vector<int> small;
    for (const auto& g : r.gpc_groups) {
      covered += static_cast<int>(g.size());
      if (static_cast<int>(g.size()) < r.cluster_size) small.insert(small.end(), g.begin(), g.end());
    }
    std::string note = fmt::format("SMs that shared a thread-block cluster (sizes up to {}), joined; a lower bound on the GPCs",
                                   r.cluster_size);
    if (!small.empty()) note += "; SMs " + format_id_ranges(small) + " never shared a cluster of that size, so their GPC is not known";
    if (chosen) note += r.gpc_groups_single_sided ? "; every group lies on one L2 side" : "; some group spans both L2 sides";
    r.how["gpc_groups"] = fact("measured", covered == num_sms && small.empty() ? "high" : "medium", note);
  } else {
    r.how["gpc_groups"] = fact("unknown", "low", "the cluster launch gave no result");
  }
  r.how["driver_version"] = fact("device query", "high");
  return r;
}

ProbeResult assemble_amd_probe(const HardwareProfile& hw, const nlohmann::json& xcc, std::vector<std::string> notes) {
  ProbeResult r;
  base_facts(r, hw);
  r.vendor = "amd";
  r.notes = std::move(notes);
  const bool measured = xcc.is_object() && !xcc.contains("error") && xcc.value("num_xcc_seen", 0) > 0;
  if (measured) {
    const int x = xcc.value("num_xcc_seen", 0);
    const long blocks = xcc.value("blocks", 0L);
    const long matches = xcc.value("round_robin_matches", 0L);
    r.num_l2_domains = x;
    r.raw_extra["xcc_probe"] = xcc;
    if (xcc.value("pattern", "") == "round_robin") {
      r.wave_size = x;
      for (int i = 0; i < x; ++i) r.first_wave_pid_to_side.push_back(i);
      r.how["first_wave_pid_to_side"] = fact("measured", "high", fmt::format("all {} blocks ran on XCC pid % {}", blocks, x));
    } else {
      r.first_wave_pid_to_side = int_list(xcc, "xcc_of_block");
      r.wave_size = static_cast<int>(r.first_wave_pid_to_side.size());
      r.how["first_wave_pid_to_side"] = fact("measured", "low",
                                             fmt::format("not round-robin: {} of {} blocks ran on XCC pid % {}; the table "
                                                         "holds the first blocks' XCC ids as measured",
                                                         matches, blocks, x));
    }
    r.how["num_l2_domains"] = fact("measured", "high", "distinct HW_REG_XCC_ID values seen");
  } else {
    r.num_l2_domains = std::max(1, hw.num_dies);
    r.wave_size = r.num_l2_domains;
    for (int i = 0; i < r.num_l2_domains; ++i) r.first_wave_pid_to_side.push_back(i);
    const std::string note = hw.dispatch.note.empty() ? std::string("round-robin over dies") : hw.dispatch.note;
    r.how["num_l2_domains"] = fact("arch table", "medium", "XCD count of " + hw.arch + " in SPX mode");
    r.how["first_wave_pid_to_side"] = fact("arch table", "medium", note);
  }
  r.blocks_per_sm = 1;
  r.later_waves_repeat = true;  // round-robin: die = pid % X for every pid
  r.how["sm_side"] = fact("unknown", "low", "CU -> XCD is not probed on AMD");
  r.how["gpc_groups"] = fact("unknown", "low", "not probed on AMD");
  r.how["driver_version"] = fact(r.driver_version >= 0 ? "device query" : "unknown", r.driver_version >= 0 ? "high" : "low");
  return r;
}

// ---- running ----------------------------------------------------------------------

namespace {

Result<ProbeResult> run_cuda_probe(const ProbeOptions& o, ProcessRunner& runner, const fs::path& work,
                                   const std::function<void(const std::string&)>& progress) {
  CudaBackend cuda(runner, o.tools);
  if (auto s = cuda.preflight(false); !s) return s.error();
  progress("querying the device");
  auto hw = cuda.query_device(work);
  if (!hw) return hw.error();
  if (o.ref_sm < 0 || (hw->compute_units > 0 && o.ref_sm >= hw->compute_units))
    return make_error(fmt::format("--ref {} is not an SM of this device (0..{})", o.ref_sm, hw->compute_units - 1));
  const std::string arch = !o.tools.arch.empty() ? o.tools.arch : hw->arch;
  const auto exe = work / "topology_probe";
  progress("building topology_probe.cu for " + arch);
  ProcessSpec build{probe_build_argv(cuda.compiler_path(), support_dir() / "topology_probe.cu", exe, arch), {}, {},
                    o.tools.build_timeout};
  auto b = runner.run(build);
  if (!b.started) return make_error("cannot run nvcc (" + cuda.compiler_path() + "): " + trim(tail_lines(b.err, 1)) + "; pass --nvcc PATH");
  if (b.interrupted) return interrupted_error();
  if (!b.success())
    return make_error("cannot build topology_probe.cu: nvcc " + b.describe() + ": " + trim(tail_lines(b.out + b.err, 1)));

  CudaProbeInputs in;
  in.hw = *hw;
  in.ref_sm = o.ref_sm;
  auto mode = [&](const std::vector<std::string>& args, const std::string& name, bool required) -> Result<nlohmann::json> {
    progress("running topology_probe " + format_argv(args));
    auto run = cuda.run_program(exe, args, o.tools.run_timeout);
    if (run.process.interrupted) return interrupted_error();
    if (run.process.success() && run.json.is_object() && run.json.value("mode", "") == name) return run.json;
    const std::string why = "topology_probe " + format_argv(args) + ": " + program_failure(run);
    if (required) return make_error(why);
    in.notes.push_back(why);
    return nlohmann::json();
  };
  auto k1 = mode({"order", "--blocks-per-sm", "1"}, "order", true);
  if (!k1) return k1.error();
  in.order_k1 = *k1;
  auto k2 = mode({"order", "--blocks-per-sm", "2"}, "order", false);
  if (!k2) return k2.error();
  in.order_k2 = *k2;
  auto cl = mode({"cluster"}, "cluster", false);
  if (!cl) return cl.error();
  in.cluster = *cl;
  auto lat = mode({"latency", "--ref", std::to_string(o.ref_sm)}, "latency", false);
  if (!lat) return lat.error();
  in.latency = *lat;

  const auto ncu = cuda.profiler_path();
  if (find_executable(ncu).empty()) {
    in.notes.push_back("ncu not found (looked on PATH and in /usr/local/cuda/bin): L2 sides from the latency probe only; pass --ncu PATH");
  } else {
    ProcessSpec spec{side_ncu_argv(ncu, exe, o.ref_sm), {}, {}, o.tools.profile_timeout};
    progress("profiling the side probe: " + format_argv(spec.argv));
    auto r = runner.run(spec);
    (void)write_file_atomic(work / "side_ncu.csv", r.out);
    if (r.interrupted) return interrupted_error();
    if (!r.started) {
      in.notes.push_back("cannot run ncu (" + ncu + "): " + trim(tail_lines(r.err, 1)));
    } else {
      if (!r.success()) in.notes.push_back("ncu side run: " + r.describe() + ": " + trim(tail_lines(r.out + r.err, 1)));
      in.side_ncu_output = r.out + "\n" + r.err;
    }
  }
  return assemble_cuda_probe(in);
}

Result<ProbeResult> run_hip_probe(const ProbeOptions& o, ProcessRunner& runner, const fs::path& work,
                                  const std::function<void(const std::string&)>& progress) {
  HipBackend hip(runner, o.tools);
  std::vector<std::string> notes;
  std::optional<HardwareProfile> hw;
  if (auto s = hip.preflight(false); !s) {
    notes.push_back(s.error().message);
  } else {
    progress("querying the device");
    auto q = hip.query_device(work);
    if (q)
      hw = *q;
    else
      notes.push_back(q.error().message);
  }
  if (!hw) {
    const std::string arch = o.tools.arch.empty() ? std::string(HipBackend::kDefaultArch) : o.tools.arch;
    auto table = profile_from_arch(arch);
    if (!table) return table.error();
    notes.push_back("no AMD GPU measured: facts from the arch table (" + arch + ")");
    return assemble_amd_probe(*table, nullptr, notes);
  }
  const std::string arch = !o.tools.arch.empty() ? o.tools.arch : hw->arch;
  BuildRequest req{support_dir() / "xcc_probe.hip", work / "xcc_probe", 1, arch};
  progress("building xcc_probe.hip for " + arch);
  auto built = hip.build(req);
  nlohmann::json xcc;
  if (!built) {
    notes.push_back(built.error().message);
  } else if (!built->ok) {
    notes.push_back("cannot build xcc_probe.hip: " + built->failure);
  } else {
    progress("running xcc_probe");
    auto run = hip.run_program(req.output, {}, o.tools.run_timeout);
    if (run.process.success() && run.json.is_object() && run.json.value("probe", "") == "xcc" && !run.json.contains("error"))
      xcc = run.json;
    else
      notes.push_back("xcc_probe: " + program_failure(run));
  }
  return assemble_amd_probe(*hw, xcc, notes);
}

}  // namespace

Result<ProbeOutcome> run_probe(const ProbeOptions& o, ProcessRunner& runner) {
  auto progress = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  std::string which = o.backend;
  if (which == "auto") {
    auto b = make_backend("auto", runner, o.tools);
    if (!b) return b.error();
    which = (*b)->name();
  }
  if (which != "cuda" && which != "hip") return make_error("unknown backend '" + which + "': use auto, cuda or hip");
  TempWorkDir work(o.work_dir);
  auto r = which == "cuda" ? run_cuda_probe(o, runner, work.path(), progress) : run_hip_probe(o, runner, work.path(), progress);
  if (!r) return r.error();
  r->created_at = now_iso8601();
  r->tool_version = SWZ_VERSION;
  ProbeOutcome out;
  out.result = std::move(*r);
  out.written = o.out;
  if (auto s = save_probe(out.result, o.out); !s) return make_error("cannot write " + o.out.string() + ": " + s.error().message);
  const bool from_device = out.result.how.count("sm_count") && out.result.how.at("sm_count").how == "device query";
  if (o.write_cache && from_device) {
    if (const auto dir = probe_cache_dir(); !dir.empty()) {
      const auto path = dir / probe_cache_name(out.result.device_name, out.result.driver_version, out.result.sm_count);
      if (save_probe(out.result, path))
        out.cached = path;
      else
        out.result.notes.push_back("could not write the cache file " + path.string());
    }
  }
  return out;
}

}  // namespace swz::probe
