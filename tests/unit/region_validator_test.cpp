// Tests of the region validator: every accepted construct, every rejected one
// with its line and token, every region the project ships (kernels, built-in
// families) accepted, and "accepted implies compiles" checked with the real
// host compiler on the accepted set plus generated variations.
#include "swizzleperf/core/valid_region.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>
#include <set>

#include "support/fixtures.h"
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/util/process.h"
#include "swizzleperf/proposer/builtin_proposer.h"

namespace swz {
namespace {

std::string fn(const std::string& body) {
  return "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n" + body + "}\n";
}

// ---- accepted -------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>>& accepted_cases() {
  static const std::vector<std::pair<std::string, std::string>> cases = {
      {"identity", fn("  return pid;\n")},
      {"void casts", fn("  (void)num_pids; (void)grid;\n  return pid;\n")},
      {"comments with quotes, # and UTF-8", "// the die's L2 — \"quoted\" #1 %:\n/* block 'comment' */\n" + fn("  return pid; // ok\n")},
      {"locals of every integral type",
       fn("  unsigned a = 1; int b = -2; unsigned int c = 3u; long d = 4l; long long e = 5ll;\n"
          "  unsigned long long f = 6ull; bool g = true; short h = 7; signed i = 8; unsigned long j = 9UL;\n"
          "  long int k = 10L; unsigned long long int l = 0xffULL;\n"
          "  return pid + (a + b + c + d + e + f + g + h + i + j + k + l) * 0u;\n")},
      {"const and constexpr",
       fn("  const unsigned D = SWZ_NUM_DIES;\n  constexpr unsigned G = 8, W = G * 2 + (1u << 3);\n"
          "  constexpr long long K = -(4ll % 3);\n  return pid + (D + G + W + K) * 0u;\n")},
      {"literals", fn("  unsigned x = 0x1F + 017 + 0b101 + 0 + 42u + 7U + 9lu + 3LLU;\n  return pid + x * 0u;\n")},
      {"if else", fn("  if (pid > num_pids) return 0;\n  else if (pid == 1) { return 1; } else return pid;\n")},
      {"for while break continue",
       fn("  unsigned s = 0;\n  for (unsigned i = 0, j = 2; i < 4; ++i, j += 2) { if (i == 1) continue; s += j; }\n"
          "  for (;;) { break; }\n  while (s > 100) s >>= 1;\n  for (s = 0; s < 3; s++) {}\n  return pid + s * 0u;\n")},
      {"operators",
       fn("  unsigned x = pid;\n  x += 1; x -= 1; x *= 1; x /= 1; x %= 4294967295u; x &= ~0u; x |= 0; x ^= 0;\n"
          "  x <<= 0; x >>= 0; ++x; --x; x++; x--;\n"
          "  bool b = !(x < 1) && (x >= 0 || x <= 2) && x != 3 && !(x == 4) && x > 0 == true;\n"
          "  unsigned y = (x & 1) | (x ^ 2) | (x << 1) >> 1 | -x + +x;\n"
          "  return b ? pid + (y - y) : pid;\n")},
      {"ternary and comma", fn("  unsigned a = 1, b = 2;\n  a = (b = 3, b + 1);\n  return pid == 0 ? 0 : pid + (a - a);\n")},
      {"grid members", fn("  if (grid.m * grid.n != num_pids) return pid;\n  grid.m = grid.m;\n  return pid % grid.n + (pid / grid.n) * grid.n;\n")},
      {"casts", fn("  int s = (int)pid;\n  unsigned long long w = (unsigned long long)s + static_cast<unsigned long long>(pid);\n"
                   "  return (unsigned)(w - (unsigned long long)s) - pid + pid * 0u + static_cast<unsigned>(s) * 0u;\n")},
      {"helper before and after via a prototype",
       "SWZ_HD unsigned later(unsigned a, SwizzleGrid g);\n"
       "SWZ_HD int first(int a) { return a; }\n" +
           fn("  return later(pid, grid) + (unsigned)first(0);\n") +
           "SWZ_HD unsigned later(unsigned a, SwizzleGrid g) { return a + g.m * 0u; }\n"},
      {"const params, void params", "SWZ_HD unsigned zero(void) { return 0; }\n"
                                    "SWZ_HD unsigned swizzle_pid(const unsigned pid, const unsigned num_pids, const SwizzleGrid grid) {\n"
                                    "  return pid + zero() + grid.m * 0u;\n}\n"},
      {"nested scopes and shadowing", fn("  unsigned x = 1;\n  { unsigned x = 2; x++; }\n  if (x) { unsigned y = x; (void)y; }\n  return pid;\n")},
      {"empty statements", fn("  ;\n  return pid;;\n")},
  };
  return cases;
}

TEST(RegionValidatorAccepts, EverySubsetConstruct) {
  for (const auto& [name, code] : accepted_cases()) {
    auto v = validate_region_code(code);
    EXPECT_TRUE(v.ok) << name << ": " << v.message() << "\n" << code;
    EXPECT_TRUE(v.message().empty()) << name;
    EXPECT_TRUE(check_region_code(code)) << name;
  }
}

// ---- rejected -------------------------------------------------------------------

struct RejectCase {
  std::string name;
  std::string code;
  int line;
  std::string token;
  std::string reason_part;
};

std::vector<RejectCase> rejected_cases() {
  const std::string sig = "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n";
  return {
      {"call to system", fn("  return pid;\n  system(pid);\n"), 3, "system", "call to a function not defined in the region"},
      {"call to printf", fn("  return printf(pid);\n"), 2, "printf", "call to a function not defined in the region"},
      {"builtin", fn("  return __builtin_trap(), pid;\n"), 2, "__builtin_trap", "not defined in the region"},
      {"#include", "#include <cstdlib>\n" + fn("  return pid;\n"), 1, "#", "preprocessor"},
      {"#define", fn("#define X 1\n  return pid;\n"), 2, "#", "preprocessor"},
      {"digraph %:", "%:include <cstdlib>\n" + fn("  return pid;\n"), 1, "%:", "digraph"},
      {"trigraph ?\?=", "?\?=include <cstdlib>\n" + fn("  return pid;\n"), 1, "?\?=", "trigraph"},
      {"trigraph ?\?/ in a comment", "// hidden ?\?/\n" + fn("  return pid;\n"), 1, "?\?/", "trigraph"},
      {"line splice", fn("  return pid; // \\\n  system(pid);\n"), 2, "\\", "line splice"},
      {"line splice CRLF", fn("  return pid; \\\r\n"), 2, "\\", "line splice"},
      {"string literal", fn("  return pid + \"a\"[0];\n"), 2, "\"a\"", "string literal"},
      {"string literal after a call", fn("  return printf(\"%d\", pid);\n"), 2, "printf", "call to a function not defined"},
      {"unterminated string", fn("  return pid + \"abc;\n"), 2, "\"abc;", "string literal"},
      {"# inside a string", fn("  return pid + \"#x\"[0];\n"), 2, "\"#x\"", "string literal"},
      {"string hiding a comment start", fn("  unsigned x = \"//\"[0]; return pid;\n"), 2, "\"//\"", "string literal"},
      {"character literal", fn("  return pid + 'a';\n"), 2, "'a'", "character literal"},
      {"raw string", fn("  return pid + R\"(x)\"[0];\n"), 2, "R", "not a variable"},
      {"non-ASCII in code", fn("  return pid\xc2\xa0;\n"), 2, "\\xc2", "non-ASCII"},
      {"NUL", fn(std::string("  return pid;\0\n", 15)), 2, "\\x00", "NUL"},
      {"control character", fn("  return \x1b pid;\n"), 2, "\\x1b", "control character"},
      {"asm", fn("  asm volatile (0);\n  return pid;\n"), 2, "asm", "inline assembly"},
      {"__asm__", fn("  __asm__(0);\n  return pid;\n"), 2, "__asm__", "inline assembly"},
      {"static local", fn("  static unsigned calls = 0;\n  return pid;\n"), 2, "static", "'static' is not allowed"},
      {"static function", "static " + sig + "  return pid;\n}\n", 1, "static", "'static' is not allowed"},
      {"extern", "extern int system(int);\n" + fn("  return pid;\n"), 1, "extern", "'extern' is not allowed"},
      {"extern in a function", fn("  extern int evil;\n  return pid;\n"), 2, "extern", "'extern' is not allowed"},
      {"thread_local", fn("  thread_local unsigned t = 0;\n  return pid;\n"), 2, "thread_local", "thread-local"},
      {"volatile", fn("  volatile unsigned spin = 0;\n  return pid;\n"), 2, "volatile", "'volatile' is not allowed"},
      {"file-scope variable", "unsigned evil = 3;\n" + fn("  return pid;\n"), 1, "unsigned", "file-scope variable"},
      {"file-scope variable after SWZ_HD", "SWZ_HD unsigned evil = 3;\n" + fn("  return pid;\n"), 1, "evil", "file-scope variables"},
      {"struct with a constructor", "struct E { E() {} } e;\n" + fn("  return pid;\n"), 1, "struct", "type definitions"},
      {"class", fn("  class C {};\n  return pid;\n"), 2, "class", "type definitions"},
      {"union", "union U { int a; };\n" + fn("  return pid;\n"), 1, "union", "type definitions"},
      {"enum", fn("  enum E { A };\n  return pid;\n"), 2, "enum", "type definitions"},
      {"template", "template <int N> " + sig + "  return pid;\n}\n", 1, "template", "not in the accepted subset"},
      {"namespace", "namespace x {}\n" + fn("  return pid;\n"), 1, "namespace", "not in the accepted subset"},
      {"using", fn("  using T = unsigned;\n  return pid;\n"), 2, "using", "not in the accepted subset"},
      {"typedef", fn("  typedef unsigned T;\n  return pid;\n"), 2, "typedef", "not in the accepted subset"},
      {"operator", "SWZ_HD unsigned operator+(SwizzleGrid a, SwizzleGrid b);\n" + fn("  return pid;\n"), 1, "operator", "reserved word"},
      {"new", fn("  return pid + new unsigned;\n"), 2, "new", "not in the accepted subset"},
      {"delete", fn("  delete pid;\n  return pid;\n"), 2, "delete", "not in the accepted subset"},
      {"goto", fn("  goto end;\n  return pid;\n"), 2, "goto", "not in the accepted subset"},
      {"throw", fn("  throw 1;\n"), 2, "throw", "not in the accepted subset"},
      {"try", fn("  try { } catch (...) { }\n  return pid;\n"), 2, "try", "not in the accepted subset"},
      {"sizeof", fn("  return pid + sizeof(pid);\n"), 2, "sizeof", "'sizeof' is not allowed"},
      {"__attribute__((constructor))", "__attribute__((constructor)) " + sig + "  return pid;\n}\n", 1, "__attribute__", "attributes"},
      {"[[attribute]]", "[[gnu::constructor]] " + sig + "  return pid;\n}\n", 1, "[", "attributes"},
      {"pointer parameter", "SWZ_HD unsigned f(unsigned* p) { return 0; }\n" + fn("  return pid;\n"), 1, "*", "pointers"},
      {"pointer local", fn("  unsigned* p = 0;\n  return pid;\n"), 2, "*", "pointers"},
      {"dereference", fn("  return *pid;\n"), 2, "*", "pointers"},
      {"address-of", fn("  return pid + &pid;\n"), 2, "&", "address"},
      {"reference parameter", "SWZ_HD unsigned f(unsigned& r) { return r; }\n" + fn("  return pid;\n"), 1, "&", "references"},
      {"reference local", fn("  unsigned& r = pid;\n  return r;\n"), 2, "&", "references"},
      {"array", fn("  unsigned a[4];\n  return pid;\n"), 2, "[", "arrays"},
      {"subscript", fn("  return pid[0];\n"), 2, "[", "arrays"},
      {"function pointer", fn("  unsigned (*f)(unsigned) = 0;\n  return pid;\n"), 2, "(", "function pointers"},
      {"function pointer at file scope", "SWZ_HD unsigned (*f)(unsigned);\n" + fn("  return pid;\n"), 1, "(", "function pointers"},
      {"lambda", fn("  auto f = [](unsigned x) { return x; };\n  return pid;\n"), 2, "auto", "not in the accepted subset"},
      {"qualified name", fn("  return ::abs(pid);\n"), 2, "::", "qualified names"},
      {"qualified call", fn("  return std::min(pid, 1u);\n"), 2, "::", "qualified names"},
      {"undeclared variable", fn("  return pid + evil;\n"), 2, "evil", "not a variable or parameter"},
      {"global of the harness", fn("  return blockIdx;\n"), 2, "blockIdx", "not a variable or parameter"},
      {"member other than m/n", fn("  return pid + grid.x;\n"), 2, "x", "only the members m and n"},
      {"member of an integer", fn("  return pid.m;\n"), 2, ".", "only allowed on a SwizzleGrid"},
      {"grid arithmetic", fn("  return pid + grid;\n"), 2, "+", "SwizzleGrid"},
      {"floating literal", fn("  return pid * 1.5;\n"), 2, "1.5", "floating-point"},
      {"bad suffix", fn("  return pid + 1_km;\n"), 2, "1_km", "suffix"},
      {"literal too large", fn("  return pid + 99999999999999999999;\n"), 2, "99999999999999999999", "too large"},
      {"bad octal", fn("  return pid + 09;\n"), 2, "09", "invalid digit"},
      {"recursion", "SWZ_HD unsigned f(unsigned a);\nSWZ_HD unsigned g(unsigned a) { return f(a); }\n"
                    "SWZ_HD unsigned f(unsigned a) { return g(a); }\n" + fn("  return f(pid);\n"), 3, "f", "recursion"},
      {"self recursion", fn("  return pid ? swizzle_pid(pid - 1, num_pids, grid) : 0;\n"), 1, "swizzle_pid", "recursion"},
      {"call before declaration", fn("  return later(pid);\n") + "SWZ_HD unsigned later(unsigned a) { return a; }\n", 2, "later", "not defined in the region"},
      {"prototype never defined", "SWZ_HD unsigned f(unsigned a);\n" + fn("  return f(pid);\n"), 1, "f", "never defined"},
      {"wrong arity", "SWZ_HD unsigned f(unsigned a) { return a; }\n" + fn("  return f(pid, pid);\n"), 3, "f", "takes 1"},
      {"missing SWZ_HD", "unsigned helper(unsigned a) { return a; }\n" + fn("  return pid;\n"), 1, "unsigned", "without SWZ_HD"},
      {"no swizzle_pid", "SWZ_HD unsigned remap(unsigned pid) { return pid; }\n", 1, "end of region", "must define swizzle_pid"},
      {"swizzle_pid signature", "SWZ_HD unsigned swizzle_pid(unsigned pid) { return pid; }\n", 1, "swizzle_pid", "must take"},
      {"empty", "  \n// nothing\n", 1, "end of region", "empty"},
      {"void function", "SWZ_HD void f() {}\n" + fn("  return pid;\n"), 1, "void", "integral type"},
      {"float type", fn("  float x = 1;\n  return pid;\n"), 2, "float", "not in the accepted subset"},
      {"switch", fn("  switch (pid) { default: return pid; }\n"), 2, "switch", "not in the accepted subset"},
      {"do while", fn("  do { } while (0);\n  return pid;\n"), 2, "do", "not in the accepted subset"},
      {"break outside loop", fn("  break;\n"), 2, "break", "outside a loop"},
      {"return without value", fn("  return;\n"), 2, ";", "needs a value"},
      {"assign to const", fn("  const unsigned c = 1;\n  c = 2;\n  return pid;\n"), 3, "=", "not a modifiable"},
      {"assign to an rvalue", fn("  pid + 1 = 2;\n  return pid;\n"), 2, "=", "not a modifiable"},
      {"constexpr from a parameter", fn("  constexpr unsigned c = pid;\n  return c;\n"), 2, "c", "constant initializer"},
      {"redeclared parameter", fn("  unsigned pid = 0;\n  return pid;\n"), 2, "pid", "redeclared"},
      {"reserved identifier", fn("  unsigned __x = 0;\n  return pid;\n"), 2, "__x", "reserved identifier"},
      {"harness macro name", fn("  unsigned SWZ_CHECK = 0;\n  return pid;\n"), 2, "SWZ_CHECK", "reserved for the kernel's headers"},
      {"variable named like a function", "SWZ_HD unsigned f(unsigned a) { return a; }\n" + fn("  unsigned f = 1;\n  return pid;\n"), 3, "f", "name of a function"},
      {"function defined twice", "SWZ_HD unsigned f(unsigned a) { return a; }\nSWZ_HD unsigned f(unsigned a) { return a; }\n" + fn("  return pid;\n"), 2, "f", "defined twice"},
      {"overload", "SWZ_HD unsigned f(unsigned a) { return a; }\nSWZ_HD unsigned f(int a, int b) { return 0; }\n" + fn("  return pid;\n"), 2, "f", "no overloading"},
      {"unterminated comment", fn("  return pid; /* open\n"), 2, "/*", "unterminated"},
      {"missing brace", "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n  return pid;\n", 2, "end of region", "missing '}'"},
      {"syntax error", fn("  return pid +;\n"), 2, ";", "expected an expression"},
      {"nested function", fn("  SWZ_HD unsigned g(unsigned a) { return a; }\n  return pid;\n"), 2, "SWZ_HD", "inside a function"},
      {"dollar", fn("  unsigned $x = 0;\n  return pid;\n"), 2, "$", "not used in C++"},
      {"digraph brackets", fn("  unsigned a<:1:> ;\n  return pid;\n"), 2, "<:", "digraph"},
      {"deep nesting", fn("  return " + std::string(300, '(') + "pid" + std::string(300, ')') + ";\n"), 2, "(", "nesting too deep"},
  };
}

TEST(RegionValidatorRejects, EveryForbiddenConstructWithLineAndToken) {
  for (const auto& c : rejected_cases()) {
    auto v = validate_region_code(c.code);
    EXPECT_FALSE(v.ok) << c.name;
    if (v.ok) continue;
    EXPECT_EQ(v.line, c.line) << c.name << ": " << v.message();
    EXPECT_EQ(v.token, c.token) << c.name << ": " << v.message();
    EXPECT_NE(v.reason.find(c.reason_part), std::string::npos) << c.name << ": " << v.message();
    const std::string m = v.message();
    EXPECT_EQ(m.rfind("line " + std::to_string(c.line) + ": '", 0), 0u) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    auto st = check_region_code(c.code);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().message, "swizzle region rejected: " + m);
  }
}

