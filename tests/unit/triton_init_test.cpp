// core/triton_scan (the Python line and token scanner) and core/triton_init (`swizzleperf init
// kernel.py`'s writer): what each finds and writes, what is refused, and that 1 MB inputs,
// pathological ones included, are handled quickly.
#include <gtest/gtest.h>

#include <chrono>

#include "support/fixtures.h"
#include "support/timing.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/py_region.h"
#include "swizzleperf/core/triton_init.h"
#include "swizzleperf/core/triton_scan.h"

namespace swz::test {
namespace {

const std::string kTritonTiny =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n"
    "\n"
    "def add(x, y):\n"
    "    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)\n";

std::string grouped_fixture() { return read_text(fixture_path("triton_init/grouped_matmul.py")); }

std::size_t triton_count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

// ---- the scanner ---------------------------------------------------------------------------

TEST(TritonScan, LogicalLinesFollowBracketsContinuationsAndStrings) {
  const std::string t =
      "x = f(1,\n"
      "      2)  # (unclosed in a comment\n"
      "s = '''a ( [ { # not a comment\n"
      "still the string'''\n"
      "y = 1 + \\\n"
      "    2\n"
      "\n"
      "z = \"(\\\"\"  # 'quote\n";
  const PySource src(t);
  const auto& l = src.lines();
  ASSERT_EQ(l.size(), 5u);
  EXPECT_EQ(l[0].line, 1u);
  EXPECT_EQ(l[1].line, 3u);
  EXPECT_EQ(l[2].line, 5u);
  EXPECT_TRUE(l[3].blank);
  EXPECT_EQ(l[4].line, 8u);
  EXPECT_EQ(src.line_code(4), "z = \"(\\\"\"");
  // Comments are blanked in code(); string contents too in masked().
  EXPECT_EQ(src.code().find("unclosed"), std::string::npos);
  EXPECT_NE(src.code().find("not a comment"), std::string::npos);
  EXPECT_EQ(src.masked().find("not a comment"), std::string::npos);
  EXPECT_EQ(src.line_of(t.find("still")), 4u);
}

TEST(TritonScan, FindsJitFunctionsTheirParametersAndBodies) {
  const std::string t =
      "@triton.autotune(configs=[], key=['M'])\n"
      "@triton.jit(do_not_specialize=[\"M\"])\n"
      "def k1(a_ptr, M,\n"
      "       BLOCK_M: tl.constexpr = 64, *rest):\n"
      "    x = 1\n"
      "\n"
      "    # a comment at column 0 below:\n"
      "# here\n"
      "    return x\n"
      "\n"
      "@triton.jitter\n"
      "def not_jit(): pass\n"
      "@jit\n"
      "def k2(): pass\n"
      "def host():\n"
      "    pass\n";
  const PySource src(t);
  const auto& f = src.functions();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].name, "k1");
  EXPECT_TRUE(f[0].jit);
  EXPECT_TRUE(f[0].autotuned);
  EXPECT_EQ(f[0].line, 3u);
  EXPECT_EQ(f[0].params, (std::vector<std::string>{"a_ptr", "M", "BLOCK_M", "rest"}));
  EXPECT_EQ(src.lines()[f[0].end - 1].line, 9u);  // the comment at column 0 does not end the body
  EXPECT_EQ(src.lines()[f[0].first].line, 1u);
  EXPECT_EQ(f[1].name, "not_jit");
  EXPECT_FALSE(f[1].jit);
  EXPECT_TRUE(f[2].jit);
  EXPECT_FALSE(f[3].jit);
}

TEST(TritonScan, ProgramIdsAndTheirAxes) {
  const std::string t =
      "@triton.jit\n"
      "def k(x):\n"
      "    a = tl.program_id(axis=0)\n"
      "    b = tl.program_id( 1 )\n"
      "    c = triton.language.program_id(ax)\n"
      "    s = 'tl.program_id(0)'  # tl.program_id(0)\n"
      "    d = my_program_id(0)\n";
  const PySource src(t);
  const auto ids = src.program_ids(src.functions().at(0));
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0].axis, 0);
  EXPECT_EQ(t.substr(ids[0].begin, ids[0].end - ids[0].begin), "tl.program_id(axis=0)");
  EXPECT_EQ(ids[1].axis, 1);
  EXPECT_EQ(ids[2].axis, -1);
  EXPECT_EQ(t.substr(ids[2].begin, ids[2].end - ids[2].begin), "triton.language.program_id(ax)");
}

