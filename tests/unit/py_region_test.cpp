// Tests of the Triton region front end (core/py_region.h): every accepted
// construct, every rejected one with its exact one-line message, hostile inputs
// (deep nesting, garbage, size), "validated implies the translation passes the
// C++ validator", and the int32 semantics of the translation checked by compiling
// it with the real host compiler and running it.
#include "swizzleperf/core/py_region.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <sstream>

#include "support/fixtures.h"
#include "support/timing.h"
#include "swizzleperf/core/region_validator.h"
#include "swizzleperf/util/process.h"

namespace swz {
namespace {

const char* const kPyrHeader = "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n";

std::string pyr_fn(const std::string& body) { return kPyrHeader + body; }

const char* const kPyrGroupedM =
    "@triton.jit\n"
    "def swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
    "    # grouped-M order, G = 8\n"
    "    q = pid\n"
    "    if grid_m * grid_n == num_pids:\n"
    "        G = 8\n"
    "        width = G * grid_n\n"
    "        first_m = (pid // width) * G\n"
    "        gs = tl.minimum(grid_m - first_m, G)\n"
    "        q = (first_m + (pid % width) % gs) * grid_n + (pid % width) // gs\n"
    "    return q\n";

// Helpers whose translations main() below calls directly (py_<name>).
const char* const kPyrSemantics =
    "@triton.jit\ndef fdiv(a, b):\n    return a // b\n\n"
    "@triton.jit\ndef fmod(a, b):\n    return a % b\n\n"
    "@triton.jit\ndef fadd(a, b):\n    return a + b\n\n"
    "@triton.jit\ndef fsub(a, b):\n    return a - b\n\n"
    "@triton.jit\ndef fmul(a, b):\n    return a * b\n\n"
    "@triton.jit\ndef fneg(a):\n    return -a\n\n"
    "@triton.jit\ndef fshl(a, b):\n    return a << b\n\n"
    "@triton.jit\ndef fshr(a, b):\n    return a >> b\n\n"
    "@triton.jit\ndef fcdiv(a, b):\n    return tl.cdiv(a, b)\n\n"
    "@triton.jit\ndef fmin(a, b):\n    return tl.minimum(a, b)\n\n"
    "@triton.jit\ndef fmax(a, b):\n    return tl.maximum(a, b)\n\n"
    "@triton.jit\ndef finv(a):\n    return ~a\n\n"
    "@triton.jit\ndef fbits(a, b):\n    return (a & b) | (a ^ b) + 0x10\n\n"
    "@triton.jit\ndef classify(x):\n"
    "    if x < 0:\n        r = -1\n    elif x == 0:\n        r = 0\n    elif x < 10:\n        r = 1\n"
    "    else:\n        r = 2\n    return r\n\n"
    "@triton.jit\ndef tern(x):\n    return 100 if x > 5 else (200 if x else 300)\n\n"
    "@triton.jit\ndef dies():\n    return SWZ_NUM_DIES * 10\n\n"
    "@triton.jit\ndef aug(x):\n"
    "    x += 3\n    x *= 2\n    x //= 4\n    x -= 1\n    x %= 5\n    x <<= 2\n    x >>= 1\n"
    "    x &= 0xff\n    x |= 0b1\n    x ^= 0o2\n    return x\n\n"
    "@triton.jit\ndef logic(a, b):\n    ok = a > 0 and not b > 0 or a == b\n    return 1 if ok else 0\n\n"
    "@triton.jit\ndef early(x):\n    if x > 3:\n        return 1\n    else:\n        return 2\n    return 3\n\n"
    "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return fadd(pid, 0)\n";

// ---- accepted -------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>>& pyr_accepted_cases() {
  static const std::vector<std::pair<std::string, std::string>> cases = {
      {"the grouped-M example", kPyrGroupedM},
      {"identity", pyr_fn("    return pid\n")},
      {"semantics helpers", kPyrSemantics},
      {"helpers called in order",
       "@triton.jit\ndef group_size(grid_m, first_m):\n    return tl.minimum(grid_m - first_m, 8)\n\n"
       "@triton.jit\ndef first_row(pid, width):\n    return (pid // width) * 8\n\n"
       "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
       "    f = first_row(pid, 8 * grid_n)\n    return f + group_size(grid_m, f) * 0 + pid % grid_n * 0 + pid - pid + f * 0\n"},
      {"elif chain with a flag",
       pyr_fn("    if pid == 0:\n        q = 3\n    elif pid == 1:\n        q = 2\n    elif pid == 2:\n        q = 1\n"
              "    elif pid == 3:\n        q = 0\n    else:\n        q = pid\n    return q\n")},
      {"if without else, nested", pyr_fn("    q = pid\n    if pid > 1:\n        if num_pids > 2:\n            q = pid - 1\n    return q\n")},
      {"ternaries", pyr_fn("    a = 1 if pid else 0\n    b = (pid > 2) if a else (pid < 1)\n    return a + (2 if b else 3) * 0\n")},
      {"SWZ_NUM_DIES and tl.cdiv",
       pyr_fn("    per_die = tl.cdiv(num_pids, SWZ_NUM_DIES)\n    die = pid % SWZ_NUM_DIES\n"
              "    return die * per_die + pid // SWZ_NUM_DIES\n")},
      {"one-line blocks", pyr_fn("    if pid == 0: return 1\n    elif pid == 1: return 0\n    else: pass\n    return pid\n")},
      {"comments, blank lines, continuations, CRLF",
       "# a comment: caf\xc3\xa9 \"quoted\" 'x' \\ backslash\r\n\r\n@triton.jit  # trailing\r\n"
       "def swizzle_pid(pid, num_pids,\r\n                grid_m, grid_n):\r\n    x = (pid +\r\n         1)\r\n"
       "    y = x + \\\r\n        1\r\n\r\n    # indented comment\r\n  # odd comment\r\n    return y - 2\r\n"},
      {"literals", pyr_fn("    x = 0x7fff_ffff + 0o17 + 0b1010 + 1_000 + 00 + 0 + 2147483647\n    return pid + x * 0\n")},
      {"names that are C++ keywords or start with _",
       pyr_fn("    int = 1\n    new = 2\n    grid = 3\n    _t = 4\n    _ = 5\n    class_ = int + new + grid + _t + _\n"
              "    return pid + class_ * 0\n")},
      {"unary operators and logic",
       pyr_fn("    b = not pid > 3 and (pid < 1 or not not pid == 2)\n    x = -(-pid) + ~~pid + +pid\n"
              "    if b:\n        x = x - 0\n    return x - pid - pid\n")},
      {"statements after return", pyr_fn("    if pid > 1:\n        return pid\n    else:\n        return pid\n    return 0\n")},
      {"assign on both arms", pyr_fn("    if pid:\n        y = 1\n    else:\n        y = 2\n    return pid + y * 0\n")},
      {"empty region lines around", "\n\n" + pyr_fn("    return pid\n") + "\n\n# end\n"},
      {"trailing comma in params and calls",
       "@triton.jit\ndef f(a, b,):\n    return a\n@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n,):\n"
       "    return f(pid, 1,)\n"},
  };
  return cases;
}

TEST(PyRegionAccepts, EverySubsetConstruct) {
  for (const auto& [name, code] : pyr_accepted_cases()) {
    const RegionVerdict v = validate_py_region(code);
    EXPECT_TRUE(v.ok) << name << ": " << v.message() << "\n" << code;
    auto t = translate_py_region(code);
    ASSERT_TRUE(t.ok()) << name << ": " << t.error().message;
    const RegionVerdict c = validate_region_code(*t);
    EXPECT_TRUE(c.ok) << name << ": the translation is rejected: " << c.message() << "\n" << *t;
    EXPECT_NE(t->find("SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid)"), std::string::npos);
  }
}

TEST(PyRegionTranslates, NamesAndForms) {
  auto t = translate_py_region(pyr_fn("    _t = pid\n    int = _t\n    return int\n"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_NE(t->find("int pyu_t = 0;"), std::string::npos) << *t;
  EXPECT_NE(t->find("int py_int = 0;"), std::string::npos) << *t;
  EXPECT_NE(t->find("SWZ_HD int py_swizzle_pid(int py_pid, int py_num_pids, int py_grid_m, int py_grid_n)"),
            std::string::npos);
  EXPECT_NE(t->find("return (unsigned)py_swizzle_pid((int)pid, (int)num_pids, (int)grid.m, (int)grid.n);"),
            std::string::npos);
  auto d = translate_py_region(pyr_fn("    return SWZ_NUM_DIES\n"));
  ASSERT_TRUE(d.ok());
  EXPECT_NE(d->find("return (int)(SWZ_NUM_DIES);"), std::string::npos) << *d;
  EXPECT_EQ(d->find("//"), d->find("// Translated"));  // Python comments are dropped
}

// ---- rejected -------------------------------------------------------------------

struct PyrRejected {
  const char* name;
  std::string code;
  std::string message;
};

std::vector<PyrRejected> pyr_rejected_cases() {
  const std::string f = "@triton.jit\ndef f(a):\n    return a\n";
  return {
      {"__import__", pyr_fn("    x = __import__('os')\n    return pid\n"),
       "line 3: '__import__': call to a function not defined in the region"},
      {"import", "import os\n" + pyr_fn("    return pid\n"), "line 1: 'import': imports are not in the subset"},
      {"import in a function", pyr_fn("    from os import system\n    return pid\n"),
       "line 3: 'from': imports are not in the subset"},
      {"attribute", pyr_fn("    return pid.real\n"),
       "line 3: 'pid.real': attribute access is not in the subset (only the calls tl.cdiv, tl.minimum and tl.maximum)"},
      {"tl.load", pyr_fn("    return tl.load(pid)\n"),
       "line 3: 'tl.load': only tl.cdiv, tl.minimum and tl.maximum are in the subset"},
      {"string", pyr_fn("    x = 'abc'\n    return pid\n"), "line 3: ''abc'': string literal: strings are not in the subset"},
      {"docstring", pyr_fn("    \"\"\"Grouped order.\"\"\"\n    return pid\n"),
       "line 3: '\"\"\"Grouped order.\"\"\"': a docstring is a string literal: strings are not in the subset"},
      {"while", pyr_fn("    while True:\n        pid += 1\n    return pid\n"), "line 3: 'while': loops are not in the subset"},
      {"for", pyr_fn("    for i in range(4):\n        pid += i\n    return pid\n"), "line 3: 'for': loops are not in the subset"},
      {"recursion", pyr_fn("    return swizzle_pid(pid, num_pids, grid_m, grid_n)\n"),
       "line 3: 'swizzle_pid': recursion is not allowed"},
      {"mutual call to a later function",
       "@triton.jit\ndef f(a):\n    return g(a)\n@triton.jit\ndef g(a):\n    return f(a)\n" + pyr_fn("    return f(pid)\n"),
       "line 3: 'g': call to a function defined later in the region (define it before its callers: no recursion)"},
      {"global name", pyr_fn("    return pid + OFFSET\n"),
       "line 3: 'OFFSET': not a parameter or local of this function (globals and builtins are not allowed)"},
      {"float", pyr_fn("    return pid * 1.5\n"), "line 3: '1.5': floating-point literal (the region is int32 arithmetic)"},
      {"true division", pyr_fn("    return pid / 2\n"), "line 3: '/': true division: use //"},
      {"power", pyr_fn("    return pid ** 2\n"), "line 3: '**': '**' (power) is not in the subset"},
      {"2**31", pyr_fn("    return pid + 2147483648\n"),
       "line 3: '2147483648': integer literal outside int32 (at most 2**31 - 1 = 2147483647)"},
      {"2**31 in hex", pyr_fn("    return pid + 0x8000_0000\n"),
       "line 3: '0x8000_0000': integer literal outside int32 (at most 2**31 - 1 = 2147483647)"},
      {"bool in arithmetic", pyr_fn("    return pid + (pid > 3)\n"),
       "line 3: '+': bool operand in arithmetic (a comparison result is Triton's int1, which does not promote like C's "
       "bool)"},
      {"use before assignment", pyr_fn("    if pid > 3:\n        x = 1\n    return x\n"),
       "line 5: 'x': may be used before it is assigned (assign it on every path before)"},
      {"missing return", pyr_fn("    if pid > 3:\n        return 1\n"),
       "line 2: 'swizzle_pid': may end without return (every path must end in return)"},
      {"no swizzle_pid", f, "line 3: 'end of region': the region must define swizzle_pid(pid, num_pids, grid_m, grid_n)"},
      {"swizzle_pid with 3 params", "@triton.jit\ndef swizzle_pid(pid, num_pids, grid):\n    return pid\n",
       "line 2: 'swizzle_pid': swizzle_pid must take exactly 4 parameters (pid, num_pids, grid_m, grid_n)"},
      {"tab indent", pyr_fn("\treturn pid\n"), "line 3: '\\t': tab in indentation (indent with spaces)"},
      {"print", pyr_fn("    print(pid)\n    return pid\n"), "line 3: 'print': call to a function not defined in the region"},
      {"eval", pyr_fn("    return eval(pid)\n"), "line 3: 'eval': call to a function not defined in the region"},
      {"no decorator", "def swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return pid\n",
       "line 1: 'def': a function needs the decorator line @triton.jit right before its def"},
      {"decorator with arguments", "@triton.jit(debug=True)\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return pid\n",
       "line 1: '(': the decorator must be exactly @triton.jit (no arguments)"},
      {"chained comparison", pyr_fn("    return 1 if 0 < pid < 3 else 0\n"),
       "line 3: '<': chained comparisons are not in the subset (use and)"},
      {"walrus", pyr_fn("    if (x := pid):\n        return x\n    return 0\n"),
       "line 3: ':=': assignment expressions (':=') are not in the subset"},
      {"tuple assignment", pyr_fn("    a, b = 1, 2\n    return pid\n"), "line 3: ',': tuple assignment is not in the subset"},
      {"subscript", pyr_fn("    return grid_m[0]\n"), "line 3: '[': subscripts are not in the subset"},
      {"lambda", pyr_fn("    f = lambda x: x\n    return pid\n"), "line 3: 'lambda': lambda is not in the subset"},
      {"and on ints", pyr_fn("    return 1 if pid and num_pids else 0\n"),
       "line 3: 'and': 'and' needs bool operands (compare an int with != 0)"},
      {"ternary arms", pyr_fn("    return 1 if pid else pid > 2\n"),
       "line 3: 'if': the two arms of a conditional expression must have the same type (int or bool)"},
      {"bool returned", pyr_fn("    return pid > 2\n"),
       "line 3: 'return': functions return int: a bool cannot be returned (write 1 if c else 0)"},
      {"a name changes type", pyr_fn("    x = 1\n    x = pid > 2\n    return 1\n"),
       "line 4: 'x': an int until here: a name keeps one type in its function"},
      {"bad dedent", pyr_fn("    if pid:\n        x = 1\n      y = 2\n    return pid\n"),
       "line 5: 'y': dedent does not match any outer indentation level"},
      {"dunder name", pyr_fn("    __x = 1\n    return pid\n"), "line 3: '__x': names containing '__' are reserved"},
      {"tl assigned", pyr_fn("    tl = 1\n    return pid\n"),
       "line 3: 'tl': reserved name: it cannot be assigned or be a parameter"},
      {"matmul", pyr_fn("    return pid @ pid\n"), "line 3: '@': '@' is only allowed in the decorator line @triton.jit"},
      {"semicolon", pyr_fn("    x = 1; return x\n"), "line 3: ';': one statement per line (';' is not in the subset)"},
      {"arity", f + pyr_fn("    return f(pid, 1)\n"), "line 6: 'f': called with 2 argument(s), it takes 1"},
      {"variable named like a function", f + pyr_fn("    f = 1\n    return pid\n"),
       "line 6: 'f': a variable must not have the name of a function of the region"},
      {"backslash", pyr_fn("    return pid \\ 2\n"), "line 3: '\\': backslash outside a line continuation"},
      {"non-ASCII", pyr_fn("    return pid + \xc3\xa9\n"), "line 3: '\\xc3': non-ASCII byte outside a comment"},
      {"lone CR hides a line", pyr_fn("    return pid # x\r import os\n"),
       "line 3: '\\x0d': carriage return without a line feed (Python reads it as a line break) in a comment"},
      {"coding cookie", "# -*- coding: utf-7 -*-\n" + pyr_fn("    return pid\n"),
       "line 1: 'coding:': encoding declaration in a comment (it changes how Python reads the file)"},
      {"None", pyr_fn("    return None\n"), "line 3: 'None': None is not in the subset (values are int or bool)"},
      {"imaginary", pyr_fn("    return 1j\n"), "line 3: '1j': imaginary literal (the region is int32 arithmetic)"},
      {"empty", "", "line 1: 'end of region': the region is empty: it must define swizzle_pid(pid, num_pids, grid_m, grid_n)"},
      {"expression statement", pyr_fn("    pid + 1\n    return pid\n"),
       "line 3: 'pid': an expression statement has no effect (statements: assignment, if, return, pass)"},
      {"nested def", pyr_fn("    def g(x):\n        return x\n    return pid\n"),
       "line 3: 'def': nested functions are not in the subset"},
      {"is", pyr_fn("    return 1 if pid is 0 else 0\n"), "line 3: 'is': identity tests ('is') are not in the subset"},
      {"keyword argument", f + pyr_fn("    return f(a=pid)\n"), "line 6: 'a': keyword arguments are not in the subset"},
      {"function as a value", f + pyr_fn("    x = f\n    return pid\n"),
       "line 6: 'f': a function of the region can only be called"},
      {"two decorators", "@triton.jit\n@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return pid\n",
       "line 2: '@': one decorator per function: exactly @triton.jit"},
      {"top-level global", "X = 3\n" + pyr_fn("    return pid\n"),
       "line 1: 'X': only @triton.jit functions are allowed at the top level of the region"},
      {"NUL", pyr_fn(std::string("    return pid\0\n", 16)), "line 3: '\\x00': NUL byte"},
      {"unclosed parenthesis", pyr_fn("    return (pid + 1\n"), "line 3: 'end of line': expected ')'"},
      {"try", pyr_fn("    try:\n        pass\n    return pid\n"), "line 3: 'try': 'try' is not in the subset"},
  };
}

TEST(PyRegionRejects, EachWithItsLineAndToken) {
  for (const auto& c : pyr_rejected_cases()) {
    const RegionVerdict v = validate_py_region(c.code);
    EXPECT_FALSE(v.ok) << c.name;
    EXPECT_EQ(v.message(), c.message) << c.name;
    auto t = translate_py_region(c.code);
    ASSERT_FALSE(t.ok()) << c.name;
    EXPECT_EQ(t.error().message, "swizzle region rejected: " + c.message) << c.name;
  }
}

TEST(PyRegionRejects, SizeNestingAndGarbage) {
  const std::string big = pyr_fn("    return pid\n") + "#" + std::string(64 * 1024, 'x') + "\n";
  RegionVerdict v = validate_py_region(big);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.line, 0);
  EXPECT_NE(v.message().find("the limit is"), std::string::npos) << v.message();

  std::string just = pyr_fn("    return pid\n");
  just += "#" + std::string(64 * 1024 - just.size() - 2, 'x') + "\n";
  ASSERT_EQ(just.size(), 64u * 1024 - 0);
  EXPECT_TRUE(validate_py_region(just).ok);
  EXPECT_FALSE(validate_py_region(just + "\n").ok);  // 64 KiB + 1

  const auto start = std::chrono::steady_clock::now();
  v = validate_py_region(pyr_fn("    return " + std::string(100000, '(') + "pid\n"));
  EXPECT_FALSE(v.ok);  // (over 64 KiB; the same shape under the limit:)
  v = validate_py_region(pyr_fn("    return " + std::string(60000, '(') + "pid\n"));
  EXPECT_EQ(v.message(), "line 3: '(': nesting too deep (at most 200 levels)");
  v = validate_py_region(pyr_fn("    return " + std::string(30000, '-') + "pid\n"));
  EXPECT_EQ(v.message(), "line 3: '-': nesting too deep (at most 200 levels)");
  v = validate_py_region(pyr_fn("    x = 0\n" + std::string(8000, ' ') + "x = 1\n    return x\n"));
  EXPECT_EQ(v.message(), "line 4: 'indent': unexpected indent");
  std::string many = pyr_fn("");
  for (int i = 0; i < 3000; ++i) many += "    x = pid\n";
  v = validate_py_region(many + "    return x\n");
  EXPECT_NE(v.message().find("too many tokens (a region may have at most 10000)"), std::string::npos) << v.message();

  std::string garbage(1u << 20, '\0');
  std::mt19937 rng(7);
  for (auto& c : garbage) c = static_cast<char>(rng());
  v = validate_py_region(garbage);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.line, 0);
  for (int i = 0; i < 50; ++i) {
    std::string g(60000, ' ');
    for (auto& c : g) c = static_cast<char>(rng() % (i % 2 ? 128 : 256));
    v = validate_py_region(g);
    EXPECT_FALSE(v.ok);
    EXPECT_GE(v.line, 1);
    EXPECT_EQ(v.message().find('\n'), std::string::npos);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(s, test::time_limit(2.5));  // 0.2 s in Release here
}

// ---- validated implies the translation passes the C++ validator --------------------

TEST(PyRegionTranslates, DeepButAcceptedRegionsPassTheCppValidator) {
  const std::vector<std::function<std::string(int)>> shapes = {
      [](int n) { std::string e = "pid"; for (int i = 0; i < n; ++i) e = "(" + e + " if pid else 1)"; return pyr_fn("    return " + e + "\n"); },
      [](int n) { std::string e = "pid > 0"; for (int i = 0; i < n; ++i) e = "(1 if " + e + " else 2) > 0"; return pyr_fn("    x = 0\n    if " + e + ":\n        x = 1\n    return x\n"); },
      [](int n) { std::string e = "pid"; for (int i = 0; i < n; ++i) e = "2 * (" + e + ") + 1"; return pyr_fn("    x = " + e + "\n    return x\n"); },
      [](int n) { std::string e = "pid"; for (int i = 0; i < n; ++i) e += " // 2 << 1"; return pyr_fn("    return " + e + "\n"); },
      [](int n) { std::string e = "pid"; for (int i = 0; i < n; ++i) e = "~-" + e; return pyr_fn("    return " + e + "\n"); },
      [](int n) { std::string e = "pid > 0"; for (int i = 0; i < n; ++i) e = "(pid < 3 or (" + e + " and not pid > 1))"; return pyr_fn("    b = " + e + "\n    return 1 if b else 0\n"); },
      [](int n) { std::string e = "pid"; for (int i = 0; i < n; ++i) e = "tl.cdiv(SWZ_NUM_DIES & (" + e + "), 2)"; return pyr_fn("    return " + e + "\n"); },
      [](int n) {
        std::string b, ind = "    ";
        for (int i = 0; i < n; ++i) {
          b += ind + "if pid > " + std::to_string(i) + ":\n" + ind + "    pid += 1\n" + ind + "elif pid < 0:\n";
          ind += "    ";
        }
        return pyr_fn(b + ind + "return -(pid + 1) * 2 if pid else 3\n    return pid\n");
      },
  };
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    int accepted = 0;
    for (int n = 0; n < 120; ++n) {
      const std::string code = shapes[k](n);
      const RegionVerdict v = validate_py_region(code);
      if (!v.ok) {
        EXPECT_NE(v.message().find("nested too deeply for the C++ translation"), std::string::npos) << v.message();
        break;
      }
      ++accepted;
      auto t = translate_py_region(code);
      ASSERT_TRUE(t.ok());
      const RegionVerdict c = validate_region_code(*t);
      ASSERT_TRUE(c.ok) << "shape " << k << " n=" << n << ": " << c.message();
    }
    EXPECT_GE(accepted, 10) << "shape " << k;
  }
  // A long flat chain and a long elif chain do not nest.
  std::string chain = "pid";
  for (int i = 0; i < 1000; ++i) chain += i % 2 ? " + 1" : " - 1";
  EXPECT_TRUE(validate_py_region(pyr_fn("    return " + chain + "\n")).ok);
  std::string elifs = "    if pid == 0:\n        q = 1\n";
  for (int i = 1; i < 300; ++i) elifs += fmt::format("    elif pid == {}:\n        q = {}\n", i, i + 1);
  auto t = translate_py_region(pyr_fn(elifs + "    else:\n        q = pid\n    return q\n"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(validate_region_code(*t).ok);
}

// ---- int32 semantics, compiled and run --------------------------------------------

// Builds `regions` (namespace r<i> each) with the evaluator's prelude and `main_body`, runs it.
std::string pyr_compile_and_run(const std::vector<std::string>& regions, const std::string& main_body) {
  std::string tu = "#define SWZ_HD\nstruct SwizzleGrid { unsigned m, n; };\n#define SWZ_NUM_DIES 2\n#include <cstdio>\n";
  for (std::size_t i = 0; i < regions.size(); ++i) {
    auto t = translate_py_region(regions[i]);
    EXPECT_TRUE(t.ok()) << t.error().message;
    if (!t.ok()) return {};
    tu += fmt::format("namespace r{} {{\n{}\n}}\n", i, *t);
  }
  tu += "int main() {\n" + main_body + "  return 0;\n}\n";
  test::TempDir dir;
  test::write_text(dir / "t.cpp", tu);
  RealProcessRunner runner;
  ProcessSpec build;
  const std::string exe = (dir / "t").string();
  // UBSan when the compiler has it: the helpers must not overflow or over-shift.
  build.argv = {"c++", "-std=c++17", "-O1", "-w", "-fsanitize=undefined", "-fno-sanitize-recover=all", "-o", exe,
                (dir / "t.cpp").string()};
  build.timeout = std::chrono::seconds(120);
  auto b = runner.run(build);
  if (!b.success()) {
    build.argv = {"c++", "-std=c++17", "-O1", "-w", "-o", exe, (dir / "t.cpp").string()};
    b = runner.run(build);
  }
  EXPECT_TRUE(b.success()) << b.describe() << "\n" << b.err << "\n" << tu;
  ProcessSpec run;
  run.argv = {exe};
  run.timeout = std::chrono::seconds(30);
  auto r = runner.run(run);
  EXPECT_TRUE(r.success()) << r.describe() << "\n" << r.err;
  return r.out;
}

TEST(PyRegionSemantics, Int32LikeTriton) {
  if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
  const std::vector<std::string> regions = {
      kPyrSemantics, kPyrGroupedM, pyr_fn("    return -1\n"),
      pyr_fn("    if pid == 0:\n        q = 1\n    elif pid == 1:\n        q = 0\n    else:\n        q = pid\n    return q\n")};
  const std::vector<std::pair<std::string, std::string>> checks = {
      {"r0::py_fdiv(-7, 2)", "-3"},
      {"r0::py_fmod(-7, 2)", "-1"},
      {"r0::py_fdiv(7, -2)", "-3"},
      {"r0::py_fmod(7, -2)", "1"},
      {"r0::py_fadd(2147483647, 1)", "-2147483648"},
      {"r0::py_fsub(-2147483647 - 1, 1)", "2147483647"},
      {"r0::py_fmul(65536, 65536 + 1)", "65536"},
      {"r0::py_fneg(-2147483647 - 1)", "-2147483648"},
      {"r0::py_fdiv(-2147483647 - 1, -1)", "-2147483648"},
      {"r0::py_fmod(-2147483647 - 1, -1)", "0"},
      {"r0::py_fshl(1, 31)", "-2147483648"},
      {"r0::py_fshl(1, 40)", "0"},
      {"r0::py_fshl(1, -1)", "0"},
      {"r0::py_fshr(-8, 1)", "-4"},
      {"r0::py_fshr(-8, 40)", "-1"},
      {"r0::py_fshr(8, 40)", "0"},
      {"r0::py_fcdiv(7, 2)", "4"},
      {"r0::py_fcdiv(8, 2)", "4"},
      {"r0::py_fcdiv(2147483647, 2)", "-1073741824"},  // a + b - 1 wraps, as in Triton's int32
      {"r0::py_fmin(-3, 2)", "-3"},
      {"r0::py_fmax(-3, 2)", "2"},
      {"r0::py_finv(5)", "-6"},
      {"r0::py_fbits(12, 10)", "30"},
      {"r0::py_classify(-5)", "-1"},
      {"r0::py_classify(0)", "0"},
      {"r0::py_classify(7)", "1"},
      {"r0::py_classify(70)", "2"},
      {"r0::py_tern(9)", "100"},
      {"r0::py_tern(1)", "200"},
      {"r0::py_tern(0)", "300"},
      {"r0::py_dies()", "20"},
      {"r0::py_aug(5)", "5"},
      {"r0::py_logic(1, 0)", "1"},
      {"r0::py_logic(0, 0)", "1"},
      {"r0::py_logic(-1, 2)", "0"},
      {"r0::py_logic(2, 3)", "0"},
      {"r0::py_early(9)", "1"},
      {"r0::py_early(0)", "2"},
      {"(int)r0::swizzle_pid(5, 6, SwizzleGrid{2, 3})", "5"},
      {"(int)r3::swizzle_pid(0, 3, SwizzleGrid{1, 3})", "1"},
      {"(int)r3::swizzle_pid(1, 3, SwizzleGrid{1, 3})", "0"},
      {"(int)r3::swizzle_pid(2, 3, SwizzleGrid{1, 3})", "2"},
  };
  std::string body;
  for (const auto& [expr, want] : checks) body += fmt::format("  std::printf(\"%d\\n\", {});\n", expr);
  body += "  for (unsigned p = 0; p < 15; ++p) std::printf(\"%u \", r1::swizzle_pid(p, 15, SwizzleGrid{5, 3}));\n";
  body += "  std::printf(\"\\n%u\\n\", r2::swizzle_pid(0, 1, SwizzleGrid{1, 1}));\n";
  const std::string out = pyr_compile_and_run(regions, body);
  std::istringstream in(out);
  std::string line;
  for (const auto& [expr, want] : checks) {
    ASSERT_TRUE(std::getline(in, line)) << out;
    EXPECT_EQ(line, want) << expr;
  }
  // Grouped-M with G = 8 on a 5x3 grid: one group of 5 rows, column-major inside it.
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "0 3 6 9 12 1 4 7 10 13 2 5 8 11 14 ");
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "4294967295");  // -1 becomes a huge pid
}

// Random well-typed regions: every one validates, its translation passes the C++
// validator, and all of them compile.
class PyrGenerator {
 public:
  explicit PyrGenerator(unsigned seed) : rng_(seed) {}

