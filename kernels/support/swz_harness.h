// swizzleperf kernel harness: shared host+device support for every program in kernels/.
// Include it right after <hip/hip_runtime.h>. The full contract is docs/kernel-contract.md.
//
// A kernel program
//   1. defines its swizzle region (swizzle_pid) right after the includes,
//   2. derives a class from SwzProgram (name, sizes, grid, setup/run/output/reference/
//      tolerance), and
//   3. ends with:  int main(int argc, char** argv) { MyProgram p; return swz_main(p, argc, argv); }
// swz_main implements the program CLI the tool relies on:
//   prog info    [--size a,b,..]                          geometry, no GPU needed
//   prog verify  [--seed S]                               every verify size vs. the CPU reference
//   prog time    [--size ..] [--reps N] [--warmup W] [--seed S]   L2 flushed before each rep
//   prog profile [--size ..] [--seed S]                   run() exactly once (profiler wraps this)
//   prog dump FILE [--size ..] [--seed S]                 raw output bytes to FILE
// Each mode prints one JSON line, always the last stdout line. Exit codes: 0 ok,
// 1 validation failed, 2 usage error, 3 runtime/HIP error.
#ifndef SWZ_HARNESS_H
#define SWZ_HARNESS_H

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define SWZ_HD __host__ __device__

// Number of dies (MI300X XCDs: 8; H100 L2 partitions: 2). The tool passes -DSWZ_NUM_DIES=N.
#ifndef SWZ_NUM_DIES
#define SWZ_NUM_DIES 1
#endif

// Logical tile grid: m rows of tiles by n columns. Logical tile id t is row-major:
// tile_m = t / n, tile_n = t % n.
struct SwizzleGrid {
  unsigned m;
  unsigned n;
};

// ---- errors -------------------------------------------------------------------
namespace swz_detail {
// Function-local statics, not inline variables: hipcc 5.2 defaults to C++14.
inline const char*& mode_name() {  // current mode, for the error JSON line
  static const char* m = "none";
  return m;
}
inline bool& sync_launches() {  // SWZ_CHECK_LAUNCH also synchronizes (not in time mode)
  static bool s = true;
  return s;
}

inline std::string json_escape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}

// Prints `error: <msg>` to stderr and {"mode":..,"ok":false,"error":..} to stdout, exits.
[[noreturn]] inline void fail(int code, const std::string& msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  std::printf("{\"mode\":\"%s\",\"ok\":false,\"error\":\"%s\"}\n", mode_name(), json_escape(msg).c_str());
  std::fflush(stdout);
  std::exit(code);
}

[[noreturn]] inline void fail_hip(const char* file, int line, const char* what) {
  fail(3, std::string(file) + ":" + std::to_string(line) + ": " + what);
}
}  // namespace swz_detail

// Wrap every runtime call. On failure: `error: <file>:<line>: <hip error string>`, exit 3.
#define SWZ_CHECK(expr)                                                       \
  do {                                                                        \
    hipError_t swz_err_ = (expr);                                             \
    if (swz_err_ != hipSuccess)                                               \
      swz_detail::fail_hip(__FILE__, __LINE__, hipGetErrorString(swz_err_)); \
  } while (0)

// After every kernel launch: launch errors always; execution errors too, except in
// time mode (where a sync would add host gaps between a pass's kernels).
#define SWZ_CHECK_LAUNCH()                                              \
  do {                                                                  \
    SWZ_CHECK(hipGetLastError());                                       \
    if (swz_detail::sync_launches()) SWZ_CHECK(hipDeviceSynchronize()); \
  } while (0)

// ---- helpers for programs -------------------------------------------------------
using SwzSize = std::vector<long long>;

inline SWZ_HD unsigned swz_ceil_div(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned>((a + b - 1) / b);
}

// Deterministic across compilers and standard libraries (splitmix64), unlike <random>'s
// distributions. Same seed, same inputs, on every platform.
class SwzRng {
 public:
  explicit SwzRng(unsigned long long seed) : s_(seed) {}
  unsigned long long next() { return mix(s_ += kStep); }
  double uniform(double lo, double hi) { return to_uniform(next(), lo, hi); }  // [lo, hi)

