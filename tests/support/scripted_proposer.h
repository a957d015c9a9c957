// ScriptedProposer: a Proposer that plays a script, one step per propose() call,
// then is exhausted. Steps: a proposal, a failure (fatal or not), or any function
// of the context (e.g. one that presses Ctrl-C). With FakeBackend and a
// ScriptedRunner it drives the optimize loop in-process with no compiler.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "swizzleperf/proposer/proposer.h"

namespace swz::test {

class ScriptedProposer final : public Proposer {
 public:
  using Step = std::function<Result<Proposal>(const ProposalContext&)>;

  ScriptedProposer& propose(std::string label, std::string region);
  ScriptedProposer& fail(std::string message, bool fatal = false);
  // Proposes, and sets the Ctrl-C flag as it returns (the loop sees it at once).
  ScriptedProposer& propose_then_interrupt(std::string label, std::string region);
  ScriptedProposer& step(Step s);

  std::string name() const override { return "scripted"; }
  Result<Proposal> propose(const ProposalContext& context) override;
  // The next k plain proposals of the script (the loop builds them ahead).
  std::vector<Proposal> lookahead(const ProposalContext& context, int k) override;
  int asked() const { return asked_; }
  // The iterations the loop asked for, in order.
  const std::vector<int>& iterations() const { return iterations_; }

 private:
  std::vector<Step> steps_;
  std::vector<std::optional<Proposal>> previews_;  // per step: its proposal, when it is a plain one
  std::size_t next_ = 0;
  int asked_ = 0;
  std::vector<int> iterations_;
};

// Sets the process's Ctrl-C flag as a real SIGINT would (installs the handler).
void press_ctrl_c();

}  // namespace swz::test
