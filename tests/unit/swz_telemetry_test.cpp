// Tests of kernels/support/swz_telemetry.h, the harness's GPU telemetry (SM clock, clock-limit
// reasons, energy), with no GPU: the amdgpu sysfs path against the fixture trees in
// tests/fixtures/telemetry/ (README there), the NVML path against the fake NVML libraries
// (tests/fakes/fake_nvml.cpp) and against a library that does not exist.
#include <dlfcn.h>

#include <string>

#include <gtest/gtest.h>

#include "support/fixtures.h"
// The header lives with the kernels (every kernel program includes it through
// swz_harness.h); it is plain host C++, so the test includes it directly.
#include "../../kernels/support/swz_telemetry.h"

namespace {

using swz::test::fake_dir;
using swz::test::fixture_path;
using swz_telemetry::Sample;
using swz_telemetry::Telemetry;

std::string sysfs_root(const std::string& tree) { return fixture_path("telemetry/" + tree).string(); }

std::string fake_nvml(const std::string& name) { return (fake_dir() / name).string(); }

// ---- sysfs (amdgpu) -------------------------------------------------------------------

TEST(Telemetry, SysfsReadsClockInMhzAndEnergyInMillijoules) {
  Telemetry t;
  ASSERT_TRUE(t.open_sysfs("0000:c1:00.0", sysfs_root("sysfs_full")));
  EXPECT_STREQ(t.source(), "sysfs");
  const Sample s = t.sample();
  EXPECT_DOUBLE_EQ(s.sm_mhz, 2100.0);
  EXPECT_DOUBLE_EQ(s.energy_mj, 123456789.0);
  EXPECT_EQ(s.reasons, -1);  // amdgpu has no reason mask
  const Sample no_energy = t.sample(false);
  EXPECT_DOUBLE_EQ(no_energy.sm_mhz, 2100.0);
  EXPECT_EQ(no_energy.energy_mj, -1);
}

TEST(Telemetry, SysfsWithoutEnergyFileLeavesEnergyUnknown) {
  Telemetry t;
  ASSERT_TRUE(t.open_sysfs("0000:c1:00.0", sysfs_root("sysfs_freq_only")));  // hwmon1 skipped
  const Sample s = t.sample();
  EXPECT_DOUBLE_EQ(s.sm_mhz, 1550.0);
  EXPECT_EQ(s.energy_mj, -1);
  EXPECT_EQ(s.reasons, -1);
}

TEST(Telemetry, SysfsGarbageReadsAsUnknown) {
  Telemetry t;
  ASSERT_TRUE(t.open_sysfs("0000:c1:00.0", sysfs_root("sysfs_garbage")));
  const Sample s = t.sample();
  EXPECT_EQ(s.sm_mhz, -1);     // "N/A"
  EXPECT_EQ(s.energy_mj, -1);  // "-5"
  EXPECT_EQ(s.reasons, -1);
}

TEST(Telemetry, SysfsParsesOnlyWholeNonNegativeIntegers) {
  using swz_telemetry::detail::parse_count;
  EXPECT_EQ(parse_count("2100000000\n"), 2100000000.0);
  EXPECT_EQ(parse_count("  42 \n"), 42.0);
  EXPECT_EQ(parse_count("0"), 0.0);
  EXPECT_EQ(parse_count(""), -1);
  EXPECT_EQ(parse_count("\n"), -1);
  EXPECT_EQ(parse_count("-5"), -1);
  EXPECT_EQ(parse_count("+5"), -1);
  EXPECT_EQ(parse_count("12x"), -1);
  EXPECT_EQ(parse_count("1.5"), -1);
  EXPECT_EQ(parse_count("99999999999999999999999"), -1);  // overflow
}

TEST(Telemetry, SysfsMissingDeviceOrReadingsDoesNotOpen) {
  Telemetry t;
  EXPECT_FALSE(t.open_sysfs("0000:c2:00.0", sysfs_root("sysfs_full")));
  EXPECT_STREQ(t.source(), "none");
  EXPECT_FALSE(t.open_sysfs("0000:c1:00.0", sysfs_root("sysfs_no_readings")));
  EXPECT_STREQ(t.source(), "none");
  EXPECT_FALSE(t.open_sysfs("0000:c1:00.0", sysfs_root("no_such_tree")));
  EXPECT_FALSE(t.open_sysfs("", sysfs_root("sysfs_full")));
  EXPECT_FALSE(t.open_sysfs(nullptr, sysfs_root("sysfs_full")));
  EXPECT_FALSE(t.open_sysfs("../../0000:c1:00.0", sysfs_root("sysfs_full")));
  const Sample s = t.sample();
  EXPECT_EQ(s.sm_mhz, -1);
  EXPECT_EQ(s.reasons, -1);
  EXPECT_EQ(s.energy_mj, -1);
}

TEST(Telemetry, SysfsFindsTheDeviceWhateverTheBusIdSpelling) {
  for (const char* id : {"c1:00.0", "0000:C1:00.0", "C1:00.0", "00000000:C1:00.0", " 0000:c1:00.0\n"}) {
    Telemetry t;
    EXPECT_TRUE(t.open_sysfs(id, sysfs_root("sysfs_full"))) << id;
    EXPECT_DOUBLE_EQ(t.sample().sm_mhz, 2100.0) << id;
  }
  EXPECT_EQ(swz_telemetry::detail::sysfs_bus_id("0001:C1:00.0"), "0001:c1:00.0");
  EXPECT_EQ(swz_telemetry::detail::sysfs_bus_id("00010000:C1:00.0"), "00010000:c1:00.0");
}

TEST(Telemetry, FailedOpenAfterASuccessfulOneLeavesNone) {
  Telemetry t;
  ASSERT_TRUE(t.open_sysfs("c1:00.0", sysfs_root("sysfs_full")));
  EXPECT_FALSE(t.open_sysfs("c2:00.0", sysfs_root("sysfs_full")));
  EXPECT_STREQ(t.source(), "none");
  EXPECT_EQ(t.sample().sm_mhz, -1);
}

// ---- NVML -------------------------------------------------------------------------------

TEST(Telemetry, NvmlAbsentDoesNotOpen) {
  Telemetry t;
  EXPECT_FALSE(t.open_nvml("0000:C1:00.0", "/nonexistent/libnvidia-ml.so.1"));
  EXPECT_STREQ(t.source(), "none");
  const Sample s = t.sample();
  EXPECT_EQ(s.sm_mhz, -1);
  EXPECT_EQ(s.reasons, -1);
  EXPECT_EQ(s.energy_mj, -1);
}

TEST(Telemetry, NvmlFromALibraryWithoutNvmlDoesNotOpen) {
  Telemetry t;  // a real shared library, but not NVML: nvmlInit_v2 is missing
  EXPECT_FALSE(t.open_nvml("0000:C1:00.0", "libm.so.6"));
  EXPECT_STREQ(t.source(), "none");
}

// The fake's own counters of nvmlInit_v2 / nvmlShutdown calls (the library stays loaded
// while this handle is open, so the counts are those the Telemetry object caused).
struct FakeCounts {
  explicit FakeCounts(const std::string& lib) : h(dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL)) {}
  ~FakeCounts() {
    if (h) dlclose(h);
  }
  void get(int* inits, int* shutdowns) const {
    auto fn = reinterpret_cast<void (*)(int*, int*)>(dlsym(h, "fake_nvml_counts"));
    ASSERT_NE(fn, nullptr);
    fn(inits, shutdowns);
  }
  void* h;
};