TEST(RegionValidatorRejects, LongTokensAreShortened) {
  const std::string name(200, 'q');
  auto v = validate_region_code(fn("  return " + name + ";\n"));
  ASSERT_FALSE(v.ok);
  EXPECT_LE(v.token.size(), 40u);
  EXPECT_EQ(v.token.substr(v.token.size() - 3), "...");
}

// ---- the project's own regions ---------------------------------------------------

TEST(RegionValidatorProjectRegions, EveryKernelRegionPasses) {
  int regions = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::source_dir() / "kernels")) {
    if (e.path().extension() != ".hip") continue;
    const std::string text = test::read_text(e.path());
    if (text.find("// swizzleperf:begin") == std::string::npos) continue;  // support programs have no region
    auto k = KernelSource::load(e.path());
    ASSERT_TRUE(k) << k.error().message;
    auto v = validate_region_code(k->region());
    EXPECT_TRUE(v.ok) << e.path() << ": " << v.message();
    ++regions;
  }
  EXPECT_GE(regions, 10);
}

std::vector<FamilyCandidate> every_builtin_candidate() {
  std::vector<int> table;
  for (int i = 0; i < 264; ++i) table.push_back((i / 2 + i / 7) % 2);
  std::vector<HardwareProfile> profiles;
  for (const char* arch : {"gfx942", "sm_90"}) {
    auto hw = profile_from_arch(arch);
    EXPECT_TRUE(hw) << arch;
    if (hw) profiles.push_back(*hw);
  }
  HardwareProfile measured = profiles.back();
  measured.dispatch.kind = "table";
  measured.dispatch.source = "measured";
  measured.dispatch.first_wave_die = table;
  profiles.push_back(measured);
  std::vector<FamilyCandidate> out;
  std::set<std::string> seen;
  for (const auto& hw : profiles)
    for (TileGrid g : {TileGrid{64, 64}, TileGrid{7, 5}, TileGrid{1, 13}, TileGrid{1, 1}, TileGrid{32, 256}})
      for (const auto& seed : BuiltinProposer::seed_order(hw, g))
        for (int p : BuiltinProposer::params_of(seed.family)) {
          FamilyCandidate c = seed;
          c.param = p;
          if (seen.insert(c.label()).second) out.push_back(c);
        }
  return out;
}

