// Tests of the probe runner: per-launch ncu CSV parsing (a hand-written fixture
// shaped like ncu 2025.3's output, and the real H100 captures), assembling a
// ProbeResult from the program's outputs, the cache, and a whole `probe` run
// through a scripted ProcessRunner (no GPU, no tool runs).
#include "swizzleperf/probe/probe_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "support/fixtures.h"
#include "support/scripted_runner.h"

namespace swz::probe {
namespace {

std::string fixture(const std::string& name) { return test::read_text(test::fixture_path("probe/" + name)); }
nlohmann::json fixture_json(const std::string& name) { return nlohmann::json::parse(fixture(name)); }

const char* kDeviceQuery =
    R"({"name":"NVIDIA H100 80GB HBM3","arch":"sm_90","vendor":"nvidia","compute_units":132,"l2_bytes":52428800,)"
    R"("total_mem_bytes":85045477376,"clock_khz":1980000,"warp_size":32,"max_threads_per_block":1024,"num_xcc":-1,)"
    R"("driver_version":13000,"runtime_version":13000,"pci_bus_id":"0000:18:00.0"})";

HardwareProfile h100() {
  auto h = profile_from_device_query(nlohmann::json::parse(kDeviceQuery));
  EXPECT_TRUE(h);
  return *h;
}

using test::ScopedEnv;

// ---- ncu CSV per launch ------------------------------------------------------------

TEST(ProbeRunnerNcu, SmallFixturePerLaunch) {
  const auto text = fixture("side_small.csv");
  auto launches = parse_ncu_launches(text);
  ASSERT_TRUE(launches) << launches.error().message;
  ASSERT_EQ(launches->size(), 4u);
  EXPECT_EQ((*launches)[0].id, 0);
  EXPECT_NE((*launches)[0].kernel.find("probe_reader"), std::string::npos);
  EXPECT_DOUBLE_EQ((*launches)[0].metrics.at(kFabricMetric), 21146);
  EXPECT_DOUBLE_EQ((*launches)[1].metrics.at(kFabricMetric), 217754);
  EXPECT_DOUBLE_EQ((*launches)[3].metrics.at("lts__t_sectors.sum"), 393601);

  const auto side = find_mode_json(text, "side");
  ASSERT_TRUE(side.is_object());
  const auto targets = side.at("targets").get<std::vector<int>>();
  auto v = per_sm_metric(*launches, targets, side.at("num_sms"), kFabricMetric);
  ASSERT_TRUE(v) << v.error().message;
  // Launch 2 reached no SM (-1): SM 2 stays unmeasured.
  EXPECT_EQ(*v, (std::vector<double>{21146, 217754, -1, 217892}));
}

TEST(ProbeRunnerNcu, PerSmMedianOfRepeatsAndMismatches) {
  std::vector<NcuLaunch> l(5);
  const double vals[] = {10, 30, 20, 200, 7};
  for (int i = 0; i < 5; ++i) {
    l[i].id = i;
    l[i].metrics[kFabricMetric] = vals[i];
  }
  auto v = per_sm_metric(l, {0, 0, 0, 1, 1}, 2, kFabricMetric);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (std::vector<double>{20, 103.5}));
  EXPECT_FALSE(per_sm_metric(l, {0, 1}, 2, kFabricMetric));           // 5 launches, 2 targets
  EXPECT_FALSE(per_sm_metric(l, {0, 0, 0, 1, 1}, 2, "no.such.metric"));
  auto grown = per_sm_metric(l, {0, 0, 0, 1, 4}, 2, kFabricMetric);   // an SM id past the count
  ASSERT_TRUE(grown);
  EXPECT_EQ(grown->size(), 5u);
}

TEST(ProbeRunnerNcu, ErrorsSayWhatHappened) {
  auto perm = parse_ncu_launches(test::read_text(test::fixture_path("ncu/ctrperm.txt")));
  ASSERT_FALSE(perm);
  EXPECT_NE(perm.error().message.find("ERR_NVGPUCTRPERM"), std::string::npos);
  auto none = parse_ncu_launches("==PROF== Connected\n==WARNING== No kernels were profiled.\n");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no kernel"), std::string::npos);
  EXPECT_FALSE(parse_ncu_launches("just text\n"));
  const std::string header =
      R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")";
  auto bad = parse_ncu_launches(header + "\n" +
                                R"x("0","1","tp","h","probe_reader()","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0","s","lts__t_sectors_srcunit_ltcfabric.sum","sector","n/a")x" +
                                "\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("lts__t_sectors_srcunit_ltcfabric.sum"), std::string::npos);
}

TEST(ProbeRunnerNcu, RealH100FabricCaptureSplitsCleanly) {
  // ncu 2025.3.1 on the H100, `side --ref 64`, the fabric metric alone.
  const auto text = fixture("real_h100_side_ref64_fabric.csv");
  auto launches = parse_ncu_launches(text);
  ASSERT_TRUE(launches) << launches.error().message;
  ASSERT_EQ(launches->size(), 132u);
  const auto side = find_mode_json(text, "side");
  ASSERT_TRUE(side.is_object());
  EXPECT_EQ(side.at("ref_sm"), 64);
  auto v = per_sm_metric(*launches, side.at("targets").get<std::vector<int>>(), 132, kFabricMetric);
  ASSERT_TRUE(v);
  auto c = classify_sides(*v, 64);
  EXPECT_EQ(c.confidence, "high") << c.note;
  EXPECT_EQ(c.populations[0].count, 66);
  EXPECT_EQ(c.populations[1].count, 66);
  EXPECT_LT(c.populations[0].max, 30000);   // near: ~21-26 thousand sectors
  EXPECT_GT(c.populations[1].min, 200000);  // far: ~218 thousand
  // The latency probe (ref SM 0, which is on the other side) splits the SMs the same way.
  const auto lat = fixture_json("real_h100_latency_ref0.json").at("mean_cycles").get<std::vector<double>>();
  auto l = classify_sides(lat, 0);
  ASSERT_EQ(l.side.size(), c.side.size());
  int same_partition = 0;
  for (std::size_t i = 0; i < c.side.size(); ++i) same_partition += c.side[i] != l.side[i];  // labels flipped
  EXPECT_EQ(same_partition, 132);
}

TEST(ProbeRunnerNcu, RealH100ThreeMetricCaptureIsFlat) {
  // The same run with lts__t_sectors.sum and lts__t_sector_hit_rate.pct added: every
  // launch read 21,146 fabric sectors but one; no split. Hence the fabric metric alone.
  const auto text = fixture("real_h100_side_ref0_three_metrics.csv");
  auto launches = parse_ncu_launches(text);
  ASSERT_TRUE(launches);
  const auto side = find_mode_json(text, "side");
  auto v = per_sm_metric(*launches, side.at("targets").get<std::vector<int>>(), 132, kFabricMetric);
  ASSERT_TRUE(v);
  EXPECT_EQ(classify_sides(*v, 0).confidence, "low");
  EXPECT_LT((*launches)[0].metrics.at("lts__t_sector_hit_rate.pct"), 20);
}

TEST(ProbeRunnerNcu, CommandLines) {
  const auto argv = side_ncu_argv("ncu", "/w/topology_probe", 3);
  auto after = [&](const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it == argv.end() || it + 1 == argv.end() ? std::string() : *(it + 1);
  };
  EXPECT_EQ(after("--cache-control"), "none");
  EXPECT_EQ(after("--metrics"), kFabricMetric);
  EXPECT_EQ(after("--kernel-name"), "regex:probe_reader");
  EXPECT_EQ(after("--print-units"), "base");
  EXPECT_EQ(std::vector<std::string>(argv.end() - 4, argv.end()),
            (std::vector<std::string>{"/w/topology_probe", "side", "--ref", "3"}));
  EXPECT_EQ(probe_build_argv("nvcc", "a.cu", "/w/p", "sm_90"),
            (std::vector<std::string>{"nvcc", "-arch=sm_90", "-O2", "-std=c++17", "-o", "/w/p", "a.cu"}));
}

// ---- assembling ----------------------------------------------------------------------

CudaProbeInputs real_inputs(int ref) {
  CudaProbeInputs in;
  in.hw = h100();
  in.ref_sm = ref;
  in.order_k1 = fixture_json("real_h100_order_k1.json");
  in.order_k2 = fixture_json("real_h100_order_k2.json");
  in.cluster = fixture_json("real_h100_cluster.json");
  return in;
}

TEST(ProbeRunnerAssemble, RealH100FromNcu) {
  auto in = real_inputs(64);
  in.side_ncu_output = fixture("real_h100_side_ref64_fabric.csv");
  auto r = assemble_cuda_probe(in);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r->driver_version, 13000);
  EXPECT_EQ(r->side_method, "ncu_fabric");
  EXPECT_TRUE(r->sides_known());
  EXPECT_EQ(r->num_l2_domains, 2);
  EXPECT_EQ(r->how.at("num_l2_domains").how, "measured");
  EXPECT_EQ(r->how.at("sm_side").confidence, "high");
  EXPECT_EQ(r->how.at("sm_count").how, "device query");
  EXPECT_EQ(r->sm_side.size(), 132u);
  EXPECT_EQ(r->sm_side[64], 0);
  EXPECT_EQ(r->sm_side[0], 1);
  EXPECT_EQ(r->wave_size, 132);
  ASSERT_EQ(r->first_wave_pid_to_side.size(), 132u);
  // pids 0-15 run on SMs 124-131, 0-1, 16-17, 32-33, 48-49: all on SM 0's side.
  for (int p = 0; p < 16; ++p) EXPECT_EQ(r->first_wave_pid_to_side[p], 1) << p;
  EXPECT_FALSE(r->later_waves_repeat);
  ASSERT_EQ(r->orders.size(), 2u);
  EXPECT_EQ(r->orders[1].wave_size, 264);
  EXPECT_EQ(r->gpc_groups.size(), 12u);
  EXPECT_EQ(r->cluster_size, 16);
  EXPECT_TRUE(r->gpc_groups_single_sided);
  EXPECT_EQ(r->how.at("gpc_groups").confidence, "medium");  // SMs 124-131 never shared a 16-cluster
  EXPECT_EQ(r->fabric_sectors_per_sm.size(), 132u);
  EXPECT_TRUE(r->l2_latency_cycles_per_sm.empty());
  EXPECT_EQ(r->side_methods_agreement, -1);
}

TEST(ProbeRunnerAssemble, FlatNcuFallsBackToLatency) {
  auto in = real_inputs(0);
  in.side_ncu_output = fixture("real_h100_side_ref0_three_metrics.csv");
  in.latency = fixture_json("real_h100_latency_ref0.json");
  auto r = assemble_cuda_probe(in);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->side_method, "l2_latency");
  EXPECT_TRUE(r->sides_known());
  EXPECT_EQ(r->sm_side[0], 0);
  EXPECT_EQ(r->sides.populations[0].count, 66);
  ASSERT_TRUE(r->raw_extra.contains("ncu_fabric"));
  EXPECT_EQ(r->raw_extra["ncu_fabric"]["confidence"], "low");
  EXPECT_GE(r->side_methods_agreement, 0.0);
  EXPECT_LT(r->side_methods_agreement, 0.99);  // the flat capture puts nearly everything on side 0
  EXPECT_EQ(r->first_wave_pid_to_side[0], 0);
}

