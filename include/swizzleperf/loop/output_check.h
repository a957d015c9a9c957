// OutputCheck: the optimize loop's full-size output comparison ("compare" stage),
// done without writing candidate outputs to disk.
//
// The baseline attempt records a reference once per run:
//   dump_tol == 0  `prog hash --chunks baseline/chunks.txt`: a 64-bit digest of the
//                  output bytes computed on the device, plus one digest per chunk;
//   dump_tol  > 0  `prog dump baseline/output.bin` (the only full dump of a run);
//   a program without hash mode (exit 2 on `hash`) falls back to dump + host compare.
// Each candidate then runs `prog hash` (digest must equal the baseline's) or
// `prog compare baseline/output.bin --tol T` (device-side, same rule as
// compare_outputs). On a mismatch the candidate is rejected and `prog dump` runs once
// so the user can see where; the reason names the first differing chunk (hash) or
// value (compare) and the kept file. A candidate that differs anywhere is rejected.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/attempt_parts.h"

namespace swz {

struct OutputCheckResult {
  enum class Kind { ok, mismatch, run_failed };
  Kind kind = Kind::ok;
  std::string reason;  // one line when kind != ok
};

class OutputCheck {
 public:
  // size_args: {"--size", "a,b,.."} or empty; dump_tol: the program's info value.
  OutputCheck(Backend& backend, std::vector<std::string> size_args, double dump_tol);

  // Records the baseline's reference in dir (the baseline's attempt dir) and
  // describes it in validation.output_check (mode, hash, bytes, chunk_bytes, file).
  OutputCheckResult record_baseline(const std::filesystem::path& exe, const std::filesystem::path& dir,
                                    ValidationRecord& validation);
  // Compares a candidate with the baseline's `reference` (absent: a history written
  // with dumps, before hash mode: dump + host compare). Writes validation.full_size_output.
  OutputCheckResult check_candidate(const std::filesystem::path& exe, const std::filesystem::path& dir,
                                    const std::filesystem::path& baseline_dir,
                                    const std::optional<OutputReference>& reference, ValidationRecord& validation);

  // For the program's evaluate mode (verify + output check + time in one process):
  // the output-check options that match the baseline's reference, {"--chunks",
  // dir/chunks.txt} (hash) or {"--baseline", FILE, "--tol", T} (compare); nullopt
  // for a plain-dump reference, which evaluate cannot check.
  std::optional<std::vector<std::string>> evaluate_args(const std::filesystem::path& dir,
                                                        const std::filesystem::path& baseline_dir,
                                                        const std::optional<OutputReference>& reference) const;
  // Judges the output part of an evaluate line (its "hash" or "compare" object, or
  // the program's error line when the compare itself failed with exit 1) by the same
  // rules as check_candidate, including the dump kept on a mismatch.
  OutputCheckResult judge_evaluated(const nlohmann::json& part, bool exited_1, const std::filesystem::path& exe,
                                    const std::filesystem::path& dir, const std::filesystem::path& baseline_dir,
                                    const std::optional<OutputReference>& reference, ValidationRecord& validation);

 private:
  OutputCheckResult judge_hash(const nlohmann::json& line, const std::filesystem::path& exe,
                               const std::filesystem::path& dir, const std::filesystem::path& baseline_dir,
                               const OutputReference& ref, ValidationRecord& validation);
  OutputCheckResult judge_compare(const nlohmann::json& line, bool exited_1, const std::filesystem::path& exe,
                                  const std::filesystem::path& dir, ValidationRecord& validation);
  OutputCheckResult mismatch(const std::filesystem::path& exe, const std::filesystem::path& dir,
                             const std::string& what, ValidationRecord& validation);
  ProgramRun run(const std::filesystem::path& exe, std::vector<std::string> args);
  OutputCheckResult run_failed(const char* mode, const ProgramRun& r);
  // Runs dump into dir/output.bin after a mismatch; returns " (candidate output kept in PATH)"
  // or " (dump failed: ...)".
  std::string keep_dump(const std::filesystem::path& exe, const std::filesystem::path& dir);

  Backend& backend_;
  std::vector<std::string> size_args_;
  double dump_tol_;
};

// The harness's output digest computed on the host (same algorithm as
// kernels/support/swz_harness.h's device kernel): per-chunk digests and the total
// as 16 hex digits. For tests and for checking a dump against a recorded hash.
struct HostDigest {
  std::string hash;
  std::vector<std::uint64_t> chunks;
};
HostDigest digest_bytes(const std::string& bytes, std::uint64_t chunk_bytes);

// Reads a chunks file (one 16-hex digest per line).
Result<std::vector<std::uint64_t>> read_chunk_digests(const std::filesystem::path& path);

// Index of the first differing chunk (a chunk present in one list only counts as
// differing); nullopt when the lists are equal.
std::optional<std::size_t> first_differing_chunk(const std::vector<std::uint64_t>& a,
                                                 const std::vector<std::uint64_t>& b);

// Byte-exact comparison, or float32 comparison within a relative tolerance when tol > 0.
// Returns an empty string when equal, else a one-line description of the difference.
std::string compare_outputs(const std::filesystem::path& a, const std::filesystem::path& b, double tol);

}  // namespace swz