  std::string region() {
    std::string out;
    const int helpers = pick(3);
    for (int h = 0; h < helpers; ++h) {
      vars_ = {"a", "b"};
      out += fmt::format("@triton.jit\ndef h{}(a, b):\n", h) + body(1) + "\n";
      funcs_ = h + 1;
    }
    vars_ = {"pid", "num_pids", "grid_m", "grid_n"};
    out += "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n" + body(1);
    funcs_ = 0;
    return out;
  }

 private:
  std::mt19937 rng_;
  std::vector<std::string> vars_;
  int funcs_ = 0;

  int pick(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }
  static std::string ind(int d) { return std::string(4 * static_cast<std::size_t>(d), ' '); }

  std::string body(int d) {
    std::string s = ind(d) + "x0 = " + iexpr(2) + "\n" + ind(d) + "x1 = " + iexpr(2) + "\n";
    vars_.push_back("x0");
    vars_.push_back("x1");
    for (int i = pick(4); i > 0; --i) s += stmt(d, 2);
    s += ind(d) + "return " + iexpr(3) + "\n";
    vars_.resize(vars_.size() - 2);
    return s;
  }

  std::string stmt(int d, int budget) {
    static const char* aug[] = {"+=", "-=", "*=", "//=", "%=", "<<=", ">>=", "&=", "|=", "^="};
    const int k = budget > 0 ? pick(4) : pick(2);
    const std::string target = pick(2) ? "x0" : "x1";
    if (k == 0) return ind(d) + target + " = " + iexpr(3) + "\n";
    if (k == 1) return ind(d) + target + " " + aug[pick(10)] + " " + iexpr(2) + "\n";
    // A condition is a bool, or an int (meaning != 0).
    std::string s = ind(d) + "if " + (pick(4) ? cond(2) : iexpr(1)) + ":\n" + stmt(d + 1, budget - 1);
    for (int i = pick(3); i > 0; --i)
      s += ind(d) + "elif " + (pick(4) ? cond(2) : iexpr(1)) + ":\n" + stmt(d + 1, budget - 1);
    if (pick(2)) s += ind(d) + "else:\n" + (pick(3) ? stmt(d + 1, budget - 1) : ind(d + 1) + "return " + iexpr(2) + "\n");
    return s;
  }

