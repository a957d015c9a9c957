// Tests of the fake nvcc/ncu test doubles (tests/fakes/), run directly as processes:
// fake_nvcc builds a host emulator of a tiny kernel file, the emulator follows the
// kernel-program contract in every mode, fake_ncu wraps it into ncu-shaped CSV, the
// model ranks a grouped order above the identity, and fault words behave.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/fixtures.h"
#include "swizzleperf/backend/ncu_parser.h"
#include "swizzleperf/llm/chat_client.h"
#include "swizzleperf/llm/reply_parser.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ProcRun {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Scratch {
 public:
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "swz-fakes-XXXXXX").string();
    path_ = mkdtemp(tmpl.data()) ? fs::path(tmpl) : fs::path();
  }
  ~Scratch() { std::error_code ec; fs::remove_all(path_, ec); }
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  fs::path path_;
};

// Runs argv (no shell) in cwd with extra NAME=VALUE env; kills it after timeout_ms.
ProcRun run(const std::vector<std::string>& argv, const fs::path& cwd,
        const std::vector<std::string>& env = {}, int timeout_ms = 60000) {
  static int counter = 0;
  const fs::path out = cwd / ("run" + std::to_string(++counter) + ".out");
  const fs::path err = cwd / ("run" + std::to_string(counter) + ".err");
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    for (const auto& kv : env) putenv(strdup(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  ProcRun r;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

json last_json(const ProcRun& r) {
  auto lines = lines_of(r.out);
  return lines.empty() ? json() : json::parse(lines.back(), nullptr, false);
}

std::string fake(const std::string& name) { return (swz::test::fake_dir() / name).string(); }

std::string kernel_file(const std::string& body, const std::string& extra = "") {
  return "#include \"swz_harness.h\"\n// swizzleperf:default-grid 16x16\n" + extra +
         "// swizzleperf:begin\n"
         "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n" +
         body + "\n}\n// swizzleperf:end\nint main() { return 0; }\n";
}

const char* const kGrouped = R"(  const unsigned G = 8;
  unsigned first_m = pid / (G * grid.n) * G;
  unsigned gs = min(grid.m - first_m, G);
  unsigned pid_m = first_m + (pid % (G * grid.n)) % gs;
  unsigned pid_n = (pid % (G * grid.n)) / gs;
  return pid_m * grid.n + pid_n;)";

// Writes NAME.hip and builds it with fake_nvcc the way the CUDA backend calls nvcc.
ProcRun build(const Scratch& dir, const std::string& name, const std::string& source,
          const std::vector<std::string>& env = {}) {
  std::ofstream(dir / (name + ".hip")) << source;
  return run({fake("fake_nvcc"), "-x", "cu", "-std=c++17", "-O3", "-arch=sm_90", "-I", "/nonexistent/a",
              "-I", "/nonexistent/b", "-DSWZ_NUM_DIES=2", "-o", (dir / name).string(),
              (dir / (name + ".hip")).string()},
             dir.path(), env);
}

json profile_metrics(const ProcRun& r) {
  for (const auto& l : lines_of(r.out))
    if (l.rfind("SWZ_FAKE_METRICS ", 0) == 0) return json::parse(l.substr(17), nullptr, false);
  return json();
}

class FakesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new Scratch();
    ProcRun b = build(*dir_, "gemm", kernel_file("  return pid;"),
                  {"SWZ_FAKE_NVCC_LOG=" + (dir_->path() / "nvcc.log").string()});
    build_ok_ = b.exit_code == 0;
    if (!build_ok_) std::fprintf(stderr, "fake_nvcc failed:\n%s%s", b.out.c_str(), b.err.c_str());
  }
  static void TearDownTestSuite() { delete dir_; dir_ = nullptr; }
  void SetUp() override { ASSERT_TRUE(build_ok_); }
  std::string exe() const { return (*dir_ / "gemm").string(); }
  static Scratch* dir_;
  static bool build_ok_;
};
Scratch* FakesTest::dir_ = nullptr;
bool FakesTest::build_ok_ = false;

