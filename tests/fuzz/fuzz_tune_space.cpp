// libFuzzer target: a kernel program's text (user input, or an LLM's template) through the
// tunables scanner (tune/tune_space) in both languages, and its rules (tune/int_expr).
// Contract: an error is one line; a parsed space holds at most kMaxTunables tunables, each
// with sorted unique values (at most kMaxTunableValues) that include its own value, at most
// kMaxTunePoints points, and its own configuration passes its restrictions; enumerating a
// small space keeps only points that point_excluded lets in. Each line is also parsed as an
// expression: an accepted one evaluates to a value or a one-line error. Inputs up to 1 MB
// (.ci/fuzz passes -max_len).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "swizzleperf/tune/tune_space.h"

namespace {

void check_one_line(const std::string& s) {
  if (s.empty() || s.find('\n') != std::string::npos) std::abort();
}

void check_space(std::string_view text, swz::RegionLanguage language) {
  auto space = swz::parse_tune_space(text, language, "fuzz");
  if (!space) {
    check_one_line(space.error().message);
    return;
  }
  if (space->tunables.size() > swz::kMaxTunables || space->size() > swz::kMaxTunePoints) std::abort();
  for (const auto& t : space->tunables) {
    if (t.values.empty() || t.values.size() > swz::kMaxTunableValues) std::abort();
    if (!std::is_sorted(t.values.begin(), t.values.end()) ||
        std::adjacent_find(t.values.begin(), t.values.end()) != t.values.end())
      std::abort();
    if (!std::binary_search(t.values.begin(), t.values.end(), t.value)) std::abort();
  }
  const swz::TuneLimits none{};
  if (!space->empty() && !swz::point_excluded(*space, space->own_point(), none).empty()) std::abort();
  if (space->size() <= 4096) {
    const swz::TuneLimits h100{232448, 1024, 32};
    const auto e = swz::enumerate_points(*space, h100);
    if (e.points.size() + e.excluded != space->size()) std::abort();
    for (const auto& p : e.points)
      if (!swz::point_excluded(*space, p, h100).empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_space(text, swz::RegionLanguage::cpp);
  check_space(text, swz::RegionLanguage::python);
  // The first few lines as expressions, with a name bound.
  std::size_t at = 0;
  for (int i = 0; i < 8 && at < text.size(); ++i) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    auto e = swz::IntExpr::parse(text.substr(at, nl - at));
    if (e) {
      auto v = e->eval({{"BLOCK_M", 128}, {"K", 0}});
      if (!v) check_one_line(v.error().message);
    } else {
      check_one_line(e.error().message);
    }
    at = nl + 1;
  }
  return 0;
}
