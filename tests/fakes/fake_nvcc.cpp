// fake_nvcc: a test double for nvcc at the process seam, for CI machines with no GPU.
//
// Invoked exactly like nvcc by the CUDA backend:
//   fake_nvcc [-x cu] [-std=..] [-O3] [-arch=sm_90] [-I DIR]... [-DNAME[=V]]... -o OUT SRC
// Any other flag is accepted and ignored; SRC is the last non-flag argument.
// It writes a C++ *emulator* of the kernel program to OUT.emu.cpp and compiles it
// with the host compiler ($CXX, else c++; flags -O1 -std=c++17) into OUT, linked with
// the emulator's shared main (its text: fake_nvcc_emulator.inc; compiled once, kept
// beside fake_nvcc as fake_emu_body-<hash>.o). The compiler's output passes through and
// its exit status is fake_nvcc's.
//
//  - SRC named device_query.hip: the emulator prints one fixed device JSON line.
//  - otherwise SRC must hold one `// swizzleperf:begin` ... `// swizzleperf:end`
//    region; it is embedded verbatim (under #line, so diagnostics name SRC), after a
//    prelude defining SWZ_HD, SwizzleGrid, SWZ_NUM_DIES (from -D, else 1) and every
//    other -D. A region that does not compile fails the build, like a real one.
//    The emulator implements the kernel-program contract (info/verify/time/profile/
//    dump) over a small deterministic GEMM-like model: tile (i,j) of an m x n grid
//    reads row panel i and column panel j; each die (pid % SWZ_NUM_DIES) is an LRU
//    cache of 8 panels. Its numbers are a model for testing the loop, never measurements.
//  - Magic words in the region: SWZ_FAKE_HANG, SWZ_FAKE_CRASH, SWZ_FAKE_WRONG,
//    SWZ_FAKE_DUMP_DIFF (see tests/fakes/README.md). Env: SWZ_FAKE_SLEEP_MS,
//    SWZ_FAKE_TIME_FLAT, SWZ_FAKE_SLOW_ABOVE_HIT_PCT / SWZ_FAKE_SLOW_FACTOR (read by the
//    emulator's time mode), SWZ_FAKE_NVCC_LOG=FILE (each call's argv appended as one line).
// Only the C++ standard library and POSIX are used.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../kernels/support/swz_sizes.h"
#include "fault_injection.h"

namespace {

// ---- The emulator's main: its own translation unit (C++17), the same for every
// program, compiled once and linked with each program's region unit (which defines
// what the extern declarations below name). Compiling these headers and this code
// once instead of per program is most of a fake build's time. ----
// SwizzleGrid, as both units declare it (one text, so the two link as one type); the
// body's file is this line followed by kEmulatorBody.
const char* const kSwizzleGrid = "struct SwizzleGrid { unsigned m; unsigned n; };\n";
const char* const kEmulatorBody =
#include "fake_nvcc_emulator.inc"
    ;

const char* const kDeviceQuery = R"EMU(#include <cstdio>
int main() {
  std::printf("{\"name\":\"Fake GPU (swizzleperf test double)\",\"arch\":\"sm_90\",\"vendor\":\"nvidia\","
              "\"compute_units\":132,\"l2_bytes\":52428800,\"total_mem_bytes\":85899345920,"
              "\"clock_khz\":1980000,\"warp_size\":32,\"max_threads_per_block\":1024,"
              "\"shared_mem_per_block\":232448,\"num_xcc\":-1,"
              "\"driver_version\":13000,\"runtime_version\":13000}\n");
  return 0;
}
)EMU";

int fail(const std::string& msg) {
  std::fprintf(stderr, "fake_nvcc: error: %s\n", msg.c_str());
  return 1;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string c_quote(const std::string& s) {
  std::string r = "\"";
  for (char c : s) { if (c == '"' || c == '\\') r += '\\'; r += c; }
  return r + "\"";
}

std::string basename_of(const std::string& p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

void log_argv(int argc, char** argv) {
  const char* path = std::getenv("SWZ_FAKE_NVCC_LOG");
  if (!path || !*path) return;
  std::string line;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i) line += ' ';
    line += a.find_first_of(" \t'\"") == std::string::npos ? a : "'" + a + "'";
  }
  line += '\n';
  if (FILE* f = std::fopen(path, "a")) { std::fwrite(line.data(), 1, line.size(), f); std::fclose(f); }
}