TEST(RegionValidatorProjectRegions, EveryBuiltinFamilyPasses) {
  const auto candidates = every_builtin_candidate();
  std::set<std::string> families;
  for (const auto& c : candidates) {
    families.insert(c.family);
    auto v = validate_region_code(render_family(c));
    EXPECT_TRUE(v.ok) << c.label() << ": " << v.message() << "\n" << render_family(c);
  }
  EXPECT_EQ(families, (std::set<std::string>{"die_rr", "die_chunk", "grouped_m", "grouped_n", "grouped_m_die", "topo_group"}));
}

// ---- regions recorded in a history (--resume) -------------------------------------

TEST(RegionValidatorHistory, OkAttemptsAndTheBaselineMustStillPass) {
  RunHistory h;
  Attempt base;
  base.region = fn("  return pid;\n");
  h.baseline = base;
  Attempt rejected;
  rejected.iteration = 1;
  rejected.status = AttemptStatus::rejected_region;
  rejected.region = fn("  system(pid);\n  return pid;\n");
  h.attempts.push_back(rejected);
  Attempt failed = rejected;  // failed attempts stay recorded as they are
  failed.iteration = 2;
  failed.status = AttemptStatus::build_failed;
  h.attempts.push_back(failed);
  Attempt good;
  good.iteration = 3;
  good.status = AttemptStatus::ok;
  good.region = fn("  return pid;\n");
  h.attempts.push_back(good);
  EXPECT_TRUE(check_recorded_regions(h));

  Attempt evil = good;
  evil.iteration = 4;
  evil.label = "evil";
  evil.region = "static int x = 1;\n" + fn("  return pid;\n");
  h.attempts.push_back(evil);
  auto st = check_recorded_regions(h);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "attempt 4 (evil) is recorded as ok but its region is rejected: line 1: 'static': 'static' is not allowed (no "
            "static storage in the region); refusing to resume from this history (start a new run)");

  h.attempts.pop_back();
  h.baseline->region = "#define X\n" + fn("  return pid;\n");
  auto sb = check_recorded_regions(h);
  ASSERT_FALSE(sb);
  EXPECT_NE(sb.error().message.find("baseline"), std::string::npos) << sb.error().message;
}

