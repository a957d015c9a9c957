// `swizzleperf template FILE [-o OUT] [--force] [--llm]`: proposes the template parameters of a
// plain kernel program (tune/templating) or, with --llm, asks the configured model for the
// template (cli/template_llm), and writes it only after the gate (cli/template_gate): at its
// default values it builds and gives the original's output. Exit 0: written; 1: nothing to
// template, or the template was rejected (one line saying why); 2: bad input or environment.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "swizzleperf/backend/backend_factory.h"
#include "swizzleperf/backend/cuda_backend.h"
#include "swizzleperf/backend/hip_backend.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/proposer_factory.h"
#include "swizzleperf/cli/template_gate.h"
#include "swizzleperf/cli/template_llm.h"
#include "swizzleperf/tune/templating.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/text.h"

namespace swz::cli {

namespace {

namespace fs = std::filesystem;

// FILE with `.tuned` before its extension: gemm.hip -> gemm.tuned.hip.
fs::path default_template_output(const fs::path& input) {
  return input.parent_path() / (input.stem().string() + ".tuned" + input.extension().string());
}

bool same_path(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  return fs::weakly_canonical(fs::absolute(a, ec), ec) == fs::weakly_canonical(fs::absolute(b, ec), ec);
}

// A rejection or an empty result: the one error line, exit 1 (the user acts on it).
int template_failed(const std::string& message) {
  std::fprintf(stderr, "swizzleperf: error: %s\n", message.c_str());
  return kExitFailed;
}

// The LLM settings are rows of the settings table that optimize takes; template declares the
// same rows (their help and default), read by the rows' own checks.
void add_llm_rows(cxxopts::Options& o) {
  for (const auto& row : settings_table())
    if (std::string(row.group_for(kOptimize)) == "LLM" && std::string(row.key) != "context")
      o.add_options("LLM")(row.key, row.help_for(kOptimize), cxxopts::value<std::string>()->default_value(row.default_for(kOptimize)));
}

std::string read_llm_rows(const cxxopts::ParseResult& r, RunConfig& c) {
  for (const auto& row : settings_table())
    if (std::string(row.group_for(kOptimize)) == "LLM" && std::string(row.key) != "context")
      if (auto st = row.set(c, r[row.key].as<std::string>(), kOptimize); !st) return st.error().message;
  return "";
}

// A scratch directory under the system's temp directory, removed with the object.
struct ScratchDir {
  fs::path path;
  ScratchDir() : path(make_temp_dir("swizzleperf-template")) {}
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

void print_proposal(const std::string& shown, const TemplateProposal& p) {
  if (p.tunables.empty()) std::printf("%s: no constant that sizes tiles, blocks, warps or stages found\n", shown.c_str());
  else std::printf("%s: %zu constant(s) to tune\n", shown.c_str(), p.tunables.size());
  for (const auto& t : p.tunables) {
    std::string values;
    for (auto v : t.values) values += (values.empty() ? "" : " ") + std::to_string(v);
    std::printf("  %-16s %6lld  line %d (%s, %s)  -> %s%s\n", t.tunable.c_str(), static_cast<long long>(t.value), t.line,
                constant_form_name(t.form), t.role.c_str(), values.c_str(),
                t.tunable == t.name ? "" : ("  [" + t.name + "]").c_str());
  }
  if (!p.tunables.empty())
    std::printf("  shared-bytes rule: %s\n", p.shared_bytes ? p.shared_bytes->c_str() : "none (not told from the source)");
  for (const auto& s : p.skipped) std::printf("  left alone: %s (line %d): %s\n", s.name.c_str(), s.line, s.why.c_str());
}

}  // namespace

int cmd_template(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf template",
                     "Propose the template parameters of a kernel program: the integer constants that size its tiles, "
                     "blocks, warps and stages become declared tunables (swizzleperf:tunable) with ranges around their "
                     "values; with --llm the configured model proposes the template. Written only when, at its default "
                     "values, it builds and gives the original's output (verify, then the full-size output digest).");
  o.positional_help("FILE");
  o.add_options()("file", "the kernel program (.hip, .cu or .py)", cxxopts::value<std::string>())
      ("o,output", "the template to write (default: FILE with .tuned before its extension)", cxxopts::value<std::string>())
      ("force", "replace an existing output (never the input)")
      ("llm", "ask the configured LLM for the template (the LLM options; the proposal below is its starting point)")
      ("h,help", "show this help");
  add_setting_options(o, kBuild, "");
  add_llm_rows(o);
  o.parse_positional({"file"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "template", {"", "Backend", "LLM"}, r)) return *done;
  if (!r.count("file")) return report_error("template needs a kernel program: swizzleperf template FILE [-o OUT] [--llm]");

