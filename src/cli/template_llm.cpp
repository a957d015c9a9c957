// The templating prompt and reply (see the header). The prompt states the grammar the reply
// must follow, so a reply that ignores it fails parse_tune_space with a line saying why.
#include "swizzleperf/cli/template_llm.h"

#include <fmt/format.h>

#include "swizzleperf/tune/tune_limits.h"
#include "swizzleperf/util/text.h"

namespace swz::cli {

std::vector<ChatMessage> template_messages(const TemplateAsk& ask) {
  const bool py = ask.language == RegionLanguage::python;
  const TuneLimits limits = tune_limits_of(ask.hw);
  std::string system =
      "You turn a GPU kernel program into a template for an autotuner. Declare the integer constants that size its "
      "tiles, blocks, warps and pipeline stages as tunables, each with a small range of sensible values around the "
      "program's own value, and restrictions between them where the kernel needs them. Change nothing else: the "
      "program at its default values must build and give exactly the original's output.\n";
  system += py ? "A tunable is a module-level constant: `BLOCK_M = 128  # swizzleperf:tunable 64 128 256`.\n"
               : "A tunable is a guarded build define:\n#ifndef BLOCK_M\n#define BLOCK_M 128  // swizzleperf:tunable 64 128 256\n#endif\n";
  system += fmt::format(
      "Its written value is the program's own and must be among the listed values (or `pow2 A..B`). Rules are comment "
      "lines over the tunables' names: `{0} swizzleperf:restrict BLOCK_K % 16 == 0`, `{0} swizzleperf:shared-bytes "
      "EXPR` (bytes of shared memory per block), `{0} swizzleperf:threads EXPR` (threads per block). Keep the lines "
      "`{0} swizzleperf:begin` .. `{0} swizzleperf:end` and everything between them as they are. Answer with the whole "
      "program in one fenced code block and nothing else.",
      py ? "#" : "//");
  std::string user = fmt::format("The device: {}{}\nPer block it allows {} bytes of shared memory and {} threads; a warp is {} threads.\n\n",
                                 ask.hw.name.empty() ? "" : ask.hw.name + ", ", ask.hw.arch, limits.shared_bytes_per_block,
                                 limits.threads_per_block, limits.warp_size);
  if (ask.proposal.tunables.empty()) {
    user += "A scan by name found no constant to tune.\n";
  } else {
    user += "A scan by name proposes:\n";
    for (const auto& t : ask.proposal.tunables) {
      std::string values;
      for (auto v : t.values) values += (values.empty() ? "" : " ") + std::to_string(v);
      user += fmt::format("- {} = {} ({}, line {}): {} as {}\n", t.name, t.value, t.role, t.line, values, t.tunable);
    }
    if (ask.proposal.shared_bytes) user += "- shared memory per block: " + *ask.proposal.shared_bytes + "\n";
  }
  for (const auto& s : ask.proposal.skipped) user += fmt::format("- left alone: {} (line {}): {}\n", s.name, s.line, s.why);
  user += fmt::format("\nImprove on it where the kernel shows more (a constant the scan missed, a restriction the code "
                      "needs, the shared memory it uses). The program, {}:\n```{}\n{}\n```\n",
                      ask.file_name, py ? "python" : "cpp", ask.text);
  return {{"system", system}, {"user", user}};
}

std::string program_in_reply(std::string_view content) {
  std::string_view best;
  bool found = false;
  for (std::size_t at = content.find("```"); at != std::string_view::npos;) {
    const std::size_t body = content.find('\n', at + 3);
    if (body == std::string_view::npos) break;
    std::size_t close = content.find("\n```", body);
    const std::size_t end = close == std::string_view::npos ? content.size() : close + 1;
    if (!found || end - (body + 1) > best.size()) best = content.substr(body + 1, end - (body + 1));
    found = true;
    if (close == std::string_view::npos) break;
    at = content.find("```", close + 4);
  }
  std::string_view s = found ? best : content;
  while (!s.empty() && (s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  return std::string(s);
}

Result<std::string> ask_for_template(ChatClient& client, const TemplateAsk& ask) {
  ChatRequest req;
  req.messages = template_messages(ask);
  auto reply = client.complete(req);
  if (!reply) return reply.error();
  if (reply->refusal) return make_error("the model refused: " + one_line(*reply->refusal, 200));
  std::string program = program_in_reply(reply->content);
  if (trim(program).empty()) return make_error("the model's reply holds no program");
  return program;
}

}  // namespace swz::cli