TEST(ProbeRunnerAssemble, NothingOnSidesMeansArchTable) {
  auto in = real_inputs(0);
  in.cluster = nullptr;
  in.notes = {"ncu not found"};
  auto r = assemble_cuda_probe(in);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->sides_known());
  EXPECT_TRUE(r->side_method.empty());
  EXPECT_EQ(r->num_l2_domains, 2);  // sm_90 arch table
  EXPECT_EQ(r->how.at("num_l2_domains").how, "arch table");
  EXPECT_EQ(r->how.at("sm_side").how, "unknown");
  EXPECT_TRUE(r->first_wave_pid_to_side.empty());
  EXPECT_EQ(r->first_wave_pid_to_sm.size(), 132u);
  EXPECT_TRUE(r->gpc_groups.empty());
  EXPECT_EQ(r->notes, std::vector<std::string>{"ncu not found"});
  in.order_k1 = nullptr;
  EXPECT_FALSE(assemble_cuda_probe(in));
}

TEST(ProbeRunnerAssemble, AmdArchTableAndMeasured) {
  auto table = profile_from_arch("gfx942");
  ASSERT_TRUE(table);
  auto t = assemble_amd_probe(*table, nullptr, {"no AMD GPU"});
  EXPECT_EQ(t.vendor, "amd");
  EXPECT_EQ(t.num_l2_domains, 8);
  EXPECT_EQ(t.first_wave_pid_to_side, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(t.how.at("first_wave_pid_to_side").how, "arch table");
  EXPECT_EQ(t.how.at("sm_count").how, "arch table");

  HardwareProfile mi;
  mi.vendor = "amd";
  mi.name = "AMD Instinct MI300X";
  mi.arch = "gfx942";
  mi.compute_units = 304;
  mi.num_dies = 8;
  mi.provenance["compute_units"] = "device query";
  auto rr = nlohmann::json::parse(
      R"({"probe":"xcc","arch":"gfx942","blocks":4864,"xcc_of_block":[0,1,2,3,4,5,6,7],"xcc_ids":[0,1,2,3,4,5,6,7],)"
      R"("num_xcc_seen":8,"round_robin_matches":4864,"pattern":"round_robin"})");
  auto m = assemble_amd_probe(mi, rr, {});
  EXPECT_EQ(m.num_l2_domains, 8);
  EXPECT_EQ(m.how.at("first_wave_pid_to_side").how, "measured");
  EXPECT_EQ(m.how.at("first_wave_pid_to_side").confidence, "high");
  EXPECT_EQ(m.raw_extra["xcc_probe"]["round_robin_matches"], 4864);
  rr["pattern"] = "other";
  rr["round_robin_matches"] = 100;
  rr["xcc_of_block"] = {0, 0, 1, 1};
  auto o = assemble_amd_probe(mi, rr, {});
  EXPECT_EQ(o.first_wave_pid_to_side, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(o.how.at("first_wave_pid_to_side").confidence, "low");
}

// ---- cache ------------------------------------------------------------------------------

TEST(ProbeRunnerCache, NamesAndDirs) {
  EXPECT_EQ(probe_cache_name("NVIDIA H100 80GB HBM3", 13000, 132), "probe-NVIDIA_H100_80GB_HBM3-13000-132.json");
  EXPECT_EQ(probe_cache_name("../a/b  c", -1, 4), "probe-a_b_c--1-4.json");
  EXPECT_EQ(probe_cache_name("", 1, 2), "probe-unknown-1-2.json");
  {
    ScopedEnv x("XDG_CACHE_HOME", "/tmp/xdg");
    EXPECT_EQ(probe_cache_dir(), fs::path("/tmp/xdg/swizzleperf"));
  }
  {
    ScopedEnv x("XDG_CACHE_HOME", "relative/not/allowed");
    ScopedEnv h("HOME", "/home/u");
    EXPECT_EQ(probe_cache_dir(), fs::path("/home/u/.cache/swizzleperf"));
  }
}

TEST(ProbeRunnerCache, SaveAndLoadCached) {
  test::TempDir tmp;
  ScopedEnv x("XDG_CACHE_HOME", tmp.path().string());
  const auto hw = h100();
  EXPECT_FALSE(load_cached_probe(hw));
  auto in = real_inputs(64);
  in.side_ncu_output = fixture("real_h100_side_ref64_fabric.csv");
  auto r = assemble_cuda_probe(in);
  ASSERT_TRUE(r);
  const auto path = probe_cache_dir() / probe_cache_name(hw.name, 13000, 132);
  ASSERT_TRUE(save_probe(*r, path));
  auto cached = load_cached_probe(hw);
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->sm_side, r->sm_side);
  EXPECT_EQ(cached->gpc_groups, r->gpc_groups);
  HardwareProfile other = hw;
  other.device_query["driver_version"] = 12040;  // another driver: another file, none there
  EXPECT_FALSE(load_cached_probe(other));
  test::write_text(path, "{not json");
  EXPECT_FALSE(load_cached_probe(hw));
  EXPECT_FALSE(load_probe(tmp / "missing.json"));
}

// ---- a whole run through a scripted runner ------------------------------------------------

// The CUDA probe's programs, scripted: device_query prints the H100's answer,
// topology_probe the real H100 capture of each mode (order with --waves 2 the
// second one; latency, when `latency_fails`, exits 3 with cudaMalloc out of
// memory), fake-ncu prints `ncu_output`, and anything else (the compiler,
// fake-nvcc) succeeds with no output.
void script_cuda_probe(test::ScriptedRunner& runner, std::string ncu_output = "", bool latency_fails = false) {
  runner.on("fake-ncu", test::exited(0, std::move(ncu_output)))
      .on("device_query", test::exited(0, std::string(kDeviceQuery) + "\n"))
      .on("topology_probe",
          [latency_fails](const ProcessSpec& spec) {
            const auto& a = spec.argv;
            auto has = [&](const std::string& s) { return std::find(a.begin(), a.end(), s) != a.end(); };
            const std::string mode = a.at(1);
            if (mode == "order")
              return test::exited(0, fixture(has("2") ? "real_h100_order_k2.json" : "real_h100_order_k1.json"));
            if (mode == "cluster") return test::exited(0, fixture("real_h100_cluster.json"));
            if (mode == "latency") {
              if (latency_fails) return test::exited(3, "{\"mode\":\"error\",\"error\":\"cudaMalloc: out of memory\"}\n");
              return test::exited(0, fixture("real_h100_latency_ref0.json"));
            }
            return test::exited(0);
          })
      .otherwise(test::exited(0));
}

// A fake tool path that find_executable accepts: an executable file in the temp dir.
fs::path fake_tool(const test::TempDir& dir, const std::string& name) {
  const auto p = dir / name;
  test::write_text(p, "#!/bin/sh\nexit 0\n");
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

TEST(ProbeRunnerRun, CudaEndToEndWithScriptedTools) {
  test::TempDir tmp;
  ScopedEnv x("XDG_CACHE_HOME", (tmp / "cache").string());
  test::ScriptedRunner runner;
  script_cuda_probe(runner, fixture("real_h100_side_ref64_fabric.csv"), /*latency_fails=*/true);
  ProbeOptions o;
  o.backend = "cuda";
  o.tools.compiler = fake_tool(tmp, "fake-nvcc").string();
  o.tools.profiler = fake_tool(tmp, "fake-ncu").string();
  o.out = tmp / "out" / "hardware.json";
  o.work_dir = tmp / "work";
  o.ref_sm = 64;
  std::vector<std::string> steps;
  o.progress = [&](const std::string& s) { steps.push_back(s); };
  auto out = run_probe(o, runner);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_TRUE(out->result.sides_known());
  EXPECT_EQ(out->result.side_method, "ncu_fabric");
  EXPECT_FALSE(out->result.tool_version.empty());
  ASSERT_EQ(out->result.notes.size(), 1u);
  EXPECT_NE(out->result.notes[0].find("out of memory"), std::string::npos);
  EXPECT_FALSE(steps.empty());
  // hardware.json and the cache copy are the same result.
  auto written = load_probe(o.out);
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(written->sm_side, out->result.sm_side);
  EXPECT_EQ(out->cached, tmp / "cache" / "swizzleperf" / "probe-NVIDIA_H100_80GB_HBM3-13000-132.json");
  auto cached = load_cached_probe(h100());
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->first_wave_pid_to_side, out->result.first_wave_pid_to_side);
  // The programs ran as planned: nvcc -arch=sm_90 -O2 on topology_probe.cu; ncu with --ref 64.
  const auto calls = runner.calls();
  auto build = std::find_if(calls.begin(), calls.end(), [](const ProcessSpec& s) {
    return s.argv.back().find("topology_probe.cu") != std::string::npos;
  });
  ASSERT_NE(build, calls.end());
  EXPECT_EQ(build->argv[1], "-arch=sm_90");
  const auto& ncu = calls.back().argv;
  EXPECT_EQ(fs::path(ncu[0]).filename(), "fake-ncu");
  EXPECT_EQ(ncu.back(), "64");
}

TEST(ProbeRunnerRun, CudaErrorsAreOneLine) {
  test::TempDir tmp;
  test::ScriptedRunner runner;
  script_cuda_probe(runner);
  ProbeOptions o;
  o.backend = "cuda";
  o.tools.compiler = (tmp / "no-such-nvcc").string();
  o.out = tmp / "hardware.json";
  auto r = run_probe(o, runner);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nvcc"), std::string::npos);
  o.tools.compiler = fake_tool(tmp, "fake-nvcc").string();
  o.ref_sm = 500;
  auto bad_ref = run_probe(o, runner);
  ASSERT_FALSE(bad_ref);
  EXPECT_NE(bad_ref.error().message.find("--ref 500"), std::string::npos);
  EXPECT_FALSE(fs::exists(o.out));
}

TEST(ProbeRunnerRun, HipWithoutAnAmdGpuUsesTheArchTable) {
  test::TempDir tmp;
  ScopedEnv x("XDG_CACHE_HOME", (tmp / "cache").string());
  test::ScriptedRunner runner;
  script_cuda_probe(runner);
  ProbeOptions o;
  o.backend = "hip";
  o.tools.compiler = (tmp / "no-such-hipcc").string();
  o.out = tmp / "hardware.json";
  auto r = run_probe(o, runner);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->result.vendor, "amd");
  EXPECT_EQ(r->result.num_l2_domains, 8);
  EXPECT_EQ(r->result.how.at("num_l2_domains").how, "arch table");
  EXPECT_TRUE(fs::exists(o.out));
  EXPECT_TRUE(r->cached.empty());  // nothing measured: no per-device cache entry
  EXPECT_FALSE(fs::exists(tmp / "cache"));
}

