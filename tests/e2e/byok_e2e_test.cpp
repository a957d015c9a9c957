// End-to-end: bring your own kernel. examples/byok/ holds three kernels written the way
// users write them, with a main() that launches them (a 3x3 blur in CUDA on a 2-D grid of
// 16x16 blocks; a tiled transpose in HIP launched with hipLaunchKernelGGL on a 2-D grid; an
// SGEMM launched with dim3 grid(N / BN, M / BM)). For each:
//  1. `swizzleperf init` writes X_swz.<ext> beside a copy of it;
//  2. examples/byok/X.fill, which holds only what replaces each swizzleperf:TODO, is
//     applied: a section "@@ N" replaces N lines from the next TODO line on;
//  3. the result must equal the committed examples/byok/X_swz.<ext> byte for byte (so
//     init's output and the count of hand-written lines stay what the docs say);
//  4. `check --strict` passes: with the info build when nvcc is there, and the source and
//     mapping checks alone (--no-build) everywhere;
//  5. it builds for sm_90 with nvcc, and for gfx940 with hipcc when it is a HIP program.
// Then the bad ports a GPU-less machine must catch, planted in the finished blur: a halo
// load that still reads blockIdx.y, and a default-grid comment the program disagrees with
// (with the real nvcc when present; with the fake one, which can play the disagreement,
// everywhere).
#include <gtest/gtest.h>
#include <unistd.h>

#include <ostream>
#include <sstream>

#include "support/fixtures.h"

namespace swz::test {
namespace {

struct Example {
  std::string stem;  // "blur"
  std::string ext;   // ".cu"
};

void PrintTo(const Example& e, std::ostream* os) { *os << e.stem << e.ext; }

const Example kExamples[] = {{"blur", ".cu"}, {"transpose", ".hip"}, {"gemm", ".cu"}};

fs::path byok(const std::string& file) { return source_dir() / "examples" / "byok" / file; }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

struct Filled {
  std::string text;
  std::size_t todos = 0;        // TODO lines in init's output
  std::size_t hand_lines = 0;   // lines the fill file writes
};

// Applies a fill file to init's output (see the file comment). Fails the test on a fill
// that does not fit (more sections than TODOs, a section past the end).
Filled apply_fill(const std::string& generated, const std::string& fill) {
  Filled f;
  const auto lines = split_lines(generated);
  std::vector<std::size_t> todo_lines;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find("swizzleperf:TODO") != std::string::npos) todo_lines.push_back(i);
  f.todos = todo_lines.size();
  struct Section {
    std::size_t replace = 0;
    std::vector<std::string> body;
  };
  std::vector<Section> sections;
  for (const auto& l : split_lines(fill)) {
    if (l.rfind("#", 0) == 0 && sections.empty()) continue;  // the file's own comment
    if (l.rfind("@@ ", 0) == 0) {
      sections.push_back({static_cast<std::size_t>(std::stoul(l.substr(3))), {}});
      continue;
    }
    if (sections.empty()) {
      ADD_FAILURE() << "fill text before the first @@ section: " << l;
      return f;
    }
    sections.back().body.push_back(l);
  }
  EXPECT_EQ(sections.size(), todo_lines.size()) << "one fill section per swizzleperf:TODO";
  std::vector<std::string> out;
  std::size_t next = 0;
  for (std::size_t s = 0; s < sections.size() && s < todo_lines.size(); ++s) {
    const std::size_t at = todo_lines[s];
    EXPECT_GE(at, next) << "section " << s << " overlaps the one before";
    for (; next < at; ++next) out.push_back(lines[next]);
    out.insert(out.end(), sections[s].body.begin(), sections[s].body.end());
    f.hand_lines += sections[s].body.size();
    next = at + sections[s].replace;
    EXPECT_LE(next, lines.size());
  }
  for (; next < lines.size(); ++next) out.push_back(lines[next]);
  f.text = join_lines(out);
  return f;
}


class Byok : public ::testing::TestWithParam<Example> {};

// init + fill = the committed program; the TODOs and hand-written lines are counted.
TEST_P(Byok, InitThenFillGivesTheCommittedProgram) {
  const Example e = GetParam();
  TempDir tmp;
  const fs::path input = tmp / (e.stem + e.ext);
  fs::copy_file(byok(e.stem + e.ext), input);
  auto r = run_cli({"init", input.string()}, tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path out = tmp / (e.stem + "_swz" + e.ext);
  ASSERT_TRUE(fs::exists(out)) << r.out;
  EXPECT_TRUE(has(r.out, "check --strict")) << r.out;
  EXPECT_EQ(read_text(input), read_text(byok(e.stem + e.ext))) << "init must not touch its input";
  const Filled f = apply_fill(read_text(out), read_text(byok(e.stem + ".fill")));
  EXPECT_EQ(f.text, read_text(byok(e.stem + "_swz" + e.ext)))
      << "init's output + " << e.stem << ".fill differs from the committed " << e.stem << "_swz" << e.ext;
  EXPECT_LE(f.hand_lines, 40u);
  std::printf("[ byok ] %s%s: %zu swizzleperf:TODO, %zu lines written by hand\n", e.stem.c_str(), e.ext.c_str(), f.todos,
              f.hand_lines);
}

TEST_P(Byok, FinishedProgramPassesStrictCheckWithoutABuild) {
  const Example e = GetParam();
  auto r = run_cli({"check", "--strict", "--no-build", "--arch", "sm_90", byok(e.stem + "_swz" + e.ext).string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "PASS")) << r.out;
}

TEST_P(Byok, FinishedProgramPassesStrictCheckWithTheInfoBuild) {
  const Example e = GetParam();
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  auto r = run_cli({"check", "--strict", "--arch", "sm_90", byok(e.stem + "_swz" + e.ext).string()}, {}, {}, 300);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "built for info with nvcc")) << r.out;
}

