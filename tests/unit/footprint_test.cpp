// Tests of the footprint parser (model/footprint.h): a good two-launch text read field by
// field, every refusal with its reason (order of lines and tiles, counts, buffers, flags,
// spans that leave their buffer, 64-bit wrap attempts, limits, grids, the program's own
// error line, garbage and very long lines), a round trip through the builders' text, and
// union_bytes on contiguous, strided and overlapping spans with exact numbers.
#include "swizzleperf/model/footprint.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/footprint_builders.h"
#include "support/timing.h"

namespace swz {
namespace {

constexpr const char* kBuffers = R"({"buffers":[{"name":"A","bytes":4096},{"name":"B","bytes":8192}]})"
                                 "\n";

// A header for grid m x n announcing `tiles` tiles (default m * n).
std::string header(unsigned launch, unsigned long long m, unsigned long long n, long long tiles = -1) {
  return "{\"launch\":" + std::to_string(launch) + ",\"grid\":{\"m\":" + std::to_string(m) + ",\"n\":" + std::to_string(n) +
         "},\"block\":{\"threads\":256,\"shared_bytes\":0,\"registers\":0},\"swizzled\":true,\"tiles\":" +
         std::to_string(tiles < 0 ? m * n : static_cast<unsigned long long>(tiles)) + "}\n";
}

constexpr const char* kSummary = R"({"mode":"footprint","size":[64,32],"launches":1,"tiles":1,"spans":1})"
                                 "\n";

// A one-launch, one-tile text whose only tile has these spans ("0 0 64 0 1 rR").
std::string one_tile(const std::string& spans, int n_spans = 1) {
  return std::string(kBuffers) + header(0, 1, 1) + "t 0 " + std::to_string(n_spans) + " " + spans + "\n" + kSummary;
}

std::string parse_error(std::string_view text, const FootprintLimits& limits = {}) {
  auto r = parse_footprint(text, "k.hip", limits);
  if (r) return "(parsed)";
  return r.error().message;
}

#define EXPECT_REFUSED(text, part)                                                  \
  do {                                                                              \
    const std::string msg_ = parse_error(text);                                     \
    EXPECT_NE(msg_.find(part), std::string::npos) << "message: " << msg_;           \
  } while (0)

// ---- a good text -----------------------------------------------------------------

const char* kGood =
    R"({"buffers":[{"name":"A","bytes":4096},{"name":"B","bytes":8192}]})"
    "\n"
    R"({"launch":0,"grid":{"m":1,"n":2},"block":{"threads":128,"shared_bytes":1024,"registers":40},"swizzled":true,"tiles":2})"
    "\n"
    "t 0 2 0 0 256 512 4 rP 1 128 64 0 1 wO\n"
    "t 1 1 1 4096 4096 0 1 rR\n"
    R"({"launch":2,"grid":{"m":2,"n":1},"block":{"threads":64,"shared_bytes":0,"registers":0},"swizzled":false,"tiles":2})"
    "\n"
    "t 0 1 0 0 16 999 1 rO\n"
    "t 1 1 1 0 100 200 3 wR\n"
    R"({"mode":"footprint","size":[64,32],"launches":3,"tiles":4,"spans":5})"
    "\n";

TEST(Footprint, ParsesAGoodTwoLaunchTextFieldByField) {
  auto r = parse_footprint(kGood, "k.hip");
  ASSERT_TRUE(r) << r.error().message;
  const ProgramFootprint& fp = *r;
  EXPECT_EQ(fp.size, (std::vector<long long>{64, 32}));
  EXPECT_EQ(fp.launches_total, 3u);
  EXPECT_EQ(fp.launch_ids, (std::vector<unsigned>{0, 2}));
  ASSERT_EQ(fp.buffers.size(), 2u);
  EXPECT_EQ(fp.buffers[0].name, "A");
  EXPECT_EQ(fp.buffers[0].bytes, 4096u);
  EXPECT_EQ(fp.buffers[1].name, "B");
  EXPECT_EQ(fp.buffers[1].bytes, 8192u);
  ASSERT_EQ(fp.launches.size(), 2u);

  const LaunchFootprint& a = fp.launches[0];
  EXPECT_EQ(a.grid.m, 1u);
  EXPECT_EQ(a.grid.n, 2u);
  EXPECT_EQ(a.block.threads, 128u);
  EXPECT_EQ(a.block.shared_bytes, 1024u);
  EXPECT_EQ(a.block.registers, 40u);
  EXPECT_TRUE(a.swizzled);
  EXPECT_EQ(a.tiles(), 2u);
  EXPECT_EQ(a.tile_begin, (std::vector<std::uint32_t>{0, 2, 3}));
  ASSERT_EQ(a.spans.size(), 3u);
  const FootprintSpan& s0 = a.spans[0];
  EXPECT_EQ(s0.buffer, 0u);
  EXPECT_EQ(s0.offset, 0u);
  EXPECT_EQ(s0.bytes, 256u);
  EXPECT_EQ(s0.stride, 512u);
  EXPECT_EQ(s0.count, 4u);
  EXPECT_FALSE(s0.write);
  EXPECT_EQ(s0.walk, SpanWalk::parallel);
  EXPECT_EQ(s0.total_bytes(), 1024u);
  EXPECT_EQ(s0.end(), 3u * 512 + 256);
  const FootprintSpan& s1 = a.spans[1];
  EXPECT_EQ(s1.buffer, 1u);
  EXPECT_EQ(s1.offset, 128u);
  EXPECT_EQ(s1.bytes, 64u);
  EXPECT_EQ(s1.count, 1u);
  EXPECT_TRUE(s1.write);
  EXPECT_EQ(s1.walk, SpanWalk::once);
  const FootprintSpan& s2 = a.spans[2];
  EXPECT_EQ(s2.offset, 4096u);
  EXPECT_EQ(s2.bytes, 4096u);
  EXPECT_EQ(s2.end(), 8192u);  // exactly to the end of B: inside
  EXPECT_EQ(s2.walk, SpanWalk::runs);

  const LaunchFootprint& b = fp.launches[1];
  EXPECT_EQ(b.grid.m, 2u);
  EXPECT_EQ(b.grid.n, 1u);
  EXPECT_EQ(b.block.threads, 64u);
  EXPECT_EQ(b.block.registers, 0u);
  EXPECT_FALSE(b.swizzled);
  EXPECT_EQ(b.tile_begin, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(b.spans[0].stride, 0u);  // one run: its stride is dropped
  EXPECT_EQ(b.spans[0].walk, SpanWalk::once);
  EXPECT_EQ(b.spans[1].count, 3u);
  EXPECT_EQ(b.spans[1].stride, 200u);
  EXPECT_TRUE(b.spans[1].write);
}

TEST(Footprint, BlankLinesTabsAndAHeaderWithoutBlockAreAccepted) {
  const std::string text = std::string(kBuffers) + "\n" +
                           R"({"launch":0,"grid":{"m":1,"n":1},"tiles":1})"
                           "\n\nt 0 1\t0  0 64 0 1 rR\n\n" +
                           kSummary;
  auto r = parse_footprint(text, "k.hip");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->launches[0].block.threads, 256u);  // the default
  EXPECT_TRUE(r->launches[0].swizzled);
  EXPECT_EQ(r->launches[0].spans.at(0).bytes, 64u);
}

TEST(Footprint, AReadsPieceIsParsedAndOptional) {
  auto r = parse_footprint(one_tile("0 0 256 512 4 rP/64 1 0 64 0 1 rR/1048576 0 1024 64 0 1 rO", 3), "k.hip");
  ASSERT_TRUE(r) << r.error().message;
  const auto& spans = r->launches[0].spans;
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].piece, 64u);
  EXPECT_EQ(spans[0].walk, SpanWalk::parallel);
  EXPECT_FALSE(spans[0].write);
  EXPECT_EQ(spans[1].piece, 1048576u);
  EXPECT_EQ(spans[2].piece, 0u);  // none given: a line or more
}

