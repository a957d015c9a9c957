// Cutting out, compiling and running a program's footprint section. The compiled program is
// cached under a name made of the content hash of everything that goes into it (the section,
// the two headers, the compiler's name), written to a temporary name and renamed into place,
// so concurrent runs never see half a binary.
#include "swizzleperf/model/footprint_source.h"

#include <cstdlib>
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>

#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/hash.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kFootprintBegin = "swizzleperf:footprint-begin";
constexpr std::string_view kFootprintEnd = "swizzleperf:footprint-end";

// A marker line: optional blanks, "//" or "#", blanks, the marker, nothing but blanks after.
bool marker_line(std::string_view line, std::string_view marker) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (line.substr(i, 2) == "//") i += 2;
  else if (line.substr(i, 1) == "#") i += 1;
  else return false;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (line.substr(i, marker.size()) != marker) return false;
  i += marker.size();
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  return i == line.size();
}

std::string first_error_line(const std::string& text) {
  std::size_t pos = 0;
  std::string first;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.find("error") != std::string::npos) return line.substr(0, 300);
    if (first.empty() && !line.empty()) first = line.substr(0, 300);
  }
  return first;
}

}  // namespace

Result<std::optional<FootprintSection>> find_footprint_section(const std::string& text, const std::string& name) {
  std::optional<FootprintSection> found;
  std::size_t pos = 0, line_no = 0, begin_line = 0, begin_pos = 0;
  bool open = false;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view line(text.data() + pos, nl - pos);
    ++line_no;
    if (marker_line(line, kFootprintBegin)) {
      if (open) return make_error(fmt::format("{}:{}: a second footprint-begin before footprint-end (line {})", name, line_no, begin_line));
      if (found) return make_error(fmt::format("{}:{}: a second footprint section (one per program)", name, line_no));
      open = true;
      begin_line = line_no;
      begin_pos = nl + 1;
    } else if (marker_line(line, kFootprintEnd)) {
      if (!open) return make_error(fmt::format("{}:{}: footprint-end without footprint-begin", name, line_no));
      open = false;
      found = FootprintSection{text.substr(begin_pos, pos - begin_pos), begin_line + 1};
    }
    pos = nl + 1;
  }
  if (open) return make_error(fmt::format("{}:{}: footprint-begin without footprint-end", name, begin_line));
  return found;
}

fs::path default_footprint_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x && fs::path(x).is_absolute()) return fs::path(x) / "swizzleperf" / "footprint";
  if (const char* h = std::getenv("HOME"); h && *h && fs::path(h).is_absolute()) return fs::path(h) / ".cache" / "swizzleperf" / "footprint";
  return {};
}

