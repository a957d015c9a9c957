// Tests of loop/output_check: the host digest (the harness's algorithm), chunk files,
// and the compare stage driven through the real CUDA backend and the fake nvcc, whose
// emulator implements the harness's hash and compare modes.
#include "swizzleperf/loop/output_check.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "support/fixtures.h"
#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/core/history.h"

namespace swz {
namespace {

TEST(OutputDigest, DependsOnEveryByteItsPositionAndTheLength) {
  std::string a(1000, '\0');
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<char>(i * 7);
  const auto d = digest_bytes(a, 256);
  EXPECT_EQ(d.hash.size(), 16u);
  EXPECT_EQ(d.chunks.size(), 4u);  // 256, 256, 256, 232 bytes
  EXPECT_EQ(digest_bytes(a, 256).hash, d.hash);
  for (size_t pos : {size_t{0}, size_t{255}, size_t{256}, size_t{999}}) {
    std::string b = a;
    b[pos] ^= 0x01;
    const auto e = digest_bytes(b, 256);
    EXPECT_NE(e.hash, d.hash) << pos;
    EXPECT_EQ(first_differing_chunk(d.chunks, e.chunks), pos / 256) << pos;
  }
  // Swapping two 8-byte words changes it (terms are positional), as does a zero tail.
  std::string swapped = a;
  std::memcpy(swapped.data(), a.data() + 8, 8);
  std::memcpy(swapped.data() + 8, a.data(), 8);
  EXPECT_NE(digest_bytes(swapped, 256).hash, d.hash);
  EXPECT_NE(digest_bytes(a + std::string(1, '\0'), 256).hash, d.hash);
  EXPECT_NE(digest_bytes("", 256).hash, digest_bytes(std::string(8, '\0'), 256).hash);
  EXPECT_TRUE(digest_bytes("", 256).chunks.empty());
}

TEST(OutputDigest, ChunkFilesAndFirstDifference) {
  test::TempDir tmp;
  test::write_text(tmp / "c.txt", "0123456789abcdef\nffffffffffffffff\n");
  auto c = read_chunk_digests(tmp / "c.txt");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(*c, (std::vector<std::uint64_t>{0x0123456789abcdefull, ~0ull}));
  test::write_text(tmp / "bad.txt", "0123456789abcdef\nnot a digest\n");
  auto bad = read_chunk_digests(tmp / "bad.txt");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 2"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(read_chunk_digests(tmp / "missing.txt"));
  EXPECT_EQ(first_differing_chunk({1, 2, 3}, {1, 2, 3}), std::nullopt);
  EXPECT_EQ(first_differing_chunk({1, 2, 3}, {1, 5, 3}), 1u);
  EXPECT_EQ(first_differing_chunk({1, 2}, {1, 2, 3}), 2u);
}

// The stage end to end at the process seam: fake nvcc builds the programs.
class OutputCheckStage : public ::testing::Test {
 protected:
  void SetUp() override {
    tools.compiler = (test::fake_dir() / "fake_nvcc").string();
    tools.arch = "sm_90";
    backend = std::make_unique<CudaBackend>(runner, tools);
    fs::create_directories(tmp / "baseline");
  }
  fs::path build(const std::string& name, const std::string& body) {
    const auto dir = tmp / name;
    fs::create_directories(dir);
    test::write_text(dir / "kernel.hip",
                     "// swizzleperf:default-grid 16x16\n// swizzleperf:begin\n"
                     "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n" +
                         body + "\n}\n// swizzleperf:end\n");
    auto b = backend->build({dir / "kernel.hip", dir / "kernel", 2, "sm_90"});
    EXPECT_TRUE(b && b->ok) << (b ? b->log : b.error().message);
    return dir / "kernel";
  }
  RealProcessRunner runner;
  ToolOptions tools;
  std::unique_ptr<CudaBackend> backend;
  test::TempDir tmp;
};

TEST_F(OutputCheckStage, HashModeAcceptsEqualOutputsAndNamesTheChunkOfADifference) {
  const auto base = build("baseline", "  return pid;");
  OutputCheck check(*backend, {}, 0.0);
  ValidationRecord bv;
  auto rb = check.record_baseline(base, tmp / "baseline", bv);
  ASSERT_EQ(rb.kind, OutputCheckResult::Kind::ok) << rb.reason;
  ASSERT_TRUE(bv.output_check.has_value());
  ASSERT_EQ(bv.output_check->mode, "hash");
  EXPECT_FALSE(fs::exists(tmp / "baseline" / "output.bin"));
  // The device digest (emulated) equals the host digest of the dumped bytes.
  ASSERT_TRUE(backend->run_program(base, {"dump", (tmp / "b.bin").string()}, std::chrono::seconds(30)).process.success());
  auto bytes = read_file(tmp / "b.bin");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bv.output_check->hash, digest_bytes(*bytes, 256).hash);