TEST(Footprint, ABlocksKernelNameIsParsedAndOptional) {
  const std::string text = std::string(kBuffers) + "\n" +
                           R"({"launch":0,"grid":{"m":1,"n":1},"block":{"threads":128,"shared_bytes":0,"registers":0,"kernel":"fdtd_ey_kernel"},"tiles":1})"
                           "\nt 0 1 0 0 64 0 1 rR\n" +
                           kSummary;
  auto r = parse_footprint(text, "k.hip");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->launches[0].block.kernel, "fdtd_ey_kernel");
  EXPECT_EQ(r->launches[0].block.threads, 128u);
  // Not a C name, empty, too long or not a string: refused, naming the launch.
  const std::vector<std::string> bads = {R"("")", R"("a b")", R"("x\"y")", R"("k;rm")", "7", "null", "\"" + std::string(257, 'k') + "\""};
  for (const std::string& bad : bads) {
    std::string t = text;
    t.replace(t.find(R"("fdtd_ey_kernel")"), 16, bad);
    auto e = parse_footprint(t, "k.hip");
    ASSERT_FALSE(e) << bad;
    EXPECT_NE(e.error().message.find("launch 0: block kernel must be a function's name"), std::string::npos) << e.error().message;
  }
}

TEST(Footprint, RoundTripsTheBuildersText) {
  test::GemmShape s;
  s.tiles_m = 3;
  s.tiles_n = 5;
  s.a_piece = 64;
  ProgramFootprint want = test::gemm_like_footprint(s);
  want.launches[0].block.kernel = "gemm_kernel";
  auto r = parse_footprint(test::footprint_text(want), "gemm.hip");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->launches.size(), 1u);
  const auto& got = r->launches[0];
  EXPECT_EQ(got.tile_begin, want.launches[0].tile_begin);
  ASSERT_EQ(got.spans.size(), want.launches[0].spans.size());
  for (std::size_t i = 0; i < got.spans.size(); ++i) {
    const auto &g = got.spans[i], &w = want.launches[0].spans[i];
    EXPECT_TRUE(g.buffer == w.buffer && g.offset == w.offset && g.bytes == w.bytes && g.stride == w.stride &&
                g.count == w.count && g.write == w.write && g.walk == w.walk && g.piece == w.piece)
        << "span " << i;
  }
  EXPECT_EQ(r->size, want.size);
  EXPECT_EQ(got.block.kernel, "gemm_kernel");
}

