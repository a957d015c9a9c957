// Reply parser; see reply_parser.h for the contract.
#include "swizzleperf/llm/reply_parser.h"
#include "swizzleperf/util/text.h"

#include <algorithm>
#include <vector>

#include "swizzleperf/core/kernel_source.h"

namespace swz {

namespace {

struct Fence {
  std::string info;  // the word after the opening ```, lower-cased
  std::string body;
  std::size_t begin = 0, end = 0;  // span of the whole fence in the text
};

// Markdown fenced blocks, in order. An unterminated fence runs to the end, since
// a model cut short still tends to have written the useful part.
std::vector<Fence> find_fences(std::string_view text) {
  std::vector<Fence> fences;
  std::size_t pos = 0;
  while ((pos = text.find("```", pos)) != std::string_view::npos) {
    std::size_t info_end = text.find('\n', pos + 3);
    if (info_end == std::string_view::npos) break;
    Fence f;
    f.begin = pos;
    f.info = to_lower(trim(text.substr(pos + 3, info_end - pos - 3)));
    if (auto sp = f.info.find_first_of(" \t{"); sp != std::string::npos) f.info.resize(sp);
    std::size_t close = text.find("```", info_end + 1);
    if (close == std::string_view::npos) {
      f.body = std::string(text.substr(info_end + 1));
      f.end = text.size();
      fences.push_back(std::move(f));
      break;
    }
    f.body = std::string(text.substr(info_end + 1, close - info_end - 1));
    f.end = close + 3;
    fences.push_back(std::move(f));
    pos = close + 3;
  }
  return fences;
}

bool is_marker_line(const std::string& line) {
  std::string t = trim(line);
  return t.rfind("// swizzleperf:begin", 0) == 0 || t.rfind("// swizzleperf:end", 0) == 0 ||
         t.rfind("# swizzleperf:begin", 0) == 0 || t.rfind("# swizzleperf:end", 0) == 0;
}

// Models often wrap the code string in a fence or echo the marker lines they
// were shown; neither belongs in the region.
std::string clean_code(std::string code) {
  std::string out;
  out.reserve(code.size());
  for (char c : code)
    if (c != '\r') out += c;
  std::string t = trim(out);
  if (t.rfind("```", 0) == 0) {
    auto fences = find_fences(t);
    if (!fences.empty()) t = fences.front().body;
  }
  std::string result;
  std::size_t start = 0;
  while (start <= t.size()) {
    std::size_t nl = t.find('\n', start);
    std::string line = t.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!is_marker_line(line)) result += line + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  // Leading and trailing blank lines only; indentation inside is the model's.
  while (!result.empty() && (result.front() == '\n')) result.erase(result.begin());
  while (result.size() >= 2 && result[result.size() - 1] == '\n' && result[result.size() - 2] == '\n')
    result.pop_back();
  if (trim(result).empty()) return {};
  return result;
}

Result<ParsedReply> finish(ParsedReply reply, RegionLanguage language) {
  reply.code = clean_code(reply.code);
  if (reply.code.empty()) return make_error("reply has empty code");
  if (auto st = validate_region(reply.code, language); !st)
    return make_error("reply code rejected: " + st.error().message);
  return reply;
}

Result<ParsedReply> from_object(const nlohmann::json& j, bool lenient, std::string extracted_from,
                                RegionLanguage language) {
  static const char* kFields[] = {"reasoning", "critique", "rationale", "code"};
  std::vector<std::string> missing;
  for (const char* f : kFields) {
    if (j.contains(f) && !j[f].is_null()) continue;
    // Asked for in prose rather than enforced by a schema, only the code is essential.
    if (lenient && std::string(f) != "code") continue;
    missing.push_back(f);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    return make_error("reply is missing field(s): " + list);
  }
  ParsedReply r;
  r.extracted_from = std::move(extracted_from);
  for (const char* f : {"reasoning", "rationale", "code"}) {
    if (!j.contains(f) || j[f].is_null()) continue;
    if (!j[f].is_string()) return make_error(std::string("reply field '") + f + "' must be a string");
  }
  if (j.contains("reasoning") && j["reasoning"].is_string()) r.reasoning = j["reasoning"];
  if (j.contains("rationale") && j["rationale"].is_string()) r.rationale = j["rationale"];
  r.code = j["code"].get<std::string>();
  if (j.contains("critique") && !j["critique"].is_null()) {
    if (!j["critique"].is_array()) return make_error("reply field 'critique' must be an array");
    for (const auto& entry : j["critique"])
      if (!entry.is_object()) return make_error("reply field 'critique' must hold objects");
    r.critique = j["critique"];
  }
  return finish(std::move(r), language);
}

bool is_code_fence(const std::string& info) {
  static const char* kInfos[] = {"", "cpp", "c++", "cxx", "c", "hip", "cuda", "cu"};
  return std::find(std::begin(kInfos), std::end(kInfos), info) != std::end(kInfos);
}

}  // namespace

std::string find_json_object_with_code(std::string_view text) {
  for (std::size_t start = text.find('{'); start != std::string_view::npos;
       start = text.find('{', start + 1)) {
    int depth = 0;
    bool in_string = false, escaped = false;
    std::size_t end = std::string_view::npos;
    for (std::size_t i = start; i < text.size(); ++i) {
      char c = text[i];
      if (in_string) {
        if (escaped) escaped = false;
        else if (c == '\\') escaped = true;
        else if (c == '"') in_string = false;
        continue;
      }
      if (c == '"') in_string = true;
      else if (c == '{') ++depth;
      else if (c == '}' && --depth == 0) {
        end = i;
        break;
      }
    }
    if (end == std::string_view::npos) continue;
    auto j = nlohmann::json::parse(text.substr(start, end - start + 1), nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("code")) return std::string(text.substr(start, end - start + 1));
  }
  return {};
}

Result<ParsedReply> parse_reply_content(std::string_view content, bool lenient, RegionLanguage language) {
  const std::string text = trim(content);
  if (text.empty()) return make_error("malformed reply: the content is empty");

  auto whole = nlohmann::json::parse(text, nullptr, false);
  if (!whole.is_discarded()) {
    if (!whole.is_object()) return make_error("malformed reply: JSON but not an object");
    return from_object(whole, lenient, "json", language);
  }
  if (!lenient) {
    std::string why;
    try {
      [[maybe_unused]] auto j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      // Not only parse_error: a number too large for a double ('1e999') is an
      // out_of_range (406). Found by fuzz_reply in CI.
      why = e.what();
    }
    return make_error("malformed reply: not valid JSON (" + one_line(why, 120) + ")");
  }

  const auto fences = find_fences(text);
  for (const auto& f : fences) {
    if (f.info != "json" && !f.info.empty()) continue;
    auto j = nlohmann::json::parse(f.body, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("code"))
      return from_object(j, lenient, "json-fence", language);
  }
  if (std::string obj = find_json_object_with_code(text); !obj.empty())
    return from_object(nlohmann::json::parse(obj), lenient, "json-in-prose", language);

  for (const auto& f : fences) {
    if (!is_code_fence(f.info) || f.body.find("swizzle_pid") == std::string::npos) continue;
    ParsedReply r;
    r.extracted_from = "code-fence";
    r.code = f.body;
    r.reasoning = trim(text.substr(0, f.begin) + "\n" + text.substr(f.end));
    return finish(std::move(r), language);
  }
  return make_error(
      "malformed reply: no JSON object with \"code\" and no ```cpp block defining swizzle_pid");
}

Result<ParsedReply> parse_reply(const ChatReply& reply, bool lenient, RegionLanguage language) {
  if (reply.refusal)
    return make_error("the model refused: " + one_line(*reply.refusal, 200));
  if (reply.finish_reason == "content_filter")
    return make_error("the reply was blocked by the server's content filter");
  if (reply.finish_reason == "length")
    return make_error("reply truncated (finish_reason=length after " +
                      std::to_string(reply.usage.completion_tokens) +
                      " completion tokens): raise --max-tokens");
  return parse_reply_content(reply.content, lenient, language);
}

}  // namespace swz