  // Counter-based (splitmix64): the k-th value after state s is mix(s + k*kStep), so
  // a long stream can be filled in parallel chunks with exactly the serial output.
  static constexpr unsigned long long kStep = 0x9E3779B97F4A7C15ull;
  static unsigned long long mix(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  static double to_uniform(unsigned long long r, double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0));
  }
  unsigned long long state() const { return s_; }
  void skip(unsigned long long n) { s_ += n * kStep; }

 private:
  unsigned long long s_;
};

// Uniform floats in [lo, hi): the same values as `count` serial rng.uniform() calls,
// filled by several host threads (large inputs otherwise dominate each run's setup).
inline std::vector<float> swz_random_f32(size_t count, SwzRng& rng, float lo = -1.f,
                                         float hi = 1.f) {
  std::vector<float> v(count);
  const unsigned long long s0 = rng.state();
  auto fill = [&v, s0, lo, hi](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i)
      v[i] = static_cast<float>(
          SwzRng::to_uniform(SwzRng::mix(s0 + (i + 1) * SwzRng::kStep), lo, hi));
  };
  unsigned threads = std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  if (threads > 16) threads = 16;
  if (count < (1u << 20)) threads = 1;
  std::vector<std::thread> pool;
  const size_t chunk = (count + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const size_t b = t * chunk, e = b + chunk < count ? b + chunk : count;
    if (b < e) pool.emplace_back(fill, b, e);
  }
  for (auto& th : pool) th.join();
  rng.skip(count);
  return v;
}

namespace swz_detail {
inline std::vector<void*>& allocations() {
  static std::vector<void*> a;
  return a;
}
inline void free_all() {
  for (void* p : allocations()) SWZ_CHECK(hipFree(p));
  allocations().clear();
}
}  // namespace swz_detail

// Device allocation owned by the harness: freed after each verify case / at exit.
template <class T>
T* swz_alloc(size_t count) {
  void* p = nullptr;
  SWZ_CHECK(hipMalloc(&p, std::max<size_t>(count, 1) * sizeof(T)));
  swz_detail::allocations().push_back(p);
  return static_cast<T*>(p);
}

template <class T>
void swz_upload(T* dev, const std::vector<T>& host) {
  SWZ_CHECK(hipMemcpy(dev, host.data(), host.size() * sizeof(T), hipMemcpyHostToDevice));
}

// ---- the program description ------------------------------------------------------
enum class SwzDType { f32, f64, i32, u32 };

inline size_t swz_dtype_bytes(SwzDType t) { return t == SwzDType::f64 ? 8 : 4; }

struct SwzOutput {  // the program's output buffer on the device (compared and dumped)
  const void* ptr;
  size_t count;  // elements
  SwzDType dtype;
};

struct SwzTol {  // element ok iff |got - ref| <= abs + rel * |ref| (and got is finite)
  double abs;
  double rel;
};

class SwzProgram {
 public:
  virtual ~SwzProgram() = default;

  // Identity and sizes.
  virtual const char* name() const = 0;          // "gemm"
  virtual const char* kernel_regex() const = 0;  // profiler kernel-name filter, "gemm_kernel"
  virtual SwzSize default_size() const = 0;      // e.g. {M, N, K}
  virtual std::vector<SwzSize> verify_sizes() const = 0;  // small and ragged
  // Extra size validation (arity and positivity are checked already): nullptr = ok.
  virtual const char* size_error(const SwzSize&) const { return nullptr; }

