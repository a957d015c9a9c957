// fake_nvcc: a test double for nvcc at the process seam, for CI machines with no GPU.
//
// Invoked exactly like nvcc by the CUDA backend:
//   fake_nvcc [-x cu] [-std=..] [-O3] [-arch=sm_90] [-I DIR]... [-DNAME[=V]]... -o OUT SRC
// Any other flag is accepted and ignored; SRC is the last non-flag argument.
// It writes a C++ *emulator* of the kernel program to OUT.emu.cpp and compiles it
// with the host compiler ($CXX, else c++; flags -O1 -std=c++17) into OUT, linked with
// the emulator's shared main (compiled once, kept beside fake_nvcc as
// fake_emu_body-<hash>.o). The compiler's output passes through and its exit status
// is fake_nvcc's.
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
const char* const kEmulatorBody = R"EMU(// swizzleperf fake_nvcc: the emulator's main, shared by every program.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>
#include <string>
#include <vector>
#include <time.h>
namespace swz_fake_emu {
// Defined by the program's region unit.
unsigned region_swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid);
extern const char* const kKernel;
extern const unsigned kDefM, kDefN;
extern const bool kHang, kCrash, kWrong, kDumpDiff, kThrottled;
extern const int kNumDies;
extern const char* const kUsage;  // " (usage: prog ...)", swz_sizes.h's text
inline unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid g) {
  return region_swizzle_pid(pid, num_pids, g);
}
constexpr unsigned kTile = 64, kDefK = 512, kPanelCap = 8;
constexpr unsigned long long kSectorsPerLookup = 1024;
const int kDies = kNumDies > 0 ? kNumDies : 1;

struct Shape { unsigned M, N, K; SwizzleGrid g; };
Shape shape(unsigned M, unsigned N, unsigned K) {
  return {M, N, K, SwizzleGrid{(M + kTile - 1) / kTile, (N + kTile - 1) / kTile}};
}
Shape grid_shape(unsigned m, unsigned n) { return shape(m * kTile, n * kTile, kDefK); }

struct Model { unsigned long long hits = 0, misses = 0, tiles = 0; };
// Every die is an LRU cache of kPanelCap panels; pids are processed in order.
Model simulate(SwizzleGrid g) {
  const unsigned np = g.m * g.n;
  std::vector<std::vector<long long>> lru(kDies);  // most recent at the back
  Model r;
  for (unsigned pid = 0; pid < np; ++pid) {
    auto& cache = lru[pid % kDies];
    unsigned t = swizzle_pid(pid, np, g);
    ++r.tiles;
    if (t >= np) continue;  // a real kernel would read garbage; no modelled traffic
    const long long keys[2] = {(long long)(t / g.n), -1 - (long long)(t % g.n)};
    for (long long key : keys) {
      auto it = std::find(cache.begin(), cache.end(), key);
      if (it != cache.end()) { cache.erase(it); r.hits += kSectorsPerLookup; }
      else {
        if (cache.size() >= kPanelCap) cache.erase(cache.begin());
        r.misses += kSectorsPerLookup;
      }
      cache.push_back(key);
    }
  }
  return r;
}

// Everything the emulator prints to stdout goes through emit(), so that evaluate can
// run the other modes and collect their JSON lines; main() writes it out.
std::string g_out;
bool g_nested = false;  // inside evaluate: no second sleep
void emit(const char* fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string b(n > 0 ? n + 1 : 1, '\0');
  if (n > 0) std::vsnprintf(&b[0], b.size(), fmt, ap2);
  va_end(ap2);
  b.resize(n > 0 ? n : 0);
  g_out += b;
}

int usage(const std::string& msg);
int fail(int code, const std::string& msg);

// A switch from the environment: set, not empty and not "0".
bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}
void sleep_ms(unsigned long ms) {
  struct timespec ts{(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {}
}

// ---- the CLI: swz_harness.h's parse_args, rule for rule and message for message ----
const char* g_mode = "none";  // the mode, for the error line

std::string json_escape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += (char)c; }
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += (char)c;
  }
  return o;
}
// The harness's failure: `error: MSG` on stderr, {"mode":..,"ok":false,"error":MSG} on stdout.
int fail(int code, const std::string& msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  emit("{\"mode\":\"%s\",\"ok\":false,\"error\":\"%s\"}\n", g_mode, json_escape(msg).c_str());
  return code;
}
int usage(const std::string& msg) { return fail(2, msg + kUsage); }

