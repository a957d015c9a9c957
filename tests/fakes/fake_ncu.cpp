// fake_ncu: a test double for Nsight Compute's CLI at the process seam, for CI
// machines with no GPU. It pairs with fake_nvcc, whose emulators print, in profile
// mode, one line `SWZ_FAKE_METRICS {json}` of modelled counters per kernel launch.
//
// Invoked like ncu:
//   fake_ncu [--csv] [--print-units base] [--cache-control all] [--clock-control base]
//            [--target-processes all] [--metrics M1,M2,...] [--kernel-name regex:R]
//            [--launch-skip S] [--launch-count C]
//            [any other ncu flag] [--] EXE ARGS...
// The first non-flag argument starts the application command. fake_ncu runs it as a
// child (fork/exec, no shell; stderr passes straight through), captures its stdout and
// prints, like ncu 2025 on the details page (tests/fixtures/ncu/real_h100_*):
//   ==PROF== Connected to process PID (EXE)
//   the app's stdout, each SWZ_FAKE_METRICS line replaced by a `==PROF== Profiling` line
//   ==PROF== Disconnected from process PID
//   the CSV: header, then one row per launch (ID 0, 1, ...) per requested metric, every
//   field quoted, integers with thousands separators, percentages with 2 decimals.
// --kernel-name regex:R keeps only launches whose kernel base name R matches (search);
// --launch-skip S / --launch-count C then skip the first S of those and keep at most C.
// App exits non-zero or dies: `==ERROR== The application returned an error code (N).`,
// exit N (128+signal for a signal). No launch profiled: `==WARNING== No kernels were
// profiled.`, exit 0. A requested metric the model lacks: `==ERROR== Failed to find
// metric NAME` (this fake's wording), exit 1. Asked for no --metrics: the 8 modelled
// counters (sm__throughput.avg.pct_of_peak_sustained_elapsed is modelled too, on request).
// Env: SWZ_FAKE_NCU_CTRPERM=1 -> the real ERR_NVGPUCTRPERM text, exit 1, no CSV;
//      SWZ_FAKE_NCU_LOG=FILE  -> each call's argv appended as one line.
// Its numbers come from fake_nvcc's model: for testing the loop, never measurements.
// Only the C++ standard library, nlohmann/json and POSIX are used.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fault_injection.h"

namespace {

const char* const kMetricsTag = "SWZ_FAKE_METRICS ";
const std::vector<std::string> kModelMetrics = {
    "lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum",
    "lts__t_sector_hit_rate.pct", "lts__t_sectors_srcunit_ltcfabric.sum", "dram__bytes_read.sum",
    "dram__bytes_write.sum", "gpu__time_duration.sum"};

struct Launch {
  std::string kernel;  // base name, e.g. gemm_kernel
  unsigned long long grid = 0;
  nlohmann::json values;
};

void log_argv(int argc, char** argv) {
  const char* path = std::getenv("SWZ_FAKE_NCU_LOG");
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

std::string quote(const std::string& s) {
  std::string r = "\"";
  for (char c : s) { if (c == '"') r += '"'; r += c; }
  return r + "\"";
}

// 8085788928 -> "8,085,788,928"; 43.7164 with decimals=2 -> "43.72".
std::string format_value(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(v));
  std::string s = buf, frac;
  if (size_t dot = s.find('.'); dot != std::string::npos) { frac = s.substr(dot); s.resize(dot); }
  std::string grouped;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) grouped += ',';
    grouped += s[i];
  }
  return (v < 0 ? "-" : "") + grouped + frac;
}

