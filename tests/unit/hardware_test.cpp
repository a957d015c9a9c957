// Tests of hardware profiles: building one from the device query (NVIDIA H100,
// AMD gfx942 with feature suffixes and an XCC count), from an arch name or
// alias, the dispatch model's die_of, and the JSON round trip.
#include "swizzleperf/core/hardware.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

nlohmann::json h100_query() {
  return {{"name", "NVIDIA H100 80GB HBM3"}, {"arch", "sm_90"}, {"compute_units", 132}, {"l2_bytes", 52428800}};
}

nlohmann::json mi300x_query() {
  return {{"name", "AMD Instinct MI300X"},
          {"arch", "gfx942:sramecc+:xnack-"},
          {"vendor", "amd"},
          {"compute_units", 304},
          {"l2_bytes", 33554432},
          {"num_xcc", 8}};
}

TEST(ProfileFromDeviceQuery, H100HasTwoAssumedPartitions) {
  auto h = profile_from_device_query(h100_query());
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->vendor, "nvidia");
  EXPECT_EQ(h->name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h->arch, "sm_90");
  EXPECT_EQ(h->compute_units, 132);
  EXPECT_EQ(h->l2_bytes, 52428800);
  EXPECT_EQ(h->num_dies, 2);
  EXPECT_EQ(h->l2_bytes_per_die, 52428800 / 2);
  EXPECT_EQ(h->compute_units_per_die(), 66);
  EXPECT_EQ(h->dispatch.kind, "round_robin");
  EXPECT_EQ(h->dispatch.source, "assumed");
  EXPECT_FALSE(h->dispatch.note.empty());
  EXPECT_EQ(h->provenance.at("dispatch"), "assumed");
  EXPECT_EQ(h->provenance.at("name"), "device query");
  EXPECT_EQ(h->device_query, h100_query());
  const std::string s = h->summary();
  EXPECT_NE(s.find("NVIDIA H100 80GB HBM3"), std::string::npos) << s;
  EXPECT_NE(s.find("2 die(s)"), std::string::npos) << s;
  EXPECT_NE(s.find("[assumed]"), std::string::npos) << s;
}

TEST(ProfileFromDeviceQuery, Gfx942WithFeatureSuffixAndXccCount) {
  auto h = profile_from_device_query(mi300x_query());
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->vendor, "amd");
  EXPECT_EQ(h->arch, "gfx942");
  EXPECT_EQ(h->num_dies, 8);
  EXPECT_EQ(h->l2_bytes_per_die, 4 << 20);
  EXPECT_EQ(h->compute_units_per_die(), 38);
  EXPECT_EQ(h->dispatch.kind, "round_robin");
  EXPECT_EQ(h->dispatch.source, "documented");
  EXPECT_NE(h->provenance.at("num_dies").find("device query"), std::string::npos) << h->provenance.at("num_dies");
}

TEST(ProfileFromDeviceQuery, VendorInferredFromGfxArch) {
  auto q = mi300x_query();
  q.erase("vendor");
  q.erase("num_xcc");
  auto h = profile_from_device_query(q);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->vendor, "amd");
  EXPECT_EQ(h->num_dies, 8);  // from the arch table
  EXPECT_NE(h->provenance.at("num_dies").find("arch table"), std::string::npos);
}

TEST(ProfileFromDeviceQuery, XccCountOverridesTheTable) {
  auto q = mi300x_query();
  q["num_xcc"] = 2;  // a partitioned device
  auto h = profile_from_device_query(q);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->num_dies, 2);
}

TEST(ProfileFromDeviceQuery, UnknownArchIsOneAssumedDie) {
  auto h = profile_from_device_query({{"name", "Some GPU"}, {"arch", "gfx1100"}, {"l2_bytes", 1000}});
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->num_dies, 1);
  EXPECT_EQ(h->l2_bytes_per_die, 1000);
  EXPECT_EQ(h->dispatch.source, "assumed");
}

TEST(ProfileFromDeviceQuery, RefusesAQueryWithoutADevice) {
  EXPECT_FALSE(profile_from_device_query(nlohmann::json::object()));
  EXPECT_FALSE(profile_from_device_query({{"name", "x"}}));
  EXPECT_FALSE(profile_from_device_query(nlohmann::json::array()));
  auto e = profile_from_device_query({{"arch", "sm_90"}});
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("no device description"), std::string::npos);
}