  const fs::path input = r["file"].as<std::string>();
  const std::string shown = one_line(input.string(), 200);
  std::error_code ec;
  if (!fs::is_regular_file(input, ec)) return report_error(shown + (fs::exists(input, ec) ? " is not a regular file" : " does not exist"));
  const fs::path output = r.count("output") ? fs::path(r["output"].as<std::string>()) : default_template_output(input);
  const std::string out_shown = one_line(output.string(), 200);
  if (output.empty()) return report_error("-o needs the path of the template to write");
  if (same_path(input, output)) return report_error("-o " + out_shown + " is the input: template never writes over its input");
  if (fs::is_directory(output, ec)) return report_error("-o " + out_shown + " is a directory: give the path of the template to write");
  const bool force = r.count("force") > 0;
  if (!force && fs::exists(fs::symlink_status(output, ec)))
    return report_error(out_shown + " exists: pass --force to replace it, or -o OTHER");

  RunConfig settings;
  if (const auto e = read_settings(r, kBuild, settings); !e.empty()) return report_error(e);
  if (const auto e = read_llm_rows(r, settings); !e.empty()) return report_error(e);
  auto text = read_file(input);
  if (!text) return report_error(text.error().message);
  if (text->size() > kMaxKernelFileBytes)
    return report_error(shown + " is " + with_thousands(text->size()) + " bytes; the limit is " + with_thousands(kMaxKernelFileBytes));
  const RegionLanguage language = language_of(input);
  auto proposal = propose_template(*text, language, shown);
  if (!proposal) return report_error(proposal.error().message);
  print_proposal(shown, *proposal);

  std::string candidate = proposal->text;
  const bool llm = r.count("llm") > 0;
  if (!llm && proposal->tunables.empty()) return template_failed("nothing to template in " + shown);

  // The backend first: a machine that cannot build the program is told so before an LLM call.
  auto which = backend_for_kernel(settings.backend, input);
  if (!which) return report_error(which.error().message);
  RealProcessRunner runner;
  if (*which == "auto") {
    RunConfig as_cuda = settings;
    as_cuda.backend = "cuda";
    CudaBackend probe_cuda(runner, tool_options_for(r, as_cuda));
    *which = probe_cuda.preflight(false) ? "cuda" : "hip";
  }
  settings.backend = *which;
  ToolOptions tools = tool_options_for(r, settings);
  // The template builds from a scratch directory: the program's own includes stay in reach.
  if (language == RegionLanguage::cpp) tools.extra_flags.push_back("-I" + fs::absolute(input, ec).parent_path().string());
  auto backend = make_backend(*which, runner, tools);
  if (!backend) return report_error(backend.error().message);
  if (auto st = (*backend)->preflight(false); !st) return report_error(st.error().message);
  std::string arch = tools.arch;
  if (arch.empty()) arch = *which == "hip" ? HipBackend::kDefaultArch : (nvidia_gpu_present() ? "" : "sm_90");
  auto hw = profile_from_arch(arch.empty() ? "sm_90" : arch);
  const int dies = hw ? hw->num_dies : 1;

  if (llm) {
    ChatClient client(llm_options_of(settings.llm));
    if (auto st = client.check_endpoint(); !st) return report_error(st.error().message);
    TemplateAsk ask{input.filename().string(), *text, language, hw ? *hw : HardwareProfile{}, *proposal};
    auto reply = ask_for_template(client, ask);
    if (!reply) return report_error("the LLM: " + reply.error().message);
    auto checked = check_template_reply(*text, *reply, language, "the model's template");
    if (!checked) return template_failed("the model's template is rejected: " + checked.error().message);
    candidate = std::move(*reply);
    std::printf("the model's template: %s\n", checked->describe(checked->own_point()).c_str());
  }

  auto space = parse_tune_space(candidate, language, out_shown);
  if (!space) return report_error(space.error().message);  // checked above: never
  ScratchDir scratch;
  if (scratch.path.empty()) return report_error("cannot make a scratch directory under the system's temp directory");
  TemplateGateRequest req{input, candidate, space->bind(space->own_point()), scratch.path, dies, arch};
  auto verdict = gate_template(**backend, req);
  if (!verdict) return report_error(verdict.error().message);
  if (!verdict->accepted) return template_failed((llm ? "the model's template is rejected: " : "the template is rejected: ") + verdict->reason);

  if (force) {
    if (auto st = write_file_atomic(output, candidate); !st) return report_error(st.error().message);
  } else {
    auto written = write_file_if_absent(output, candidate);
    if (!written) return report_error(written.error().message);
    if (!*written) return report_error(out_shown + " exists: pass --force to replace it, or -o OTHER");
  }
  std::printf("wrote %s: %zu tunable(s), %s points (%s); at its defaults it builds, verifies and gives the original's "
              "output%s\n",
              out_shown.c_str(), space->tunables.size(), with_thousands(space->size()).c_str(),
              space->describe(space->own_point()).c_str(),
              verdict->digest.empty() ? "" : (" (digest " + verdict->digest + ")").c_str());
  return kExitOk;
}

}  // namespace swz::cli
