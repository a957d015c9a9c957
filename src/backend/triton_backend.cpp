// Triton backend (see the header). Every program run goes through the launcher that
// build() writes, so run_program, the served re-check and the profiler all execute a
// plain file, as they do a compiled binary.
#include "swizzleperf/backend/triton_backend.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/core/hardware_profile.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/tune/tune_space.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace {

// A Python string literal holding `s`: JSON's escapes are Python's too, and UTF-8 stays
// as it is (a \u escape of an astral character would be two surrogates in Python).
std::string py_string_literal(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The last non-empty line of a process's output, for a one-line failure.
std::string last_line_of(const ProcessResult& r) {
  const std::string err = tail_lines(r.err, 1);
  return one_line(err.empty() ? tail_lines(r.out, 1) : err, 300);
}

}  // namespace

TritonBackend::TritonBackend(ProcessRunner& runner, ToolOptions tools) : Backend(runner, std::move(tools)) {
  amd_ = amd_gpu_present();
  ToolOptions vendor_tools = tools_;
  vendor_tools.compiler.clear();  // the vendor backend only profiles
  if (amd_) vendor_ = std::make_unique<HipBackend>(runner_, vendor_tools);
  else vendor_ = std::make_unique<CudaBackend>(runner_, vendor_tools);
}

TritonBackend::~TritonBackend() = default;

std::string TritonBackend::python_path() const {
  const std::string p = tool_or_default(tools_.compiler, "python3", "/usr/bin/python3");
  const std::string found = find_executable(p);
  return found.empty() ? p : found;
}

Status TritonBackend::preflight(bool need_profiler) {
  const std::string py = python_path();
  if (find_executable(py).empty())
    return make_error(tools_.compiler.empty()
                          ? std::string("python3 not found (looked on PATH): install Python 3 with torch and triton, or pass --python PATH")
                          : "--python " + tools_.compiler + " is not an executable: pass the Python that has torch and triton");
  if (py.find_first_of(" \t\n") != std::string::npos || py.size() > 200)
    return make_error("the Python path '" + one_line(py, 80) +
                      "' has a space or is over 200 bytes, which a launcher's #! line cannot hold: link it from a short path "
                      "and pass --python LINK");
  if (need_profiler) {
    if (amd_) {
      HipBackend hip(runner_, tools_);
      if (find_executable(hip.profiler_path()).empty())
        return make_error("rocprofv3 not found (looked on PATH and in /opt/rocm/bin): install ROCm's profiler or pass --rocprof PATH");
    } else {
      CudaBackend cuda(runner_, tools_);
      if (find_executable(cuda.profiler_path()).empty())
        return make_error("ncu (Nsight Compute) not found (looked on PATH and in /usr/local/cuda/bin): install it or pass --ncu PATH");
    }
  }
  return ok_status();
}

Result<HardwareProfile> TritonBackend::query_device(const fs::path& work_dir) {
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  auto run = Backend::run_program(python_path(), {(support_dir() / "swz_device_query.py").string()}, tools_.run_timeout);
  const ProcessResult& r = run.process;
  if (r.interrupted) return interrupted_error();
  const auto& json = run.json;
  if (!r.success() || json.is_null())
    return make_error(std::string("no GPU answered the device query through torch (") + r.describe() + ": " + last_line_of(r) +
                      "); the triton backend needs torch with a GPU in " + python_path() + " (or pass --python PATH)");
  return assemble_hardware_profile(json, tools_.arch);
}

std::string TritonBackend::launcher_text(const std::string& python, const fs::path& support, const fs::path& program_path,
                                         const std::string& program_text, int num_dies) {
  return fmt::format(
      "#!{}\n"
      "# swizzleperf: the Triton program {} as built (SWZ_NUM_DIES={}). It holds the program's whole\n"
      "# text and runs it as __main__ with kernels/support on sys.path; the program's name is\n"
      "# registered with linecache so that Triton can read its functions' source.\n"
      "import linecache, os, sys\n"
      "os.environ['SWZ_NUM_DIES'] = '{}'\n"
      "sys.path.insert(0, {})\n"
      "_swz_file = {}\n"
      "_swz_text = {}\n"
      "linecache.cache[_swz_file] = (len(_swz_text), None, _swz_text.splitlines(True), _swz_file)\n"
      "sys.argv[0] = _swz_file\n"
      "_swz_globals = {{'__name__': '__main__', '__file__': _swz_file, '__builtins__': __builtins__}}\n"
      "exec(compile(_swz_text, _swz_file, 'exec'), _swz_globals)\n",
      python, one_line(program_path.filename().string(), 120), num_dies, num_dies, py_string_literal(support.string()),
      py_string_literal(program_path.string()), py_string_literal(program_text));
}

