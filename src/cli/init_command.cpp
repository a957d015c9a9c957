// `swizzleperf init FILE.cu|FILE.hip|FILE.py [--kernel NAME] [-o OUT]`: writes a contract
// program made from a plain CUDA/HIP kernel file (core/kernel_init) or a plain Triton file
// (core/triton_init, the extension decides) beside it. It
// never writes over a file: not the input, not an existing output, not even one
// created by someone else between the check and the write (util/file_io's
// write_file_if_absent). On any error it exits 2 with one line and leaves nothing behind.
#include <filesystem>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/core/kernel_init.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/triton_init.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/text.h"

namespace swz::cli {

namespace {

namespace fs = std::filesystem;

std::string exists_message(const fs::path& out) {
  return out.string() + " exists: remove it or pass -o OTHER (init never writes over a file)";
}

// Whether a and b name the same file: the same inode when both exist, else the same
// normalised absolute path.
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  const auto ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  const auto cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return ca == cb;
}

// The directory holding swz_triton.py as this binary finds it (absolute), or empty.
fs::path triton_support_dir() {
  std::error_code ec;
  const fs::path dir = support_dir();
  if (dir.empty() || !fs::exists(dir / "swz_triton.py", ec)) return {};
  const fs::path abs = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  return ec ? fs::path() : abs;
}

}  // namespace

int cmd_init(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf init",
                     "Write a contract program (docs/kernel-contract.md) from a plain CUDA or HIP kernel file: the "
                     "kernel takes its block from swizzle_pid and launches a 1-D grid, main becomes a SwzProgram "
                     "skeleton; or from a plain Triton file (.py): the @triton.jit kernel reading tl.program_id(0) takes "
                     "its tile from swizzle_pid, and a SwzProgram skeleton follows. Every line left to you is marked "
                     "swizzleperf:TODO. Nothing is ever overwritten.");
  o.positional_help("FILE.cu|FILE.hip|FILE.py");
  o.add_options()("file", "the CUDA, HIP or Triton (.py) file", cxxopts::value<std::string>())
      ("kernel", "the kernel to port (needed when the file defines several)", cxxopts::value<std::string>())
      ("o,output", "the program to write (default: <stem>_swz<ext> beside FILE)", cxxopts::value<std::string>())
      ("h,help", "show this help");
  o.parse_positional({"file"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "init", {""}, r)) return *done;
  if (!r.count("file")) return report_error("init needs a CUDA, HIP or Triton file: swizzleperf init FILE.cu|FILE.hip|FILE.py [--kernel NAME] [-o OUT]");

  const fs::path input = r["file"].as<std::string>();
  const std::string shown = one_line(input.string(), 200);
  std::error_code ec;
  const auto st = fs::status(input, ec);
  if (!fs::exists(st)) return report_error(shown + " does not exist");
  if (fs::is_directory(st)) return report_error(shown + " is a directory, not a CUDA, HIP or Triton file");
  const bool triton = language_of(input) == RegionLanguage::python;
  if (!triton)
    if (auto name_ok = check_init_input_name(input); !name_ok) return report_error(name_ok.error().message);
  if (!fs::is_regular_file(st)) return report_error(shown + " is not a regular file");
  if (const auto size = fs::file_size(input, ec); !ec && size > kMaxKernelFileBytes)
    return report_error(shown + " is " + with_thousands(size) + " bytes; the limit is " + with_thousands(kMaxKernelFileBytes) +
                        " (a kernel file is tens of KB)");

  fs::path output = r.count("output") ? fs::path(r["output"].as<std::string>()) : default_init_output(input);
  const std::string out_shown = one_line(output.string(), 200);
  if (output.empty()) return report_error("-o needs the path of the program to write");
  if (auto lang = check_init_output_name(input, output); !lang) return report_error(lang.error().message);
  if (same_file(input, output))
    return report_error("-o " + out_shown + " is the input file: init never writes over its input; pass another -o");
  if (fs::is_directory(output, ec))
    return report_error("-o " + out_shown + " is a directory: give the path of the program to write (e.g. " +
                        one_line((output / default_init_output(input).filename()).string(), 200) + ")");
  if (fs::exists(fs::symlink_status(output, ec))) return report_error(exists_message(out_shown));

  auto text = read_file(input);
  if (!text) return report_error(text.error().message);
  std::optional<std::string> kernel;
  if (r.count("kernel")) kernel = r["kernel"].as<std::string>();
  auto made = triton ? make_triton_program(*text, input, kernel, output, triton_support_dir())
                     : make_contract_program(*text, input, kernel, output);
  if (!made) return report_error(made.error().message);
  auto written = write_file_if_absent(output, made->text);
  if (!written) return report_error(written.error().message);
  if (!*written) return report_error(exists_message(out_shown));

  for (const auto& w : made->warnings) std::fprintf(stderr, "swizzleperf: warning: %s:%s\n", shown.c_str(), w.c_str());
  // The next command as one a shell takes: a path with spaces is quoted.
  if (triton) {
    std::printf("wrote %s (Triton kernel %s, %zu swizzleperf:TODO to fill in); next: edit it, then swizzleperf check --strict %s\n",
                out_shown.c_str(), one_line(made->kernel, 80).c_str(), made->todo_count, shell_quote(one_line(output.string())).c_str());
    return kExitOk;
  }
  std::printf("wrote %s (kernel %s, %d-D grid, %zu swizzleperf:TODO to fill in); next: edit it, then swizzleperf check --strict %s\n",
              out_shown.c_str(), one_line(made->kernel, 80).c_str(), made->grid_dims, made->todo_count,
              shell_quote(one_line(output.string())).c_str());
  return kExitOk;
}

}  // namespace swz::cli