TEST_F(FakesTest, NvccBuildsAnEmulatorThatFollowsTheProgramContract) {
  EXPECT_TRUE(fs::exists(*dir_ / "gemm.emu.cpp"));
  const std::string log = slurp(*dir_ / "nvcc.log");
  EXPECT_NE(log.find("-DSWZ_NUM_DIES=2"), std::string::npos) << log;
  EXPECT_NE(log.find("-arch=sm_90"), std::string::npos) << log;

  ProcRun info = run({exe(), "info"}, dir_->path());
  ASSERT_EQ(info.exit_code, 0) << info.err;
  json j = last_json(info);
  EXPECT_EQ(j["kernel"], "gemm");
  EXPECT_EQ(j["kernel_regex"], "gemm_kernel");
  EXPECT_EQ(j["grid"]["m"], 16);
  EXPECT_EQ(j["grid"]["n"], 16);
  EXPECT_EQ(j["num_pids"], 256);
  EXPECT_EQ(j["num_dies"], 2);
  EXPECT_GT(j["footprint_bytes"].get<double>(), 0);

  ProcRun verify = run({exe(), "verify", "--seed", "7"}, dir_->path());
  EXPECT_EQ(verify.exit_code, 0);
  j = last_json(verify);
  EXPECT_EQ(j["mode"], "verify");
  EXPECT_EQ(j["ok"], true);
  EXPECT_GE(j["cases"].size(), 4u);
  for (const auto& c : j["cases"]) EXPECT_EQ(c["mismatches"], 0) << c.dump();

  ProcRun time = run({exe(), "time", "--reps", "7", "--warmup", "1"}, dir_->path());
  EXPECT_EQ(time.exit_code, 0);
  j = last_json(time);
  EXPECT_EQ(j["mode"], "time");
  EXPECT_EQ(j["reps"], 7);
  EXPECT_EQ(j["times_ms"].size(), 7u);
  EXPECT_GE(j["median_ms"].get<double>(), 1.0);
  EXPECT_LE(j["min_ms"].get<double>(), j["median_ms"].get<double>());
  EXPECT_GE(j["max_ms"].get<double>(), j["median_ms"].get<double>());

  ProcRun prof = run({exe(), "profile"}, dir_->path());
  EXPECT_EQ(prof.exit_code, 0);
  EXPECT_EQ(last_json(prof), json::parse(R"({"mode":"profile","ok":true})"));
  j = profile_metrics(prof);
  ASSERT_TRUE(j.is_object()) << prof.out;
  EXPECT_EQ(j["lts__t_sectors.sum"].get<double>(),
            j["lts__t_sectors_lookup_hit.sum"].get<double>() + j["lts__t_sectors_lookup_miss.sum"].get<double>());

  ProcRun dump = run({exe(), "dump", "out.bin"}, dir_->path());
  EXPECT_EQ(dump.exit_code, 0);
  EXPECT_EQ(last_json(dump)["bytes"], 1024);
  EXPECT_EQ(fs::file_size(*dir_ / "out.bin"), 1024u);

  EXPECT_EQ(run({exe(), "nonsense"}, dir_->path()).exit_code, 2);
}

