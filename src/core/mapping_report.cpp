// The mapping check's report and its JSON (contract: core/mapping_report.h).
#include "swizzleperf/core/mapping_report.h"

#include <fmt/format.h>

#include "swizzleperf/util/json_field.h"

namespace swz {

std::string MappingReport::summary() const {
  if (!region_error.empty()) return "swizzle region rejected: " + region_error;
  if (!compile_error.empty()) return "the region does not compile on the host: " + compile_error;
  for (const auto& g : grids) {
    if (!g.error.empty()) return fmt::format("evaluating grid {}x{} failed: {}", g.grid.m, g.grid.n, g.error);
    if (!g.bijective) {
      std::string s = fmt::format("NOT a bijection on grid {}x{} ({} pids):", g.grid.m, g.grid.n, g.grid.num_pids());
      if (g.collisions) s += fmt::format(" {} collisions, colliding pids {}", g.collisions, fmt::join(g.colliding_pids, ","));
      if (g.missing) s += fmt::format("; {} tiles never computed, e.g. {}", g.missing, fmt::join(g.missing_tiles, ","));
      if (g.out_of_range) s += fmt::format("; {} pids map outside [0,{}), e.g. pids {}", g.out_of_range, g.grid.num_pids(), fmt::join(g.out_of_range_pids, ","));
      return s;
    }
  }
  if (grids.empty()) return "no grid checked";
  const auto& g = grids.front();
  return fmt::format("bijection on {} grid(s); on {}x{}: row neighbours on one die {:.1f}%, column neighbours {:.1f}% ({} dies, dispatch {})",
                     grids.size(), g.grid.m, g.grid.n, 100 * g.row_neighbours_same_die,
                     100 * g.col_neighbours_same_die, num_dies, dispatch_source);
}

void to_json(nlohmann::json& j, const GridCheck& g) {
  j = nlohmann::json{{"grid", {{"m", g.grid.m}, {"n", g.grid.n}}}, {"num_pids", g.grid.num_pids()},
                     {"bijective", g.bijective}, {"collisions", g.collisions}, {"missing", g.missing},
                     {"out_of_range", g.out_of_range}, {"colliding_pids", g.colliding_pids},
                     {"missing_tiles", g.missing_tiles}, {"out_of_range_pids", g.out_of_range_pids},
                     {"tiles_per_die", g.tiles_per_die}, {"rows_per_die", g.rows_per_die},
                     {"cols_per_die", g.cols_per_die},
                     {"row_neighbours_same_die", g.row_neighbours_same_die},
                     {"col_neighbours_same_die", g.col_neighbours_same_die}};
  if (!g.error.empty()) j["error"] = g.error;
}

void to_json(nlohmann::json& j, const MappingReport& r) {
  j = nlohmann::json{{"ok", r.ok}, {"summary", r.summary()}, {"num_dies", r.num_dies},
                     {"dispatch_source", r.dispatch_source}, {"grids", r.grids}};
  if (!r.compile_error.empty()) j["compile_error"] = r.compile_error;
  if (!r.region_error.empty()) j["region_error"] = r.region_error;
}

namespace {

unsigned unsigned_of(const nlohmann::json& x) {
  if (x.is_number_unsigned() && x.get<std::uint64_t>() <= 0xffffffffu) return static_cast<unsigned>(x.get<std::uint64_t>());
  if (x.is_number_integer() && x.get<std::int64_t>() >= 0 && x.get<std::int64_t>() <= 0xffffffffll)
    return static_cast<unsigned>(x.get<std::int64_t>());
  return 0;
}

std::vector<unsigned> unsigned_list(const nlohmann::json& j, const char* key) {
  std::vector<unsigned> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& x : j[key]) out.push_back(unsigned_of(x));
  return out;
}

std::uint64_t total_of(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) return 0;
  const auto& x = j[key];
  if (x.is_number_unsigned()) return x.get<std::uint64_t>();
  if (x.is_number_integer() && x.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(x.get<std::int64_t>());
  return 0;
}

double fraction_of(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

std::string string_of(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

void from_json(const nlohmann::json& j, GridCheck& g) {
  g = GridCheck{};
  if (!j.is_object()) return;
  if (j.contains("grid") && j["grid"].is_object()) {
    const auto& grid = j["grid"];
    g.grid.m = grid.contains("m") ? unsigned_of(grid["m"]) : 0;
    g.grid.n = grid.contains("n") ? unsigned_of(grid["n"]) : 0;
  }
  g.bijective = j.contains("bijective") && j["bijective"].is_boolean() && j["bijective"].get<bool>();
  g.error = string_of(j, "error");
  g.colliding_pids = unsigned_list(j, "colliding_pids");
  g.missing_tiles = unsigned_list(j, "missing_tiles");
  g.out_of_range_pids = unsigned_list(j, "out_of_range_pids");
  g.collisions = total_of(j, "collisions");
  g.missing = total_of(j, "missing");
  g.out_of_range = total_of(j, "out_of_range");
  g.tiles_per_die = unsigned_list(j, "tiles_per_die");
  g.rows_per_die = unsigned_list(j, "rows_per_die");
  g.cols_per_die = unsigned_list(j, "cols_per_die");
  g.row_neighbours_same_die = fraction_of(j, "row_neighbours_same_die");
  g.col_neighbours_same_die = fraction_of(j, "col_neighbours_same_die");
}

void from_json(const nlohmann::json& j, MappingReport& r) {
  r = MappingReport{};
  if (!j.is_object()) return;
  r.ok = j.contains("ok") && j["ok"].is_boolean() && j["ok"].get<bool>();
  r.compile_error = string_of(j, "compile_error");
  r.region_error = string_of(j, "region_error");
  r.dispatch_source = string_of(j, "dispatch_source");
  r.num_dies = j.contains("num_dies") ? int_value_or(j["num_dies"], 1) : 1;
  if (j.contains("grids") && j["grids"].is_array())
    for (const auto& g : j["grids"]) r.grids.push_back(g.get<GridCheck>());
}

}  // namespace swz