// ---- refusals ----------------------------------------------------------------------

TEST(Footprint, ErrorsNameTheProgramAndTheLine) {
  const std::string text = std::string(kBuffers) + header(0, 1, 1) + "t 0 1 0 0 64 0 1 rX\n" + kSummary;
  EXPECT_EQ(parse_error(text).rfind("k.hip's footprint: line 3: ", 0), 0u) << parse_error(text);
}

TEST(Footprint, RefusesATileBeforeAnyHeader) {
  EXPECT_REFUSED(std::string(kBuffers) + "t 0 1 0 0 64 0 1 rR\n" + kSummary, "a tile line before any launch header");
  EXPECT_REFUSED(std::string("t 0 1 0 0 64 0 1 rR\n") + kSummary, "a tile line before any launch header");
}

TEST(Footprint, RefusesAHeaderBeforeTheBuffersLine) {
  EXPECT_REFUSED(header(0, 1, 1) + "t 0 1 0 0 64 0 1 rR\n" + kSummary, "a launch header before the buffers line");
  EXPECT_REFUSED(std::string(kBuffers) + kBuffers, "a second buffers line");
  EXPECT_REFUSED(std::string(R"({"buffers":[]})") + "\n" + kSummary, "buffers must be a list of 1 to 256");
  EXPECT_REFUSED(std::string(R"({"buffers":[{"name":"A"}]})") + "\n" + kSummary, "a buffer needs name and bytes");
  EXPECT_REFUSED(std::string(R"({"buffers":[{"name":"A","bytes":-4}]})") + "\n" + kSummary, "a buffer needs name and bytes");
}