TEST_P(Byok, FinishedProgramBuildsForSm90) {
  const Example e = GetParam();
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  TempDir tmp;
  auto r = run_cli({"build", byok(e.stem + "_swz" + e.ext).string(), "--backend", "cuda", "--arch", "sm_90", "-o",
                    (tmp / "prog").string()},
                   {}, {}, 600);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_P(Byok, FinishedHipProgramBuildsForGfx940) {
  const Example e = GetParam();
  if (e.ext != ".hip") GTEST_SKIP() << "a CUDA program: the AMD route is hipify (docs/kernel-contract.md)";
  if (hipcc_path().empty()) GTEST_SKIP() << "hipcc not found on PATH or in /opt/rocm/bin";
  TempDir tmp;
  auto r = run_cli({"build", byok(e.stem + "_swz" + e.ext).string(), "--backend", "hip", "--arch", "gfx940", "-o",
                    (tmp / "prog").string()},
                   {}, {}, 600);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

INSTANTIATE_TEST_SUITE_P(Examples, Byok, ::testing::ValuesIn(kExamples),
                         [](const ::testing::TestParamInfo<Example>& i) { return i.param.stem; });

// ---- bad ports ------------------------------------------------------------------------

// The finished blur with one edit: `from` (which must occur) replaced by `to`.
fs::path planted_blur(const TempDir& tmp, const std::string& from, const std::string& to) {
  std::string text = read_text(byok("blur_swz.cu"));
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  const fs::path p = tmp / "blur_swz.cu";
  write_text(p, text);
  return p;
}

// The finished blur's default-grid comment line ("" when it has none).
std::string blur_default_grid_line() {
  for (const auto& l : split_lines(read_text(byok("blur_swz.cu"))))
    if (l.rfind("// swizzleperf:default-grid ", 0) == 0) return l;
  return std::string();
}

TEST(ByokBadPort, LeftoverBlockIdxYIsAWarningAndFailsStrict) {
  TempDir tmp;
  const fs::path p = planted_blur(tmp, "swz_block_idx.y * blockDim.y", "blockIdx.y * blockDim.y");
  const std::string line = std::to_string([&] {
    const auto lines = split_lines(read_text(p));
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].find("blockIdx.y * blockDim.y") != std::string::npos) return i + 1;
    return std::size_t{0};
  }());
  auto loose = run_cli({"check", "--no-build", "--arch", "sm_90", p.string()});
  EXPECT_EQ(loose.exit_code, 0) << loose.out << loose.err;
  EXPECT_TRUE(has(loose.out, "blur_swz.cu:" + line + ": warning: blockIdx.y does not go through swizzle_pid")) << loose.out;
  auto strict = run_cli({"check", "--strict", "--no-build", "--arch", "sm_90", p.string()});
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
  EXPECT_TRUE(has(strict.out, "FAIL")) << strict.out;
  EXPECT_TRUE(has(strict.out, "blur_swz.cu:" + line + ": error: blockIdx.y")) << strict.out;
}