std::string unit_of(const std::string& metric) {
  if (metric.find(".pct") != std::string::npos) return "%";
  if (metric.rfind("dram__bytes", 0) == 0) return "byte";
  if (metric.find("sectors") != std::string::npos) return "sector";
  if (metric.rfind("gpu__time_duration", 0) == 0) return "nsecond";
  return "";
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

int main(int argc, char** argv) {
  log_argv(argc, argv);
  std::vector<std::string> metrics;
  std::string kernel_regex;
  long launch_skip = 0, launch_count = 0;  // 0: no limit
  // ncu flags that stand alone; every other flag takes a value (next arg or after '=').
  const std::vector<std::string> switches = {"--csv", "-f", "--force-overwrite", "--quiet",
      "--verbose", "--list-sets", "--list-sections", "--query-metrics", "--version", "-v",
      "--help", "-h"};
  int app = argc;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") { app = i + 1; break; }
    if (a.empty() || a[0] != '-') { app = i; break; }
    std::string value;
    bool is_switch = false;
    for (const auto& s : switches) is_switch = is_switch || a == s;
    if (size_t eq = a.find('='); eq != std::string::npos) { value = a.substr(eq + 1); a.resize(eq); }
    else if (!is_switch) {
      if (i + 1 >= argc) { std::printf("==ERROR== the argument for option '%s' is missing\n", a.c_str()); return 1; }
      value = argv[++i];
    }
    if (a == "--metrics") {
      std::string part;
      for (char c : value + ",") {
        if (c != ',') { part += c; continue; }
        if (!part.empty()) metrics.push_back(part);
        part.clear();
      }
    } else if (a == "--launch-skip" || a == "-s") {
      launch_skip = std::atol(value.c_str());
    } else if (a == "--launch-count" || a == "-c") {
      launch_count = std::atol(value.c_str());
    } else if (a == "--kernel-name" || a == "-k") {
      kernel_regex = value.rfind("regex:", 0) == 0 ? value.substr(6) : "^" + value + "$";
    }
  }
  if (app >= argc) { std::printf("==ERROR== No application was specified.\n"); return 1; }
  if (metrics.empty()) metrics = kModelMetrics;
  std::regex kernel_filter;
  try {
    kernel_filter = std::regex(kernel_regex.empty() ? std::string(".") : kernel_regex);
  } catch (const std::regex_error&) {
    std::printf("==ERROR== Invalid kernel name regex: %s\n", kernel_regex.c_str());
    return 1;
  }
  const std::string exe = argv[app];

  int fds[2];
  if (pipe(fds) != 0) { std::perror("fake_ncu: pipe"); return 1; }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) { std::perror("fake_ncu: fork"); return 1; }
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    close(fds[1]);
    execvp(argv[app], argv + app);
    std::fprintf(stderr, "==ERROR== Failed to launch %s\n", argv[app]);
    _exit(127);
  }
  close(fds[1]);
  std::string captured;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n > 0) captured.append(buf, (size_t)n);
    else if (errno != EINTR) break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}

  std::printf("==PROF== Connected to process %d (%s)\n", (int)pid, exe.c_str());
  // Seeded faults (fault_injection.h): ncu failing, or printing a table that is not one.
  const std::string fault = swz_fake::pick_fault("fake_ncu", argc, argv, {"profiler_error", "garbage"});
  if (fault == "profiler_error") {
    std::printf("==ERROR== Injected profiler failure (SWZ_FAKE_FAULT_RATE): LaunchFailed\n");
    return 1;
  }
  if (fault == "garbage") {
    std::printf("==PROF== Disconnected from process %d\n\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\","
                "\"Metric Value\"\n\"0\",\"%s\",\"lts__t_sectors.sum\",\"sector\",\"#@!garbage\"\n\x01\xff\"unterminated\n",
                (int)pid, "gemm_kernel");
    return 0;
  }
  const bool ctrperm = std::getenv("SWZ_FAKE_NCU_CTRPERM") && std::string(std::getenv("SWZ_FAKE_NCU_CTRPERM")) == "1";
  if (ctrperm)
    std::printf("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                "Performance Counters on the target device 0. For instructions on enabling permissions "
                "and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n");
  std::vector<Launch> launches;
  long matched = 0;  // launches that passed the kernel filter, for --launch-skip/--launch-count
  size_t start = 0;
  while (start < captured.size()) {
    size_t end = captured.find('\n', start);
    if (end == std::string::npos) end = captured.size();
    const std::string line = captured.substr(start, end - start);
    start = end + 1;
    if (line.rfind(kMetricsTag, 0) != 0) { std::printf("%s\n", line.c_str()); continue; }
    if (ctrperm) continue;
    nlohmann::json j = nlohmann::json::parse(line.substr(std::strlen(kMetricsTag)), nullptr, false);
    if (!j.is_object()) { std::printf("==ERROR== fake_ncu: unreadable metrics line\n"); return 1; }
    Launch l{j.value("kernel", std::string("kernel")), j.value("grid_size", 1ull), j};
    if (!std::regex_search(l.kernel, kernel_filter)) continue;
    if (matched++ < launch_skip) continue;
    if (launch_count > 0 && static_cast<long>(launches.size()) >= launch_count) continue;
    std::printf("==PROF== Profiling \"%s\" - %zu: 0%%....50%%....100%% - 9 passes\n", l.kernel.c_str(),
                launches.size());
    launches.push_back(std::move(l));
  }
  std::printf("==PROF== Disconnected from process %d\n", (int)pid);

  int app_rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (app_rc != 0) {
    std::printf("==ERROR== The application returned an error code (%d).\n", app_rc);
    return app_rc;
  }
  if (ctrperm) return 1;
  if (launches.empty()) {
    std::printf("==WARNING== No kernels were profiled.\n");
    return 0;
  }
  for (const auto& m : metrics) {
    bool known = false;
    for (const auto& l : launches) known = known || (l.values.contains(m) && l.values[m].is_number());
    if (!known) { std::printf("==ERROR== Failed to find metric %s\n", m.c_str()); return 1; }
  }
  const char* header[] = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                          "Stream", "Block Size", "Grid Size", "Device", "CC", "Section Name",
                          "Metric Name", "Metric Unit", "Metric Value"};
  std::string out;
  for (size_t i = 0; i < 15; ++i) out += (i ? "," : "") + quote(header[i]);
  out += "\n";
  for (size_t id = 0; id < launches.size(); ++id) {
    const Launch& l = launches[id];
    for (const auto& m : metrics) {
      const double v = l.values.contains(m) && l.values[m].is_number() ? l.values[m].get<double>() : 0.0;
      const std::string unit = unit_of(m);
      const bool integral = unit != "%" && std::floor(v) == v;
      const std::vector<std::string> row = {
          std::to_string(id), std::to_string(pid), base_name(exe), "127.0.0.1",
          l.kernel + "(float const*, float const*, float*, int, int, int)", "1", "7", "(256, 1, 1)",
          "(" + std::to_string(l.grid) + ", 1, 1)", "0", "9.0", "Command line profiler metrics", m, unit,
          format_value(v, integral ? 0 : 2)};
      for (size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + quote(row[i]);
      out += "\n";
    }
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}
