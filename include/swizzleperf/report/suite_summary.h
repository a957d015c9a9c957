// A suite's summary files: suite-summary.md, .csv and .json and its report.html
// written from the rows, and read back (a rerun continues, shards are merged).
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/report/suite.h"
#include "swizzleperf/util/result.h"

namespace swz {

// Writes suite-summary.md, .csv and .json into dir, creating it; an Error names the
// system's reason when dir cannot be made ("cannot create DIR: Read-only file system").
Status write_suite_summary(const std::filesystem::path& dir, const std::vector<SuiteRow>& rows,
                           const nlohmann::json& meta);
// Reads suite-summary.json from each dir (shards) and returns all rows, in kernel order.
// With agreed_meta: the run facts (device, objective, iterations, proposer) that every
// summary agrees on go there; a fact they disagree on is left out. Summaries (or rows)
// of different objectives are an Error naming both dirs: "best" means one thing a table.
Result<std::vector<SuiteRow>> merge_suite_summaries(const std::vector<std::filesystem::path>& dirs,
                                                    nlohmann::json* agreed_meta = nullptr);

}  // namespace swz
