// Backend plumbing shared by every vendor: running a program in one of its
// contract modes, finding the support files, and choosing a backend.
#include "swizzleperf/backend/backend.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>

#include "swizzleperf/core/hardware_profile.h"

namespace swz {

namespace {

fs::path exe_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p.parent_path();
}

fs::path find_dir(const char* env, const std::vector<fs::path>& rel_candidates, const fs::path& marker,
                  const fs::path& source_fallback) {
  if (const char* e = std::getenv(env); e && *e) return e;
  const auto base = exe_dir();
  std::error_code ec;
  for (const auto& rel : rel_candidates) {
    auto dir = (base / rel).lexically_normal();
    if (fs::exists(dir / marker, ec)) return dir;
  }
  return source_fallback;
}


}  // namespace

nlohmann::json last_json_line(const std::string& out) {
  std::size_t end = out.size();
  while (end > 0) {
    while (end > 0 && (out[end - 1] == '\n' || out[end - 1] == '\r' || out[end - 1] == ' ')) --end;
    if (end == 0) break;
    std::size_t start = out.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    auto line = out.substr(start, end - start);
    if (!line.empty() && line.front() == '{') {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded()) return j;
    }
    end = start;
  }
  return nullptr;
}

fs::path support_dir() {
  return find_dir("SWIZZLEPERF_SUPPORT_DIR",
                  {"../kernels/support", "../../kernels/support", "../share/swizzleperf/support"},
                  "swz_harness.h", fs::path(SWZ_SOURCE_DIR) / "kernels" / "support");
}

fs::path prompts_dir() {
  return find_dir("SWIZZLEPERF_PROMPTS_DIR", {"../prompts", "../../prompts", "../share/swizzleperf/prompts"},
                  "optimize.txt", fs::path(SWZ_SOURCE_DIR) / "prompts");
}

std::string ProgramRun::failure(const std::string& mode) const {
  return fmt::format("{} mode: {}: {}", mode, process.describe(), tail_lines(process.err + process.out, 1));
}

Result<std::vector<KernelResources>> Backend::resource_usage(const fs::path&) {
  return make_error("the " + name() + " backend does not read the compiler's resource report");
}

ProgramRun Backend::run_program(const fs::path& exe, const std::vector<std::string>& args,
                                std::chrono::seconds timeout) {
  ProgramRun r;
  ProcessSpec spec;
  spec.argv.push_back(exe.string());
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = timeout;
  r.argv = spec.argv;
  r.process = runner_.run(spec);
  r.json = last_json_line(r.process.out);
  return r;
}

LaunchWindow profile_window(int total, int max_launches) {
  if (total <= 0) return {};
  if (max_launches <= 0 || total <= max_launches) return {0, 0, total};
  return {(total - max_launches) / 2, max_launches, total};
}

bool amd_gpu_present() { return ::access("/dev/kfd", F_OK) == 0; }

bool nvidia_gpu_present() { return ::access("/dev/nvidia0", F_OK) == 0 || !find_executable("nvidia-smi").empty(); }

std::string tool_or_default(const std::string& configured, const char* name, const char* fallback) {
  if (!configured.empty()) return configured;
  if (!find_executable(name).empty()) return name;
  if (!find_executable(fallback).empty()) return fallback;
  return name;
}

Result<BuildResult> Backend::run_compiler(std::vector<std::string> argv, const std::string& tool) {
  BuildResult b;
  b.argv = std::move(argv);
  auto r = runner_.run(ProcessSpec{b.argv, {}, {}, tools_.build_timeout});
  b.seconds = r.seconds;
  b.log = r.out + r.err;
  if (!r.started)
    return make_error("cannot run " + tool + " (" + b.argv.front() + "): " + tail_lines(r.err, 1) + "; pass --" + tool + " PATH");
  if (r.interrupted) return interrupted_error();
  b.ok = r.success();
  if (!b.ok) {
    b.failure = tool + " " + r.describe() + ": " + tail_lines(b.log, 1);
    // The machine's fault, not the code's: say so instead of "does not build".
    for (const char* cause : {"No space left on device", "Read-only file system", "Disk quota exceeded", "Permission denied"})
      if (b.log.find(cause) != std::string::npos) {
        b.failure = tool + " could not write its files (" + std::string(cause) + "): the kernel was not judged; "
                    "free space or choose a writable directory";
        b.could_not_write = true;
        break;
      }
  }
  return b;
}

Result<HardwareProfile> Backend::query_with_program(const fs::path& work_dir, const std::string& vendor) {
  BuildRequest req{support_dir() / "device_query.hip", work_dir / "device_query", 1, {}};
  auto built = build(req);
  if (!built) return built.error();
  if (!built->ok) return make_error("cannot build the device query program: " + built->failure);
  auto run = run_program(req.output, {}, tools_.run_timeout);
  if (!run.process.success() || run.json.is_null())
    return make_error("no " + vendor + " GPU answered the device query (" + run.process.describe() + ": " +
                      tail_lines(run.process.err + run.process.out, 1) + ")");
  return assemble_hardware_profile(run.json, tools_.arch);
}

}  // namespace swz
