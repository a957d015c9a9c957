// Asking an LLM for a program's template: the prompt (the program, the device's limits per
// block from tune/tune_limits and the deterministic proposal of tune/templating), and the
// program read out of the reply. The reply is untrusted: `swizzleperf template` passes it through
// check_template_reply and the build-and-compare gate (cli/template_gate) before using it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/llm/chat_client.h"
#include "swizzleperf/tune/templating.h"

namespace swz::cli {

struct TemplateAsk {
  std::string file_name;       // the program's file name, for the prompt
  std::string text;            // the program
  RegionLanguage language = RegionLanguage::cpp;
  HardwareProfile hw;
  TemplateProposal proposal;   // the deterministic proposal
};

std::vector<ChatMessage> template_messages(const TemplateAsk& ask);

// The program in a reply: the longest fenced code block (```lang ... ```), else the whole
// reply, without leading blank lines.
std::string program_in_reply(std::string_view content);

// One chat request; the templated program, or the client's error (or "the model's reply is
// empty" / its refusal).
Result<std::string> ask_for_template(ChatClient& client, const TemplateAsk& ask);

}  // namespace swz::cli