TEST(Footprint, RefusesTilesOutOfOrder) {
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 2) + "t 1 1 0 0 64 0 1 rR\nt 0 1 0 0 64 0 1 rR\n" + kSummary,
                 "tile 1 where tile 0 was expected (tiles in order)");
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 2) + "t 0 1 0 0 64 0 1 rR\nt 0 1 0 0 64 0 1 rR\n" + kSummary,
                 "tile 0 where tile 1 was expected");
}

TEST(Footprint, RefusesMissingTiles) {
  // Before the summary, and before the next launch's header.
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 2) + "t 0 1 0 0 64 0 1 rR\n" + kSummary, "launch 0 lists 1 of its 2 tiles");
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 2) + "t 0 1 0 0 64 0 1 rR\n" + header(1, 1, 1) + "t 0 1 0 0 64 0 1 rR\n" +
                     kSummary,
                 "launch 0 lists 1 of its 2 tiles");
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 1) + kSummary, "launch 0 lists 0 of its 1 tiles");
}

TEST(Footprint, RefusesMoreTilesThanAnnounced) {
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 1) + "t 0 1 0 0 64 0 1 rR\nt 1 1 0 0 64 0 1 rR\n" + kSummary,
                 "more tiles than the 1 the header announced");
}

TEST(Footprint, RefusesAnUnknownBuffer) {
  EXPECT_REFUSED(one_tile("2 0 64 0 1 rR"), "span 0 of tile 0 names buffer 2 of 2");
}

TEST(Footprint, RefusesBadFlags) {
  for (const char* flags : {"rX", "xR", "RR", "rRR", "r", "wr", "-R", "rP64", "rR-/64"}) {
    SCOPED_TRACE(flags);
    EXPECT_REFUSED(one_tile(std::string("0 0 64 0 1 ") + flags), "are not one of r|w then R|P|O");
  }
  // A piece: a read's, '/' then 1 to 1048576 bytes in at most 7 digits.
  for (const char* flags : {"wR/64", "rP/", "rP/0", "rP/x4", "rP/64x", "rP/1048577", "rP/99999999", "rP/-1", "rP//64"}) {
    SCOPED_TRACE(flags);
    EXPECT_REFUSED(one_tile(std::string("0 0 64 0 1 ") + flags), "is not a read's piece");
  }
  // A span cut short (no flags) is a malformed span.
  EXPECT_REFUSED(one_tile("0 0 64 0 1"), "expected 'BUFFER OFFSET BYTES STRIDE COUNT FLAGS'");
  EXPECT_REFUSED(one_tile("0 0 -64 0 1 rR"), "expected 'BUFFER OFFSET BYTES STRIDE COUNT FLAGS'");
  // More fields than spans announced.
  EXPECT_REFUSED(one_tile("0 0 64 0 1 rR 0 0 64 0 1 rR"), "tile 0 has more fields than its 1 spans");
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 1) + "t 0\n" + kSummary, "a tile line needs 't ID SPANS'");
}

TEST(Footprint, RefusesAnEmptySpan) {
  EXPECT_REFUSED(one_tile("0 0 0 0 1 rR"), "span 0 of tile 0 is empty");
  EXPECT_REFUSED(one_tile("0 0 64 64 0 rR"), "span 0 of tile 0 is empty");
}

TEST(Footprint, RefusesASpanLeavingItsBuffer) {
  EXPECT_REFUSED(one_tile("0 4033 64 0 1 rR"), "leaves buffer 'A' of 4096 bytes");  // 4033 + 64 = 4097
  EXPECT_REFUSED(one_tile("0 0 4097 0 1 rR"), "leaves buffer 'A' of 4096 bytes");
  EXPECT_REFUSED(one_tile("0 0 64 1024 5 rR"), "leaves buffer 'A'");  // last run 4096..4160
  EXPECT_REFUSED(one_tile("0 99999999999 64 0 1 rR"), "leaves buffer 'A'");
  // Exactly to the end is inside.
  EXPECT_TRUE(parse_footprint(one_tile("0 0 64 1008 5 rR"), "k.hip"));  // 4 * 1008 + 64 = 4096
}