  const auto reversed = build("rev", "  return num_pids - 1 - pid;");
  ValidationRecord v;
  auto ok = check.check_candidate(reversed, tmp / "rev", tmp / "baseline", bv.output_check, v);
  EXPECT_EQ(ok.kind, OutputCheckResult::Kind::ok) << ok.reason;
  EXPECT_FALSE(fs::exists(tmp / "rev" / "output.bin"));
  EXPECT_FALSE(fs::exists(tmp / "rev" / "chunks.txt"));

  const auto diff = build("diff", "  return num_pids - 1 - pid;  // SWZ_FAKE_DUMP_DIFF");
  ValidationRecord dv;
  auto bad = check.check_candidate(diff, tmp / "diff", tmp / "baseline", bv.output_check, dv);
  EXPECT_EQ(bad.kind, OutputCheckResult::Kind::mismatch);
  EXPECT_NE(bad.reason.find("first differing chunk 3 of 4 (bytes 768..1023)"), std::string::npos) << bad.reason;
  EXPECT_TRUE(fs::exists(tmp / "diff" / "output.bin"));
  EXPECT_NE(bad.reason.find((tmp / "diff" / "output.bin").string()), std::string::npos) << bad.reason;
}

TEST_F(OutputCheckStage, CompareModeUsesTheBaselineDumpAndTheTolerance) {
  const auto base = build("baseline", "  return pid;");
  const auto diff = build("diff", "  return num_pids - 1 - pid;  // SWZ_FAKE_DUMP_DIFF");
  ValidationRecord bv;
  OutputCheck loose(*backend, {}, 1e-6);
  ASSERT_EQ(loose.record_baseline(base, tmp / "baseline", bv).kind, OutputCheckResult::Kind::ok);
  ASSERT_TRUE(bv.output_check.has_value());
  EXPECT_EQ(bv.output_check->mode, "compare");
  EXPECT_TRUE(fs::exists(tmp / "baseline" / "output.bin"));
  ValidationRecord v;
  auto within = loose.check_candidate(diff, tmp / "diff", tmp / "baseline", bv.output_check, v);
  // The flipped bit changes one value (about -1e-23) by about 8e-31: inside max(1, |a|) * 1e-6.
  EXPECT_EQ(within.kind, OutputCheckResult::Kind::ok) << within.reason;
  EXPECT_FALSE(fs::exists(tmp / "diff" / "output.bin"));
  OutputCheck tight(*backend, {}, 0.0);  // the recorded mode (compare) decides, with tol 0
  auto beyond = tight.check_candidate(diff, tmp / "diff", tmp / "baseline", bv.output_check, v);
  EXPECT_EQ(beyond.kind, OutputCheckResult::Kind::mismatch);
  EXPECT_NE(beyond.reason.find("1 of 256 output values differ from the baseline's beyond rel tol 0 (first at index 255)"),
            std::string::npos)
      << beyond.reason;
  EXPECT_TRUE(fs::exists(tmp / "diff" / "output.bin"));
}

// evaluate mode: the arguments match the baseline's reference, and the output part
// of the program's one line is judged like the separate hash / compare modes.
TEST_F(OutputCheckStage, EvaluatePartsAreJudgedLikeTheSeparateModes) {
  const auto base = build("baseline", "  return pid;");
  const auto same = build("rev", "  return num_pids - 1 - pid;");
  const auto diff = build("diff", "  return num_pids - 1 - pid;  // SWZ_FAKE_DUMP_DIFF");
  auto evaluate = [&](const fs::path& exe, const std::vector<std::string>& extra) {
    std::vector<std::string> args{"evaluate", "--reps", "2", "--warmup", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return backend->run_program(exe, args, std::chrono::seconds(30));
  };
  // hash reference
  OutputCheck exact(*backend, {}, 0.0);
  ValidationRecord bv;
  ASSERT_EQ(exact.record_baseline(base, tmp / "baseline", bv).kind, OutputCheckResult::Kind::ok);
  auto args = exact.evaluate_args(tmp / "rev", tmp / "baseline", bv.output_check);
  ASSERT_TRUE(args);
  EXPECT_EQ(*args, (std::vector<std::string>{"--chunks", (tmp / "rev" / "chunks.txt").string()}));
  auto r = evaluate(same, *args);
  ASSERT_TRUE(r.process.success()) << r.process.err;
  ASSERT_TRUE(r.json.contains("hash") && r.json.contains("verify") && r.json.contains("time")) << r.json.dump();
  ValidationRecord v;
  EXPECT_EQ(exact.judge_evaluated(r.json["hash"], false, same, tmp / "rev", tmp / "baseline", bv.output_check, v).kind,
            OutputCheckResult::Kind::ok);
  EXPECT_FALSE(fs::exists(tmp / "rev" / "chunks.txt"));
  r = evaluate(diff, *exact.evaluate_args(tmp / "diff", tmp / "baseline", bv.output_check));
  ASSERT_TRUE(r.process.success()) << r.process.err;  // a digest is not judged on the device
  auto bad = exact.judge_evaluated(r.json["hash"], false, diff, tmp / "diff", tmp / "baseline", bv.output_check, v);
  EXPECT_EQ(bad.kind, OutputCheckResult::Kind::mismatch);
  EXPECT_NE(bad.reason.find("first differing chunk 3 of 4 (bytes 768..1023)"), std::string::npos) << bad.reason;
  EXPECT_TRUE(fs::exists(tmp / "diff" / "output.bin"));
  EXPECT_EQ(exact.judge_evaluated(nlohmann::json::object(), false, diff, tmp / "diff", tmp / "baseline", bv.output_check, v).kind,
            OutputCheckResult::Kind::run_failed);

  // compare reference (a dump), tolerance 0: the program itself says the values differ.
  fs::create_directories(tmp / "ref2");
  fs::remove(tmp / "diff" / "output.bin");
  OutputCheck tight(*backend, {}, 0.0);
  ValidationRecord cv;
  ASSERT_EQ(OutputCheck(*backend, {}, 1e-6).record_baseline(base, tmp / "ref2", cv).kind, OutputCheckResult::Kind::ok);
  auto cargs = tight.evaluate_args(tmp / "diff", tmp / "ref2", cv.output_check);
  ASSERT_TRUE(cargs);
  EXPECT_EQ(cargs->front(), "--baseline");
  r = evaluate(diff, *cargs);
  EXPECT_EQ(r.process.exit_code, 1);
  ASSERT_TRUE(r.json.contains("compare")) << r.json.dump();
  EXPECT_FALSE(r.json.contains("time"));  // stops at the first failing part
  auto beyond = tight.judge_evaluated(r.json["compare"], true, diff, tmp / "diff", tmp / "ref2", cv.output_check, v);
  EXPECT_EQ(beyond.kind, OutputCheckResult::Kind::mismatch);
  EXPECT_NE(beyond.reason.find("1 of 256 output values differ"), std::string::npos) << beyond.reason;

  // A plain-dump reference has no evaluate form.
  OutputReference dump_ref;
  dump_ref.mode = "dump";
  EXPECT_FALSE(tight.evaluate_args(tmp / "diff", tmp / "baseline", dump_ref));
  EXPECT_FALSE(tight.evaluate_args(tmp / "diff", tmp / "baseline", std::nullopt));
}

TEST_F(OutputCheckStage, AHistoryWithoutAnOutputCheckFallsBackToDumps) {
  const auto base = build("baseline", "  return pid;");
  ASSERT_TRUE(backend->run_program(base, {"dump", (tmp / "baseline" / "output.bin").string()}, std::chrono::seconds(30))
                  .process.success());
  const auto diff = build("diff", "  return num_pids - 1 - pid;  // SWZ_FAKE_DUMP_DIFF");
  OutputCheck check(*backend, {}, 0.0);
  ValidationRecord v;
  auto r = check.check_candidate(diff, tmp / "diff", tmp / "baseline", std::nullopt, v);
  EXPECT_EQ(r.kind, OutputCheckResult::Kind::mismatch);
  EXPECT_NE(r.reason.find("output bytes differ"), std::string::npos) << r.reason;
}

// compare_outputs: byte-exact, or float32 within a relative tolerance.

std::string floats(const std::vector<float>& v) {
  std::string s(v.size() * sizeof(float), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

class CompareOutputs : public ::testing::Test {
 protected:
  std::string cmp(const std::string& a, const std::string& b, double tol) {
    test::write_text(dir / "a.bin", a);
    test::write_text(dir / "b.bin", b);
    return compare_outputs(dir / "a.bin", dir / "b.bin", tol);
  }
  test::TempDir dir;
};

TEST_F(CompareOutputs, ByteExactEqual) {
  EXPECT_EQ(cmp("hello\0world", "hello\0world", 0), "");
  EXPECT_EQ(cmp("", "", 0), "");
  const std::string bin("\x00\x01\xff\x80", 4);
  EXPECT_EQ(cmp(bin, bin, 0), "");
}

TEST_F(CompareOutputs, ByteExactDiffer) {
  const std::string d = cmp("abcdefgh", "abXdefYh", 0);
  EXPECT_EQ(d, "2 of 8 output bytes differ from the baseline's (first at byte 2)");
}

TEST_F(CompareOutputs, SizesDiffer) {
  EXPECT_EQ(cmp("abcd", "abcdefgh", 0), "output sizes differ (4 vs 8 bytes)");
  EXPECT_EQ(cmp("abcd", "abcdefgh", 1e-3), "output sizes differ (4 vs 8 bytes)");
}

TEST_F(CompareOutputs, MissingFileIsNotEqualToAnExistingOne) {
  test::write_text(dir / "a.bin", "abcd");
  EXPECT_NE(compare_outputs(dir / "a.bin", dir / "missing.bin", 0), "");
}

TEST_F(CompareOutputs, ByteExactSeesTinyFloatDifferences) {
  EXPECT_NE(cmp(floats({1.0f, 2.0f}), floats({1.0f, std::nextafter(2.0f, 3.0f)}), 0), "");
}

TEST_F(CompareOutputs, FloatWithinRelativeTolerance) {
  EXPECT_EQ(cmp(floats({1000.0f, -2000.0f, 0.5f}), floats({1000.5f, -2000.9f, 0.5005f}), 1e-3), "");
}

TEST_F(CompareOutputs, FloatBeyondTolerance) {
  const std::string d = cmp(floats({1000.0f, 2.0f, 3.0f, 4.0f}), floats({1000.5f, 2.0f, 3.1f, 4.2f}), 1e-3);
  EXPECT_EQ(d, "2 of 4 output values differ from the baseline's beyond rel tol 0.001 (first at index 2)");
}

TEST_F(CompareOutputs, SmallValuesUseAnAbsoluteFloorOfOne) {
  // |a| < 1: the tolerance is absolute (tol * 1), so 1e-6 vs 5e-4 is within 1e-3.
  EXPECT_EQ(cmp(floats({1e-6f}), floats({5e-4f}), 1e-3), "");
  EXPECT_NE(cmp(floats({1e-6f}), floats({2e-3f}), 1e-3), "");
}

TEST_F(CompareOutputs, NanInTheCandidateIsADifference) {
  EXPECT_NE(cmp(floats({1.0f, 2.0f}), floats({1.0f, std::numeric_limits<float>::quiet_NaN()}), 1e-3), "");
}

TEST_F(CompareOutputs, IdenticalFilesAreEqualInToleranceModeEvenWithInfOrNan) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::string x = floats({1.0f, inf, -inf, nan});
  // inf - inf and NaN - NaN are NaN, which a plain <= test would call different.
  EXPECT_EQ(cmp(x, x, 1e-3), "");
}

TEST_F(CompareOutputs, ToleranceModeComparesTrailingBytes) {
  // 5 bytes: one float plus one byte that is not part of a whole float.
  const std::string a = floats({1.0f}) + "A", b = floats({1.0f}) + "B";
  EXPECT_NE(cmp(a, b, 1e-3), "");
}

}  // namespace
}  // namespace swz