bool parse_ll(const std::string& s, long long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}
bool parse_double(const std::string& s, double* out) {  // a finite number, whole string
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

struct Args {
  std::string mode, file, chunks_file, regime = "burst";
  Shape s;
  bool sized = false;
  unsigned long long seed = 1234;
  long long reps = 30, warmup = 5, recovery_ms = 50, max_discards = 30;
  double tol = -1, threshold = 0.75, settle_s = 2.0, sustain_s = 1.0;
};

// 0 when argv is a valid call, else the usage error's exit code (its lines emitted).
int parse(int argc, char** argv, Args* a) {
  static const char* const kModes[] = {"info", "verify", "time", "profile", "dump", "hash", "compare", "evaluate", "serve"};
  a->s = grid_shape(kDefM, kDefN);
  if (argc < 2) return usage("missing mode");
  a->mode = argv[1];
  bool known = false;
  for (const char* m : kModes)
    if (a->mode == m) { known = true; g_mode = m; }
  // SWZ_FAKE_NO_EVALUATE / _NO_SERVE: a program from before that mode (the loop falls back).
  if ((a->mode == "evaluate" && env_on("SWZ_FAKE_NO_EVALUATE")) || (a->mode == "serve" && env_on("SWZ_FAKE_NO_SERVE"))) {
    known = false;
    g_mode = "none";
  }
  if (!known) return usage("unknown mode '" + a->mode + "'");
  const std::string& m = a->mode;
  auto allowed = [&](const std::string& opt) {
    if (opt == "--size") return m != "verify";
    if (opt == "--seed") return m != "info";
    if (opt == "--reps" || opt == "--warmup" || opt == "--regime" || opt == "--throttle-threshold" ||
        opt == "--recovery-ms" || opt == "--max-discards" || opt == "--settle-seconds" || opt == "--sustain-seconds")
      return m == "time" || m == "evaluate" || m == "serve";
    if (opt == "--chunks") return m == "hash" || m == "evaluate";
    if (opt == "--tol") return m == "compare" || m == "evaluate";
    if (opt == "--baseline") return m == "evaluate";
    return false;
  };
  int i = 2;
  if (m == "dump" || m == "compare") {
    if (argc < 3 || std::strncmp(argv[2], "--", 2) == 0)
      return usage(m == "dump" ? "dump needs an output FILE" : "compare needs a BASELINE_FILE");
    a->file = argv[2];
    i = 3;
  }
  std::vector<long long> size;
  for (; i < argc; ++i) {
    std::string opt = argv[i], val;
    const size_t eq = opt.find('=');
    if (opt.rfind("--", 0) == 0 && eq != std::string::npos) {
      val = opt.substr(eq + 1);
      opt = opt.substr(0, eq);
    } else {
      if (opt.rfind("--", 0) != 0) return usage("unexpected argument '" + opt + "'");
      if (i + 1 >= argc) return usage("option " + opt + " needs a value");
      val = argv[++i];
    }
    if (!allowed(opt)) return usage("option " + opt + " is not valid for mode " + m);
    long long v = 0;
    double d = 0;
    if (opt == "--size") {
      size.clear();
      for (size_t start = 0;;) {
        const size_t comma = val.find(',', start);
        if (!parse_ll(val.substr(start, comma == std::string::npos ? std::string::npos : comma - start), &v) || v <= 0)
          return usage("--size wants positive integers separated by commas, got '" + val + "'");
        size.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      a->sized = true;
    } else if (opt == "--seed") {
      if (!parse_ll(val, &v) || v < 0) return usage("--seed wants an integer >= 0");
      a->seed = (unsigned long long)v;
    } else if (opt == "--reps") {
      if (!parse_ll(val, &v) || v < 1) return usage("--reps wants an integer >= 1");
      a->reps = v;
    } else if (opt == "--warmup") {
      if (!parse_ll(val, &v) || v < 0) return usage("--warmup wants an integer >= 0");
      a->warmup = v;
    } else if (opt == "--baseline") {
      if (val.empty()) return usage("--baseline wants a file name");
      a->file = val;
    } else if (opt == "--chunks") {
      if (val.empty()) return usage("--chunks wants a file name");
      a->chunks_file = val;
    } else if (opt == "--tol") {
      if (!parse_double(val, &d) || !(d >= 0)) return usage("--tol wants a finite number >= 0");
      a->tol = d;
    } else if (opt == "--regime") {
      if (val != "burst" && val != "sustained") return usage("--regime wants burst or sustained, got '" + val + "'");
      a->regime = val;
    } else if (opt == "--throttle-threshold") {
      if (!parse_double(val, &d) || !(d >= 0 && d < 1))
        return usage("--throttle-threshold wants a number >= 0 and < 1 (0: keep every rep)");
      a->threshold = d;
    } else if (opt == "--recovery-ms") {
      if (!parse_ll(val, &v) || v < 0) return usage("--recovery-ms wants an integer >= 0");
      a->recovery_ms = v;
    } else if (opt == "--max-discards") {
      if (!parse_ll(val, &v) || v < 0) return usage("--max-discards wants an integer >= 0");
      a->max_discards = v;
    } else if (opt == "--settle-seconds") {
      if (!parse_double(val, &d) || !(d >= 0)) return usage("--settle-seconds wants a number >= 0");
      a->settle_s = d;
    } else if (opt == "--sustain-seconds") {
      if (!parse_double(val, &d) || !(d > 0)) return usage("--sustain-seconds wants a number > 0");
      a->sustain_s = d;
    }
  }
  if (a->sized) {
    if (size.size() != 3) {
      const Shape def = grid_shape(kDefM, kDefN);
      return usage("--size wants 3 values (default [" + std::to_string(def.M) + "," + std::to_string(def.N) + "," +
                   std::to_string(def.K) + "])");
    }
    // The 1-D launch limit, in swz_sizes.h's words (swz_num_pids_error).
    const unsigned long long m = ((unsigned long long)size[0] + kTile - 1) / kTile,
                             n = ((unsigned long long)size[1] + kTile - 1) / kTile;
    if (m * n > 2147483647ull || size[2] > 2147483647ll)
      return usage("--size: num_pids " + std::to_string(m * n) + " (grid " + std::to_string(m) + " x " +
                   std::to_string(n) + ") is above 2^31 - 1, the most workgroups a 1-D launch takes");
    a->s = shape((unsigned)size[0], (unsigned)size[1], (unsigned)size[2]);
  }
  return 0;
}

int run_mode(const Args& a);

// Runs mode `a` and returns its exit code, its last output line in *line (evaluate's parts).
int part(const Args& a, std::string* line) {
  const std::string saved = g_out;
  g_out.clear();
  const int rc = run_mode(a);
  std::string out = g_out;
  g_out = saved;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  *line = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  return rc;
}


// evaluate: verify, then hash (or compare with --baseline), then time, as one JSON
// line, stopping at the first failing part, like the harness's evaluate mode.
int evaluate(const Args& a) {
  if (const char* ms = std::getenv("SWZ_FAKE_SLEEP_MS")) sleep_ms(std::strtoul(ms, nullptr, 10));
  g_nested = true;
  Args v = a, c = a, t = a;
  v.mode = "verify";
  c.mode = a.file.empty() ? "hash" : "compare";
  t.mode = "time";
  std::string verify, check, timing, last;
  int rc = part(v, &verify);
  last = verify;
  std::string line = "{\"mode\":\"evaluate\",\"verify\":" + verify;
  if (rc == 0) {
    rc = part(c, &check);
    last = check;
    line += std::string(",\"") + c.mode + "\":" + check;
  }
  if (rc == 0) {
    rc = part(t, &timing);
    last = timing;
    line += ",\"time\":" + timing;
  }
  if (rc != 0 && last.find("\"error\"") != std::string::npos) {  // a usage or runtime error: its own line and code
    emit("%s\n", last.c_str());
    return rc;
  }
  emit("%s,\"ok\":%s,\"seconds\":{\"verify\":0%s}}\n", line.c_str(), rc == 0 ? "true" : "false",
       rc == 0 ? ",\"check\":0,\"time\":0" : check.empty() ? "" : ",\"check\":0");
  return rc;
}

// serve: the harness's serve mode. A ready line, then one time line per "time", "time burst"
// or "time sustained" line on stdin until "quit" or end of input. The time model and its
// faults (SWZ_FAKE_TIME_FLAT, _SLOW_*, hang, crash) apply to each request as to time mode.
int serve(const Args& a) {
  if (const char* ms = std::getenv("SWZ_FAKE_SLEEP_MS")) sleep_ms(std::strtoul(ms, nullptr, 10));
  g_nested = true;
  if (kHang) for (;;) sleep_ms(1000);
  if (kCrash) std::abort();
  emit("{\"mode\":\"serve\",\"ready\":true,\"size\":[%u,%u,%u]}\n", a.s.M, a.s.N, a.s.K);
  std::fputs(g_out.c_str(), stdout);
  std::fflush(stdout);
  g_out.clear();
  char buf[256];
  while (std::fgets(buf, sizeof buf, stdin)) {
    std::string cmd = buf;
    while (!cmd.empty() && (cmd.back() == '\n' || cmd.back() == '\r' || cmd.back() == ' ')) cmd.pop_back();
    if (cmd == "quit") break;
    std::string line;
    int rc = 0;
    if (cmd == "time" || cmd == "time burst" || cmd == "time sustained") {
      Args t = a;
      t.mode = "time";
      if (cmd != "time") t.regime = cmd.substr(5);
      rc = part(t, &line);
    } else {
      line = "{\"mode\":\"serve\",\"ok\":false,\"error\":\"unknown request '" + json_escape(cmd.substr(0, 64)) +
             "' (time|time burst|time sustained|quit)\"}";
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (rc != 0) return rc;
  }
  return 0;
}

int run(int argc, char** argv) {
  Args a;
  if (const int rc = parse(argc, argv, &a); rc != 0) return rc;
  if (a.mode == "evaluate" || a.mode == "compare") {  // the baseline is read before the device is opened
    if (!a.file.empty() && std::fopen(a.file.c_str(), "rb") == nullptr)
      return fail(2, "cannot open baseline file " + a.file + ": " + std::strerror(errno));
  }
  if (a.mode != "info" && env_on("SWZ_FAKE_NO_DEVICE")) return fail(3, "no GPU device (device count is 0)");
  if (a.mode == "evaluate") return evaluate(a);
  if (a.mode == "serve") return serve(a);
  return run_mode(a);
}

void print_size(const Shape& s) { emit("[%u,%u,%u]", s.M, s.N, s.K); }

// The output: f(t) at position t for every tile written; never-written tiles stay poison.
// SWZ_FAKE_OUTPUT_FILE=F: the output is F's bytes instead (its size a multiple of 4), so
// hash digests given bytes (the conformance suite's digest vectors).
std::vector<uint32_t> output(const Shape& s) {
  if (const char* f = std::getenv("SWZ_FAKE_OUTPUT_FILE"); f && *f) {
    std::vector<uint32_t> out;
    if (FILE* in = std::fopen(f, "rb")) {
      uint32_t w;
      while (std::fread(&w, 4, 1, in) == 1) out.push_back(w);
      std::fclose(in);
    }
    return out;
  }
  const unsigned np = s.g.m * s.g.n;
  std::vector<uint32_t> out(np, 0xFFFFFFFFu);
  for (unsigned pid = 0; pid < np; ++pid) {
    unsigned t = swizzle_pid(pid, np, s.g);
    if (t < np) out[t] = (uint32_t)(t * 2654435761u);
  }
  if (kDumpDiff && np > 0) out[np - 1] ^= 0x1u;
  return out;
}

// The harness's digest (kernels/support/swz_harness.h), on the host, with small chunks
// so that tests can see which chunk differs.
constexpr unsigned long long kChunkBytes = 256;
unsigned long long mix(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
std::vector<unsigned long long> chunk_digests(const unsigned char* p, unsigned long long bytes) {
  std::vector<unsigned long long> d;
  for (unsigned long long begin = 0; begin < bytes; begin += kChunkBytes) {
    const unsigned long long end = std::min(begin + kChunkBytes, bytes);
    unsigned long long sum = 0;
    for (unsigned long long w = begin / 8; w < (end + 7) / 8; ++w) {
      unsigned long long v = 0;
      for (unsigned long long b = w * 8; b < end && b < w * 8 + 8; ++b)
        v |= (unsigned long long)p[b] << (8 * (b - w * 8));
      sum += mix(v ^ mix(w + 0x9E3779B97F4A7C15ull));
    }
    d.push_back(mix(sum + (end - begin)));
  }
  return d;
}

int run_mode(const Args& a) {
  const std::string mode = a.mode;
  const Shape s = a.s;
  const bool sized = a.sized;
  const unsigned long reps = (unsigned long)a.reps, warmup = (unsigned long)a.warmup;
  const unsigned long long seed = a.seed;
  const std::string dump_file = a.file, chunks_file = a.chunks_file, regime = a.regime;
  const double threshold = a.threshold;
  double tol = a.tol;
  if (const char* ms = std::getenv("SWZ_FAKE_SLEEP_MS"); ms && !g_nested) sleep_ms(std::strtoul(ms, nullptr, 10));
  if (mode != "info" && kHang) for (;;) sleep_ms(1000);
  if ((mode == "time" || mode == "profile" || mode == "verify") && kCrash) std::abort();
  const unsigned np = s.g.m * s.g.n;
  const char* tol_env = std::getenv("SWZ_FAKE_DUMP_TOL");
  const double dump_tol = tol_env ? std::strtod(tol_env, nullptr) : 0.0;
  // SWZ_FAKE_LAUNCHES=N: run() is N identical launches (a time loop), 1 by default.
  const char* launches_env = std::getenv("SWZ_FAKE_LAUNCHES");
  const unsigned long launches = launches_env ? std::max(1ul, std::strtoul(launches_env, nullptr, 10)) : 1ul;

  if (mode == "info") {
    emit("{\"kernel\":\"%s\",\"kernel_regex\":\"%s_kernel\",\"size\":", kKernel, kKernel);
    print_size(s);
    const unsigned long long footprint = 4ull * ((unsigned long long)s.M * s.K + (unsigned long long)s.K * s.N +
                                                 (unsigned long long)s.M * s.N);
    // SWZ_FAKE_INFO_GRID=MxN: the grid info reports at the default size (a program whose
    // default-grid comment disagrees with it, for check's port checks).
    SwizzleGrid g = s.g;
    if (const char* ig = std::getenv("SWZ_FAKE_INFO_GRID"); ig && !sized) {
      unsigned m = 0, n = 0;
      if (std::sscanf(ig, "%ux%u", &m, &n) == 2 && m && n) g = SwizzleGrid{m, n};
    }
    emit(",\"grid\":{\"m\":%u,\"n\":%u},\"num_pids\":%u,\"footprint_bytes\":%llu,\"num_dies\":%d,"
         "\"dump_tol\":%g,\"verify_sizes\":[",
         g.m, g.n, g.m * g.n, footprint, kNumDies, dump_tol);
    const Shape verify[] = {grid_shape(5, 3), grid_shape(1, 7), grid_shape(7, 1)};
    for (int c = 0; c < 3; ++c) {
      emit(c ? "," : "");
      print_size(verify[c]);
    }
    emit("],\"launches\":%lu", launches);
    // SWZ_FAKE_NO_FOOTPRINTS=1: the launch count alone, like smith_waterman.
    if (!env_on("SWZ_FAKE_NO_FOOTPRINTS")) {
      emit(",\"launch_footprints_bytes\":[");
      for (unsigned long l = 0; l < launches; ++l) emit("%s%llu", l ? "," : "", footprint);
      emit("]");
    }
    emit("}\n");
    return 0;
  }
  if (mode == "verify") {
    std::vector<Shape> cases = {s, grid_shape(5, 3), grid_shape(1, 7), grid_shape(7, 1)};
    if (s.g.n > 1) cases.push_back(grid_shape(s.g.m + 1, s.g.n - 1));
    bool all_ok = true;
    std::string body;  // the cases, then the line: "ok" comes before them
    for (size_t c = 0; c < cases.size(); ++c) {
      const SwizzleGrid g = cases[c].g;
      const unsigned n = g.m * g.n;
      std::vector<unsigned> writes(n, 0);
      for (unsigned pid = 0; pid < n; ++pid) {
        unsigned t = swizzle_pid(pid, n, g);
        if (t < n) ++writes[t];
      }
      unsigned long long missing = 0;
      for (unsigned w : writes) missing += (w == 0);
      unsigned long long mismatches = missing * kTile * kTile;  // poisoned elements left
      if (kWrong && mismatches == 0) mismatches = 3;
      const bool ok = mismatches == 0;
      all_ok = all_ok && ok;
      // Missing tiles are poison (NaN): not finite, so no error statistics (the harness's rule).
      const unsigned long long nonfinite = missing * kTile * kTile;
      const std::string err = missing ? "null" : (kWrong ? "0.5" : "1.5e-05");
      char b[256];
      std::snprintf(b, sizeof b, "%s{\"size\":[%u,%u,%u],\"max_abs_err\":%s,\"max_rel_err\":%s,\"tol\":0.001,"
                    "\"rel_tol\":0,\"mismatches\":%llu,\"nonfinite\":%llu", c ? "," : "", cases[c].M, cases[c].N,
                    cases[c].K, err.c_str(), err.c_str(), mismatches, nonfinite);
      body += b;
      if (!ok) {
        unsigned long long first = 0;
        while (first < n && writes[first] != 0) ++first;
        std::snprintf(b, sizeof b, ",\"first_bad\":{\"index\":%llu,\"got\":%s,\"ref\":1}",
                      missing ? first * kTile * kTile : 0ull, missing ? "null" : "1.5");
        body += b;
      }
      body += std::string(",\"ok\":") + (ok ? "true" : "false") + "}";
    }
    emit("{\"mode\":\"verify\",\"ok\":%s,\"seed\":%llu,\"cases\":[%s]}\n", all_ok ? "true" : "false", seed,
         body.c_str());
    return all_ok ? 0 : 1;
  }
  if (mode == "time") {
    const Model m = simulate(s.g);
    const double sectors = (double)(m.hits + m.misses);
    double base = 1.0 + 4.0 * (sectors > 0 ? m.misses / sectors : 0.0);
    // Speed variants of the model (env, read here): FLAT, every program times the same
    // (nothing can be significant); SLOW_ABOVE_HIT_PCT=H, a program whose modelled hit rate
    // is >= H runs SLOW_FACTOR (default 1.5) times slower: L2-better but slower, like a
    // swizzle whose index arithmetic or lost coalescing costs more than its cache gain.
    if (env_on("SWZ_FAKE_TIME_FLAT")) base = 1.0;
    if (const char* h = std::getenv("SWZ_FAKE_SLOW_ABOVE_HIT_PCT"); h && *h && sectors > 0 &&
        100.0 * m.hits / sectors >= std::strtod(h, nullptr)) {
      const char* fac = std::getenv("SWZ_FAKE_SLOW_FACTOR");
      base *= fac && *fac ? std::strtod(fac, nullptr) : 1.5;
    }
    static const int kSpread[5] = {0, 1, -1, 2, -2};  // tiny deterministic spread
    std::vector<double> t(reps);
    for (unsigned long r = 0; r < reps; ++r) t[r] = base * (1.0 + 1e-4 * kSpread[r % 5]);
    std::vector<double> sorted = t;
    std::sort(sorted.begin(), sorted.end());
    const double median = reps % 2 ? sorted[reps / 2] : 0.5 * (sorted[reps / 2 - 1] + sorted[reps / 2]);
    double mean = 0;
    for (double x : t) mean += x / reps;
    // Regimes (docs/timing.md), modelled: a burst runs at the reference clock (1980 MHz);
    // a sustained request runs at the power cap, slower by SWZ_FAKE_SUSTAINED_FACTOR
    // (default 1.05) at 1600 MHz, and reports energy per run proportional to its time
    // and misses. SWZ_FAKE_DISCARDS=N: N burst samples re-taken; SWZ_FAKE_NOT_REACHED=
    // burst|sustained: that regime could not be held.
    const bool sustained = regime == "sustained";
    double scale = 1.0;
    if (sustained) {
      const char* f = std::getenv("SWZ_FAKE_SUSTAINED_FACTOR");
      scale = f && *f ? std::strtod(f, nullptr) : 1.05;
    }
    const double miss_frac = sectors > 0 ? m.misses / sectors : 0.0;
    int mhz_min = sustained ? 1590 : 1980, mhz_med = sustained ? 1600 : 1980, reasons = sustained ? 4 : 0;
    // SWZ_FAKE_POWER=1: a power-capped GPU (docs/timing.md's physics, a model for tests). The
    // order's DRAM traffic (its miss fraction) draws power; above the cap (700 W in a burst,
    // 600 W sustained) the clock drops until the compute part's power (~clock^2) fits, and
    // only the compute part of the time (1.0 of base) slows with it. The cap slides 0.3 % a
    // second since SWZ_FAKE_POWER_EPOCH (unix seconds; every program alike: drift), each
    // request's time carries +-0.5 % noise, and with SWZ_FAKE_THROTTLE_REQUEST=N a program
    // whose region says SWZ_FAKE_THROTTLED runs its N-th request (counted per process: serve
    // mode) at 70 % clock reporting a hardware slowdown (0x8): an event one member alone saw.
    if (env_on("SWZ_FAKE_POWER")) {
      static unsigned long requests = 0;
      ++requests;
      const char* epoch = std::getenv("SWZ_FAKE_POWER_EPOCH");
      const double since = epoch && *epoch ? std::max(0.0, (double)time(nullptr) - std::strtod(epoch, nullptr)) : 0.0;
      const double cap = (sustained ? 600.0 : 700.0) * (1.0 - 0.003 * since);
      const double budget = cap - 100.0 - 250.0 * miss_frac;
      double mhz = budget >= 450.0 ? 1980.0 : 1980.0 * std::sqrt(std::max(budget, 22.5) / 450.0);
      reasons = mhz < 1980.0 ? 4 : 0;
      const char* tr = std::getenv("SWZ_FAKE_THROTTLE_REQUEST");
      if (kThrottled && tr && std::strtoul(tr, nullptr, 10) == requests) {
        mhz *= 0.7;
        reasons |= 8;
      }
      const unsigned long h = (unsigned long)getpid() * 2654435761ul + requests * 40503ul;
      const double noise = 1.0 + 0.005 * ((double)(h % 2001) / 1000.0 - 1.0);
      scale = ((1.0 * 1980.0 / mhz) + (base - 1.0)) / base * noise;
      mhz_min = mhz_med = (int)std::lround(mhz);
    }
    const char* discards_env = std::getenv("SWZ_FAKE_DISCARDS");
    const unsigned long discarded = !sustained && discards_env ? std::strtoul(discards_env, nullptr, 10) : 0;
    const char* nr = std::getenv("SWZ_FAKE_NOT_REACHED");
    const bool reached = !(nr && regime == nr);
    emit("{\"mode\":\"time\",\"size\":[%u,%u,%u],\"median_ms\":%.9g,\"min_ms\":%.9g,\"max_ms\":%.9g,"
                "\"mean_ms\":%.9g,\"reps\":%lu,\"warmup\":%lu,\"times_ms\":[",
                s.M, s.N, s.K, median * scale, sorted.front() * scale, sorted.back() * scale, mean * scale, reps,
                sustained ? std::max(1ul, warmup) : warmup);
    for (unsigned long r = 0; r < reps; ++r) emit("%s%.9g", r ? "," : "", t[r] * scale);
    emit("],\"regime\":\"%s\",\"telemetry\":\"fake\",\"sm_mhz_min\":%d,\"sm_mhz_median\":%d,\"sm_mhz_reference\":1980,"
         "\"clock_reasons\":%d,\"discarded\":%lu,\"throttle_threshold\":%g,",
         regime.c_str(), mhz_min, mhz_med, reasons, discarded, threshold);
    if (sustained) emit("\"energy_mj_per_run\":%.9g,", median * scale * (300.0 + 200.0 * miss_frac));
    else emit("\"energy_mj_per_run\":null,");
    // Sustained's window, modelled: one pass a batch, the window and settling as asked.
    if (sustained)
      emit("\"passes\":%lu,\"batch\":1,\"window_s\":%.9g,\"settle_s\":%.9g,\"clock_slide_pct\":0,", reps,
           a.sustain_s, a.settle_s);
    if (reached) emit("\"regime_reached\":true}\n");
    else emit("\"regime_reached\":false,\"regime_problem\":\"fake: the %s regime could not be held\"}\n", regime.c_str());
    return 0;
  }
  if (mode == "profile") {
    const Model m = simulate(s.g);
    const unsigned long long sectors = m.hits + m.misses;
    for (unsigned long l = 0; l < launches; ++l)
    emit("SWZ_FAKE_METRICS {\"kernel\":\"%s_kernel\",\"grid_size\":%u,"
                "\"lts__t_sectors.sum\":%llu,\"lts__t_sectors_lookup_hit.sum\":%llu,"
                "\"lts__t_sectors_lookup_miss.sum\":%llu,\"lts__t_sector_hit_rate.pct\":%.6f,"
                "\"lts__t_sectors_srcunit_ltcfabric.sum\":%llu,\"dram__bytes_read.sum\":%llu,"
                "\"dram__bytes_write.sum\":%llu,\"gpu__time_duration.sum\":%llu,"
                "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\":%.6f}\n",
                kKernel, np, sectors, m.hits, m.misses, sectors ? 100.0 * m.hits / sectors : 0.0,
                m.misses / 2, m.misses * 32, m.tiles * kSectorsPerLookup * 32 / 8,
                1000000ull + m.misses * 10, 40.0 + (sectors ? 40.0 * m.hits / sectors : 0.0));
    emit("{\"mode\":\"profile\",\"ok\":true}\n");
    return 0;
  }
  const std::vector<uint32_t> out = output(s);
  const size_t values = out.size();
  const unsigned long long bytes = 4ull * values;
  if (mode == "hash") {
    const auto d = chunk_digests(reinterpret_cast<const unsigned char*>(out.data()), bytes);
    unsigned long long h = mix(bytes ^ 0x9E3779B97F4A7C15ull);
    for (unsigned long long x : d) h = mix(h ^ x);
    if (!chunks_file.empty()) {
      FILE* f = std::fopen(chunks_file.c_str(), "w");
      bool ok = f != nullptr;
      for (unsigned long long x : d) ok = ok && std::fprintf(f, "%016llx\n", x) == 17;
      if (!f) return fail(3, "cannot open " + chunks_file + " for writing: " + std::strerror(errno));
      if (std::fclose(f) != 0 || !ok) return fail(3, "cannot write " + chunks_file);
    }
    emit("{\"mode\":\"hash\",\"bytes\":%llu,\"hash\":\"%016llx\",\"chunk_bytes\":%llu,\"chunks\":%zu}\n",
                bytes, h, kChunkBytes, d.size());
    return 0;
  }
  if (mode == "compare") {  // exactly the harness's rule (values are f32 bit patterns)
    std::vector<unsigned char> base;
    if (FILE* f = std::fopen(dump_file.c_str(), "rb")) {
      unsigned char buf[4096];
      for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) base.insert(base.end(), buf, buf + got);
      std::fclose(f);
    } else {
      return fail(2, "cannot open baseline file " + dump_file + ": " + std::strerror(errno));
    }
    if (base.size() != bytes)
      return fail(1, "output sizes differ (" + std::to_string(base.size()) + " vs " + std::to_string(bytes) + " bytes)");
    if (tol < 0) tol = dump_tol;
    unsigned long long bad = 0, first = 0;
    for (size_t k = 0; k < values; ++k) {
      uint32_t a, b = out[k];
      std::memcpy(&a, &base[4ull * k], 4);
      if (a == b) continue;
      float fa, fb;
      std::memcpy(&fa, &a, 4);
      std::memcpy(&fb, &b, 4);
      const double err = std::fabs((double)fa - (double)fb);
      if (!(err <= tol * std::max(1.0, std::fabs((double)fa))) && bad++ == 0) first = k;
    }
    emit("{\"mode\":\"compare\",\"ok\":%s,\"values\":%zu,\"mismatches\":%llu,\"first_index\":%lld,"
                "\"tol\":%.9g}\n", bad ? "false" : "true", values, bad, bad ? (long long)first : -1LL, tol);
    return bad ? 1 : 0;
  }
  FILE* f = std::fopen(dump_file.c_str(), "wb");
  if (!f) return fail(3, "cannot open " + dump_file + " for writing: " + std::strerror(errno));
  const bool written = std::fwrite(out.data(), 4, values, f) == values;
  if (std::fclose(f) != 0 || !written) return fail(3, "cannot write " + dump_file);
  emit("{\"mode\":\"dump\",\"bytes\":%llu}\n", bytes);
  return 0;
}
}  // namespace swz_fake_emu

int main(int argc, char** argv) {
  int rc = swz_fake_emu::run(argc, argv);
  std::fputs(swz_fake_emu::g_out.c_str(), stdout);
  std::fflush(stdout);
  return rc;
}
)EMU";

const char* const kDeviceQuery = R"EMU(#include <cstdio>
int main() {
  std::printf("{\"name\":\"Fake GPU (swizzleperf test double)\",\"arch\":\"sm_90\",\"vendor\":\"nvidia\","
              "\"compute_units\":132,\"l2_bytes\":52428800,\"total_mem_bytes\":85899345920,"
              "\"clock_khz\":1980000,\"warp_size\":32,\"max_threads_per_block\":1024,\"num_xcc\":-1,"
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
