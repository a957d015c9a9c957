// An attempt's typed parts (core/attempt_parts): each reads back to the JSON it was
// written as, keeps what the tool does not read as it was written, and reads a
// wrongly typed field as its default.
#include "swizzleperf/core/attempt_parts.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

// Keys the tool does not know in a proposer's account (an LLM's usage, a future
// proposer's words) are kept as written; the fields it reads are typed.
TEST(AttemptParts, AProposersUnknownKeysSurvive) {
  const nlohmann::json proposal = {{"family", "grouped_m"}, {"param", 8}, {"reasoning", "r"}, {"rationale", "q"},
                                   {"critique", nlohmann::json::array({{{"attempt", 1}, {"what_it_did", "x"}}})},
                                   {"usage", {{"prompt_tokens", 10}}}, {"latency_s", 1.25}, {"param_note", nullptr}};
  const ProposalRecord r = proposal.get<ProposalRecord>();
  EXPECT_EQ(r.family, "grouped_m");
  EXPECT_EQ(r.param, 8);
  EXPECT_EQ(r.account.count("usage"), 1u);
  EXPECT_EQ(nlohmann::json(r), proposal);
  // A known key of another type is kept as written too, and not read as the field.
  const nlohmann::json odd = {{"family", 3}, {"param", 1.5}, {"reasoning", nullptr}};
  const ProposalRecord o = odd.get<ProposalRecord>();
  EXPECT_TRUE(o.family.empty());
  EXPECT_FALSE(o.param.has_value());
  EXPECT_FALSE(o.reasoning.has_value());
  EXPECT_EQ(nlohmann::json(o), odd);
  // A failed proposal's record: the LLM's calls only, no words.
  const nlohmann::json failed = {{"calls", nlohmann::json::array({{{"latency_s", 2.5}}})}};
  EXPECT_EQ(nlohmann::json(failed.get<ProposalRecord>()), failed);
  EXPECT_TRUE(ProposalRecord{}.empty());
}

TEST(AttemptParts, TheOutputReferenceByMode) {
  OutputReference hash;
  hash.mode = "hash";
  hash.hash = "0a0f522f30652d7f";
  hash.bytes = 32768;
  hash.chunk_bytes = 256;
  hash.chunks_file = "run/baseline/chunks.txt";
  const nlohmann::json h = hash;
  EXPECT_FALSE(h.contains("file"));
  EXPECT_EQ(nlohmann::json(h.get<OutputReference>()), h);
  OutputReference dump;
  dump.mode = "compare";
  dump.bytes = 1024;
  dump.file = "run/baseline/output.bin";
  const nlohmann::json d = dump;
  EXPECT_FALSE(d.contains("hash"));
  EXPECT_EQ(nlohmann::json(d.get<OutputReference>()), d);
  EXPECT_EQ(OutputReference{}.mode_or_dump(), "dump");
  const OutputReference odd = nlohmann::json{{"mode", 1}, {"bytes", -5}, {"chunk_bytes", 1e300}}.get<OutputReference>();
  EXPECT_EQ(odd.bytes, 0u);
  EXPECT_EQ(odd.chunk_bytes, 0u);
}

// The kernel program's own lines are kept as it wrote them (integers stay integers).
TEST(AttemptParts, TheValidationKeepsTheProgramsLinesAsWritten) {
  const nlohmann::json v = {
      {"verify", {{"mode", "verify"}, {"ok", true}, {"seed", 1}, {"cases", {{{"size", {4, 6, 8}}, {"max_abs_err", 1.5e-05}}}}}},
      {"evaluate_seconds", {{"check", 0}, {"time", 0.25}, {"verify", 0}}},
      {"output_hash", "0a0f522f30652d7f"},
      {"full_size_output", "matches the baseline (digest 0a0f522f30652d7f)"}};
  const ValidationRecord r = v.get<ValidationRecord>();
  ASSERT_TRUE(r.verify_line.has_value());
  EXPECT_FALSE(r.output_check.has_value());
  EXPECT_EQ(nlohmann::json(r), v);
  EXPECT_EQ(nlohmann::json(ValidationRecord{}), nlohmann::json::object());
}

TEST(AttemptParts, MappingBuildAndPrediction) {
  MappingRecord m;
  m.report.ok = true;
  m.report.num_dies = 2;
  m.report.dispatch_source = "round_robin [documented]";
  GridCheck g;
  g.grid = {4, 6};
  g.bijective = true;
  g.tiles_per_die = {12, 12};
  g.row_neighbours_same_die = 0.5;
  m.report.grids.push_back(g);
  m.mapping_hash = "fnv1a64:0011223344556677";
  m.tile_map = TileMap{};
  m.tile_map->grid_m = 4;
  const nlohmann::json mj = m;
  EXPECT_NE(mj.value("summary", "").find("bijection on 1 grid(s)"), std::string::npos) << mj.dump();
  const MappingRecord back = mj.get<MappingRecord>();
  EXPECT_EQ(nlohmann::json(back), mj);
  ASSERT_TRUE(back.tile_map.has_value());
  // An unreadable map reads as none (report.html says so); the report stays.
  nlohmann::json bad = mj;
  bad["tile_map"]["die"] = {1e300};
  EXPECT_FALSE(bad.get<MappingRecord>().tile_map.has_value());
  EXPECT_EQ(bad.get<MappingRecord>().mapping_hash, m.mapping_hash);

  const nlohmann::json baseline_build = {{"ok", true}, {"seconds", 0.5}, {"log_excerpt", ""}};
  EXPECT_EQ(nlohmann::json(baseline_build.get<BuildRecord>()), baseline_build) << "the baseline's has no prefetched";
  const BuildRecord b{true, 0.25, "warning: x\n", true};
  EXPECT_EQ(nlohmann::json(b).get<BuildRecord>().prefetched, true);

  const PredictionSummary p{97.35, 172556288, 537329664, 556924928, {96.47, 98.12}, 1};
  const nlohmann::json pj = p;
  EXPECT_EQ(pj["l2_hit_pct"], 97.35);
  EXPECT_EQ(nlohmann::json(pj.get<PredictionSummary>()), pj);
}

}  // namespace
}  // namespace swz
