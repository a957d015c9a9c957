// TemplateGate (see the header): two builds, two verifies and one output comparison, each
// step's failure one line. The template is written into the scratch directory under the
// original's file name, so that a backend that names the program after its file sees the
// same name.
#include "swizzleperf/cli/template_gate.h"

#include "swizzleperf/core/attempt_parts.h"
#include "swizzleperf/loop/output_check.h"
#include "swizzleperf/util/file_io.h"

namespace swz::cli {

namespace {

namespace fs = std::filesystem;

TemplateVerdict gate_rejected(std::string why) { return {false, std::move(why), {}}; }

}  // namespace

Result<TemplateVerdict> gate_template(Backend& backend, const TemplateGateRequest& request) {
  const fs::path orig_dir = request.work_dir / "original", tmpl_dir = request.work_dir / "template";
  for (const auto& d : {orig_dir, tmpl_dir})
    if (auto st = make_directories(d); !st) return st.error();
  const fs::path tmpl_source = tmpl_dir / request.original.filename();
  if (auto st = write_file_atomic(tmpl_source, request.template_text); !st) return st.error();
  const std::string stem = request.original.stem().string();
  const fs::path orig_exe = orig_dir / stem, tmpl_exe = tmpl_dir / stem;

  auto built = backend.build({request.original, orig_exe, request.num_dies, request.arch});
  if (!built) return built.error();
  if (!built->ok) return make_error(request.original.string() + " does not build: " + built->failure);
  BuildRequest tb{tmpl_source, tmpl_exe, request.num_dies, request.arch};
  tb.defines = request.defaults;
  auto tbuilt = backend.build(tb);
  if (!tbuilt) return tbuilt.error();
  if (!tbuilt->ok) return gate_rejected("at its defaults the template does not build: " + tbuilt->failure);

  const auto timeout = backend.tools().run_timeout;
  const ProgramRun ov = backend.run_program(orig_exe, {"verify"}, timeout);
  if (!ov.process.success()) return make_error(request.original.string() + " fails its own verify: " + ov.failure("verify"));
  const ProgramRun tv = backend.run_program(tmpl_exe, {"verify"}, timeout);
  if (!tv.process.success()) return gate_rejected("at its defaults the template fails verify: " + tv.failure("verify"));

  // Exact comparison (tolerance 0): the same program must give the same bytes.
  OutputCheck check(backend, {}, 0.0);
  ValidationRecord base, cand;
  const auto b = check.record_baseline(orig_exe, orig_dir, base);
  if (b.kind != OutputCheckResult::Kind::ok) return make_error(request.original.string() + "'s output: " + b.reason);
  const auto c = check.check_candidate(tmpl_exe, tmpl_dir, orig_dir, base.output_check, cand);
  if (c.kind == OutputCheckResult::Kind::mismatch)
    return gate_rejected("at its defaults the template's full-size output differs from the original's: " + c.reason);
  if (c.kind != OutputCheckResult::Kind::ok) return gate_rejected("at its defaults the template's output: " + c.reason);
  TemplateVerdict v;
  v.accepted = true;
  if (base.output_check) v.digest = base.output_check->hash;
  return v;
}

}  // namespace swz::cli