TEST(ProfileFromArch, Aliases) {
  auto mi = profile_from_arch("mi300x");
  ASSERT_TRUE(mi) << mi.error().message;
  EXPECT_EQ(mi->arch, "gfx942");
  EXPECT_EQ(mi->vendor, "amd");
  EXPECT_EQ(mi->num_dies, 8);
  EXPECT_EQ(mi->compute_units, 304);
  EXPECT_EQ(mi->dispatch.source, "documented");
  EXPECT_NE(mi->name.find("no device queried"), std::string::npos);

  auto h = profile_from_arch("h100");
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->arch, "sm_90");
  EXPECT_EQ(h->vendor, "nvidia");
  EXPECT_EQ(h->num_dies, 2);
  EXPECT_EQ(h->compute_units, 132);
  EXPECT_EQ(h->dispatch.source, "assumed");
  EXPECT_EQ(h->provenance.at("compute_units"), "arch table");

  auto a = profile_from_arch("A100");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->arch, "sm_80");

  auto g = profile_from_arch("gfx90a");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->num_dies, 1);
}

TEST(ProfileFromArch, UnknownArchIsAnError) {
  auto e = profile_from_arch("gfx1100");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("unknown arch 'gfx1100'"), std::string::npos) << e.error().message;
  EXPECT_FALSE(profile_from_arch(""));
}

TEST(DispatchModel, RoundRobin) {
  DispatchModel d;
  EXPECT_EQ(d.die_of(0, 8), 0);
  EXPECT_EQ(d.die_of(13, 8), 5);
  EXPECT_EQ(d.die_of(13, 2), 1);
  EXPECT_EQ(d.die_of(13, 1), 0);
  EXPECT_EQ(d.die_of(13, 0), 0);
}

TEST(DispatchModel, Table) {
  DispatchModel d{"table", {1, 0, 1}, "measured", ""};
  EXPECT_EQ(d.die_of(0, 2), 1);
  EXPECT_EQ(d.die_of(1, 2), 0);
  EXPECT_EQ(d.die_of(2, 2), 1);
  EXPECT_EQ(d.die_of(4, 2), 0);  // repeats with the table's period
  DispatchModel empty{"table", {}, "measured", ""};
  EXPECT_EQ(empty.die_of(5, 2), 1);  // an empty table falls back to round robin
}

TEST(HardwareJson, RoundTrip) {
  auto h = profile_from_device_query(h100_query());
  ASSERT_TRUE(h);
  h->dispatch = DispatchModel{"table", {0, 1, 1, 0}, "measured", "probe run"};
  h->provenance["dispatch"] = "measured";
  nlohmann::json j = *h;
  EXPECT_EQ(j["dispatch"]["first_wave_die"], (std::vector<int>{0, 1, 1, 0}));
  HardwareProfile back = j.get<HardwareProfile>();
  EXPECT_EQ(back.vendor, h->vendor);
  EXPECT_EQ(back.name, h->name);
  EXPECT_EQ(back.arch, h->arch);
  EXPECT_EQ(back.compute_units, h->compute_units);
  EXPECT_EQ(back.l2_bytes, h->l2_bytes);
  EXPECT_EQ(back.num_dies, h->num_dies);
  EXPECT_EQ(back.l2_bytes_per_die, h->l2_bytes_per_die);
  EXPECT_EQ(back.dispatch.kind, "table");
  EXPECT_EQ(back.dispatch.first_wave_die, (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(back.dispatch.source, "measured");
  EXPECT_EQ(back.dispatch.note, "probe run");
  EXPECT_EQ(back.provenance, h->provenance);
  EXPECT_EQ(back.device_query, h->device_query);
  EXPECT_EQ(nlohmann::json(back), j);
}

TEST(HardwareJson, RoundRobinOmitsTheTableAndDefaultsApply) {
  nlohmann::json d = DispatchModel{};
  EXPECT_FALSE(d.contains("first_wave_die"));
  HardwareProfile h = nlohmann::json::object().get<HardwareProfile>();
  EXPECT_EQ(h.num_dies, 1);
  EXPECT_EQ(h.dispatch.kind, "round_robin");
  EXPECT_EQ(h.dispatch.source, "assumed");
}

}  // namespace
}  // namespace swz
