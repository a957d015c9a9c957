#include "support/fake_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>

#include "swizzleperf/loop/output_check.h"
#include "swizzleperf/util/file_io.h"

namespace swz::test {

namespace fs = std::filesystem;

namespace {

// key=value pairs of the first "// fake:" line in text.
std::map<std::string, std::string> behaviour_of(const std::string& text) {
  std::map<std::string, std::string> out;
  const auto at = text.find("// fake:");
  if (at == std::string::npos) return out;
  const auto end = text.find('\n', at);
  std::string line = text.substr(at + 8, end == std::string::npos ? std::string::npos : end - at - 8);
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const auto j = line.find(' ', i);
    const std::string kv = line.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (const auto eq = kv.find('='); eq != std::string::npos) out[kv.substr(0, eq)] = kv.substr(eq + 1);
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

std::string setting(const std::map<std::string, std::string>& b, const std::string& k, const std::string& dflt) {
  const auto it = b.find(k);
  return it == b.end() ? dflt : it->second;
}

// The value of option `flag`, given as `flag V` or `flag=V` (the contract takes both); "" if absent.
std::string arg_after(const std::vector<std::string>& args, const std::string& flag) {
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (*it == flag) return it + 1 != args.end() ? *(it + 1) : "";
    if (it->rfind(flag + "=", 0) == 0) return it->substr(flag.size() + 1);
  }
  return "";
}

// The build's defines as the fake writes them into its "executable" (a copy of the
// source): one line "// fake-defines: NAME=V ..." at its end.
constexpr const char* kDefinesLine = "// fake-defines:";

std::map<std::string, std::int64_t> defines_of(const std::string& exe_text) {
  std::map<std::string, std::int64_t> out;
  const auto at = exe_text.rfind(kDefinesLine);
  if (at == std::string::npos) return out;
  const auto end = exe_text.find('\n', at);
  const std::string line = exe_text.substr(at, end == std::string::npos ? std::string::npos : end - at);
  for (const auto& [name, value] : behaviour_of("// fake:" + line.substr(std::string(kDefinesLine).size())))
    out[name] = std::stoll(value);
  return out;
}

// The program's answer: `j` as its one stdout line, keys in the order given (the kernel
// contract's order, tests/conformance checks it), and parsed back as the tool does.
ProgramRun program_answer(int code, const nlohmann::ordered_json& j) {
  ProgramRun r;
  r.process = exited(code, j.dump() + "\n");
  r.json = nlohmann::json::parse(j.dump());
  return r;
}

}  // namespace

std::string fake_region(const std::string& behaviour, const std::string& body) {
  return "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
         "  // fake: " + behaviour + "\n  " + body + "\n}\n";
}

std::string fake_kernel_source(const std::string& behaviour) {
  return "// a kernel program for the loop's unit tests (tests/support/fake_backend.h)\n"
         "// swizzleperf:begin\n" + fake_region(behaviour) + "// swizzleperf:end\n"
         "int main() { return 0; }\n";
}

FakeBackend::FakeBackend(ProcessRunner& runner, TileGrid grid) : Backend(runner, ToolOptions{}), grid_(grid) {}

Result<HardwareProfile> FakeBackend::query_device(const fs::path&) {
  HardwareProfile hw;
  hw.name = "Fake GPU";
  hw.vendor = "fake";
  hw.arch = "sm_90";
  hw.num_dies = 2;
  return hw;
}

Result<BuildResult> FakeBackend::build(const BuildRequest& request) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++builds_;
  }
  BuildResult b;
  b.argv = {"fake-compiler", "-o", request.output.string(), request.source.string()};
  auto text = read_file(request.source);
  if (!text) return text.error();
  if (setting(behaviour_of(*text), "build", "ok") != "ok") {
    b.ok = false;
    b.failure = "fake compiler: error: the region says build=fail";
    b.log = b.failure + "\n";
    return b;
  }
  std::string exe = *text;
  if (!request.defines.empty()) {
    exe += kDefinesLine;
    for (const auto& [name, value] : request.defines) {
      b.argv.push_back("-D" + name + "=" + std::to_string(value));
      if (value <= 0) {  // a value the program cannot take: its static_assert
        b.ok = false;
        b.failure = "fake compiler: error: " + name + " must be positive, got " + std::to_string(value);
        b.log = b.failure + "\n";
        return b;
      }
      exe += " " + name + "=" + std::to_string(value);
    }
    exe += "\n";
  }
  if (auto st = write_file_atomic(request.output, exe); !st) return st.error();
  b.ok = true;
  b.seconds = 0.01;
  return b;
}