Status TritonBackend::accepts_source(const fs::path& source, std::string_view) const {
  if (language_of(source) == RegionLanguage::python) return ok_status();
  return make_error(source.string() + " is a C++ program: the triton backend runs Triton programs (.py); use --backend cuda or hip");
}

Result<BuildResult> TritonBackend::build(const BuildRequest& req) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string py = python_path();
  BuildResult b;
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  // 1. Syntax, without running anything or writing __pycache__.
  b.argv = {py, "-c", "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')", req.source.string()};
  ProcessSpec syntax{b.argv, {}, {}, tools_.build_timeout};
  auto s = runner_.run(syntax);
  if (!s.started) return make_error("cannot run " + py + ": " + last_line_of(s) + "; install Python 3 or pass --python PATH");
  if (s.interrupted) return interrupted_error();
  b.log = s.out + s.err;
  if (!s.success()) {
    b.failure = "python: " + (s.timed_out ? s.describe() : last_line_of(s));
    b.seconds = seconds();
    return b;
  }
  // 2. The launcher, executable.
  auto text = read_file(req.source);
  if (!text) return text.error();
  if (!req.defines.empty()) {
    auto tuned = with_tunable_values(*text, RegionLanguage::python, req.defines, req.source.filename().string());
    if (!tuned) {
      b.failure = "tunables: " + tuned.error().message;
      b.seconds = seconds();
      return b;
    }
    *text = std::move(*tuned);
  }
  const std::string launcher = launcher_text(py, support_dir(), fs::absolute(req.source), *text, req.num_dies);
  if (auto st = write_file_atomic(req.output, launcher); !st) return st.error();
  if (::chmod(req.output.c_str(), 0755) != 0) return make_error("cannot make " + req.output.string() + " executable");
  // 3. Imports (torch, triton, the harness) and the program's own info: no GPU work.
  ProcessSpec info{{req.output.string(), "info"}, {}, {}, tools_.build_timeout};
  auto r = runner_.run(info);
  if (r.interrupted) return interrupted_error();
  b.log += format_argv(info.argv) + "\n" + r.out + r.err;
  b.seconds = seconds();
  if (!r.success()) {
    b.failure = "python " + req.source.filename().string() + " info: " + (r.timed_out ? r.describe() : last_line_of(r));
    return b;
  }
  b.ok = true;
  return b;
}

std::string TritonBackend::missing_modules() {
  const std::string py = python_path();
  for (const char* module : {"torch", "triton"}) {
    ProcessSpec spec{{py, "-c", std::string("import ") + module}, {}, {}, tools_.build_timeout};
    auto r = runner_.run(spec);
    if (!r.success())
      return fmt::format("{} cannot import {} ({})", py, module, r.started && !r.timed_out ? last_line_of(r) : r.describe());
  }
  return {};
}

LaunchWindow TritonBackend::window_after_warmup(const LaunchWindow& w) {
  // The harness's profile mode runs the program once to compile (warm-up), then once
  // to be profiled; a program reports its launches per run (info "launches", at least 1).
  const int per_run = std::max(w.total, 1);
  LaunchWindow out = w;
  if (out.count <= 0) {
    out.skip = 0;
    out.count = per_run;
  }
  out.skip += per_run;
  out.total = w.total;
  return out;
}

ProgramRun TritonBackend::run_program(const fs::path& exe, const std::vector<std::string>& args,
                                      std::chrono::seconds timeout) {
  if (!fork_)
    fork_ = std::make_unique<PythonForkServer>(runner_, python_path(), support_dir() / "swz_forkserver.py",
                                               std::vector<std::string>{"torch", "triton", "swz_triton"},
                                               std::chrono::duration_cast<std::chrono::seconds>(tools_.build_timeout));
  ProcessSpec spec;
  spec.argv.push_back(exe.string());
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = timeout;
  auto served = fork_->run(spec);
  if (!served) return Backend::run_program(exe, args, timeout);
  ProgramRun r;
  r.argv = spec.argv;
  r.process = std::move(*served);
  r.json = last_json_line(r.process.out);
  return r;
}

Result<Metrics> TritonBackend::profile(const ProfileRequest& req) {
  ProfileRequest r = req;
  r.window = window_after_warmup(req.window);
  auto m = vendor_->profile(r);
  if (!m) return m;
  // Metrics name the window within one run, as a compiled program's would.
  m->launch_skip = req.window.count > 0 ? req.window.skip : 0;
  m->launches_total = req.window.count > 0 ? req.window.total : 0;
  return m;
}

}  // namespace swz
