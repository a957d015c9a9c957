// The shipped GEMMs' declared tunables (kernels/triton/matmul.py, kernels/tc/gemm_tc.hip),
// read as `swizzleperf tune` reads them: without compiling. Each space has the names the
// program's code uses, its own configuration as its own point, and that point survives the
// H100's limits; the rules agree with what the kernels compute (threads, shared memory, the
// grid of the default-grid line), and the pruned points are the ones the rules say.
#include "swizzleperf/tune/tune_space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/fixtures.h"
#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/util/process.h"

namespace swz {
namespace {

// An H100 SXM: 227 KB of shared memory per block (opt-in), 1024 threads, warps of 32.
constexpr TuneLimits kH100Tunables{232448, 1024, 32};

TuneSpace kt_shipped_space(const std::string& rel) {
  const auto path = test::source_dir() / rel;
  auto space = parse_tune_space(test::read_text(path), language_of(path), rel);
  EXPECT_TRUE(space.ok()) << (space ? "" : space.error().message);
  return space ? *space : TuneSpace{};
}

std::vector<std::string> kt_tunable_names(const TuneSpace& s) {
  std::vector<std::string> out;
  for (const auto& t : s.tunables) out.push_back(t.name);
  return out;
}

std::int64_t kt_rule_at(const TuneSpace& s, const std::optional<TuneRule>& rule, const TunePoint& p) {
  EXPECT_TRUE(rule.has_value());
  if (!rule) return -1;
  auto v = rule->expr.eval(s.bind(p));
  EXPECT_TRUE(v.ok());
  return v ? *v : -1;
}

bool kt_holds_point(const TuneEnumeration& e, const TunePoint& p) {
  return std::find(e.points.begin(), e.points.end(), p) != e.points.end();
}

TEST(KernelTunables, MatmulTritonDeclaresItsTileWarpsAndStages) {
  const TuneSpace s = kt_shipped_space("kernels/triton/matmul.py");
  EXPECT_EQ(kt_tunable_names(s), (std::vector<std::string>{"BLOCK_M", "BLOCK_N", "BLOCK_K", "NUM_WARPS", "NUM_STAGES"}));
  EXPECT_EQ(s.describe(s.own_point()), "BLOCK_M=128 BLOCK_N=256 BLOCK_K=64 NUM_WARPS=8 NUM_STAGES=3");
  EXPECT_EQ(s.tunables[0].values, (std::vector<std::int64_t>{64, 128, 256}));
  EXPECT_EQ(s.tunables[2].values, (std::vector<std::int64_t>{32, 64, 128}));
  EXPECT_EQ(s.size(), 3u * 3 * 3 * 2 * 4);
  EXPECT_EQ(point_excluded(s, s.own_point(), kH100Tunables), "");
  // The own point's fp16 A and B tiles, three stages deep; 8 warps.
  EXPECT_EQ(kt_rule_at(s, s.shared_bytes, s.own_point()), (128 * 64 + 64 * 256) * 2 * 3);
  EXPECT_EQ(kt_rule_at(s, s.threads, s.own_point()), 256);
}

TEST(KernelTunables, MatmulTritonPrunesSpillingTilesAndOversizedPipelines) {
  const TuneSpace s = kt_shipped_space("kernels/triton/matmul.py");
  const TuneEnumeration e = enumerate_points(s, kH100Tunables);
  EXPECT_EQ(e.points.size() + e.excluded, s.size());
  EXPECT_TRUE(kt_holds_point(e, s.own_point()));
  // The tile the tutorial's neighbour search liked: 128 x 256 x 32, 8 warps, 4 stages.
  EXPECT_TRUE(kt_holds_point(e, {128, 256, 32, 8, 4}));
  // 256 x 256 on 8 warps would keep 256 accumulator registers a thread.
  EXPECT_NE(point_excluded(s, {256, 256, 32, 8, 2}, kH100Tunables).find("restriction"), std::string::npos);
  // 64 x 64 on 8 warps leaves warps without a tensor-core tile.
  EXPECT_NE(point_excluded(s, {64, 64, 32, 8, 2}, kH100Tunables).find("restriction"), std::string::npos);
  // 256 x 128 x 128, 5 stages: 491520 bytes of shared memory.
  EXPECT_EQ(point_excluded(s, {256, 128, 128, 8, 5}, kH100Tunables),
            "needs 491520 bytes of shared memory per block, the device allows 232448");
  for (const auto& p : e.points) {
    EXPECT_LE(kt_rule_at(s, s.shared_bytes, p), kH100Tunables.shared_bytes_per_block) << s.describe(p);
    EXPECT_LE(p[0] * p[1], 128 * 32 * p[3]) << s.describe(p);  // <= 128 fp32 accumulators a thread
  }
  // Real pruning, and a real space left.
  EXPECT_GT(e.excluded, 0u);
  EXPECT_GT(e.points.size(), 50u);
}

TEST(KernelTunables, MatmulTritonDefaultGridLineIsTheOwnTilesGrid) {
  const auto path = test::source_dir() / "kernels/triton/matmul.py";
  auto k = KernelSource::load(path);
  ASSERT_TRUE(k.ok()) << k.error().message;
  const TuneSpace s = kt_shipped_space("kernels/triton/matmul.py");
  ASSERT_TRUE(k->default_grid().has_value());
  // Default size 4096 x 32768 (x 1024), the own BLOCK_M x BLOCK_N.
  EXPECT_EQ(k->default_grid()->m, 4096u / static_cast<unsigned>(s.tunables[0].value));
  EXPECT_EQ(k->default_grid()->n, 32768u / static_cast<unsigned>(s.tunables[1].value));
}

TEST(KernelTunables, MatmulTritonPointRewritesOnlyTheDeclaringLines) {
  const auto path = test::source_dir() / "kernels/triton/matmul.py";
  const std::string text = test::read_text(path);
  auto out = with_tunable_values(text, RegionLanguage::python, {{"BLOCK_K", 32}, {"NUM_STAGES", 4}}, "matmul.py");
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_NE(out->find("BLOCK_K = 32  # swizzleperf:tunable 32 64 128\n"), std::string::npos);
  EXPECT_NE(out->find("NUM_STAGES = 4  # swizzleperf:tunable 2 3 4 5\n"), std::string::npos);
  EXPECT_EQ(out->size(), text.size());  // one digit for one digit, two for two
  auto again = parse_tune_space(*out, RegionLanguage::python, "matmul.py");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->describe(again->own_point()), "BLOCK_M=128 BLOCK_N=256 BLOCK_K=32 NUM_WARPS=8 NUM_STAGES=4");
}

TEST(KernelTunables, GemmTcDeclaresItsTileSliceAndStages) {
  const TuneSpace s = kt_shipped_space("kernels/tc/gemm_tc.hip");
  EXPECT_EQ(kt_tunable_names(s), (std::vector<std::string>{"GEMM_TC_BM", "GEMM_TC_BN", "GEMM_TC_BK", "GEMM_TC_STAGES"}));
  EXPECT_EQ(s.describe(s.own_point()), "GEMM_TC_BM=128 GEMM_TC_BN=256 GEMM_TC_BK=32 GEMM_TC_STAGES=4");
  EXPECT_EQ(s.size(), 3u * 3 * 2 * 4);
  EXPECT_EQ(point_excluded(s, s.own_point(), kH100Tunables), "");
  // kSmemBytes at the default: 4 stages of (128 + 256) rows of 32 fp16 (the 96 KiB the
  // footprint's block() reports); kThreads: 2 x 4 warps.
  EXPECT_EQ(kt_rule_at(s, s.shared_bytes, s.own_point()), 96 * 1024);
  EXPECT_EQ(kt_rule_at(s, s.threads, s.own_point()), 256);
}

TEST(KernelTunables, GemmTcSpaceHoldsTheTilesItsWarpLayoutTakes) {
  const TuneSpace s = kt_shipped_space("kernels/tc/gemm_tc.hip");
  const TuneEnumeration e = enumerate_points(s, kH100Tunables);
  EXPECT_EQ(e.points.size() + e.excluded, s.size());
  EXPECT_TRUE(kt_holds_point(e, s.own_point()));
  std::vector<std::pair<std::int64_t, std::int64_t>> tiles;
  for (const auto& p : e.points) {
    // The kernel's kThreads: one warp per 64x64 block, whole wave64s for the AMD path, and
    // at most 256 threads (255 registers each); the rule must say the same.
    const std::int64_t kernel_threads = (p[0] / 64) * (p[1] / 64) * 32;
    EXPECT_EQ(kt_rule_at(s, s.threads, p), kernel_threads) << s.describe(p);
    EXPECT_GE(kernel_threads, 64) << s.describe(p);
    EXPECT_LE(kernel_threads, 256) << s.describe(p);
    // The kernel's kSmemBytes on the NVIDIA path.
    EXPECT_EQ(kt_rule_at(s, s.shared_bytes, p), p[3] * (p[0] + p[1]) * p[2] * 2) << s.describe(p);
    EXPECT_LE(kt_rule_at(s, s.shared_bytes, p), kH100Tunables.shared_bytes_per_block) << s.describe(p);
    if (std::find(tiles.begin(), tiles.end(), std::make_pair(p[0], p[1])) == tiles.end()) tiles.emplace_back(p[0], p[1]);
  }
  // 64x128, 64x256, 128x64, 128x128, 128x256, 256x64, 256x128: not 64x64 (one warp, half a
  // wave64) nor 256x256 (512 threads would spill).
  EXPECT_EQ(tiles.size(), 7u);
  EXPECT_NE(point_excluded(s, {256, 256, 32, 2}, kH100Tunables).find("restriction"), std::string::npos);
  EXPECT_NE(point_excluded(s, {64, 64, 32, 2}, kH100Tunables).find("restriction"), std::string::npos);
  // 128 x 256, BK 64, 5 stages: 245760 bytes, more than an H100 block may have.
  EXPECT_EQ(point_excluded(s, {128, 256, 64, 5}, kH100Tunables),
            "needs 245760 bytes of shared memory per block, the device allows 232448");
}

TEST(KernelTunables, GemmTcDefaultGridLineIsTheOwnTilesGrid) {
  const auto path = test::source_dir() / "kernels/tc/gemm_tc.hip";
  auto k = KernelSource::load(path);
  ASSERT_TRUE(k.ok()) << k.error().message;
  const TuneSpace s = kt_shipped_space("kernels/tc/gemm_tc.hip");
  ASSERT_TRUE(k->default_grid().has_value());
  EXPECT_EQ(k->default_grid()->m, 4096u / static_cast<unsigned>(s.tunables[0].value));
  EXPECT_EQ(k->default_grid()->n, 32768u / static_cast<unsigned>(s.tunables[1].value));
}

// Toolchain tier (tests/tiers.cmake): the points build, through the backends' own build
// (BuildRequest::defines -> -DNAME=V) for info (nvcc: PTX at -O0, so the device front end
// instantiates the NVIDIA path; hipcc: gfx940 at -O0). Each tile of the pruned space once,
// the k-slice and the stages taking each of their values in turn; for AMD, whose path depends
// on the tile's width alone (4, 2 or 1 strips a wave), one tile of each width. About ten
// quick builds rather than all 54 points. And a point the restriction leaves out (256 x 256)
// is refused by the kernel's own static_assert, so rule and code agree.
std::string gemm_tc_build_failure(Backend& backend, const TuneSpace& s, const TunePoint& p, const test::TempDir& tmp,
                                  const std::string& arch) {
  BuildRequest req{test::source_dir() / "kernels/tc/gemm_tc.hip", tmp / "gemm_tc_point", 1, arch};
  req.info_only = true;
  req.defines = s.bind(p);
  auto r = backend.build(req);
  if (!r) return r.error().message;
  return r->ok ? "" : r->failure + "\n" + r->log;
}

TEST(KernelTunablesBuild, GemmTcPointsBuildForSm90AndGfx940) {
  const TuneSpace s = kt_shipped_space("kernels/tc/gemm_tc.hip");
  const TuneEnumeration e = enumerate_points(s, kH100Tunables);
  const std::string nvcc = test::nvcc_path(), hipcc = test::hipcc_path();
  if (nvcc.empty() && hipcc.empty()) GTEST_SKIP() << "neither nvcc nor hipcc is installed";
  RealProcessRunner runner;
  ToolOptions cuda_tools, hip_tools;
  cuda_tools.compiler = nvcc;
  hip_tools.compiler = hipcc;
  CudaBackend cuda(runner, cuda_tools);
  HipBackend hip(runner, hip_tools);
  test::TempDir tmp;
  std::vector<TunePoint> tiles, widths;  // (BM, BN) built for NVIDIA; BN built for AMD
  std::size_t turn = 0;
  for (const auto& p : e.points) {
    if (std::find(tiles.begin(), tiles.end(), TunePoint{p[0], p[1]}) != tiles.end()) continue;
    tiles.push_back({p[0], p[1]});
    TunePoint q = p;
    q[2] = s.tunables[2].values[turn % s.tunables[2].values.size()];
    q[3] = s.tunables[3].values[turn % s.tunables[3].values.size()];
    ++turn;
    if (!point_excluded(s, q, kH100Tunables).empty()) q = p;
    if (!nvcc.empty()) EXPECT_EQ(gemm_tc_build_failure(cuda, s, q, tmp, "sm_90"), "") << s.describe(q);
    if (!hipcc.empty() && std::find(widths.begin(), widths.end(), TunePoint{p[1]}) == widths.end()) {
      widths.push_back({p[1]});
      EXPECT_EQ(gemm_tc_build_failure(hip, s, q, tmp, "gfx940"), "") << s.describe(q);
    }
  }
  EXPECT_EQ(tiles.size(), 7u);
  const TunePoint too_big{256, 256, 32, 2};
  ASSERT_FALSE(point_excluded(s, too_big, {}).empty());
  Backend& any = nvcc.empty() ? static_cast<Backend&>(hip) : cuda;
  const std::string refused = gemm_tc_build_failure(any, s, too_big, tmp, nvcc.empty() ? "gfx940" : "sm_90");
  EXPECT_NE(refused.find("64 .. 256 threads"), std::string::npos) << refused;
}

}  // namespace
}  // namespace swz