TEST_F(FakesTest, NcuPrintsDetailsPageCsvAroundTheAppOutput) {
  const std::vector<std::string> metrics = {"lts__t_sector_hit_rate.pct", "lts__t_sectors.sum",
                                            "dram__bytes_read.sum", "gpu__time_duration.sum"};
  std::string list;
  for (const auto& m : metrics) list += (list.empty() ? "" : ",") + m;
  ProcRun r = run({fake("fake_ncu"), "--csv", "--print-units", "base", "--cache-control", "all", "--clock-control",
               "base", "--target-processes", "all", "--metrics", list, "--kernel-name", "regex:gemm_kernel",
               exe(), "profile"},
              dir_->path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("SWZ_FAKE_METRICS"), std::string::npos);
  auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 3u + metrics.size());
  EXPECT_EQ(lines[0].rfind("==PROF== Connected to process ", 0), 0u) << lines[0];
  EXPECT_NE(r.out.find("{\"mode\":\"profile\",\"ok\":true}\n==PROF== Disconnected from process "), std::string::npos);
  const size_t header = lines.size() - metrics.size() - 1;
  EXPECT_EQ(lines[header],
            R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",)"
            R"("Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")");
  for (size_t i = 0; i < metrics.size(); ++i) {
    const std::string& row = lines[header + 1 + i];
    size_t seps = 0;
    for (size_t p = row.find("\",\""); p != std::string::npos; p = row.find("\",\"", p + 1)) ++seps;
    EXPECT_EQ(seps, 14u) << row;
    EXPECT_EQ(row.rfind("\"0\",", 0), 0u) << row;
    EXPECT_NE(row.find("\"gemm_kernel(float const*, float const*, float*, int, int, int)\""), std::string::npos);
    EXPECT_NE(row.find("\"" + metrics[i] + "\""), std::string::npos) << row;
  }
  EXPECT_NE(lines[header + 1].find(R"("lts__t_sector_hit_rate.pct","%","43.75")"), std::string::npos);
  EXPECT_NE(lines[header + 2].find(R"("lts__t_sectors.sum","sector","524,288")"), std::string::npos);
  EXPECT_NE(lines[header + 3].find(R"("dram__bytes_read.sum","byte",")"), std::string::npos);
  EXPECT_NE(lines[header + 4].find(R"("gpu__time_duration.sum","nsecond",")"), std::string::npos);
}

TEST_F(FakesTest, NcuReportsPermissionErrorsFailuresAndNoKernels) {
  ProcRun perm = run({fake("fake_ncu"), "--csv", exe(), "profile"}, dir_->path(), {"SWZ_FAKE_NCU_CTRPERM=1"});
  EXPECT_EQ(perm.exit_code, 1);
  EXPECT_NE(perm.out.find("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                          "Performance Counters on the target device 0."),
            std::string::npos);
  EXPECT_EQ(perm.out.find("\"ID\""), std::string::npos);

  ProcRun none = run({fake("fake_ncu"), "--csv", exe(), "info"}, dir_->path());
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("==WARNING== No kernels were profiled."), std::string::npos);
  ProcRun other = run({fake("fake_ncu"), "--csv", "--kernel-name", "regex:softmax", exe(), "profile"}, dir_->path());
  EXPECT_NE(other.out.find("==WARNING== No kernels were profiled."), std::string::npos);

  ProcRun bad = run({fake("fake_ncu"), "--csv", exe(), "bogus-mode"}, dir_->path());
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("==ERROR== The application returned an error code (2)."), std::string::npos);
}

TEST_F(FakesTest, GroupedOrderGetsAHigherModelledHitRateThanIdentity) {
  ProcRun b = build(*dir_, "grouped", kernel_file(kGrouped));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const std::string grouped = (*dir_ / "grouped").string();
  EXPECT_EQ(run({grouped, "verify"}, dir_->path()).exit_code, 0);
  json id = profile_metrics(run({exe(), "profile"}, dir_->path()));
  json gr = profile_metrics(run({grouped, "profile"}, dir_->path()));
  const char* hit = "lts__t_sector_hit_rate.pct";
  EXPECT_GT(gr[hit].get<double>(), id[hit].get<double>() + 20.0) << id.dump() << gr.dump();
  EXPECT_LT(gr["dram__bytes_read.sum"].get<double>(), id["dram__bytes_read.sum"].get<double>());
  EXPECT_LT(gr["lts__t_sectors_srcunit_ltcfabric.sum"].get<double>(),
            id["lts__t_sectors_srcunit_ltcfabric.sum"].get<double>());
  EXPECT_LT(last_json(run({grouped, "time"}, dir_->path()))["median_ms"].get<double>(),
            last_json(run({exe(), "time"}, dir_->path()))["median_ms"].get<double>());
}

TEST_F(FakesTest, NonBijectiveSwizzleFailsVerifyAndChangesTheDump) {
  ProcRun b = build(*dir_, "half", kernel_file("  return pid / 2;"));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  ProcRun v = run({(*dir_ / "half").string(), "verify"}, dir_->path());
  EXPECT_EQ(v.exit_code, 1);
  json j = last_json(v);
  EXPECT_EQ(j["ok"], false);
  EXPECT_GT(j["cases"][0]["mismatches"].get<double>(), 0);
  ASSERT_EQ(run({exe(), "dump", "base.bin"}, dir_->path()).exit_code, 0);
  ASSERT_EQ(run({(*dir_ / "half").string(), "dump", "half.bin"}, dir_->path()).exit_code, 0);
  EXPECT_NE(slurp(*dir_ / "base.bin"), slurp(*dir_ / "half.bin"));
}

TEST_F(FakesTest, NvccFailsOnRegionsThatDoNotCompileOrAreMissing) {
  ProcRun bad = build(*dir_, "broken", kernel_file("  return pid + not_declared_anywhere;"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("broken.hip:"), std::string::npos) << bad.err;  // diagnostics name the source
  EXPECT_NE(bad.err.find("not_declared_anywhere"), std::string::npos) << bad.err;
  ProcRun none = build(*dir_, "nomarkers", "int main() { return 0; }\n");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("fake_nvcc: error:"), std::string::npos) << none.err;
}

