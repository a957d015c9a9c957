// libFuzzer target: history.json bytes (a file on disk that --resume, sweep and the
// reports trust) through parse_history, the function load_history uses. Contract: a
// RunHistory or a one-line refusal; a parsed history serializes and parses again
// to the same attempts, and best() is one of its validated attempts.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/history.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto h = swz::parse_history(text);
  if (!h) {
    if (h.error().message.empty()) std::abort();
    return 0;
  }
  if (const auto* best = h->best(); best && !best->validated()) std::abort();
  (void)h->next_iteration();
  // What was read is written back the same way the loop saves it.
  const std::string again = nlohmann::json(*h).dump(2);
  auto h2 = swz::parse_history(again);
  if (!h2 || h2->attempts.size() != h->attempts.size()) std::abort();
  for (std::size_t i = 0; i < h->attempts.size(); ++i)
    if (h2->attempts[i].iteration != h->attempts[i].iteration || h2->attempts[i].status != h->attempts[i].status ||
        h2->attempts[i].region != h->attempts[i].region)
      std::abort();
  return 0;
}