// ---- the probe program and the command on a machine without a GPU ---------------------------

std::string nvcc_path() {
  if (!find_executable("nvcc").empty()) return "nvcc";
  if (!find_executable("/usr/local/cuda/bin/nvcc").empty()) return "/usr/local/cuda/bin/nvcc";
  return "";
}

TEST(ProbeRunnerBuild, TopologyProbeCompilesWithoutWarnings) {
  const auto nvcc = nvcc_path();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  test::TempDir tmp;
  RealProcessRunner runner;
  auto argv = probe_build_argv(nvcc, test::source_dir() / "kernels" / "support" / "topology_probe.cu", tmp / "tp", "sm_90");
  argv.insert(argv.begin() + 1, "-Xcompiler=-Wall,-Wextra");
  ProcessSpec spec{argv, {}, {}, std::chrono::seconds(240)};
  auto b = runner.run(spec);
  ASSERT_TRUE(b.success()) << b.describe() << "\n" << b.out << b.err;
  EXPECT_EQ((b.out + b.err).find("warning"), std::string::npos) << b.out << b.err;
  // Bad usage is exit 2 before any GPU is touched.
  auto usage = runner.run(ProcessSpec{{(tmp / "tp").string(), "nosuchmode"}, {}, {}, std::chrono::seconds(60)});
  EXPECT_EQ(usage.exit_code, 2) << usage.describe();
  EXPECT_EQ(find_mode_json(usage.out, "error").is_object(), true) << usage.out;
  // Without a GPU: exit 3 and a JSON error line; with one, the order mode answers.
  auto run = runner.run(ProcessSpec{{(tmp / "tp").string(), "order", "--waves", "1"}, {}, {}, std::chrono::seconds(60)});
  if (run.exit_code == 3) {
    EXPECT_TRUE(find_mode_json(run.out, "error").is_object()) << run.out;
  } else {
    EXPECT_EQ(run.exit_code, 0) << run.describe() << run.err;
    EXPECT_TRUE(find_mode_json(run.out, "order").is_object());
  }
}

TEST(ProbeRunnerCli, NoGpuIsOneErrorLine) {
  if (fs::exists("/dev/nvidia0") || fs::exists("/dev/kfd")) GTEST_SKIP() << "a GPU is present";
  test::TempDir tmp;
  auto r = test::run_cli({"probe", "--out", (tmp / "hw.json").string()}, tmp.path(),
                         {"XDG_CACHE_HOME=" + (tmp / "cache").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.rfind("swizzleperf: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "hw.json"));
  auto help = test::run_cli({"probe", "--help"}, tmp.path());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--ref"), std::string::npos);
}

}  // namespace
}  // namespace swz::probe