TEST(Footprint, RefusesSpansWhoseEndWouldWrapSixtyFourBits) {
  // A buffer of 2^64 - 1 bytes: every span below would pass a check done in wrapping
  // 64-bit arithmetic (offset + (count - 1) * stride + bytes wraps to a small number).
  const std::string huge = R"({"buffers":[{"name":"H","bytes":18446744073709551615}]})"
                           "\n";
  auto text = [&](const std::string& span) { return huge + header(0, 1, 1) + "t 0 1 " + span + "\n" + kSummary; };
  // 2^62 + 4 * 2^62 + 4096 = 2^64 + 2^62 + 4096: wraps to 2^62 + 4096.
  EXPECT_REFUSED(text("0 4611686018427387904 4096 4611686018427387904 5 rR"), "leaves buffer 'H'");
  // (count - 1) * stride = 2^62 * 4 = 2^64 would wrap to 0; the run cap refuses it first.
  EXPECT_REFUSED(text("0 0 4 4 4611686018427387905 rR"), "runs (at most 16777216)");
  // Within the run cap, a stride that makes (count - 1) * stride wrap: 2^24 runs every 2^44.
  EXPECT_REFUSED(text("0 0 4 17592186044416 16777216 rR"), "leaves buffer 'H'");
  // 2 * (2^63 - 1) + 4 = 2^64 + 2: wraps to 2.
  EXPECT_REFUSED(text("0 0 4 9223372036854775807 3 wR"), "leaves buffer 'H'");
  // The largest offset + bytes the parser can read (2 * (2^63 - 1) = 2^64 - 2) fits: no
  // false refusal near the top either.
  EXPECT_TRUE(parse_footprint(text("0 9223372036854775807 9223372036854775807 0 1 rR"), "k.hip"));
  // Numbers of 2^63 and more are not numbers to the parser.
  EXPECT_REFUSED(text("0 9223372036854775808 4 0 1 rR"), "expected 'BUFFER OFFSET BYTES STRIDE COUNT FLAGS'");
  EXPECT_REFUSED(text("0 0 4 4 99999999999999999999 rR"), "expected 'BUFFER OFFSET BYTES STRIDE COUNT FLAGS'");
  // A large span that fits is fine (and its total does not wrap): 2^24 runs every 2^39 bytes.
  auto r = parse_footprint(text("0 0 4 549755813888 16777216 rR"), "k.hip");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->launches[0].spans[0].end(), 549755813888ull * 16777215ull + 4);
}

TEST(Footprint, RefusesASelfOverlappingStride) {
  EXPECT_REFUSED(one_tile("0 0 256 128 2 rR"), "overlaps itself");
  EXPECT_REFUSED(one_tile("0 0 256 0 2 rR"), "overlaps itself");
  EXPECT_TRUE(parse_footprint(one_tile("0 0 256 256 2 rR"), "k.hip"));  // stride == bytes: contiguous, fine
}

TEST(Footprint, EnforcesItsLimits) {
  FootprintLimits per_tile;
  per_tile.max_spans_per_tile = 2;
  const std::string three = one_tile("0 0 64 0 1 rR 0 64 64 0 1 rR 0 128 64 0 1 rR", 3);
  EXPECT_TRUE(parse_footprint(three, "k.hip"));
  EXPECT_NE(parse_error(three, per_tile).find("3 spans in one tile (at most 2)"), std::string::npos) << parse_error(three, per_tile);
  // A count beyond the limit is refused before anything is read or reserved.
  EXPECT_REFUSED(one_tile("0 0 64 0 1 rR", 1000000000), "1000000000 spans in one tile (at most 4096)");

  FootprintLimits total;
  total.max_spans = 2;
  const std::string two_tiles =
      std::string(kBuffers) + header(0, 1, 2) + "t 0 2 0 0 64 0 1 rR 0 64 64 0 1 rR\nt 1 1 0 0 64 0 1 rR\n" + kSummary;
  EXPECT_NE(parse_error(two_tiles, total).find("more than 2 spans in all"), std::string::npos) << parse_error(two_tiles, total);

  FootprintLimits tiles;
  tiles.max_tiles_per_launch = 1;
  EXPECT_NE(parse_error(two_tiles, tiles).find("launch 0: 2 tiles (the model takes at most 1)"), std::string::npos)
      << parse_error(two_tiles, tiles);

  FootprintLimits launches;
  launches.max_launches = 1;
  const std::string two_launches = std::string(kBuffers) + header(0, 1, 1) + "t 0 1 0 0 64 0 1 rR\n" + header(1, 1, 1) +
                                   "t 0 1 0 0 64 0 1 rR\n" + kSummary;
  EXPECT_TRUE(parse_footprint(two_launches, "k.hip"));
  EXPECT_NE(parse_error(two_launches, launches).find("more than 1 launches"), std::string::npos)
      << parse_error(two_launches, launches);
}