// The host compiler command's words: $CXX, else c++.
std::vector<std::string> host_compiler() {
  std::vector<std::string> words;
  const char* cxx = std::getenv("CXX");
  std::istringstream in(cxx && *cxx ? cxx : "c++");
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Runs argv with output passed through; returns its exit status.
int run_argv(std::vector<std::string> args) {
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return fail("fork failed");
  if (pid == 0) {
    execvp(cargv[0], cargv.data());
    std::fprintf(stderr, "fake_nvcc: error: cannot run host compiler '%s'\n", cargv[0]);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {}
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string dirname_of(const std::string& p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

// The emulator body's object file: compiled once per body text and compiler
// command, and kept beside this executable (else in $TMPDIR) as
// fake_emu_body-<hash>.o. It is written under a name of this process's own and
// renamed into place, so builds running side by side never link a half-written
// file; two that race both compile it, and either result is the same. Sets *path;
// returns the compiler's exit status (0 when the object already exists).
int body_object(std::string* path) {
  const std::vector<std::string> cxx = host_compiler();
  const std::string text = std::string(kSwizzleGrid) + kEmulatorBody;
  unsigned long long h = 1469598103934665603ull;  // FNV-1a over the body and the command
  auto mix_in = [&](const std::string& t) {
    for (unsigned char c : t) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xFFu) * 1099511628211ull;
  };
  mix_in(text);
  for (const auto& w : cxx) mix_in(w);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", h);
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string dir = n > 0 ? dirname_of(std::string(exe, (size_t)n)) : ".";
  if (access(dir.c_str(), W_OK) != 0) {
    const char* tmp = std::getenv("TMPDIR");
    dir = tmp && *tmp ? tmp : "/tmp";
  }
  *path = dir + "/fake_emu_body-" + hex + ".o";
  if (access(path->c_str(), R_OK) == 0) return 0;
  const std::string pid = std::to_string(getpid());
  const std::string src = *path + "." + pid + ".cpp", obj = *path + "." + pid + ".o";
  {
    std::ofstream f(src, std::ios::binary | std::ios::trunc);
    if (!(f << text) || !f.flush()) return fail("cannot write " + src);
  }
  std::vector<std::string> args = cxx;
  for (const char* a : {"-O1", "-std=c++17", "-c", "-o"}) args.push_back(a);
  args.push_back(obj);
  args.push_back(src);
  const int rc = run_argv(args);
  std::remove(src.c_str());
  if (rc != 0) {
    std::remove(obj.c_str());
    return rc;
  }
  if (std::rename(obj.c_str(), path->c_str()) != 0) {
    std::remove(obj.c_str());
    return fail("cannot rename " + obj + " to " + *path);
  }
  return 0;
}

// Compiles the program's unit into OUT, linked with the shared body object when
// given; returns the compiler's exit status.
int run_compiler(const std::string& out, const std::string& emu, const std::string& body) {
  std::vector<std::string> args = host_compiler();
  for (const char* a : {"-O1", "-std=c++17", "-o"}) args.push_back(a);
  args.push_back(out);
  args.push_back(emu);
  if (!body.empty()) args.push_back(body);
  return run_argv(args);
}

}  // namespace

int main(int argc, char** argv) {
  log_argv(argc, argv);
  std::string out, src;
  std::vector<std::pair<std::string, std::string>> defines;
  // nvcc flags whose value is the next argument when not joined with '=' or glued on.
  const std::vector<std::string> with_value = {"-o", "-x", "-I", "-D", "-arch", "-gencode", "-ccbin",
      "-Xcompiler", "-Xptxas", "-Xlinker", "-include", "-L", "-l", "--output-file", "-code",
      "--compiler-bindir", "--include-path", "--define-macro", "--gpu-architecture"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.empty() || a[0] != '-') { src = a; continue; }
    bool takes = false;
    std::string value;
    const size_t eq = a.find('=');
    for (const auto& f : with_value) {
      if (a == f) takes = true;
      else if (eq != std::string::npos && a.substr(0, eq) == f) { value = a.substr(eq + 1); a = f; }
    }
    if (takes) {
      if (i + 1 >= argc) return fail("option " + a + " needs a value");
      value = argv[++i];
    }
    if (a == "-o" || a == "--output-file") out = value;
    else if (a == "-D" || a == "--define-macro" || (a.rfind("-D", 0) == 0 && a.size() > 2)) {
      std::string d = (a == "-D" || a == "--define-macro") ? value : a.substr(2);
      size_t eq = d.find('=');
      defines.emplace_back(d.substr(0, eq), eq == std::string::npos ? "1" : d.substr(eq + 1));
    }
  }
  if (src.empty()) return fail("no input file given");
  if (out.empty()) return fail("no output file given (-o OUT)");
  std::ifstream in(src, std::ios::binary);
  if (!in) return fail("cannot read input file " + src);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  const std::string emu_path = out + ".emu.cpp";
  std::string emu, body;  // body: the shared body's object, for a kernel program

  if (basename_of(src) == "device_query.hip") {
    emu = kDeviceQuery;
  } else {
    // Find the one region and the optional default grid.
    std::istringstream lines(text);
    std::string line, region;
    int lineno = 0, begin_line = 0, begins = 0, ends = 0;
    unsigned def_m = 16, def_n = 16;
    bool inside = false;
    while (std::getline(lines, line)) {
      ++lineno;
      const std::string t = trim(line);
      if (t == "// swizzleperf:begin") { ++begins; begin_line = lineno; inside = true; continue; }
      if (t == "// swizzleperf:end") { ++ends; if (!inside) return fail(src + ": end marker before begin marker"); inside = false; continue; }
      if (inside) region += line + "\n";
      const size_t g = t.find("swizzleperf:default-grid");
      if (t.rfind("//", 0) == 0 && g != std::string::npos) {
        unsigned m = 0, n = 0;
        if (std::sscanf(t.c_str() + g + 24, " %ux%u", &m, &n) == 2 && m && n) { def_m = m; def_n = n; }
      }
    }
    if (begins == 0 || ends == 0)
      return fail(src + ": no '// swizzleperf:begin' ... '// swizzleperf:end' region");
    if (begins != 1 || ends != 1) return fail(src + ": more than one swizzleperf region");
    if (inside) return fail(src + ": region not closed by '// swizzleperf:end'");

    // Seeded faults (fault_injection.h): a compile error now, or a program that
    // hangs / crashes like the magic words SWZ_FAKE_HANG / SWZ_FAKE_CRASH.
    const std::string fault = swz_fake::pick_fault("fake_nvcc", argc, argv, {"compile", "hang", "crash"});
    if (fault == "compile") {
      std::fprintf(stderr, "%s(%d): error: injected compile error (SWZ_FAKE_FAULT_RATE)\n", src.c_str(), begin_line + 1);
      return 1;
    }

    std::string num_dies = "1";
    std::string stem = basename_of(src);
    if (size_t dot = stem.find('.'); dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
    for (char& c : stem) if (!std::isalnum((unsigned char)c) && c != '_') c = '_';
    if (stem.empty()) stem = "kernel";

    // The program's unit: this prelude, the region, and the definitions the shared
    // body declares extern (the region's swizzle_pid behind a name of the body's own).
    std::ostringstream o;
    o << "// Generated by fake_nvcc from " << src << ": a host emulator of the kernel program.\n"
      << "// A model for testing swizzleperf's loop; its numbers are never measurements.\n"
      << "#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n"
      << "#include <cstring>\n#include <type_traits>\n"
      << "#define SWZ_HD\n#define __host__\n#define __device__\n#define __forceinline__ inline\n";
    for (const auto& [name, value] : defines) {
      if (name == "SWZ_NUM_DIES") num_dies = value;
      else o << "#define " << name << " " << value << "\n";
    }
    o << "#define SWZ_NUM_DIES " << num_dies << "\n"
      << kSwizzleGrid
      << "// CUDA provides min/max for mixed integer types in host+device code.\n"
      << "template <class A, class B> inline typename std::common_type<A, B>::type min(A a, B b) "
         "{ return a < b ? a : b; }\n"
      << "template <class A, class B> inline typename std::common_type<A, B>::type max(A a, B b) "
         "{ return a < b ? b : a; }\n"
      << "#line " << begin_line + 1 << " " << c_quote(src) << "\n" << region;
    std::string head = o.str();
    const size_t next_line = std::count(head.begin(), head.end(), '\n') + 2;
    std::ostringstream tail;
    tail << "#line " << next_line << " " << c_quote(emu_path) << "\n"
         << "namespace swz_fake_emu {\n"
         << "unsigned region_swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
         << "  return swizzle_pid(pid, num_pids, grid);\n}\n"
         << "extern const char* const kKernel = " << c_quote(stem) << ";\n"
         << "extern const unsigned kDefM = " << def_m << ", kDefN = " << def_n << ";\n"
         << "extern const bool kHang = " << (fault == "hang" || region.find("SWZ_FAKE_HANG") != std::string::npos) << ";\n"
         << "extern const bool kCrash = " << (fault == "crash" || region.find("SWZ_FAKE_CRASH") != std::string::npos) << ";\n"
         << "extern const bool kWrong = " << (region.find("SWZ_FAKE_WRONG") != std::string::npos) << ";\n"
         << "extern const bool kDumpDiff = " << (region.find("SWZ_FAKE_DUMP_DIFF") != std::string::npos) << ";\n"
         << "extern const bool kThrottled = " << (region.find("SWZ_FAKE_THROTTLED") != std::string::npos) << ";\n"
         << "extern const int kNumDies = SWZ_NUM_DIES;\n"
         << "extern const char* const kUsage = " << c_quote(swz_usage_text(false)) << ";\n"
         << "}  // namespace swz_fake_emu\n";
    emu = head + tail.str();
    if (const int rc = body_object(&body); rc != 0) return rc;
  }

  {
    std::ofstream f(emu_path, std::ios::binary | std::ios::trunc);
    if (!(f << emu) || !f.flush()) return fail("cannot write " + emu_path);
  }
  return run_compiler(out, emu_path, body);
}
