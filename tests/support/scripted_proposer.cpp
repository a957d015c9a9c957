#include "support/scripted_proposer.h"

#include <csignal>

#include "swizzleperf/util/process.h"

namespace swz::test {

ScriptedProposer& ScriptedProposer::step(Step s) {
  steps_.push_back(std::move(s));
  previews_.emplace_back();
  return *this;
}

ScriptedProposer& ScriptedProposer::propose(std::string label, std::string region) {
  Proposal p;
  p.label = std::move(label);
  p.region = std::move(region);
  p.rationale = "scripted";
  step([p](const ProposalContext&) -> Result<Proposal> { return p; });
  previews_.back() = p;
  return *this;
}

std::vector<Proposal> ScriptedProposer::lookahead(const ProposalContext&, int k) {
  std::vector<Proposal> out;
  for (std::size_t i = next_; i < previews_.size() && static_cast<int>(out.size()) < k && previews_[i]; ++i)
    out.push_back(*previews_[i]);
  return out;
}

ScriptedProposer& ScriptedProposer::fail(std::string message, bool fatal) {
  return step([message = std::move(message), fatal](const ProposalContext&) -> Result<Proposal> {
    return Error{message, fatal};
  });
}

ScriptedProposer& ScriptedProposer::propose_then_interrupt(std::string label, std::string region) {
  return step([label = std::move(label), region = std::move(region)](const ProposalContext&) -> Result<Proposal> {
    Proposal p;
    p.label = label;
    p.region = region;
    press_ctrl_c();
    return p;
  });
}

Result<Proposal> ScriptedProposer::propose(const ProposalContext& context) {
  ++asked_;
  iterations_.push_back(context.iteration);
  if (next_ >= steps_.size()) return exhausted_error("the script has no step left");
  return steps_[next_++](context);
}

void press_ctrl_c() {
  install_interrupt_handler();
  std::raise(SIGINT);
}

}  // namespace swz::test