TEST(TritonScan, LaunchesOutsideKernelsWithTheirGridAndArguments) {
  const PySource src(grouped_fixture());
  const auto l = src.launches("grouped_matmul_kernel");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].grid, "grid");
  EXPECT_EQ(l[0].enclosing_function, "matmul");
  EXPECT_EQ(l[0].args.rfind("a, b, c, M, N, K, a.stride(0), a.stride(1),", 0), 0u) << l[0].args;
  EXPECT_EQ(l[0].args.find("H100"), std::string::npos) << "comments are dropped";
  EXPECT_NE(l[0].args.find("GROUP_SIZE_M=8,"), std::string::npos);
  // A name in a string, a subscript that is not called, a kernel's own body: not launches.
  const PySource other("k = 'k[g](x)'\ny = k[0]\n@triton.jit\ndef k(x):\n    k[1](x)\nk [ (4,) ] ( 1 )\n");
  const auto l2 = other.launches("k");
  ASSERT_EQ(l2.size(), 1u);
  EXPECT_EQ(l2[0].grid, "(4,)");
  EXPECT_EQ(l2[0].args, "1");
  EXPECT_EQ(l2[0].line, 6u);
}

TEST(TritonScan, TodoMarksAreCommentsOnly) {
  const std::string t =
      "s = '''\n"
      "# swizzleperf:TODO in a string\n"
      "'''\n"
      "x = 1  # swizzleperf:TODO   the size  \n"
      "# swizzleperf:TODO\n";
  const auto marks = python_todo_marks(t);
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0].line, 4u);
  EXPECT_EQ(marks[0].text, "the size");
  EXPECT_EQ(marks[1].line, 5u);
  EXPECT_EQ(marks[1].text, "");
}

TEST(TritonScan, OneMegabyteInputsAreQuick) {
  // Pathological shapes: unclosed brackets and launches, a 1 MB triple-quoted string, many
  // functions, and a real kernel buried in 1 MB of others.
  std::vector<std::string> inputs;
  inputs.push_back(std::string(1 << 20, '('));
  std::string launches;
  while (launches.size() < (1u << 20)) launches += "k[(k[k(";
  inputs.push_back(launches);
  inputs.push_back("s = '''" + std::string(1 << 20, 'x') + "\n");
  std::string funcs;
  while (funcs.size() < (1u << 20)) funcs += "@triton.jit\ndef k(a, b):\n    pid = tl.program_id(0)\n    k[(1,)](a)\n";
  inputs.push_back(funcs);
  std::string big = grouped_fixture();
  while (big.size() < (1u << 20)) big += "\n\ndef host_helper(x):\n    return [x, (x, {x: 1})]  # padding\n";
  inputs.push_back(big);
  for (const auto& in : inputs) {
    const auto t0 = std::chrono::steady_clock::now();
    const PySource src(in);
    std::size_t n = src.launches("k").size() + src.todo_marks().size();
    for (const auto& f : src.functions()) n += src.program_ids(f).size();
    const auto r = make_triton_program(in, "big.py", std::nullopt, {}, {});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // About a second in Release here (4.1 s at load 8 on two cores); quadratic would be hours.
    EXPECT_LT(s, test::time_limit(5.0)) << "input of " << in.size() << " bytes took " << s << " s (" << n << ")";
    if (&in == &inputs.back()) {
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_NE(r->text.find("swizzle_pid(tl.program_id(0)"), std::string::npos);
    }
  }
}

// ---- the writer ----------------------------------------------------------------------------