TEST(ByokBadPort, DefaultGridThatDisagreesWithInfoFailsWithTheRealNvcc) {
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  TempDir tmp;
  const std::string comment = blur_default_grid_line();
  ASSERT_FALSE(comment.empty());
  const fs::path p = planted_blur(tmp, comment, "// swizzleperf:default-grid 64x4096");
  auto r = run_cli({"check", "--arch", "sm_90", p.string()}, {}, {}, 300);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "the default-grid comment says 64x4096 but the program's info says")) << r.out;
}

TEST(ByokBadPort, DefaultGridThatDisagreesWithInfoFailsWithTheFakeNvcc) {
  TempDir tmp;
  const fs::path p = copy_kernel(tmp, "gemm");
  auto ok = run_cli({"check", "--arch", "sm_90", "--nvcc", (fake_dir() / "fake_nvcc").string(), p.string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_TRUE(has(ok.out, "built for info with nvcc")) << ok.out;
  auto bad = run_cli({"check", "--arch", "sm_90", "--nvcc", (fake_dir() / "fake_nvcc").string(), p.string()}, {},
                     {"SWZ_FAKE_INFO_GRID=64x4096"});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_TRUE(has(bad.out, "but the program's info says 64x4096")) << bad.out;
}

// Issue 39 row 2: three wrong ports of the finished blur. A wrong reference passes every host
// check, and check says so; a 2-D launch left in run() and a swapped launch_grid do not.

// The 1-based line of the first line of `p` holding `what` (0: none).
std::size_t byok_line_of(const fs::path& p, const std::string& what) {
  const auto lines = split_lines(read_text(p));
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(what) != std::string::npos) return i + 1;
  return 0;
}

TEST(ByokBadPort, AWrongReferencePassesAndCheckSaysOnlyVerifyOnAGpuCatchesIt) {
  TempDir tmp;
  const fs::path p = planted_blur(tmp, "/ 9.0;", "/ 8.0;");
  auto r = run_cli({"check", "--strict", "--no-build", "--arch", "sm_90", p.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto lines = split_lines(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(has(r.out, "PASS")) << r.out;
  EXPECT_EQ(lines.back(), "not checked without a GPU: the CPU reference and the kernel's arithmetic (a wrong reference, a "
                          "wrong result); only the program's verify on a GPU shows those (optimize runs it first)")
      << r.out;
}

TEST(ByokBadPort, A2DLaunchLeftInRunIsAWarningAndFailsStrict) {
  TempDir tmp;
  const fs::path p = planted_blur(tmp, "blur3x3<<<swz_flat_grid(grid), block>>>", "blur3x3<<<grid, block>>>");
  const std::string line = std::to_string(byok_line_of(p, "    blur3x3<<<grid, block>>>"));
  auto loose = run_cli({"check", "--no-build", "--arch", "sm_90", p.string()});
  EXPECT_EQ(loose.exit_code, 0) << loose.out << loose.err;
  EXPECT_TRUE(has(loose.out, "blur_swz.cu:" + line + ": warning: run() launches blur3x3 on the grid 'grid', not on swz_flat_grid"))
      << loose.out;
  auto strict = run_cli({"check", "--strict", "--no-build", "--arch", "sm_90", p.string()});
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
  EXPECT_TRUE(has(strict.out, "blur_swz.cu:" + line + ": error: run() launches blur3x3")) << strict.out;
  EXPECT_FALSE(has(strict.out, "not checked without a GPU")) << strict.out;  // said under a PASS only
}

TEST(ByokBadPort, ALaunchGridWithXAndYSwappedFailsWithTheRealNvcc) {
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  TempDir tmp;
  const fs::path p = planted_blur(tmp, "dim3((s[0] + 15) / 16, (s[1] + 15) / 16)", "dim3((s[1] + 15) / 16, (s[0] + 15) / 16)");
  const std::string line = std::to_string(byok_line_of(p, "dim3 launch_grid("));
  auto r = run_cli({"check", "--strict", "--arch", "sm_90", p.string()}, {}, {}, 300);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "blur_swz.cu:" + line + ": error: launch_grid looks swapped: blur3x3 bounds its x block index by w "
                         "(size value 1), yet at size [4096,8192] (value 1 halved) info's grid is 256x512 against 512x512"))
      << r.out;
}

// CUDA as written builds with nvcc only: the hip backend names the first CUDA-runtime use
// and the hipify route in one line, before hipcc runs.
TEST(ByokCuda, ACudaProgramOnTheHipBackendSaysToHipifyIt) {
  if (hipcc_path().empty()) GTEST_SKIP() << "hipcc not found on PATH or in /opt/rocm/bin (build's preflight needs it)";
  TempDir tmp;
  auto r = run_cli({"build", byok("blur_swz.cu").string(), "--backend", "hip", "--arch", "gfx940", "-o", (tmp / "prog").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "blur_swz.cu:9 uses the CUDA runtime (include <cuda_runtime.h>)")) << r.err;
  EXPECT_TRUE(has(r.err, "hipify-perl blur_swz.cu > blur_swz.hip")) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "prog"));
}

