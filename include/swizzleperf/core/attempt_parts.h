// The typed parts of an attempt record (core/history's Attempt), one per stage of
// the attempt pipeline (loop/attempt_pipeline.h): what the proposer said of the
// candidate, the host mapping check, the build, the validation (verify, output
// comparison) and the locality model's prediction. The re-check's record is
// core/judge_record.h's, the profile's core/metrics.h's.
//
// Only core/history serialises them, under the JSON keys history.json has always
// had; reading one and writing it again gives the same JSON. Two parts are another
// program's words kept as it wrote them (their JSON text), because the tool reads
// only one fact of each and their shape belongs to the program: the kernel program's
// verify line and evaluate timings (docs/kernel-contract.md: the C++ and Python
// harnesses differ in their case fields), and the proposer's own account beyond the
// fields the tool reads (the LLM's critique entries, model, token usage and latency
// per call), so an LLM's usage survives a resume.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swizzleperf/core/mapping_report.h"
#include "swizzleperf/core/tile_map.h"

namespace swz {

// What the proposer said of the candidate (the "proposal" key).
struct ProposalRecord {
  std::string family;                   // the built-in family ("" : not a built-in order)
  std::optional<int> param;             // its parameter
  std::optional<std::string> reasoning;  // absent: the proposer gave none (a failed proposal)
  std::optional<std::string> rationale;
  // Every other key the proposer wrote (critique, LLM model/usage/calls/latency...):
  // key -> its JSON text, written back unchanged; the tool never reads them.
  std::map<std::string, std::string> account;

  bool empty() const { return family.empty() && !param && !reasoning && !rationale && account.empty(); }
};

void to_json(nlohmann::json& j, const ProposalRecord& p);
void from_json(const nlohmann::json& j, ProposalRecord& p);

// The host mapping check's report, with the main grid's mapping hash and the picture
// report.html draws (both only for a bijective mapping).
struct MappingRecord {
  MappingReport report;
  std::string mapping_hash;             // content hash of the pid -> tile table ("" : not bijective)
  std::optional<TileMap> tile_map;
};

void to_json(nlohmann::json& j, const MappingRecord& m);
void from_json(const nlohmann::json& j, MappingRecord& m);

struct BuildRecord {
  bool ok = false;
  double seconds = 0;
  std::string log_excerpt;              // the log's last lines
  std::optional<bool> prefetched;       // a candidate's: built ahead by the pool (the baseline: absent)
};

void to_json(nlohmann::json& j, const BuildRecord& b);
void from_json(const nlohmann::json& j, BuildRecord& b);

// The baseline's output reference (loop/output_check): how candidates are compared.
struct OutputReference {
  std::string mode;                     // hash | compare | dump ("" : dump, a record without it)
  std::string hash;                     // hash: the output's digest
  std::uint64_t bytes = 0;
  std::uint64_t chunk_bytes = 0;        // hash: the chunk size of the per-chunk digests
  std::string chunks_file;              // hash: the baseline's chunk digests
  std::string file;                     // compare | dump: the baseline's output file

  std::string mode_or_dump() const { return mode.empty() ? "dump" : mode; }
};

void to_json(nlohmann::json& j, const OutputReference& r);
void from_json(const nlohmann::json& j, OutputReference& r);

struct ValidationRecord {
  std::optional<std::string> verify_line;  // the program's verify line (its JSON text)
  std::optional<OutputReference> output_check;  // the baseline's reference
  std::optional<std::string> output_hash;       // a candidate's digest (hash mode)
  std::optional<std::string> full_size_output;  // a candidate's comparison, one line
  std::optional<std::string> evaluate_seconds;  // evaluate mode's per-part seconds (its JSON text)
};

void to_json(nlohmann::json& j, const ValidationRecord& v);
void from_json(const nlohmann::json& j, ValidationRecord& v);

// The locality model's prediction for an order, in short (model/prediction.h makes it).
struct PredictionSummary {
  double l2_hit_pct = 0;                // rounded to 0.01
  std::uint64_t dram_read_bytes = 0;
  std::uint64_t dram_write_bytes = 0;
  std::uint64_t cross_die_bytes = 0;
  std::vector<double> die_l2_hit_pct;   // per die, rounded to 0.01
  std::uint64_t launches_simulated = 0;
};

void to_json(nlohmann::json& j, const PredictionSummary& p);
void from_json(const nlohmann::json& j, PredictionSummary& p);

}  // namespace swz
