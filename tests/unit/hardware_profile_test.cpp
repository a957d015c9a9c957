// Tests of hardware-profile assembly: the device query alone gives the arch
// table's assumed dispatch model; a cached probe of the same device replaces it;
// a probe of another device or driver is ignored; --arch overrides the query.
#include "swizzleperf/core/hardware_profile.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "swizzleperf/core/probe_record.h"

namespace swz {
namespace {

nlohmann::json h100_device_query() {
  return {{"name", "NVIDIA H100 80GB HBM3"}, {"arch", "sm_90"},  {"compute_units", 132},
          {"l2_bytes", 52428800},            {"vendor", "nvidia"}, {"driver_version", 13000}};
}

// A clean two-sided probe of the H100 above: pid p of the first wave on side p % 2.
probe::ProbeResult h100_probe() {
  probe::ProbeResult r;
  r.vendor = "nvidia";
  r.device_name = "NVIDIA H100 80GB HBM3";
  r.arch = "sm_90";
  r.sm_count = 132;
  r.driver_version = 13000;
  r.num_l2_domains = 2;
  r.side_method = "ncu_fabric";
  r.sides.confidence = "high";
  r.wave_size = 132;
  for (int p = 0; p < 132; ++p) r.first_wave_pid_to_side.push_back(p % 2);
  r.how["sm_side"] = {"measured", "high", ""};
  return r;
}

TEST(AssembleHardwareProfile, QueryAloneUsesTheArchTable) {
  test::TempDir tmp;
  test::ScopedEnv cache("XDG_CACHE_HOME", tmp.path().string());
  auto h = assemble_hardware_profile(h100_device_query(), "");
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->num_dies, 2);
  EXPECT_EQ(h->dispatch.kind, "round_robin");
  EXPECT_EQ(h->dispatch.source, "assumed");
}

TEST(AssembleHardwareProfile, CachedProbeOfThisDeviceReplacesTheAssumedModel) {
  test::TempDir tmp;
  test::ScopedEnv cache("XDG_CACHE_HOME", tmp.path().string());
  const auto path = probe::probe_cache_dir() / probe::probe_cache_name("NVIDIA H100 80GB HBM3", 13000, 132);
  ASSERT_TRUE(probe::save_probe(h100_probe(), path));
  auto h = assemble_hardware_profile(h100_device_query(), "");
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->dispatch.kind, "table");
  EXPECT_EQ(h->dispatch.source, "measured");
  EXPECT_EQ(h->dispatch.first_wave_die.size(), 132u);
  EXPECT_NE(h->provenance.at("dispatch").find("probe"), std::string::npos);
}

TEST(AssembleHardwareProfile, ProbeOfAnotherDriverIsIgnored) {
  test::TempDir tmp;
  test::ScopedEnv cache("XDG_CACHE_HOME", tmp.path().string());
  auto other = h100_probe();
  other.driver_version = 12040;
  ASSERT_TRUE(probe::save_probe(other, probe::probe_cache_dir() / probe::probe_cache_name(other.device_name, 12040, 132)));
  auto h = assemble_hardware_profile(h100_device_query(), "");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->dispatch.source, "assumed");
}

TEST(AssembleHardwareProfile, ArchOverrideAndBadQuery) {
  test::TempDir tmp;
  test::ScopedEnv cache("XDG_CACHE_HOME", tmp.path().string());
  auto h = assemble_hardware_profile(h100_device_query(), "sm_90a");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->arch, "sm_90a");
  EXPECT_FALSE(assemble_hardware_profile(nlohmann::json::object(), ""));
}

}  // namespace
}  // namespace swz