  std::string cond(int d) {
    static const char* cmp[] = {"==", "!=", "<", "<=", ">", ">="};
    switch (d > 0 ? pick(4) : 0) {
      case 1: return cond(d - 1) + " and " + cond(d - 1);
      case 2: return "(" + cond(d - 1) + " or " + cond(d - 1) + ")";
      case 3: return "not " + cond(d - 1);
      default: return iexpr(d > 0 ? d - 1 : 0) + " " + cmp[pick(6)] + " " + iexpr(d > 0 ? d - 1 : 0);
    }
  }

  std::string iexpr(int d) {
    static const char* ops[] = {"+", "-", "*", "//", "%", "<<", ">>", "&", "|", "^"};
    if (d <= 0) {
      if (pick(3) == 0) return std::to_string(pick(100));
      if (pick(8) == 0) return "SWZ_NUM_DIES";
      return vars_[static_cast<std::size_t>(pick(static_cast<int>(vars_.size())))];
    }
    switch (pick(7)) {
      case 0: return "-" + iexpr(d - 1);
      case 1: return "(" + iexpr(d - 1) + " if " + (pick(3) ? cond(d - 1) : iexpr(d - 1)) + " else " + iexpr(d - 1) + ")";
      case 2: {
        static const char* tl[] = {"tl.cdiv", "tl.minimum", "tl.maximum"};
        return std::string(tl[pick(3)]) + "(" + iexpr(d - 1) + ", " + iexpr(d - 1) + ")";
      }
      case 3:
        if (funcs_ > 0) return fmt::format("h{}({}, {})", pick(funcs_), iexpr(d - 1), iexpr(d - 1));
        return "~" + iexpr(d - 1);
      default: return "(" + iexpr(d - 1) + " " + ops[pick(10)] + " " + iexpr(d - 1) + ")";
    }
  }
};

TEST(PyRegionTranslates, GeneratedRegionsValidateAndCompile) {
  PyrGenerator gen(20261124);
  std::string tu = "#define SWZ_HD\n#define SWZ_NUM_DIES 8\nstruct SwizzleGrid { unsigned m; unsigned n; };\n";
  for (int i = 0; i < 150; ++i) {
    const std::string code = gen.region();
    const RegionVerdict v = validate_py_region(code);
    ASSERT_TRUE(v.ok) << v.message() << "\n" << code;
    auto t = translate_py_region(code);
    ASSERT_TRUE(t.ok());
    const RegionVerdict c = validate_region_code(*t);
    ASSERT_TRUE(c.ok) << c.message() << "\n" << code << "\n" << *t;
    tu += fmt::format("namespace g{} {{\n{}\n}}\n", i, *t);
  }
  if (!test::have_tool("c++")) GTEST_SKIP() << "no host C++ compiler";
  test::TempDir dir;
  test::write_text(dir / "gen.cpp", tu);
  RealProcessRunner runner;
  ProcessSpec spec;
  spec.argv = {"c++", "-std=c++17", "-fsyntax-only", "-w", (dir / "gen.cpp").string()};
  spec.timeout = std::chrono::seconds(120);
  auto r = runner.run(spec);
  ASSERT_TRUE(r.started) << r.err;
  EXPECT_TRUE(r.success()) << r.describe() << "\n" << r.err.substr(0, 4000);
}

}  // namespace
}  // namespace swz