TEST(TritonInit, PortsTheGroupedMatmulFixture) {
  const auto r = make_triton_program(grouped_fixture(), "grouped_matmul.py", std::nullopt, {}, "/opt/swz/share/swizzleperf/support");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::string& t = r->text;
  EXPECT_EQ(r->kernel, "grouped_matmul_kernel");
  EXPECT_EQ(r->todo_count, 10u);
  EXPECT_EQ(python_todo_marks(t).size(), r->todo_count);
  EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
  // Under the contract: one region defining swizzle_pid, which the Python validator accepts.
  auto ks = KernelSource::parse(t, "grouped_matmul_swz.py");
  ASSERT_TRUE(ks.ok()) << ks.error().message;
  EXPECT_TRUE(validate_py_region(ks->region()).ok) << validate_py_region(ks->region()).message();
  EXPECT_FALSE(check_no_todo(*ks).ok());
  // The program id line moved below the tile counts it needs.
  const std::size_t counts = t.find("    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)\n");
  const std::size_t tile =
      t.find("    pid = swizzle_pid(tl.program_id(0), tl.num_programs(0), num_pid_m, num_pid_n)  # swizzleperf: was pid = "
             "tl.program_id(axis=0), above");
  ASSERT_NE(counts, std::string::npos);
  ASSERT_NE(tile, std::string::npos);
  EXPECT_LT(counts, tile);
  EXPECT_EQ(triton_count(t, "program_id("), 2u) << "the moved line and its note";
  EXPECT_NE(t.find("# swizzleperf:TODO GROUP_SIZE_M: this kernel orders its tiles itself"), std::string::npos);
  // The launch in run(): one program per tile, the grouping off.
  EXPECT_NE(t.find("        grouped_matmul_kernel[(grid_m * grid_n,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), "
                   "b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=1, "
                   "ACTIVATION=activation, num_warps=8, num_stages=3)\n"),
            std::string::npos);
  EXPECT_NE(t.find("class GroupedMatmulKernelProgram(SwzProgram):"), std::string::npos);
  EXPECT_NE(t.find("super().__init__(\"grouped_matmul\", \"grouped_matmul_kernel\")"), std::string::npos);
  EXPECT_NE(t.find("if False:  # swizzleperf: the original __main__ block"), std::string::npos);
  EXPECT_EQ(t.rfind("if __name__ == \"__main__\":\n    raise SystemExit(swz_main(GroupedMatmulKernelProgram()))\n"),
            t.size() - std::string("if __name__ == \"__main__\":\n    raise SystemExit(swz_main(GroupedMatmulKernelProgram()))\n").size());
  // The harness, from the directory the binary knows; the user's imports kept, none doubled.
  EXPECT_NE(t.find("sys.path.insert(0, os.environ.get(\"SWIZZLEPERF_SUPPORT_DIR\") or \"/opt/swz/share/swizzleperf/support\")"),
            std::string::npos);
  EXPECT_EQ(triton_count(t, "import triton.language as tl\n"), 1u);
  EXPECT_EQ(triton_count(t, "\nimport torch\n"), 1u);
  EXPECT_LT(t.find("import triton.language as tl"), t.find("# swizzleperf:begin"));
  EXPECT_LT(t.find("# swizzleperf:end"), t.find("def leaky_relu"));
  // Every byte of the kernel body past the moved line is the input's.
  EXPECT_NE(t.find("    pid_n = (pid % tiles_per_group) // rows_in_group\n\n    offs_am"), std::string::npos);
}

TEST(TritonInit, SupportPathIsRelativeNearTheFileAndATodoWhenUnknown) {
  const auto near = make_triton_program(kTritonTiny, "/p/kernels/triton/add.py", std::nullopt, {}, "/p/kernels/support");
  ASSERT_TRUE(near.ok());
  EXPECT_NE(near->text.find("os.path.join(os.path.dirname(os.path.abspath(__file__)), \"../support\")"), std::string::npos) << near->text.substr(near->text.find("sys.path.insert"), 200);
  const auto unknown = make_triton_program(kTritonTiny, "/p/add.py", std::nullopt, {}, {});
  ASSERT_TRUE(unknown.ok());
  EXPECT_NE(unknown->text.find("# swizzleperf:TODO the directory holding swz_triton.py"), std::string::npos);
  EXPECT_EQ(unknown->todo_count, near->todo_count + 1);
}

TEST(TritonInit, GridCountsMissingOrAfterAReadAreTodos) {
  // No tl.cdiv tile counts: the call uses grid_m/grid_n and a TODO says where they come from.
  const auto r = make_triton_program(kTritonTiny, "add.py", std::nullopt, {}, "/s");
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->text.find("    # swizzleperf:TODO grid_m and grid_n: the kernel's tile rows and columns"), std::string::npos);
  EXPECT_NE(r->text.find("    pid = swizzle_pid(tl.program_id(0), tl.num_programs(0), grid_m, grid_n)\n"), std::string::npos);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].rfind("6: grid_m and grid_n", 0), 0u) << r->warnings[0];
  EXPECT_NE(r->text.find("add_kernel[(grid_m * grid_n,)](x, y, x.numel(), BLOCK=1024)"), std::string::npos);
  // Counts computed before the read: rewritten in place.
  const std::string before =
      "import triton\nimport triton.language as tl\n@triton.jit\ndef k(M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
      "    gm = tl.cdiv(M, BM)\n    gn = tl.cdiv(N, BN)\n    t = tl.program_id(0) * 1  # the tile\n";
  const auto b = make_triton_program(before, "k.py", std::nullopt, {}, "/s");
  ASSERT_TRUE(b.ok());
  EXPECT_NE(b->text.find("    t = swizzle_pid(tl.program_id(0), tl.num_programs(0), gm, gn) * 1  # the tile\n"), std::string::npos);
  ASSERT_EQ(b->warnings.size(), 1u);
  EXPECT_EQ(b->warnings[0], "4: no launch k[grid](...) found: run() has a TODO for it");
  EXPECT_NE(b->text.find("        # swizzleperf:TODO launch k[(grid_m * grid_n,)](...)"), std::string::npos);
  EXPECT_NE(b->text.find("        pass\n"), std::string::npos);
  // The read is used before the counts: not moved, a TODO instead.
  const std::string used =
      "import triton\nimport triton.language as tl\n@triton.jit\ndef k(M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
      "    pid = tl.program_id(0)\n    x = pid + 1\n    gm = tl.cdiv(M, BM)\n    gn = tl.cdiv(N, BN)\n";
  const auto u = make_triton_program(used, "k.py", std::nullopt, {}, "/s");
  ASSERT_TRUE(u.ok());
  EXPECT_NE(u->text.find("    pid = swizzle_pid(tl.program_id(0), tl.num_programs(0), gm, gn)\n    x = pid + 1\n"), std::string::npos);
  EXPECT_NE(u->text.find("# swizzleperf:TODO gm and gn:"), std::string::npos);
}