TEST_F(FakesTest, FaultWordsAndSleepEnv) {
  ASSERT_EQ(build(*dir_, "wrong", kernel_file("  return pid;", "// SWZ_FAKE_WRONG\n")).exit_code, 0)
      << "magic words outside the region must be ignored";
  EXPECT_EQ(run({(*dir_ / "wrong").string(), "verify"}, dir_->path()).exit_code, 0);
  ASSERT_EQ(build(*dir_, "wrong", kernel_file("  return pid;  // SWZ_FAKE_WRONG")).exit_code, 0);
  EXPECT_EQ(run({(*dir_ / "wrong").string(), "verify"}, dir_->path()).exit_code, 1);

  ASSERT_EQ(build(*dir_, "crash", kernel_file("  return pid;  // SWZ_FAKE_CRASH")).exit_code, 0);
  EXPECT_EQ(run({(*dir_ / "crash").string(), "info"}, dir_->path()).exit_code, 0);
  EXPECT_EQ(run({(*dir_ / "crash").string(), "time"}, dir_->path()).signal, SIGABRT);
  ProcRun ncu = run({fake("fake_ncu"), "--csv", (*dir_ / "crash").string(), "profile"}, dir_->path());
  EXPECT_NE(ncu.exit_code, 0);
  EXPECT_NE(ncu.out.find("==ERROR== The application returned an error code (134)."), std::string::npos) << ncu.out;

  ASSERT_EQ(build(*dir_, "diff", kernel_file("  return pid;  // SWZ_FAKE_DUMP_DIFF")).exit_code, 0);
  EXPECT_EQ(run({(*dir_ / "diff").string(), "verify"}, dir_->path()).exit_code, 0);
  ASSERT_EQ(run({(*dir_ / "diff").string(), "dump", "diff.bin"}, dir_->path()).exit_code, 0);
  ASSERT_EQ(run({exe(), "dump", "same.bin"}, dir_->path()).exit_code, 0);
  EXPECT_NE(slurp(*dir_ / "diff.bin"), slurp(*dir_ / "same.bin"));

  ASSERT_EQ(build(*dir_, "hang", kernel_file("  return pid;  // SWZ_FAKE_HANG")).exit_code, 0);
  EXPECT_EQ(run({(*dir_ / "hang").string(), "info"}, dir_->path(), {}, 20000).exit_code, 0);
  EXPECT_TRUE(run({(*dir_ / "hang").string(), "verify"}, dir_->path(), {}, 500).timed_out);

  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(run({exe(), "info"}, dir_->path(), {"SWZ_FAKE_SLEEP_MS=300"}).exit_code, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(300));
}

TEST_F(FakesTest, DeviceQueryPrintsTheFakeGpu) {
  ASSERT_EQ(build(*dir_, "device_query", "// anything\n").exit_code, 0);
  ProcRun r = run({(*dir_ / "device_query").string()}, dir_->path());
  ASSERT_EQ(r.exit_code, 0);
  json j = last_json(r);
  EXPECT_EQ(j["name"], "Fake GPU (swizzleperf test double)");
  EXPECT_EQ(j["arch"], "sm_90");
  EXPECT_EQ(j["compute_units"], 132);
  EXPECT_EQ(j["l2_bytes"], 52428800);
  EXPECT_EQ(j["max_threads_per_block"], 1024);
  EXPECT_EQ(j["shared_mem_per_block"], 232448) << "an H100's opt-in maximum, as device_query.hip reports it";
  EXPECT_EQ(j["num_xcc"], -1);
}