// With no comment and no build, there is no grid to check the region on: one line, exit 2.
TEST(ByokBadPort, NoDefaultGridAndNoBuildIsRefusedWithTheReason) {
  TempDir tmp;
  const std::string from = blur_default_grid_line();
  ASSERT_FALSE(from.empty());
  const fs::path p = planted_blur(tmp, from, "// (no grid comment)");
  auto r = run_cli({"check", "--no-build", p.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "swizzleperf: error: " + p.string() +
                             " has no '// swizzleperf:default-grid MxN' comment and is not built here (--no-build): pass --grid MxN"))
      << r.err;
}

TEST(ByokBadPort, TodoLeftFailsCheckAndIsRefusedByTheRunCommands) {
  TempDir tmp;
  const fs::path input = tmp / "blur.cu";
  fs::copy_file(byok("blur.cu"), input);
  ASSERT_EQ(run_cli({"init", input.string()}, tmp.path()).exit_code, 0);
  const fs::path out = tmp / "blur_swz.cu";
  auto c = run_cli({"check", "--no-build", "--grid", "8x8", "--arch", "sm_90", out.string()});
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_TRUE(has(c.out, ": error: swizzleperf:TODO left")) << c.out;
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"optimize", out.string()}, std::vector<std::string>{"build", out.string()},
        std::vector<std::string>{"gate", out.string()}}) {
    auto r = run_cli(cmd, tmp.path());
    EXPECT_EQ(r.exit_code, 2) << cmd[0] << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.err, "swizzleperf: error: ")) << r.err;
    EXPECT_TRUE(has(r.err, "swizzleperf:TODO left to fill in")) << cmd[0] << ": " << r.err;
  }
}

}  // namespace
}  // namespace swz::test