TEST(Telemetry, NvmlReadsClockReasonsAndEnergy) {
  const std::string lib = fake_nvml("libfake_nvml.so");
  FakeCounts counts(lib);
  ASSERT_NE(counts.h, nullptr) << dlerror();
  int inits0 = 0, shut0 = 0;
  counts.get(&inits0, &shut0);
  {
    Telemetry t;
    ASSERT_TRUE(t.open_nvml("0000:C1:00.0", lib.c_str()));
    EXPECT_STREQ(t.source(), "nvml");
    const Sample a = t.sample();
    EXPECT_DOUBLE_EQ(a.sm_mhz, 1755.0);
    EXPECT_EQ(a.reasons, 0x4);  // the clocks-event name, not the throttle one (0x40)
    ASSERT_GE(a.energy_mj, 0);
    const Sample b = t.sample();
    EXPECT_DOUBLE_EQ(b.energy_mj - a.energy_mj, 1000.0);
    const Sample c = t.sample(false);  // the clock and reasons alone: no energy call
    EXPECT_DOUBLE_EQ(c.sm_mhz, 1755.0);
    EXPECT_EQ(c.reasons, 0x4);
    EXPECT_EQ(c.energy_mj, -1);
    EXPECT_DOUBLE_EQ(t.sample().energy_mj - b.energy_mj, 1000.0);
  }
  int inits = 0, shut = 0;
  counts.get(&inits, &shut);
  EXPECT_EQ(inits - inits0, 1);
  EXPECT_EQ(shut - shut0, 1);  // the destructor shut NVML down
}

TEST(Telemetry, NvmlOnAnOldDriverFallsBackToThrottleReasons) {
  Telemetry t;
  ASSERT_TRUE(t.open_nvml("0000:C1:00.0", fake_nvml("libfake_nvml_legacy.so").c_str()));
  const Sample s = t.sample();
  EXPECT_DOUBLE_EQ(s.sm_mhz, 1755.0);
  EXPECT_EQ(s.reasons, 0x24);
  EXPECT_EQ(s.energy_mj, -1);  // no energy counter symbol: unknown, never invented
}

TEST(Telemetry, NvmlUnknownDeviceDoesNotOpenAndShutsDown) {
  const std::string lib = fake_nvml("libfake_nvml.so");
  FakeCounts counts(lib);
  ASSERT_NE(counts.h, nullptr) << dlerror();
  int inits0 = 0, shut0 = 0;
  counts.get(&inits0, &shut0);
  Telemetry t;
  EXPECT_FALSE(t.open_nvml("ffff:00:00.0", lib.c_str()));
  EXPECT_STREQ(t.source(), "none");
  EXPECT_EQ(t.sample().sm_mhz, -1);
  int inits = 0, shut = 0;
  counts.get(&inits, &shut);
  EXPECT_EQ(inits - inits0, 1);
  EXPECT_EQ(shut - shut0, 1);
}

TEST(Telemetry, ReopeningSwitchesSource) {
  Telemetry t;
  ASSERT_TRUE(t.open_nvml("0000:C1:00.0", fake_nvml("libfake_nvml.so").c_str()));
  ASSERT_TRUE(t.open_sysfs("0000:c1:00.0", sysfs_root("sysfs_freq_only")));
  EXPECT_STREQ(t.source(), "sysfs");
  EXPECT_DOUBLE_EQ(t.sample().sm_mhz, 1550.0);
  EXPECT_EQ(t.sample().reasons, -1);
}

}  // namespace
