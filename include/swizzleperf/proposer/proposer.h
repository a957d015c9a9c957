// Proposer: the one interface for producing the next swizzle region. The
// built-in proposer instantiates parametric remap families from the hardware
// profile; the LLM proposer asks a model over an OpenAI-compatible API. Both
// see the same context: the kernel, the hardware, and the full history.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/model/locality_predictor.h"
#include "swizzleperf/core/candidate.h"
#include "swizzleperf/core/hardware.h"
#include "swizzleperf/core/history.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/util/result.h"

namespace swz {

struct ProposalContext {
  const KernelSource& kernel;
  // The program's tile grid at the run's size: the grid of a candidate without defines
  // (a candidate carries its own, Candidate::grid, which the loop checks it on).
  TileGrid grid;
  const HardwareProfile& hardware;
  const RunHistory& history;          // baseline + every earlier attempt
  std::filesystem::path attempt_dir;  // prompts/replies may be saved here
  std::filesystem::path run_dir;      // per-run caches (e.g. the memory analysis)
  int iteration = 1;
  // The locality model for this program (null: none): the built-in proposer ranks its
  // candidates by it.
  const LocalityPredictor* predictor = nullptr;
};

// A candidate (core/candidate.h: region, label, family/parameter, defines) with the
// proposer's account of it; the loop records the account in the attempt's
// ProposalRecord and tries the candidate.
struct Proposal : Candidate {
  std::string reasoning;
  nlohmann::json critique = nlohmann::json::array();  // one entry per earlier attempt
  std::string rationale;
  nlohmann::json meta = nlohmann::json::object();     // the LLM's model, token usage, latency
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string name() const = 0;  // "builtin" | "llm"
  // An Error is recorded as a failed attempt and the loop goes on, unless
  // Error::fatal (e.g. the API key was refused), which stops the run cleanly.
  // An Error of kind exhausted (exhausted_error()) means nothing new is left.
  virtual Result<Proposal> propose(const ProposalContext& context) = 0;
  // What the last propose() that failed cost, for its attempt record (the LLM
  // proposer: usage and latency per call, {"calls": [...]}), kept in the attempt's
  // ProposalRecord::account. Default: nothing.
  virtual nlohmann::json failure_meta() const { return nlohmann::json::object(); }
  // Called once before a run spends GPU time: can this proposer propose at all (the
  // LLM's endpoint answers)? An Error stops the run with one line (exit 2).
  virtual Status check_ready() { return ok_status(); }
  // The proposals propose(context) is likely to return now and next, in order, at most
  // k (the loop builds them ahead of time, before it asks propose()). A hint only: the
  // loop still asks propose() for each, and a wrong guess costs only an unused build.
  // Default: none.
  virtual std::vector<Proposal> lookahead(const ProposalContext& context, int k) {
    (void)context;
    (void)k;
    return {};
  }
};

}  // namespace swz
