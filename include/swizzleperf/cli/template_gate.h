// TemplateGate: whether a templated program may replace the one it was made from. At its
// default values it must build with the program's backend, pass the program's own `verify`,
// and give the same full-size output, digest for digest (loop/output_check, exact: a template
// at its defaults is the same program). Both the deterministic proposal and an LLM's template
// pass this gate before `swizzleperf template` writes anything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/util/result.h"

namespace swz::cli {

struct TemplateGateRequest {
  std::filesystem::path original;                // the program as written, built where it is
  std::string template_text;                     // the templated program
  std::map<std::string, std::int64_t> defaults;  // the template's own point: the build's defines
  std::filesystem::path work_dir;                // scratch: builds, outputs (the caller removes it)
  int num_dies = 1;
  std::string arch;
};

struct TemplateVerdict {
  bool accepted = false;
  std::string reason;  // one line when rejected
  std::string digest;  // the original's output digest (hash mode), when recorded
};

// The verdict on the template; an Error when the original itself does not build, verify or
// give an output (nothing to compare with: the user's program or machine needs fixing).
Result<TemplateVerdict> gate_template(Backend& backend, const TemplateGateRequest& request);

}  // namespace swz::cli