// ---- accepted implies compiles ------------------------------------------------------

// Random programs of the subset: every one must be accepted, and all must compile.
class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  std::string region() {
    vars_ = {"pid", "num_pids", "grid.m", "grid.n"};
    std::string helper = "SWZ_HD unsigned helper(unsigned a, SwizzleGrid g) {\n  return a + g.m * " + literal() + ";\n}\n";
    std::string body;
    const int n = pick(2, 6);
    for (int i = 0; i < n; ++i) body += statement(1);
    return helper + "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n" + body +
           "  return " + expr(3) + ";\n}\n";
  }

 private:
  std::mt19937 rng_;
  std::vector<std::string> vars_;
  int next_ = 0;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string indent(int d) { return std::string(2 * d, ' '); }
  std::string literal() {
    static const char* lits[] = {"0", "1u", "7", "0x10", "3ull", "017", "0b11", "8U", "2L", "SWZ_NUM_DIES", "true"};
    return lits[pick(0, 10)];
  }
  std::string expr(int depth) {
    if (depth == 0 || pick(0, 3) == 0) return pick(0, 2) ? vars_[pick(0, static_cast<int>(vars_.size()) - 1)] : literal();
    static const char* bin[] = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&&", "||"};
    switch (pick(0, 6)) {
      case 0: return "(" + expr(depth - 1) + " ? " + expr(depth - 1) + " : " + expr(depth - 1) + ")";
      case 1: return std::string(pick(0, 1) ? "~" : "!") + "(" + expr(depth - 1) + ")";
      case 2: return "(unsigned)(" + expr(depth - 1) + ")";
      case 3: return "helper(" + expr(depth - 1) + ", grid)";
      case 4: return "static_cast<long long>(" + expr(depth - 1) + ")";
      default: return "(" + expr(depth - 1) + " " + bin[pick(0, 17)] + " " + expr(depth - 1) + ")";
    }
  }
  std::string statement(int d) {
    switch (pick(0, 5)) {
      case 0: {
        static const char* types[] = {"unsigned", "int", "long long", "unsigned long long", "bool", "const unsigned", "unsigned int"};
        const int t = pick(0, 6);
        const std::string v = (t == 5 ? "c" : "v") + std::to_string(next_++);  // only v* are assigned to later
        std::string s = indent(d) + types[t] + " " + v + " = " + expr(2) + ";\n";
        vars_.push_back(v);
        return s;
      }
      case 1: {
        const auto saved = vars_;  // what a branch declares goes out of scope with it
        const std::string cond = expr(2);  // before the branches: they may declare names
        std::string s = indent(d) + "if (" + cond + ") {\n";
        s += statement(d + 1);
        vars_ = saved;
        s += indent(d) + "} else {\n" + statement(d + 1) + indent(d) + "}\n";
        vars_ = saved;
        return s;
      }
      case 2: {
        const std::string i = "i" + std::to_string(next_++);
        const auto saved = vars_;
        vars_.push_back(i);
        std::string s = indent(d) + "for (unsigned " + i + " = 0; " + i + " < 3; ++" + i + ") {\n";
        s += statement(d + 1);
        s += indent(d + 1) + "if (" + expr(1) + ") break;\n" + indent(d) + "}\n";
        vars_ = saved;
        return s;
      }
      case 3: {
        const std::string v = "w" + std::to_string(next_++);
        return indent(d) + "{\n" + indent(d + 1) + "unsigned " + v + " = 5;\n" + indent(d + 1) + "while (" + v + " > 0) { " + v +
               " -= 1; if (" + expr(1) + ") continue; }\n" + indent(d) + "}\n";
      }
      case 4: return indent(d) + "(void)" + expr(1) + ";\n";
      default: {
        // Assign to a non-const local if there is one.
        for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
          if (it->rfind("v", 0) == 0) return indent(d) + *it + " += " + expr(2) + ";\n";
        return indent(d) + ";\n";
      }
    }
  }
};

