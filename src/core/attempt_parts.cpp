// The attempt's typed parts and their JSON (contract: core/attempt_parts.h).
// Reading is lenient (a history is text a user may edit, and fuzz_history feeds it
// anything): a missing or wrongly typed field keeps its default, never throws for
// its type and never converts an out-of-range number.
#include "swizzleperf/core/attempt_parts.h"

#include "swizzleperf/util/json_field.h"

namespace swz {

namespace {

std::optional<std::string> text_at(const nlohmann::json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
  return std::nullopt;
}

std::uint64_t count_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return 0;
  const auto& x = j[key];
  if (x.is_number_unsigned()) return x.get<std::uint64_t>();
  if (x.is_number_integer() && x.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(x.get<std::int64_t>());
  return 0;
}

double number_at(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

bool flag_at(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

// Another program's words, kept as their JSON text; parsed back when written (a text
// that is not JSON, which only a caller outside core/history could make, is written as null).
nlohmann::json parsed(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::json() : j;
}

}  // namespace

void to_json(nlohmann::json& j, const ProposalRecord& p) {
  j = nlohmann::json::object();
  for (const auto& [key, text] : p.account) j[key] = parsed(text);
  if (!p.family.empty()) j["family"] = p.family;
  if (p.param) j["param"] = *p.param;
  if (p.reasoning) j["reasoning"] = *p.reasoning;
  if (p.rationale) j["rationale"] = *p.rationale;
}

void from_json(const nlohmann::json& j, ProposalRecord& p) {
  p = ProposalRecord{};
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    if (key == "family" && value.is_string()) {
      p.family = value.get<std::string>();
    } else if (key == "param" && value.is_number_integer() && int_value_or(value, 0) == int_value_or(value, 1)) {
      p.param = int_value_or(value, 0);
    } else if (key == "reasoning" && value.is_string()) {
      p.reasoning = value.get<std::string>();
    } else if (key == "rationale" && value.is_string()) {
      p.rationale = value.get<std::string>();
    } else {
      p.account[key] = value.dump();  // kept as written (a wrongly typed known key too)
    }
  }
  // An empty family reads back as none: keep its key as written.
  if (p.family.empty() && j.contains("family") && j["family"].is_string()) p.account["family"] = j["family"].dump();
}

void to_json(nlohmann::json& j, const MappingRecord& m) {
  j = m.report;
  if (!m.mapping_hash.empty()) j["mapping_hash"] = m.mapping_hash;
  if (m.tile_map) j["tile_map"] = *m.tile_map;
}

void from_json(const nlohmann::json& j, MappingRecord& m) {
  m = MappingRecord{};
  m.report = j.get<MappingReport>();
  m.mapping_hash = text_at(j, "mapping_hash").value_or("");
  if (j.is_object() && j.contains("tile_map")) {
    try {
      m.tile_map = j["tile_map"].get<TileMap>();
    } catch (const nlohmann::json::exception&) {
      m.tile_map.reset();  // unreadable: report.html says so instead of drawing it
    }
  }
}

void to_json(nlohmann::json& j, const BuildRecord& b) {
  j = {{"ok", b.ok}, {"seconds", b.seconds}, {"log_excerpt", b.log_excerpt}};
  if (b.prefetched) j["prefetched"] = *b.prefetched;
}

void from_json(const nlohmann::json& j, BuildRecord& b) {
  b = BuildRecord{};
  b.ok = flag_at(j, "ok");
  b.seconds = number_at(j, "seconds");
  b.log_excerpt = text_at(j, "log_excerpt").value_or("");
  if (j.is_object() && j.contains("prefetched") && j["prefetched"].is_boolean()) b.prefetched = j["prefetched"].get<bool>();
}

void to_json(nlohmann::json& j, const OutputReference& r) {
  j = nlohmann::json::object();
  if (!r.mode.empty()) j["mode"] = r.mode;
  j["bytes"] = r.bytes;
  if (r.mode == "hash") {
    j["hash"] = r.hash;
    j["chunk_bytes"] = r.chunk_bytes;
    j["chunks_file"] = r.chunks_file;
  } else {
    j["file"] = r.file;
  }
}

void from_json(const nlohmann::json& j, OutputReference& r) {
  r = OutputReference{};
  r.mode = text_at(j, "mode").value_or("");
  r.hash = text_at(j, "hash").value_or("");
  r.bytes = count_at(j, "bytes");
  r.chunk_bytes = count_at(j, "chunk_bytes");
  r.chunks_file = text_at(j, "chunks_file").value_or("");
  r.file = text_at(j, "file").value_or("");
}

void to_json(nlohmann::json& j, const ValidationRecord& v) {
  j = nlohmann::json::object();
  if (v.verify_line) j["verify"] = parsed(*v.verify_line);
  if (v.output_check) j["output_check"] = *v.output_check;
  if (v.output_hash) j["output_hash"] = *v.output_hash;
  if (v.full_size_output) j["full_size_output"] = *v.full_size_output;
  if (v.evaluate_seconds) j["evaluate_seconds"] = parsed(*v.evaluate_seconds);
}

void from_json(const nlohmann::json& j, ValidationRecord& v) {
  v = ValidationRecord{};
  if (!j.is_object()) return;
  if (j.contains("verify")) v.verify_line = j["verify"].dump();
  if (j.contains("output_check") && j["output_check"].is_object()) v.output_check = j["output_check"].get<OutputReference>();
  v.output_hash = text_at(j, "output_hash");
  v.full_size_output = text_at(j, "full_size_output");
  if (j.contains("evaluate_seconds")) v.evaluate_seconds = j["evaluate_seconds"].dump();
}

void to_json(nlohmann::json& j, const PredictionSummary& p) {
  j = {{"l2_hit_pct", p.l2_hit_pct},
       {"dram_read_bytes", p.dram_read_bytes},
       {"dram_write_bytes", p.dram_write_bytes},
       {"cross_die_bytes", p.cross_die_bytes},
       {"die_l2_hit_pct", p.die_l2_hit_pct},
       {"launches_simulated", p.launches_simulated}};
}

void from_json(const nlohmann::json& j, PredictionSummary& p) {
  p = PredictionSummary{};
  p.l2_hit_pct = number_at(j, "l2_hit_pct");
  p.dram_read_bytes = count_at(j, "dram_read_bytes");
  p.dram_write_bytes = count_at(j, "dram_write_bytes");
  p.cross_die_bytes = count_at(j, "cross_die_bytes");
  if (j.is_object() && j.contains("die_l2_hit_pct") && j["die_l2_hit_pct"].is_array())
    for (const auto& x : j["die_l2_hit_pct"]) p.die_l2_hit_pct.push_back(x.is_number() ? x.get<double>() : 0.0);
  p.launches_simulated = count_at(j, "launches_simulated");
}

}  // namespace swz