TEST(TritonInit, OtherProgramIdsAndKernelsAreMarkedAndWarned) {
  const std::string t =
      "import triton\nimport triton.language as tl\n"
      "@triton.jit\ndef a(M):\n    pid = tl.program_id(0)\n    z = tl.program_id(1)\n"
      "@triton.jit\ndef b(M):\n    pid = tl.program_id(axis=0)\n";
  const auto none = make_triton_program(t, "two.py", std::nullopt, {}, "/s");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "two.py has 2 kernels that read tl.program_id(0) (a, b): pick one with --kernel NAME");
  const auto r = make_triton_program(t, "two.py", std::string("a"), {}, "/s");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NE(r->text.find("    z = tl.program_id(1)  # swizzleperf:TODO tl.program_id(1) is not the 1-D tile id"), std::string::npos);
  EXPECT_NE(r->text.find("    pid = tl.program_id(axis=0)\n"), std::string::npos) << "kernel b is left as it was";
  bool warned_b = false;
  for (const auto& w : r->warnings) warned_b = warned_b || w.find("kernel b reads tl.program_id(0) too") != std::string::npos;
  EXPECT_TRUE(warned_b);
}

TEST(TritonInit, RefusalsAreOneLine) {
  auto err = [](const std::string& text, const std::optional<std::string>& k = std::nullopt, const std::string& out = {}) {
    const auto r = make_triton_program(text, "in.py", k, out, "/s");
    return r.ok() ? std::string("(accepted)") : r.error().message;
  };
  EXPECT_EQ(err("import torch\n"), "in.py has no @triton.jit kernel: init needs a Triton file that defines one (at the top level)");
  EXPECT_EQ(err("@triton.jit\ndef k(x):\n    return x\n"),
            "in.py has no @triton.jit kernel that reads tl.program_id(0) (its kernel: k): init ports a kernel launched over a "
            "1-D grid of tiles, one program each");
  EXPECT_EQ(err(kTritonTiny, std::string("nope")), "in.py has no @triton.jit kernel named 'nope' (its kernel: add_kernel)");
  EXPECT_EQ(err("# swizzleperf:begin\n" + kTritonTiny), "in.py is already a swizzleperf program (it has a '# swizzleperf:begin' "
                                                         "line): run swizzleperf check on it");
  EXPECT_NE(err(kTritonTiny, std::nullopt, "out.cu").find("give -o a name ending in .py"), std::string::npos);
  EXPECT_EQ(err(kTritonTiny + std::string(kMaxKernelFileBytes, ' ')).find("in.py is 16,777,"), 0u);
}

TEST(TritonInit, KeepsCrlfAndAShebang) {
  for (const std::string& lf : {"#!/usr/bin/env python3\n" + kTritonTiny, grouped_fixture()}) {
    std::string crlf;
    for (const char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    const auto r = make_triton_program(crlf, "add.py", std::nullopt, {}, "/s");
    ASSERT_TRUE(r.ok());
    if (lf[0] == '#') EXPECT_EQ(r->text.rfind("#!/usr/bin/env python3\r\n# swizzleperf program made by", 0), 0u);
    for (std::size_t p = r->text.find('\n'); p != std::string::npos; p = r->text.find('\n', p + 1))
      ASSERT_EQ(r->text[p - 1], '\r') << "a bare LF at byte " << p;
    EXPECT_EQ(r->text.find("\r\r"), std::string::npos);
  }
}

}  // namespace
}  // namespace swz::test