TEST(Footprint, RefusesEmptyAndOversizedGrids) {
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 0, 2, 0) + kSummary, "grid 0x2 is empty or has 2^32 tiles or more");
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 3, 0, 0) + kSummary, "grid 3x0 is empty");
  // 65536 x 65536 = 2^32 pids: one too many.
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 65536, 65536) + kSummary, "grid 65536x65536 is empty or has 2^32 tiles or more");
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 4294967296ull, 1) + kSummary, "has 2^32 tiles or more");
  // Sides that would wrap their product are refused, not multiplied.
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 4294967296ull, 4294967296ull, 0) + kSummary, "has 2^32 tiles or more");
  // The largest grid is accepted by the grid rule and refused by the tile limit.
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 4294967295ull, 1) + kSummary, "(the model takes at most 16777216)");
}

// `predict --size 1e9,1e9,1e9` once listed tiles for 60 s before "over 512 MB": the headers
// of a `--tiles 0:0` run (no tile lines) are enough to refuse such a grid.
TEST(Footprint, HeadersAloneRefuseAGridTheModelCannotTake) {
  const std::string huge = std::string(kBuffers) + header(0, 1, 2, 0) + header(1, 15625000, 15625000, 0) + kSummary;
  auto st = check_footprint_grids(huge, "gemm.hip");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "gemm.hip's footprint: line 3: launch 1: grid 15625000x15625000 is empty or has 2^32 tiles or more");
  auto many = check_footprint_grids(std::string(kBuffers) + header(0, 8192, 8192, 0) + kSummary, "gemm.hip");
  ASSERT_FALSE(many);
  EXPECT_NE(many.error().message.find("launch 0: 67108864 tiles (the model takes at most 16777216)"), std::string::npos)
      << many.error().message;
  // Grids the model takes pass; anything else (the program's own error) is parse_footprint's to report.
  EXPECT_TRUE(check_footprint_grids(std::string(kBuffers) + header(0, 64, 64, 0) + kSummary, "gemm.hip"));
  EXPECT_TRUE(check_footprint_grids("{\"error\":\"--size: expected 3 values\"}\nnot json\n", "gemm.hip"));
}

TEST(Footprint, RefusesATileCountOtherThanTheGrids) {
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 2, 3) + kSummary, "launch 0: 3 tiles listed for a 1x2 grid (all tiles are needed)");
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 2, 2, 1) + kSummary, "1 tiles listed for a 2x2 grid");
  EXPECT_REFUSED(std::string(kBuffers) + R"({"launch":0,"grid":{"m":1,"n":1}})" + "\n" + kSummary,
                 "a launch header needs launch, grid {m, n} and tiles");
  EXPECT_REFUSED(std::string(kBuffers) + R"({"launch":0,"grid":{"m":1,"n":1},"tiles":1,"block":{"threads":1}})" + "\n" + kSummary,
                 "block needs threads, shared_bytes and registers");
}

