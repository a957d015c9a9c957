// Finalists: which screened candidates the speed judge re-times (loop/speed_judge).
//
// The search times every candidate once (its one-shot timing, a burst: cheap and
// noisy, a few per cent from run to run). The judge's tournament is what names a
// winner, and its cost grows with its members, so only a few go: PyTorch Inductor's
// "screen many, re-time the top few". Under --objective time and l2, the fastest
// one-shot times (count - 1 of them) and the best L2 hit rate (measured where the
// candidate was profiled, else the locality model's prediction, else the candidate has
// none and the rule passes it by: --profile winner profiles no candidate), then the next
// fastest up to `count`; under energy, the lowest one-shot energy ratios. A candidate
// more than kFinalistSlack slower than the baseline in its one-shot timing is not
// sent: the judge would only confirm the loss. Under l2 the L2-best always goes (its
// verdict, faster or slower, is what the report must state). gate sends its one
// candidate whatever its one-shot time (RunConfig::recheck_every_candidate).
#pragma once

#include <vector>

#include "swizzleperf/core/history.h"

namespace swz {

inline constexpr double kFinalistSlack = 0.03;

// Indices into h.attempts, in the order the judge lists them (best screened first).
std::vector<std::size_t> select_finalists(const RunHistory& h, int count);

// Undoes an earlier judge's verdict on `a` (a resumed run judges again over every
// attempt): the one-shot speedup and energy ratio back (set_one_shot, from the two
// timings), no interval, no record.
void clear_verdict(Attempt& a, const Attempt* baseline);

}  // namespace swz