Result<fs::path> footprint_program(const KernelSource& kernel, const FootprintSourceOptions& opt, ProcessRunner& runner,
                                   fs::path* temp_dir) {
  const std::string name = kernel.path().filename().string().empty() ? kernel.name() : kernel.path().filename().string();
  if (kernel.language() != RegionLanguage::cpp)
    return make_error(fmt::format("{} declares no footprint: footprints are C++ sections of kernel programs (a Triton "
                                  "program cannot be predicted yet)",
                                  name));
  auto section = find_footprint_section(kernel.text(), name);
  if (!section) return section.error();
  if (!*section)
    return make_error(fmt::format("{} declares no footprint (no `// swizzleperf:footprint-begin` section; see "
                                  "docs/kernel-contract.md, \"Footprints\"): the model cannot predict it",
                                  name));
  const fs::path header = opt.support_dir / "swz_footprint.h";
  auto fp_h = read_file(header);
  if (!fp_h) return make_error(fmt::format("cannot read {}: {} (the kernel support directory)", header.string(), fp_h.error().message));
  auto sizes_h = read_file(opt.support_dir / "swz_sizes.h");
  if (!sizes_h) return make_error(fmt::format("cannot read {}: {}", (opt.support_dir / "swz_sizes.h").string(), sizes_h.error().message));
  const fs::path compiler = find_executable(opt.host_compiler);
  if (compiler.empty())
    return make_error(fmt::format("host C++ compiler '{}' not found: the footprint section of {} is compiled with it "
                                  "(install g++ or pass --host-cxx PATH)",
                                  opt.host_compiler, name));
  const std::string driver = fmt::format(
      "#include \"swz_footprint.h\"\n#line {} \"{}\"\n{}\n#line 1 \"swizzleperf-footprint-main\"\n"
      "int main(int argc, char** argv) {{ return swz_footprint_main(swz_footprint_spec(), argc, argv); }}\n",
      (*section)->first_line, name, (*section)->text);
  const std::string key = content_hash(driver + '\0' + *fp_h + '\0' + *sizes_h + '\0' + compiler.string());
  std::string digest = key.substr(key.find(':') + 1);

  // Where the program lives: the cache, else a private temporary directory.
  fs::path dir = opt.cache_dir;
  std::error_code ec;
  bool cached_dir = !dir.empty();
  if (cached_dir) {
    fs::create_directories(dir, ec);
    if (ec || access(dir.c_str(), W_OK) != 0) cached_dir = false;
  }
  fs::path tmp_dir;
  if (!cached_dir) {
    tmp_dir = fs::temp_directory_path(ec) / fmt::format("swizzleperf-footprint-{}-{}", getpid(), digest);
    fs::create_directories(tmp_dir, ec);
    if (ec) return make_error(fmt::format("cannot create {}: {}", tmp_dir.string(), ec.message()));
    dir = tmp_dir;
  }
  if (temp_dir) *temp_dir = tmp_dir;
  const fs::path exe = dir / ("footprint-" + digest);
  if (!fs::exists(exe, ec)) {
    const fs::path src = dir / fmt::format("footprint-{}-{}.cpp", digest, getpid());
    const fs::path part = dir / fmt::format("footprint-{}-{}.part", digest, getpid());
    if (auto w = write_file_atomic(src, driver); !w)
      return make_error(fmt::format("cannot write {}: {}", src.string(), w.error().message));
    ProcessSpec spec;
    spec.argv = {compiler.string(), "-std=c++17", "-O1", "-w", "-I", opt.support_dir.string(), "-o", part.string(), src.string()};
    spec.timeout = opt.compile_timeout;
    const ProcessResult r = runner.run(spec);
    fs::remove(src, ec);
    if (r.interrupted) return interrupted_error();
    if (!r.success()) {
      fs::remove(part, ec);
      return make_error(fmt::format("the footprint section of {} does not compile with {} ({}): {}", name, compiler.string(),
                                    r.describe(), first_error_line(r.err + r.out)));
    }
    fs::rename(part, exe, ec);
    if (ec) return make_error(fmt::format("cannot place {}: {}", exe.string(), ec.message()));
  }
  return exe;
}

Result<ProgramFootprint> load_footprint(const KernelSource& kernel, const std::vector<long long>& size,
                                        const FootprintSourceOptions& opt, ProcessRunner& runner) {
  const std::string name = kernel.path().filename().string().empty() ? kernel.name() : kernel.path().filename().string();
  fs::path tmp_dir;
  struct Cleanup {
    fs::path& p;
    ~Cleanup() {
      std::error_code e;
      if (!p.empty()) fs::remove_all(p, e);
    }
  } cleanup{tmp_dir};
  auto exe = footprint_program(kernel, opt, runner, &tmp_dir);
  if (!exe) return exe.error();
  ProcessSpec run;
  run.argv = {exe->string(), "footprint", "--launches", std::to_string(std::max(1u, opt.max_launches)), "--window",
              opt.middle ? "middle" : "first"};
  std::string size_text;
  for (std::size_t i = 0; i < size.size(); ++i) size_text += (i ? "," : "") + std::to_string(size[i]);
  if (!size.empty()) {
    run.argv.insert(run.argv.end(), {"--size", size_text});
    // A size of the caller's: its grids first, from the launch headers alone (`--tiles 0:0`
    // lists no tile), so that a grid the model cannot take is refused in milliseconds instead
    // of after minutes of listing its tiles. The program's default size needs no such look.
    ProcessSpec headers = run;
    headers.argv.insert(headers.argv.end(), {"--tiles", "0:0"});
    headers.timeout = opt.run_timeout;
    headers.max_capture_bytes = 1u << 20;
    const ProcessResult h = runner.run(headers);
    if (h.interrupted) return interrupted_error();
    if (auto st = check_footprint_grids(h.out, name); !st)
      return make_error(fmt::format("{} (at size {}): give a smaller --size", st.error().message, size_text));
  }
  run.timeout = opt.run_timeout;
  run.max_capture_bytes = 512u << 20;
  const ProcessResult r = runner.run(run);
  if (r.interrupted) return interrupted_error();
  if (r.truncated) return make_error(fmt::format("{}'s footprint is over 512 MB of text: predict a smaller --size", name));
  if (!r.success()) {
    // The program's own one-line reason (its JSON error line) when it gave one.
    auto parsed = parse_footprint(r.out, name);
    if (!parsed) return make_error(fmt::format("{} ({})", parsed.error().message, r.describe()));
    return make_error(fmt::format("{}'s footprint program failed: {}", name, r.describe()));
  }
  return parse_footprint(r.out, name);
}

}  // namespace swz