// Seeded fault injection (tests/fakes/fault_injection.h): off by default, each kind
// does what the soak expects, every injected fault is logged, and the decision is
// a reproducible function of the seed and the argv.
TEST_F(FakesTest, SeededFaultsAreInjectedLoggedAndReproducible) {
  const std::string log = (*dir_ / "faults.log").string();
  auto faults = [&](const std::string& kinds) {
    return std::vector<std::string>{"SWZ_FAKE_FAULT_RATE=1", "SWZ_FAKE_FAULTS=" + kinds, "SWZ_FAKE_FAULT_LOG=" + log};
  };
  ProcRun compile = build(*dir_, "fc", kernel_file("  return pid;"), faults("compile"));
  EXPECT_EQ(compile.exit_code, 1);
  EXPECT_NE(compile.err.find("fc.hip"), std::string::npos) << compile.err;
  EXPECT_NE(compile.err.find("injected compile error"), std::string::npos) << compile.err;
  ASSERT_EQ(build(*dir_, "fcrash", kernel_file("  return pid;"), faults("crash")).exit_code, 0);
  EXPECT_EQ(run({(*dir_ / "fcrash").string(), "verify"}, dir_->path()).signal, SIGABRT);
  ASSERT_EQ(build(*dir_, "fhang", kernel_file("  return pid;"), faults("hang")).exit_code, 0);
  EXPECT_TRUE(run({(*dir_ / "fhang").string(), "time"}, dir_->path(), {}, 500).timed_out);

  ProcRun perr = run({fake("fake_ncu"), "--csv", exe(), "profile"}, dir_->path(), faults("profiler_error"));
  EXPECT_EQ(perr.exit_code, 1);
  EXPECT_NE(perr.out.find("==ERROR== Injected profiler failure"), std::string::npos) << perr.out;
  ProcRun garbage = run({fake("fake_ncu"), "--csv", exe(), "profile"}, dir_->path(), faults("garbage"));
  EXPECT_EQ(garbage.exit_code, 0);
  EXPECT_FALSE(swz::parse_ncu_csv(garbage.out)) << "garbage must not parse as metrics";

  const auto logged = lines_of(slurp(log));
  ASSERT_EQ(logged.size(), 5u) << slurp(log);
  EXPECT_EQ(logged[0].rfind("fake_nvcc compile ", 0), 0u) << logged[0];
  EXPECT_NE(logged[0].find("fc.hip"), std::string::npos);
  EXPECT_EQ(logged[3].rfind("fake_ncu profiler_error ", 0), 0u) << logged[3];

  // Off without a rate; with rate 0.5 about half the seeds inject, the same seed always the same way.
  EXPECT_EQ(run({fake("fake_ncu"), "--csv", exe(), "profile"}, dir_->path()).exit_code, 0);
  int injected = 0;
  for (int seed = 0; seed < 30; ++seed) {
    const std::vector<std::string> env{"SWZ_FAKE_FAULT_RATE=0.5", "SWZ_FAKE_FAULT_SEED=" + std::to_string(seed),
                                       "SWZ_FAKE_FAULTS=profiler_error"};
    const int a = run({fake("fake_ncu"), "--csv", exe(), "info"}, dir_->path(), env).exit_code;
    injected += a != 0;
    if (seed < 5) EXPECT_EQ(run({fake("fake_ncu"), "--csv", exe(), "info"}, dir_->path(), env).exit_code, a);
  }
  EXPECT_GT(injected, 5);
  EXPECT_LT(injected, 25);
}