TEST(RegionValidatorCompiles, AcceptedRegionsCompileWithTheHostCompiler) {
  if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
  std::vector<std::string> regions;
  for (const auto& [name, code] : accepted_cases()) regions.push_back(code);
  for (const auto& c : every_builtin_candidate()) regions.push_back(render_family(c));
  Generator gen(20261123);
  for (int i = 0; i < 150; ++i) {
    std::string r = gen.region();
    auto v = validate_region_code(r);
    ASSERT_TRUE(v.ok) << v.message() << "\n" << r;
    regions.push_back(r);
  }
  // One translation unit, each region in its own namespace, the evaluator's prelude.
  std::string tu =
      "#define SWZ_HD\n#define SWZ_NUM_DIES 8\nstruct SwizzleGrid { unsigned m; unsigned n; };\n";
  for (std::size_t i = 0; i < regions.size(); ++i) tu += fmt::format("namespace r{} {{\n{}\n}}\n", i, regions[i]);
  test::TempDir dir;
  test::write_text(dir / "regions.cpp", tu);
  RealProcessRunner runner;
  ProcessSpec spec;
  spec.argv = {"c++", "-std=c++17", "-fsyntax-only", "-w", (dir / "regions.cpp").string()};
  spec.timeout = std::chrono::seconds(120);
  auto r = runner.run(spec);
  ASSERT_TRUE(r.started) << r.err;
  EXPECT_TRUE(r.success()) << r.describe() << "\n" << tail_lines(r.err, 30);
  EXPECT_GE(regions.size(), 180u);
}

}  // namespace
}  // namespace swz