Result<Metrics> FakeBackend::profile(const ProfileRequest& request) {
  auto text = read_file(request.exe);
  if (!text) return text.error();
  const auto b = behaviour_of(*text);
  {
    std::lock_guard<std::mutex> lock(mu_);
    modes_.push_back("profile");
  }
  if (setting(b, "profile", "ok") != "ok") return make_error("fake profiler: no kernel matched");
  Metrics m;
  m.l2_hit_pct = std::stod(setting(b, "l2", "50"));
  m.l2_sectors = 10000;
  return m;
}

ProgramRun FakeBackend::run_program(const fs::path& exe, const std::vector<std::string>& args, std::chrono::seconds) {
  using ojson = nlohmann::ordered_json;
  const std::string mode = args.empty() ? "" : args.front();
  {
    std::lock_guard<std::mutex> lock(mu_);
    modes_.push_back(mode);
    runs_.push_back(args);
  }
  auto text = read_file(exe);
  if (!text) {
    ProgramRun r;
    r.process = not_started(text.error().message);
    return r;
  }
  const auto b = behaviour_of(*text);
  // A build's defines GRID_M / GRID_N are its grid; FAKE_US its time in microseconds.
  const auto defines = defines_of(*text);
  const auto define_or = [&](const char* name, std::int64_t dflt) {
    const auto it = defines.find(name);
    return it == defines.end() ? dflt : it->second;
  };
  const TileGrid grid{static_cast<unsigned>(define_or("GRID_M", grid_.m)), static_cast<unsigned>(define_or("GRID_N", grid_.n))};
  if (defines.count("FAKE_CRASH")) {  // a point whose launch fails: every mode
    ProgramRun r;
    r.process = exited(3, "", "fake: the kernel launch failed (too many resources requested)\n");
    return r;
  }
  const double ms = defines.count("FAKE_US") ? define_or("FAKE_US", 0) / 1000.0 : std::stod(setting(b, "ms", "1.0"));
  const bool verify_ok = setting(b, "verify", "ok") == "ok";
  // The output: 256 bytes, the same for every `out=same` program; its digest is the tool's own
  // host digest of them (loop/output_check), in 256-byte chunks as fake_nvcc's.
  const std::string bytes(256, setting(b, "out", "same") == "same" ? 'a' : 'b');
  const HostDigest digest = digest_bytes(bytes, 256);
  const std::string seed = arg_after(args, "--seed").empty() ? "1234" : arg_after(args, "--seed");
  // The regime asked (--regime; none: a program from before regimes, no regime fields).
  const std::string regime = arg_after(args, "--regime");
  ojson timing = {{"mode", "time"}, {"median_ms", ms}, {"min_ms", ms}, {"max_ms", ms}, {"reps", 10}};
  if (!regime.empty()) {
    const bool sustained = regime == "sustained";
    const double t = sustained ? std::stod(setting(b, "sms", setting(b, "ms", "1.0"))) : ms;
    const double mhz = std::stod(sustained ? setting(b, "sclk", "1600") : setting(b, "clk", "1980"));
    const bool reached = setting(b, "reach", "yes") != regime;
    timing = {{"mode", "time"}, {"size", {64 * grid.m, 64 * grid.n, 512}}, {"median_ms", t}, {"min_ms", t}, {"max_ms", t},
              {"mean_ms", t}, {"reps", 10}, {"warmup", 5}, {"times_ms", std::vector<double>(10, t)}, {"regime", regime},
              {"telemetry", "fake"}, {"sm_mhz_min", mhz}, {"sm_mhz_median", mhz}, {"sm_mhz_reference", 1980},
              {"clock_reasons", sustained ? 4 : std::stoll(setting(b, "breasons", "0"))},
              {"discarded", sustained ? 0 : std::stoi(setting(b, "discard", "0"))}, {"throttle_threshold", 0.75},
              {"energy_mj_per_run", sustained ? ojson(std::stod(setting(b, "mj", "100"))) : ojson()}};
    if (sustained) {
      timing["passes"] = 10;
      timing["batch"] = 1;
      timing["window_s"] = 1.0;
      timing["settle_s"] = 2.0;
      timing["clock_slide_pct"] = 0;
    }
    timing["regime_reached"] = reached;
    if (!reached) timing["regime_problem"] = "fake: the " + regime + " regime was not held";
  }
  auto hash_part = [&](const std::string& chunks_file) {
    if (!chunks_file.empty()) (void)write_file_atomic(chunks_file, fmt::format("{:016x}\n", digest.chunks.at(0)));
    return ojson{{"mode", "hash"}, {"bytes", bytes.size()}, {"hash", digest.hash}, {"chunk_bytes", 256}, {"chunks", 1}};
  };
  ojson verify_case = {{"size", {64, 64, 64}}, {"max_abs_err", verify_ok ? 0.0 : 0.5}, {"max_rel_err", verify_ok ? 0.0 : 0.5},
                       {"tol", 0.001}, {"rel_tol", 0}, {"mismatches", verify_ok ? 0 : 3}, {"nonfinite", 0}};
  if (!verify_ok) verify_case["first_bad"] = {{"index", 0}, {"got", 1.5}, {"ref", 1}};
  verify_case["ok"] = verify_ok;
  const ojson verify = {{"mode", "verify"}, {"ok", verify_ok}, {"seed", std::stoull(seed)}, {"cases", ojson::array({verify_case})}};
  if (mode == "info") {
    const unsigned long long m = 64ull * grid.m, n = 64ull * grid.n, k = 512;
    return program_answer(0, {{"kernel", "fake"}, {"kernel_regex", "fake_kernel"}, {"size", {m, n, k}},
                              {"grid", {{"m", grid.m}, {"n", grid.n}}}, {"num_pids", grid.m * grid.n},
                              {"footprint_bytes", 4 * (m * k + k * n + m * n)}, {"num_dies", 2}, {"dump_tol", 0},
                              {"verify_sizes", {{64, 64, 64}}}, {"launches", 1}});
  }
  if (mode == "verify") return program_answer(verify_ok ? 0 : 1, verify);
  if (mode == "hash") return program_answer(0, hash_part(arg_after(args, "--chunks")));
  if (mode == "dump") {
    (void)write_file_atomic(args.at(1), bytes);
    return program_answer(0, {{"mode", "dump"}, {"bytes", bytes.size()}});
  }
  if (mode == "time") return program_answer(0, timing);
  if (mode == "evaluate") {
    ojson j = {{"mode", "evaluate"}, {"verify", verify}};
    if (!verify_ok) {
      j["ok"] = false;
      j["seconds"] = {{"verify", 0}};
      return program_answer(1, j);
    }
    j["hash"] = hash_part(arg_after(args, "--chunks"));
    j["time"] = timing;
    j["ok"] = true;
    j["seconds"] = {{"verify", 0}, {"check", 0}, {"time", 0}};
    return program_answer(0, j);
  }
  return program_answer(2, {{"mode", "none"}, {"ok", false}, {"error", "unknown mode '" + mode + "'"}});
}