  // Geometry.
  virtual SwizzleGrid grid(const SwzSize&) const = 0;
  virtual unsigned long long num_pids(const SwzSize& s) const {
    SwizzleGrid g = grid(s);
    return static_cast<unsigned long long>(g.m) * g.n;
  }
  virtual unsigned long long footprint_bytes(const SwzSize&) const = 0;  // unique bytes r+w
  // Unique bytes (read + written) of each kernel launch of one run(), in launch order. The
  // tool's ideal L2 hit rate is per launch: 1 - sum(these) / 32 / profiled sector requests
  // (re-reads across launches are not counted as reusable). Empty (the default): not
  // reported, and the tool shows no headroom rather than a wrong one.
  virtual std::vector<unsigned long long> launch_footprints_bytes(const SwzSize&) const {
    return std::vector<unsigned long long>();
  }
  // Relative tolerance the tool uses when comparing a candidate's full-size dump with the
  // baseline's. 0 (default) = bit-exact: right for kernels whose per-element arithmetic
  // does not depend on block order. Only kernels that reduce across blocks in an
  // order-dependent way (float atomics) may return more.
  virtual double dump_tol() const { return 0.0; }
  // Optional hints for the tool's proposer, reported by `info` as "hints":{...}: JSON object
  // members without the braces, e.g. "\"causal\":true,\"n_group\":4". Empty (the default):
  // no "hints" field.
  virtual std::string info_hints(const SwzSize&) const { return ""; }

  // GPU work. setup: allocate with swz_alloc, fill inputs from SwzRng(seed), upload, keep
  // host copies for reference(). The harness poisons the output (0xFF bytes: NaN for
  // floats) after setup. run: every launch of one pass, on the null stream, with
  // SWZ_CHECK_LAUNCH() after each; it must be repeatable (time mode calls it many times,
  // verify calls it twice), so zero any accumulator inside run().
  virtual void setup(const SwzSize& size, unsigned long long seed) = 0;
  virtual void run() = 0;
  virtual SwzOutput output() const = 0;

  // Checking: CPU reference of the output (same element order, double), and tolerance.
  virtual std::vector<double> reference(const SwzSize& size) const = 0;
  virtual SwzTol tolerance(const SwzSize& size) const = 0;
};