TEST(Footprint, RefusesTextAfterTheSummary) {
  EXPECT_REFUSED(one_tile("0 0 64 0 1 rR") + "t 1 1 0 0 64 0 1 rR\n", "text after the summary line");
  EXPECT_REFUSED(one_tile("0 0 64 0 1 rR") + kSummary, "text after the summary line");
  // Trailing blank lines are not text.
  EXPECT_TRUE(parse_footprint(one_tile("0 0 64 0 1 rR") + "\n\n", "k.hip"));
}

TEST(Footprint, RefusesOutputCutShort) {
  const std::string full = one_tile("0 0 64 0 1 rR");
  const std::string cut = full.substr(0, full.size() - std::string(kSummary).size());
  EXPECT_REFUSED(cut, "no summary line (the output is cut short)");
  EXPECT_REFUSED("", "no summary line");
  // Cut in the middle of a tile line.
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 1) + "t 0 1 0 0 6", "expected 'BUFFER OFFSET BYTES STRIDE COUNT FLAGS'");
  // A summary with no launch before it.
  EXPECT_REFUSED(std::string(kBuffers) + kSummary, "lists no launch");
  EXPECT_REFUSED(std::string(kBuffers) + R"({"mode":"footprint","launches":1})" + "\n", "the summary line lacks size");
}

TEST(Footprint, ReportsTheProgramsOwnErrorLine) {
  const std::string text = std::string(R"({"mode":"footprint","error":"--size: expected 3 values, got 2"})") + "\n";
  const std::string msg = parse_error(text);
  EXPECT_NE(msg.find("the program says: --size: expected 3 values, got 2"), std::string::npos) << msg;
  // Even after good lines.
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 2) + "t 0 1 0 0 64 0 1 rR\n" +
                     R"({"mode":"footprint","error":"tile 1 names buffer 7 of 2"})" + "\n",
                 "the program says: tile 1 names buffer 7 of 2");
}

TEST(Footprint, RefusesGarbage) {
  EXPECT_REFUSED("hello world\n", "neither a tile line nor a JSON line");
  EXPECT_REFUSED("{not json\n", "not a JSON object");
  EXPECT_REFUSED("{\"a\":1} trailing\n", "not a JSON object");
  EXPECT_REFUSED(std::string(kBuffers) + "t\n", "neither a tile line nor a JSON line");
  EXPECT_REFUSED(std::string(kBuffers) + "tt 0 1\n", "neither a tile line nor a JSON line");
  EXPECT_REFUSED(std::string("\0\x01\xff", 3), "neither a tile line nor a JSON line");
}

TEST(Footprint, AOneMegabyteLineIsRefusedQuickly) {
  const std::size_t mb = 1u << 20;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_REFUSED(std::string(mb, 'x'), "neither a tile line nor a JSON line");
  // JSON nested a million deep: nlohmann parses it without recursion; it is no header.
  EXPECT_REFUSED("{\"a\":" + std::string(mb, '['), "not a JSON object");
  // A huge number in a tile line, a tile line of blanks, a header padded with blanks.
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 1) + "t 0 1 0 " + std::string(mb, '9') + " 64 0 1 rR\n" + kSummary,
                 "expected 'BUFFER OFFSET BYTES STRIDE COUNT FLAGS'");
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 1) + "t" + std::string(mb, ' ') + "\n" + kSummary,
                 "a tile line needs 't ID SPANS'");
  // A 1 MB tile line that is valid: 20000 spans, over the per-tile limit.
  std::string spans;
  for (int i = 0; i < 20000; ++i) spans += " 0 0 64 0 1 rR";
  EXPECT_REFUSED(std::string(kBuffers) + header(0, 1, 1) + "t 0 20000" + spans + "\n" + kSummary,
                 "20000 spans in one tile (at most 4096)");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // 0.4 s here in Release, 1.1 s with ASan + UBSan (1.9 s on CI's cores).
  EXPECT_LT(s, test::time_limit(1.5)) << "parsing 1 MB lines took " << s << " s";
}

