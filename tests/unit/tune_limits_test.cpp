// tune_limits_of: the per-block limits of a device, from its query where the query reports a
// positive integer, else the arch's documented values, else 0; and a space pruned by them
// (a shared-memory rule that fits one device and not another).
#include "swizzleperf/tune/tune_limits.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace swz {
namespace {

HardwareProfile limits_device(const char* vendor, const char* arch) {
  HardwareProfile h;
  h.vendor = vendor;
  h.arch = arch;
  return h;
}

std::int64_t shared_of(const char* vendor, const char* arch) {
  return tune_limits_of(limits_device(vendor, arch)).shared_bytes_per_block;
}

TEST(TuneLimitsOf, NvidiaFallbacksAreTheOptInMaximumPerComputeCapability) {
  const TuneLimits h100 = tune_limits_of(limits_device("nvidia", "sm_90"));
  EXPECT_EQ(h100.shared_bytes_per_block, 232448);
  EXPECT_EQ(h100.threads_per_block, 1024);
  EXPECT_EQ(h100.warp_size, 32);
  EXPECT_EQ(shared_of("nvidia", "sm_90a"), 232448) << "an arch-specific suffix is the same device";
  EXPECT_EQ(shared_of("nvidia", "sm_100"), 232448);
  EXPECT_EQ(shared_of("nvidia", "sm_80"), 166912);
  EXPECT_EQ(shared_of("nvidia", "sm_87"), 166912);
  EXPECT_EQ(shared_of("nvidia", "sm_86"), 101376);
  EXPECT_EQ(shared_of("nvidia", "sm_89"), 101376);
  EXPECT_EQ(shared_of("nvidia", "sm_120"), 101376);
  EXPECT_EQ(shared_of("nvidia", "sm_70"), 98304);
  EXPECT_EQ(shared_of("nvidia", "sm_75"), 65536);
  EXPECT_EQ(shared_of("nvidia", "sm_61"), 49152);
  EXPECT_EQ(shared_of("nvidia", "sm_110"), 49152) << "a capability the table does not know: the 48 KB every device gives";
  EXPECT_EQ(shared_of("nvidia", ""), 49152);
  EXPECT_EQ(shared_of("", "sm_80"), 166912) << "the arch names the vendor when the profile does not";
}

TEST(TuneLimitsOf, AmdFallbacksAreTheLdsPerWorkgroupAndTheWaveSize) {
  const TuneLimits mi300 = tune_limits_of(limits_device("amd", "gfx942"));
  EXPECT_EQ(mi300.shared_bytes_per_block, 65536);
  EXPECT_EQ(mi300.threads_per_block, 1024);
  EXPECT_EQ(mi300.warp_size, 64);
  EXPECT_EQ(tune_limits_of(limits_device("", "gfx90a")).warp_size, 64);
  EXPECT_EQ(tune_limits_of(limits_device("", "gfx90a")).shared_bytes_per_block, 65536);
  EXPECT_EQ(tune_limits_of(limits_device("amd", "gfx1100")).warp_size, 32) << "RDNA: wave32";
  EXPECT_EQ(tune_limits_of(limits_device("amd", "gfx1030")).warp_size, 32);
  EXPECT_EQ(tune_limits_of(limits_device("amd", "")).warp_size, 64);
}

TEST(TuneLimitsOf, AnUnknownDeviceIsNotCheckedUnlessItsQuerySays) {
  HardwareProfile h;
  TuneLimits l = tune_limits_of(h);
  EXPECT_EQ(l.shared_bytes_per_block, 0);
  EXPECT_EQ(l.threads_per_block, 0);
  EXPECT_EQ(l.warp_size, 0);
  h.arch = "ve_3";
  h.device_query = {{"max_threads_per_block", 256}};
  l = tune_limits_of(h);
  EXPECT_EQ(l.threads_per_block, 256);
  EXPECT_EQ(l.shared_bytes_per_block, 0);
}

TEST(TuneLimitsOf, TheDeviceQueryWinsWhereItReportsAPositiveInteger) {
  HardwareProfile h = limits_device("nvidia", "sm_90");
  h.device_query = {{"shared_mem_per_block", 101376}, {"max_threads_per_block", 512}, {"warp_size", 32}};
  TuneLimits l = tune_limits_of(h);
  EXPECT_EQ(l.shared_bytes_per_block, 101376);
  EXPECT_EQ(l.threads_per_block, 512);
  EXPECT_EQ(l.warp_size, 32);
  // A query larger than the table (a newer driver, a bigger part) is believed too.
  h.device_query = {{"shared_mem_per_block", 262144}};
  EXPECT_EQ(tune_limits_of(h).shared_bytes_per_block, 262144);
  HardwareProfile mi = limits_device("amd", "gfx942");
  mi.device_query = {{"warp_size", 32}};
  EXPECT_EQ(tune_limits_of(mi).warp_size, 32);
}

TEST(TuneLimitsOf, ANonIntegerZeroNegativeOrHugeValueIsIgnored) {
  HardwareProfile h = limits_device("nvidia", "sm_80");
  for (const nlohmann::json& bad :
       {nlohmann::json("49152"), nlohmann::json(49152.5), nlohmann::json(49152.0), nlohmann::json(0),
        nlohmann::json(-1), nlohmann::json(nullptr), nlohmann::json(true), nlohmann::json::array({49152}),
        nlohmann::json(std::numeric_limits<std::uint64_t>::max())}) {
    h.device_query = {{"shared_mem_per_block", bad}, {"max_threads_per_block", bad}, {"warp_size", bad}};
    const TuneLimits l = tune_limits_of(h);
    EXPECT_EQ(l.shared_bytes_per_block, 166912) << bad.dump();
    EXPECT_EQ(l.threads_per_block, 1024) << bad.dump();
    EXPECT_EQ(l.warp_size, 32) << bad.dump();
  }
  h.device_query = nlohmann::json::array({1, 2});  // not an object at all
  EXPECT_EQ(tune_limits_of(h).shared_bytes_per_block, 166912);
  h.device_query = {{"shared_mem_per_block", static_cast<std::uint64_t>(65536)}};
  EXPECT_EQ(tune_limits_of(h).shared_bytes_per_block, 65536) << "an unsigned number in range is a number";
}

// A space whose tiles need 24, 48 and 96 KB of shared memory: sm_86's 99 KB keeps them all,
// sm_75's 64 KB prunes the largest, and a query's 48 KB wins over sm_90's 227 KB.
TEST(TuneLimitsOf, TheSharedMemoryLimitPrunesThePointsThatNeedMore) {
  const char* text =
      "#ifndef BLOCK_M\n#define BLOCK_M 64  // swizzleperf:tunable 64 128 256\n#endif\n"
      "#ifndef BLOCK_K\n#define BLOCK_K 64  // swizzleperf:tunable 64\n#endif\n"
      "// swizzleperf:shared-bytes BLOCK_M * BLOCK_K * 2 * 3\n";
  auto space = parse_tune_space(text, RegionLanguage::cpp, "k.cu");
  ASSERT_TRUE(space) << space.error().message;
  // BLOCK_M 64, 128, 256 need 24576, 49152 and 98304 bytes (fp16, 3 stages).
  HardwareProfile ga102 = limits_device("nvidia", "sm_86");
  const TuneEnumeration on_99k = enumerate_points(*space, tune_limits_of(ga102));
  EXPECT_EQ(on_99k.points.size(), 3u) << "98304 bytes fit in 99 KB";
  HardwareProfile tu102 = limits_device("nvidia", "sm_75");
  const TuneEnumeration on_64k = enumerate_points(*space, tune_limits_of(tu102));
  EXPECT_EQ(on_64k.points.size(), 2u);
  EXPECT_EQ(on_64k.excluded, 1u);
  EXPECT_NE(on_64k.first_exclusion.find("98304 bytes of shared memory per block, the device allows 65536"),
            std::string::npos)
      << on_64k.first_exclusion;
  HardwareProfile queried = limits_device("nvidia", "sm_90");
  queried.device_query = {{"shared_mem_per_block", 49152}};
  const TuneEnumeration on_48k = enumerate_points(*space, tune_limits_of(queried));
  EXPECT_EQ(on_48k.points.size(), 2u) << "49152 bytes fit exactly; the query's 48 KB wins over sm_90's 227 KB";
  queried.device_query = {{"shared_mem_per_block", 49151}};
  EXPECT_EQ(enumerate_points(*space, tune_limits_of(queried)).points.size(), 1u);
}

}  // namespace
}  // namespace swz