// fake_llm_server, driven by the real ChatClient over loopback HTTP.
struct LlmServer {
  pid_t pid = -1;
  int port = 0;
  LlmServer(const Scratch& dir, const std::vector<std::string>& args) {
    const std::string port_file = (dir / "llm.port").string();
    std::error_code ec;
    fs::remove(port_file, ec);
    pid = fork();
    if (pid == 0) {
      std::vector<std::string> full{fake("fake_llm_server"), "--port-file", port_file, "--lifetime-s", "60"};
      full.insert(full.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : full) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    for (int i = 0; i < 200 && !fs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    port = std::atoi(slurp(port_file).c_str());
  }
  ~LlmServer() {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  swz::ChatClient client(int timeout_s = 5) const {
    swz::LlmOptions o;
    o.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    o.api_key_env = "SWZ_TEST_NO_SUCH_KEY";
    o.max_retries = 0;
    o.timeout_s = timeout_s;
    return swz::ChatClient(o, [](double) {});
  }
};

swz::ChatRequest hello() { return swz::ChatRequest{{{"user", "propose a swizzle"}}, std::nullopt, "x"}; }
// With response_format: the only requests that get bad content (malformed, truncated).
swz::ChatRequest structured() {
  return swz::ChatRequest{{{"user", "propose a swizzle"}}, nlohmann::json{{"type", "object"}}, "x"};
}

TEST(FakeLlmServer, AnswersValidRepliesAndInjectsEachFault) {
  Scratch dir;
  {
    LlmServer ok(dir, {"--log", (dir / "ok.log").string()});
    ASSERT_GT(ok.port, 0);
    auto reply = ok.client().complete(hello());
    ASSERT_TRUE(reply) << reply.error().message;
    auto parsed = swz::parse_reply_content(reply->content, false);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_NE(parsed->code.find("swizzle_pid"), std::string::npos);
    EXPECT_EQ(slurp(dir / "ok.log"), "1 ok\n");
  }
  const std::vector<std::pair<std::string, int>> http = {{"http401", 401}, {"http429", 429}, {"http500", 500}};
  for (const auto& [kind, status] : http) {
    LlmServer s(dir, {"--rate", "1", "--faults", kind});
    swz::ChatFailure f;
    auto reply = s.client().complete(hello(), &f);
    ASSERT_FALSE(reply) << kind;
    EXPECT_EQ(f.http_status, status) << kind << ": " << reply.error().message;
  }
  for (const std::string kind : {"reset", "cut_body", "timeout"}) {
    LlmServer s(dir, {"--rate", "1", "--faults", kind, "--delay-ms", "2500"});
    swz::ChatFailure f;
    auto reply = s.client(1).complete(hello(), &f);
    ASSERT_FALSE(reply) << kind;
    EXPECT_EQ(f.http_status, 0) << kind;
  }
  {
    LlmServer s(dir, {"--rate", "1", "--faults", "malformed"});
    auto reply = s.client().complete(structured());
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_FALSE(swz::parse_reply_content(reply->content, false));
  }
  {
    LlmServer s(dir, {"--rate", "1", "--faults", "truncated"});
    auto free_text = s.client().complete(hello());  // a free-text call gets no content fault
    ASSERT_TRUE(free_text) << free_text.error().message;
    EXPECT_EQ(free_text->finish_reason, "stop");
    auto reply = s.client().complete(structured());
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->finish_reason, "length");
    EXPECT_FALSE(swz::parse_reply(*reply, true));
  }
}

}  // namespace

// hash and compare: the harness's device-side output checks, emulated on the host.
TEST_F(FakesTest, HashModeDigestsTheDumpedBytesPerChunk) {
  ProcRun h = run({exe(), "hash", "--chunks", "base.chunks"}, dir_->path());
  ASSERT_EQ(h.exit_code, 0) << h.err;
  json j = last_json(h);
  EXPECT_EQ(j["mode"], "hash");
  EXPECT_EQ(j["bytes"], 1024);  // 16x16 tiles, one uint32 each
  EXPECT_EQ(j["chunk_bytes"], 256);
  ASSERT_TRUE(j["hash"].is_string());
  EXPECT_EQ(j["hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(lines_of(slurp(*dir_ / "base.chunks")).size(), 4u);
  // Deterministic, and the same for any bijection (the fake's output does not depend on order).
  EXPECT_EQ(last_json(run({exe(), "hash"}, dir_->path()))["hash"], j["hash"]);
  ASSERT_EQ(build(*dir_, "grouped_h", kernel_file(kGrouped)).exit_code, 0);
  EXPECT_EQ(last_json(run({(*dir_ / "grouped_h").string(), "hash"}, dir_->path()))["hash"], j["hash"]);
  // One flipped bit in the last tile: another digest, and only the last chunk differs.
  ASSERT_EQ(build(*dir_, "diff_h", kernel_file("  return pid;  // SWZ_FAKE_DUMP_DIFF")).exit_code, 0);
  ProcRun d = run({(*dir_ / "diff_h").string(), "hash", "--chunks", "diff.chunks"}, dir_->path());
  ASSERT_EQ(d.exit_code, 0);
  EXPECT_NE(last_json(d)["hash"], j["hash"]);
  const auto a = lines_of(slurp(*dir_ / "base.chunks")), b = lines_of(slurp(*dir_ / "diff.chunks"));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i + 1 < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << i;
  EXPECT_NE(a.back(), b.back());
  // A size change changes the digest; an unknown option is a usage error.
  EXPECT_NE(last_json(run({exe(), "hash", "--size", "512,1024,512"}, dir_->path()))["hash"], j["hash"]);
  EXPECT_EQ(run({exe(), "hash", "--tol", "1"}, dir_->path()).exit_code, 2);
}

TEST_F(FakesTest, CompareModeAppliesTheRelativeToleranceRule) {
  ASSERT_EQ(run({exe(), "dump", "cmp_base.bin"}, dir_->path()).exit_code, 0);
  ProcRun same = run({exe(), "compare", "cmp_base.bin"}, dir_->path());
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_EQ(last_json(same)["mismatches"], 0);
  EXPECT_EQ(last_json(same)["values"], 256);
  ASSERT_EQ(build(*dir_, "diff_c", kernel_file("  return pid;  // SWZ_FAKE_DUMP_DIFF")).exit_code, 0);
  const std::string diff = (*dir_ / "diff_c").string();
  ProcRun exact = run({diff, "compare", "cmp_base.bin", "--tol", "0"}, dir_->path());
  EXPECT_EQ(exact.exit_code, 1);
  json j = last_json(exact);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["mismatches"], 1);
  EXPECT_EQ(j["first_index"], 255);
  // The flipped bit changes a value of about -1e-23 by about 8e-31: inside max(1, |a|) * 1e-6.
  EXPECT_EQ(run({diff, "compare", "cmp_base.bin", "--tol", "1e-6"}, dir_->path()).exit_code, 0);
  // The default tolerance is the program's dump_tol (SWZ_FAKE_DUMP_TOL, shown by info).
  EXPECT_EQ(run({diff, "compare", "cmp_base.bin"}, dir_->path(), {"SWZ_FAKE_DUMP_TOL=1e-6"}).exit_code, 0);
  EXPECT_EQ(last_json(run({exe(), "info"}, dir_->path(), {"SWZ_FAKE_DUMP_TOL=1e-6"}))["dump_tol"], 1e-6);
  // A baseline of another size is a mismatch, not a crash.
  ProcRun sized = run({exe(), "compare", "cmp_base.bin", "--size", "512,512,512"}, dir_->path());
  EXPECT_EQ(sized.exit_code, 1);
  EXPECT_NE(last_json(sized)["error"].get<std::string>().find("sizes differ"), std::string::npos);
  EXPECT_EQ(run({exe(), "compare"}, dir_->path()).exit_code, 2);
}

// evaluate: verify + hash (or compare) + time in one process, stopping at the first failure.
TEST_F(FakesTest, EvaluateModeRunsVerifyCheckAndTimeInOneProcess) {
  ProcRun e = run({exe(), "evaluate", "--reps", "5", "--chunks", "eval.chunks"}, dir_->path());
  ASSERT_EQ(e.exit_code, 0) << e.err;
  json j = last_json(e);
  EXPECT_EQ(j["mode"], "evaluate");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["verify"]["ok"], true);
  EXPECT_EQ(j["hash"], last_json(run({exe(), "hash"}, dir_->path())));
  EXPECT_EQ(j["time"], last_json(run({exe(), "time", "--reps", "5"}, dir_->path())));
  EXPECT_EQ(lines_of(slurp(*dir_ / "eval.chunks")).size(), 4u);
  EXPECT_TRUE(j["seconds"].contains("verify"));
  // With --baseline the output is compared instead; a mismatch stops before timing.
  ASSERT_EQ(run({exe(), "dump", "eval_base.bin"}, dir_->path()).exit_code, 0);
  ASSERT_EQ(build(*dir_, "diff_e", kernel_file("  return pid;  // SWZ_FAKE_DUMP_DIFF")).exit_code, 0);
  ProcRun bad = run({(*dir_ / "diff_e").string(), "evaluate", "--baseline", "eval_base.bin"}, dir_->path());
  EXPECT_EQ(bad.exit_code, 1);
  json b = last_json(bad);
  EXPECT_EQ(b["ok"], false);
  EXPECT_EQ(b["compare"]["first_index"], 255);
  EXPECT_FALSE(b.contains("time"));
  ProcRun loose = run({(*dir_ / "diff_e").string(), "evaluate", "--baseline", "eval_base.bin", "--tol", "1e-6"},
                      dir_->path());
  EXPECT_EQ(loose.exit_code, 0);
  EXPECT_TRUE(last_json(loose).contains("time"));
  // A verify failure stops at once.
  ASSERT_EQ(build(*dir_, "wrong_e", kernel_file("  return pid;  // SWZ_FAKE_WRONG")).exit_code, 0);
  ProcRun w = run({(*dir_ / "wrong_e").string(), "evaluate"}, dir_->path());
  EXPECT_EQ(w.exit_code, 1);
  EXPECT_FALSE(last_json(w).contains("hash"));
  EXPECT_EQ(run({exe(), "evaluate", "--bogus", "1"}, dir_->path()).exit_code, 2);
}
