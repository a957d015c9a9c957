// Reply parser: turns the model's answer to the optimize call into its four
// parts — reasoning, a critique of each earlier attempt, the rationale, and the
// new region's code. Strict: the content is the JSON object of
// prompts/reply_schema.json. Lenient (the server refused structured output):
// the JSON may sit in a ```json fence or among prose, and a lone ```cpp block
// holding swizzle_pid is accepted as the code. Every failure is a one-line Error
// (truncated, refused, malformed, a field missing, code without swizzle_pid).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "swizzleperf/util/result.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/llm/chat_client.h"

namespace swz {

struct ParsedReply {
  std::string reasoning;
  nlohmann::json critique = nlohmann::json::array();  // [{attempt, what_it_did, why_it_fell_short}]
  std::string rationale;
  std::string code;            // the region, ending in '\n', validated by validate_region
  std::string extracted_from;  // "json" | "json-fence" | "json-in-prose" | "code-fence"
};

// Checks finish_reason and refusal first, then parses reply.content.
// language: the program's, for the region's own checks (a Triton program's region is Python).
Result<ParsedReply> parse_reply(const ChatReply& reply, bool lenient, RegionLanguage language = RegionLanguage::cpp);

// Parses content alone (no finish_reason / refusal checks).
Result<ParsedReply> parse_reply_content(std::string_view content, bool lenient,
                                        RegionLanguage language = RegionLanguage::cpp);

// The first balanced {...} in text (string literals respected) that parses as a
// JSON object holding "code"; empty when none.
std::string find_json_object_with_code(std::string_view text);

}  // namespace swz