// The parser treats '\r' as a blank (a lone "\r" line is skipped, numbers skip it), so a
// program that ends its lines with "\r\n" should parse.
// BUG (src/model/footprint.cpp, Cursor::word): word() stops only at ' ' and '\t', so the
// last span's flags on a CRLF line read "rR\r" and the tile is refused with
// "flags 'rR\r' are not one of r|w then R|P|O". This test fails until word() also stops
// at '\r'.
TEST(Footprint, CrlfLineEndingsAreAccepted) {
  std::string text = one_tile("0 0 64 0 1 rR");
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto r = parse_footprint(crlf, "k.hip");
  EXPECT_TRUE(r) << r.error().message;
}

// ---- union_bytes -------------------------------------------------------------------

LaunchFootprint one_tile_launch(std::initializer_list<FootprintSpan> spans) {
  test::LaunchBuilder b({1, 1});
  b.tile();
  for (const auto& s : spans) {
    if (s.write) b.write(s.buffer, s.offset, s.bytes, s.stride, s.count, s.walk);
    else b.read(s.buffer, s.offset, s.bytes, s.stride, s.count, s.walk);
  }
  return b.build();
}

FootprintSpan span(std::uint32_t buffer, std::uint64_t offset, std::uint64_t bytes, std::uint64_t stride = 0,
                   std::uint64_t count = 1, bool write = false) {
  FootprintSpan s;
  s.buffer = buffer;
  s.offset = offset;
  s.bytes = bytes;
  s.stride = stride;
  s.count = count;
  s.write = write;
  return s;
}

TEST(FootprintUnion, ContiguousSpans) {
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 1000)}), 1), 1000u);
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 24, 1000)}), 1), 1000u);
  // Runs that touch (stride == bytes) are one contiguous range.
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 10, 10, 5)}), 1), 50u);
  // Adjacent spans add up; a contained one adds nothing.
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 100), span(0, 100, 100)}), 1), 200u);
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 1000), span(0, 100, 100)}), 1), 1000u);
}

TEST(FootprintUnion, OverlappingSpans) {
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 100), span(0, 50, 100)}), 1), 150u);
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 50, 100), span(0, 0, 100)}), 1), 150u);  // order does not matter
  // Reads and writes of the same bytes count once.
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 100), span(0, 0, 100, 0, 1, true)}), 1), 100u);
  // A range that overlaps two earlier disjoint ones.
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 10), span(0, 20, 10), span(0, 5, 20)}), 1), 30u);
}

TEST(FootprintUnion, StridedSpans) {
  // 5 runs of 10 bytes every 100: 50 bytes.
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 10, 100, 5)}), 1), 50u);
  // The same shifted by 5: runs [100i, 100i + 15): 75 bytes.
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 10, 100, 5), span(0, 5, 10, 100, 5)}), 1), 75u);
  // Interleaved columns fill the rows: [0, 20) [100, 120) ...
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 10, 100, 3), span(0, 10, 10, 100, 3)}), 1), 60u);
  // A strided span and a contiguous one covering its first two runs: [0, 150) + run 2 = 160.
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 10, 100, 3), span(0, 0, 150)}), 1), 160u);
}

TEST(FootprintUnion, BuffersAreSeparateAndUnknownOnesIgnored) {
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 100), span(1, 0, 100)}), 2), 200u);
  EXPECT_EQ(union_bytes(one_tile_launch({span(0, 0, 100), span(1, 0, 100)}), 1), 100u);  // buffer 1 not counted
}

TEST(FootprintUnion, AcrossTilesOfAGemm) {
  // Every tile reads its A and B panels and writes its C block: the union is A + B + C.
  for (auto [tm, tn] : {std::pair{1u, 1u}, std::pair{3u, 5u}, std::pair{8u, 2u}}) {
    test::GemmShape s;
    s.tiles_m = tm;
    s.tiles_n = tn;
    s.k = 40;
    const ProgramFootprint fp = test::gemm_like_footprint(s);
    EXPECT_EQ(union_bytes(fp.launches[0], fp.buffers.size()), test::gemm_like_bytes(s)) << tm << "x" << tn;
  }
}

}  // namespace
}  // namespace swz
