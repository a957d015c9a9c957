// libFuzzer target: the LLM's reply (untrusted model output) through the reply
// parser, strict and lenient, and with each finish_reason the client can report.
// Contract: a ParsedReply whose code passed validate_region, or a one-line Error.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/llm/reply_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool lenient : {false, true}) {
    auto r = swz::parse_reply_content(text, lenient);
    if (r) {
      if (!swz::validate_region(r->code)) std::abort();  // accepted code is a valid region
      if (r->code.empty() || r->code.back() != '\n') std::abort();
    } else if (r.error().message.empty()) {
      std::abort();
    }
  }
  swz::ChatReply reply;
  reply.content = std::string(text);
  reply.finish_reason = size % 3 == 0 ? "stop" : size % 3 == 1 ? "length" : "content_filter";
  if (size % 5 == 0) reply.refusal = std::string(text.substr(0, size / 2));
  (void)swz::parse_reply(reply, /*lenient=*/true);
  (void)swz::find_json_object_with_code(text);
  return 0;
}