// ---- the CLI ------------------------------------------------------------------------
namespace swz_detail {

inline void usage_error(const std::string& msg) {
  fail(2, msg + " (usage: prog info|verify|time|profile|dump FILE [--size a,b,..] [--seed S]"
                " [--reps N] [--warmup W])");
}

inline bool parse_ll(const char* s, long long* out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

inline std::string fmt_num(double v) {  // JSON number; null when not finite
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

inline std::string fmt_size(const SwzSize& s) {
  std::string o = "[";
  for (size_t i = 0; i < s.size(); ++i) o += (i ? "," : "") + std::to_string(s[i]);
  return o + "]";
}

struct Args {
  std::string mode;
  std::string file;
  SwzSize size;
  bool has_size = false;
  unsigned long long seed = 1234;
  long long reps = 30;
  long long warmup = 5;
};

inline Args parse_args(const SwzProgram& prog, int argc, char** argv) {
  Args a;
  if (argc < 2) usage_error("missing mode");
  a.mode = argv[1];
  static const char* const kModes[] = {"info", "verify", "time", "profile", "dump"};
  bool known = false;
  for (const char* m : kModes)
    if (a.mode == m) {
      known = true;
      mode_name() = m;
    }
  if (!known) usage_error("unknown mode '" + a.mode + "'");
  // Options each mode accepts.
  auto allowed = [&](const std::string& opt) {
    if (opt == "--size") return a.mode != "verify";
    if (opt == "--seed") return a.mode != "info";
    if (opt == "--reps" || opt == "--warmup") return a.mode == "time";
    return false;
  };
  int i = 2;
  if (a.mode == "dump") {
    if (argc < 3 || std::strncmp(argv[2], "--", 2) == 0) usage_error("dump needs an output FILE");
    a.file = argv[2];
    i = 3;
  }
  for (; i < argc; ++i) {
    std::string opt = argv[i];
    std::string val;
    size_t eq = opt.find('=');
    if (opt.rfind("--", 0) == 0 && eq != std::string::npos) {
      val = opt.substr(eq + 1);
      opt = opt.substr(0, eq);
    } else {
      if (opt.rfind("--", 0) != 0) usage_error("unexpected argument '" + opt + "'");
      if (i + 1 >= argc) usage_error("option " + opt + " needs a value");
      val = argv[++i];
    }
    if (!allowed(opt)) usage_error("option " + opt + " is not valid for mode " + a.mode);
    long long v = 0;
    if (opt == "--size") {
      a.size.clear();
      size_t start = 0;
      while (true) {
        size_t comma = val.find(',', start);
        std::string tok = val.substr(start, comma == std::string::npos ? std::string::npos
                                                                        : comma - start);
        if (!parse_ll(tok.c_str(), &v) || v <= 0)
          usage_error("--size wants positive integers separated by commas, got '" + val + "'");
        a.size.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      a.has_size = true;
    } else if (opt == "--seed") {
      if (!parse_ll(val.c_str(), &v) || v < 0) usage_error("--seed wants an integer >= 0");
      a.seed = static_cast<unsigned long long>(v);
    } else if (opt == "--reps") {
      if (!parse_ll(val.c_str(), &v) || v < 1) usage_error("--reps wants an integer >= 1");
      a.reps = v;
    } else if (opt == "--warmup") {
      if (!parse_ll(val.c_str(), &v) || v < 0) usage_error("--warmup wants an integer >= 0");
      a.warmup = v;
    }
  }
  if (!a.has_size) a.size = prog.default_size();
  const SwzSize def = prog.default_size();
  if (a.size.size() != def.size())
    usage_error("--size wants " + std::to_string(def.size()) + " values (default " +
                fmt_size(def) + ")");
  if (const char* err = prog.size_error(a.size)) usage_error(std::string("--size: ") + err);
  return a;
}

inline void init_device() {
  int count = 0;
  hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) fail(3, std::string("no GPU device (") + hipGetErrorString(e) + ")");
  if (count < 1) fail(3, "no GPU device (device count is 0)");
  SWZ_CHECK(hipSetDevice(0));
}

// setup + poison: every mode that runs the program starts here.
inline void prepare(SwzProgram& prog, const SwzSize& size, unsigned long long seed) {
  prog.setup(size, seed);
  SwzOutput out = prog.output();
  SWZ_CHECK(hipMemset(const_cast<void*>(out.ptr), 0xFF, out.count * swz_dtype_bytes(out.dtype)));
  SWZ_CHECK(hipDeviceSynchronize());
}

inline std::vector<unsigned char> download_bytes(const SwzOutput& out) {
  std::vector<unsigned char> b(out.count * swz_dtype_bytes(out.dtype));
  SWZ_CHECK(hipMemcpy(b.data(), out.ptr, b.size(), hipMemcpyDeviceToHost));
  return b;
}

inline double element(const std::vector<unsigned char>& b, SwzDType t, size_t i) {
  switch (t) {
    case SwzDType::f32: { float v; std::memcpy(&v, &b[i * 4], 4); return v; }
    case SwzDType::f64: { double v; std::memcpy(&v, &b[i * 8], 8); return v; }
    case SwzDType::i32: { int32_t v; std::memcpy(&v, &b[i * 4], 4); return v; }
    case SwzDType::u32: { uint32_t v; std::memcpy(&v, &b[i * 4], 4); return v; }
  }
  return 0;
}

struct CaseStats {
  double max_abs_err = 0, max_abs_ref = 0;
  unsigned long long mismatches = 0, nonfinite = 0;
  long long first_bad = -1;
  double first_got = 0, first_ref = 0;
};

inline void compare(const SwzProgram& prog, const SwzSize& size, const std::vector<double>& ref,
                    CaseStats* st) {
  SwzOutput out = prog.output();
  if (ref.size() != out.count)
    fail(3, std::string(prog.name()) + ": reference has " + std::to_string(ref.size()) +
                " elements, output has " + std::to_string(out.count));
  const std::vector<unsigned char> bytes = download_bytes(out);
  const SwzTol tol = prog.tolerance(size);
  for (size_t i = 0; i < ref.size(); ++i) {
    const double got = element(bytes, out.dtype, i);
    const double r = ref[i];
    st->max_abs_ref = std::max(st->max_abs_ref, std::fabs(r));
    const double err = std::fabs(got - r);
    bool bad;
    if (!std::isfinite(got)) {
      ++st->nonfinite;
      bad = true;
    } else {
      st->max_abs_err = std::max(st->max_abs_err, err);
      bad = !(err <= tol.abs + tol.rel * std::fabs(r));
    }
    if (bad) {
      if (st->mismatches == 0) {
        st->first_bad = static_cast<long long>(i);
        st->first_got = got;
        st->first_ref = r;
      }
      ++st->mismatches;
    }
  }
}

inline int mode_info(const SwzProgram& prog, const Args& a) {
  const std::string h = prog.info_hints(a.size);
  const std::string hints = h.empty() ? "" : ",\"hints\":{" + h + "}";
  const SwizzleGrid g = prog.grid(a.size);
  std::string vs = "[";
  const auto sizes = prog.verify_sizes();
  for (size_t i = 0; i < sizes.size(); ++i) vs += (i ? "," : "") + fmt_size(sizes[i]);
  vs += "]";
  std::printf(
      "{\"kernel\":\"%s\",\"kernel_regex\":\"%s\",\"size\":%s,\"grid\":{\"m\":%u,\"n\":%u},"
      "\"num_pids\":%llu,\"footprint_bytes\":%llu,\"num_dies\":%d,\"dump_tol\":%g,"
      "\"verify_sizes\":%s%s",
      json_escape(prog.name()).c_str(), json_escape(prog.kernel_regex()).c_str(),
      fmt_size(a.size).c_str(), g.m, g.n, prog.num_pids(a.size), prog.footprint_bytes(a.size),
      static_cast<int>(SWZ_NUM_DIES), prog.dump_tol(), vs.c_str(), hints.c_str());
  const std::vector<unsigned long long> launches = prog.launch_footprints_bytes(a.size);
  if (!launches.empty()) {
    std::printf(",\"launch_footprints_bytes\":[");
    for (size_t i = 0; i < launches.size(); ++i) std::printf("%s%llu", i ? "," : "", launches[i]);
    std::printf("]");
  }
  std::printf("}\n");
  return 0;
}

inline int mode_verify(SwzProgram& prog, const Args& a) {
  init_device();
  bool all_ok = true;
  std::string cases;
  for (const SwzSize& size : prog.verify_sizes()) {
    prepare(prog, size, a.seed);
    const std::vector<double> ref = prog.reference(size);
    CaseStats st;
    // Run twice without re-poisoning: the first run must cover every element, the
    // second checks run() is repeatable (time mode relies on it).
    for (int pass = 0; pass < 2; ++pass) {
      prog.run();
      SWZ_CHECK(hipDeviceSynchronize());
      SWZ_CHECK(hipGetLastError());
      compare(prog, size, ref, &st);
    }
    free_all();
    const SwzTol tol = prog.tolerance(size);
    const bool ok = st.mismatches == 0;
    all_ok = all_ok && ok;
    const double rel = st.nonfinite ? NAN
                       : st.max_abs_ref > 0 ? st.max_abs_err / st.max_abs_ref
                                            : st.max_abs_err;
    std::string c = "{\"size\":" + fmt_size(size) +
                    ",\"max_abs_err\":" + fmt_num(st.nonfinite ? NAN : st.max_abs_err) +
                    ",\"max_rel_err\":" + fmt_num(rel) + ",\"tol\":" + fmt_num(tol.abs) +
                    ",\"rel_tol\":" + fmt_num(tol.rel) +
                    ",\"mismatches\":" + std::to_string(st.mismatches) +
                    ",\"nonfinite\":" + std::to_string(st.nonfinite);
    if (!ok)
      c += ",\"first_bad\":{\"index\":" + std::to_string(st.first_bad) +
           ",\"got\":" + fmt_num(st.first_got) + ",\"ref\":" + fmt_num(st.first_ref) + "}";
    c += std::string(",\"ok\":") + (ok ? "true" : "false") + "}";
    cases += (cases.empty() ? "" : ",") + c;
  }
  std::printf("{\"mode\":\"verify\",\"ok\":%s,\"seed\":%llu,\"cases\":[%s]}\n",
              all_ok ? "true" : "false", a.seed, cases.c_str());
  return all_ok ? 0 : 1;
}

inline int mode_time(SwzProgram& prog, const Args& a) {
  init_device();
  sync_launches() = false;
  prepare(prog, a.size, a.seed);
  const size_t kFlushBytes = size_t(256) << 20;  // larger than any L2 / MALL we target
  unsigned char* scratch = swz_alloc<unsigned char>(kFlushBytes);
  hipEvent_t start, stop;
  SWZ_CHECK(hipEventCreate(&start));
  SWZ_CHECK(hipEventCreate(&stop));
  for (long long i = 0; i < a.warmup; ++i) prog.run();
  SWZ_CHECK(hipDeviceSynchronize());
  std::vector<double> times;
  for (long long i = 0; i < a.reps; ++i) {
    SWZ_CHECK(hipMemsetAsync(scratch, static_cast<int>(i & 0xFF), kFlushBytes, 0));  // untimed
    SWZ_CHECK(hipEventRecord(start, 0));
    prog.run();
    SWZ_CHECK(hipEventRecord(stop, 0));
    SWZ_CHECK(hipEventSynchronize(stop));
    float ms = 0;
    SWZ_CHECK(hipEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  SWZ_CHECK(hipDeviceSynchronize());
  SWZ_CHECK(hipGetLastError());
  SWZ_CHECK(hipEventDestroy(start));
  SWZ_CHECK(hipEventDestroy(stop));
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  double sum = 0;
  for (double t : times) sum += t;
  std::string list;
  for (size_t i = 0; i < n; ++i) list += (i ? "," : "") + fmt_num(times[i]);
  std::printf(
      "{\"mode\":\"time\",\"size\":%s,\"median_ms\":%s,\"min_ms\":%s,\"max_ms\":%s,"
      "\"mean_ms\":%s,\"reps\":%lld,\"warmup\":%lld,\"times_ms\":[%s]}\n",
      fmt_size(a.size).c_str(), fmt_num(median).c_str(), fmt_num(sorted.front()).c_str(),
      fmt_num(sorted.back()).c_str(), fmt_num(sum / n).c_str(), a.reps, a.warmup, list.c_str());
  free_all();
  return 0;
}

inline int mode_profile(SwzProgram& prog, const Args& a) {
  init_device();
  prepare(prog, a.size, a.seed);
  prog.run();
  SWZ_CHECK(hipDeviceSynchronize());
  SWZ_CHECK(hipGetLastError());
  free_all();
  std::printf("{\"mode\":\"profile\",\"ok\":true}\n");
  return 0;
}

inline int mode_dump(SwzProgram& prog, const Args& a) {
  init_device();
  prepare(prog, a.size, a.seed);
  prog.run();
  SWZ_CHECK(hipDeviceSynchronize());
  SWZ_CHECK(hipGetLastError());
  const std::vector<unsigned char> bytes = download_bytes(prog.output());
  free_all();
  FILE* f = std::fopen(a.file.c_str(), "wb");
  if (!f) fail(3, "cannot open " + a.file + " for writing: " + std::strerror(errno));
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok) fail(3, "cannot write " + a.file);
  std::printf("{\"mode\":\"dump\",\"bytes\":%zu}\n", bytes.size());
  return 0;
}

}  // namespace swz_detail

inline int swz_main(SwzProgram& prog, int argc, char** argv) {
  using namespace swz_detail;
  const Args a = parse_args(prog, argc, argv);
  if (a.mode == "info") return mode_info(prog, a);
  if (a.mode == "verify") return mode_verify(prog, a);
  if (a.mode == "time") return mode_time(prog, a);
  if (a.mode == "profile") return mode_profile(prog, a);
  return mode_dump(prog, a);
}

#endif  // SWZ_HARNESS_H