int FakeBackend::builds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return builds_;
}

std::vector<std::vector<std::string>> FakeBackend::runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

int FakeBackend::profiles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(std::count(modes_.begin(), modes_.end(), "profile"));
}

std::vector<std::string> FakeBackend::modes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return modes_;
}

void add_host_compiler_rules(ScriptedRunner& runner) {
  runner.on("c++", [](const ProcessSpec& spec) {
    std::string source;
    for (const auto& a : spec.argv)
      if (a.size() > 4 && a.compare(a.size() - 4, 4, ".cpp") == 0)
        if (auto t = read_file(a)) source += *t;
    const auto o = std::find(spec.argv.begin(), spec.argv.end(), "-o");
    if (o == spec.argv.end() || o + 1 == spec.argv.end()) return exited(1, "", "c++: no -o");
    if (auto st = write_file_atomic(*(o + 1), source); !st) return exited(1, "", st.error().message);
    return exited(0);
  });
  runner.on("mapping_eval", [](const ProcessSpec& spec) {
    auto text = read_file(spec.argv.at(0));
    if (!text) return not_started(text.error().message);
    const std::string map = setting(behaviour_of(*text), "map", "identity");
    const std::uint64_t m = std::stoull(spec.argv.at(1)), n = std::stoull(spec.argv.at(2)), np = m * n;
    std::string out(4 * np, '\0');
    for (std::uint64_t p = 0; p < np; ++p) {
      std::uint32_t t = static_cast<std::uint32_t>(p);
      if (map == "reverse") t = static_cast<std::uint32_t>(np - 1 - p);
      else if (map.rfind("rotate", 0) == 0)  // rotate or rotate:K
        t = static_cast<std::uint32_t>((p + (map.size() > 7 ? std::stoull(map.substr(7)) : 1)) % np);
      else if (map == "swap") t = static_cast<std::uint32_t>((p ^ 1) < np ? (p ^ 1) : p);
      else if (map == "collide") t = 0;
      for (int k = 0; k < 4; ++k) out[4 * p + k] = static_cast<char>((t >> (8 * k)) & 0xff);
    }
    return exited(0, out);
  });
}

}  // namespace swz::test
