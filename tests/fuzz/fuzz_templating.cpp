// libFuzzer target: a kernel program's text (user input) through the templating proposal
// (tune/templating) in both languages, and the same text as an untrusted template (an LLM's
// reply) of a small program. Contract: an error is one line; a proposal holds at most
// kMaxTunables tunables within kMaxTunePoints points, each value among its sorted unique
// values; its text parses as a tune space that declares each proposed tunable at its value;
// with nothing proposed the text is the input. Inputs up to 1 MB (.ci/fuzz passes -max_len).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "swizzleperf/tune/templating.h"

namespace {

void check_line(const std::string& s) {
  if (s.empty() || s.find('\n') != std::string::npos) std::abort();
}

void check_proposal(std::string_view text, swz::RegionLanguage language) {
  auto p = swz::propose_template(text, language, "fuzz");
  if (!p) {
    check_line(p.error().message);
    return;
  }
  if (p->tunables.size() > swz::kMaxTunables) std::abort();
  if (p->tunables.empty() && p->text != text) std::abort();
  for (const auto& s : p->skipped) check_line(s.why);
  if (p->tunables.empty()) return;
  auto space = swz::parse_tune_space(p->text, language, "fuzz");
  if (!space || space->size() > swz::kMaxTunePoints) std::abort();
  const auto own = space->bind(space->own_point());
  for (const auto& t : p->tunables) {
    if (!std::is_sorted(t.values.begin(), t.values.end()) || !std::binary_search(t.values.begin(), t.values.end(), t.value))
      std::abort();
    auto it = own.find(t.tunable);
    if (it == own.end() || it->second != t.value) std::abort();
  }
}

const char* const kFuzzTplOriginal =
    "#define BLOCK_M 128\n// swizzleperf:begin\nSWZ_HD unsigned swizzle_pid(unsigned p, unsigned n, SwizzleGrid g) { return p; }\n"
    "// swizzleperf:end\n__global__ void k(float* c) {}\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_proposal(text, swz::RegionLanguage::cpp);
  check_proposal(text, swz::RegionLanguage::python);
  auto reply = swz::check_template_reply(kFuzzTplOriginal, text, swz::RegionLanguage::cpp, "reply");
  if (!reply) check_line(reply.error().message);
  else if (reply->empty()) std::abort();
  return 0;
}
