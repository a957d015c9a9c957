// One pass over the pids: each pid's die and position accumulate into its cell.
#include "swizzleperf/core/tile_map.h"

#include "swizzleperf/util/json_field.h"

#include <algorithm>
#include <cmath>

namespace swz {

void to_json(nlohmann::json& j, const TileMap& t) {
  j = {{"grid", {t.grid_m, t.grid_n}}, {"view", {t.view_m, t.view_n}}, {"cells", {t.rows, t.cols}},
       {"num_dies", t.num_dies}, {"die", t.die}, {"purity", t.purity}, {"order", t.order}};
  if (!t.pid.empty()) j["pid"] = t.pid;
}

namespace {
// A dimension from a history file (text a user may edit): an integer from 0 to
// 2^31. A float is never converted (1e300 as unsigned is undefined behaviour).
unsigned dimension(const nlohmann::json& v) {
  if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > (1ll << 31))
    throw nlohmann::json::other_error::create(501, "tile_map dimensions must be integers from 0 to 2^31", &v);
  return static_cast<unsigned>(v.get<long long>());
}
}  // namespace

void from_json(const nlohmann::json& j, TileMap& t) {
  t.grid_m = dimension(j.at("grid").at(0));
  t.grid_n = dimension(j.at("grid").at(1));
  t.view_m = dimension(j.at("view").at(0));
  t.view_n = dimension(j.at("view").at(1));
  t.rows = dimension(j.at("cells").at(0));
  t.cols = dimension(j.at("cells").at(1));
  // Integers only: history.json reads it on load, and a float is never converted
  // (1e300 as int is undefined behaviour; fuzz_history feeds such files).
  const auto ints = [&](const char* key) {
    const auto& a = j.at(key);
    if (!a.is_array()) throw nlohmann::json::type_error::create(302, std::string("tile_map ") + key + " must be an array", &a);
    std::vector<int> out;
    for (const auto& x : a) {
      if (!x.is_number_integer() || int_value_or(x, 0) != int_value_or(x, 1))
        throw nlohmann::json::type_error::create(302, std::string("tile_map ") + key + " must hold int integers", &x);
      out.push_back(int_value_or(x, 0));
    }
    return out;
  };
  t.num_dies = int_or(j, "num_dies", 1);
  t.die = ints("die");
  t.purity = ints("purity");
  t.order = ints("order");
  t.pid.clear();
  if (j.contains("pid")) {
    if (!j["pid"].is_array()) throw nlohmann::json::type_error::create(302, "tile_map pid must be an array", &j);
    for (const auto& x : j["pid"]) {
      if (!x.is_number_integer()) throw nlohmann::json::type_error::create(302, "tile_map pid must hold integers", &x);
      t.pid.push_back(x.get<std::int64_t>());
    }
  }
  const std::size_t cells = static_cast<std::size_t>(t.rows) * t.cols;
  if (t.die.size() != cells || t.purity.size() != cells || t.order.size() != cells || (!t.pid.empty() && t.pid.size() != cells))
    throw nlohmann::json::other_error::create(501, "tile_map arrays do not match its cell count", &j);
}

TileMap make_tile_map(TileGrid grid, const std::vector<std::uint32_t>& pid_to_tile, const HardwareProfile& hw,
                      unsigned max_side) {
  TileMap t;
  t.grid_m = grid.m;
  t.grid_n = grid.n;
  t.num_dies = std::max(1, hw.num_dies);
  max_side = std::max(1u, max_side);
  const std::uint64_t np = static_cast<std::uint64_t>(grid.m) * grid.n;
  if (np == 0) return t;
  t.view_m = grid.m;
  t.view_n = grid.n;
  if ((grid.m == 1 || grid.n == 1) && np > max_side) {  // wrap a long 1-D grid into rows
    t.view_n = static_cast<unsigned>(std::ceil(std::sqrt(static_cast<double>(np))));
    t.view_m = static_cast<unsigned>((np + t.view_n - 1) / t.view_n);
  }
  t.rows = std::min(t.view_m, max_side);
  t.cols = std::min(t.view_n, max_side);
  const std::size_t cells = static_cast<std::size_t>(t.rows) * t.cols;
  std::vector<std::uint32_t> count(cells * t.num_dies, 0);
  std::vector<double> pid_sum(cells, 0);
  std::vector<std::uint32_t> tiles(cells, 0);
  const bool one_per_cell = t.rows == t.view_m && t.cols == t.view_n;
  if (one_per_cell) t.pid.assign(cells, -1);
  for (std::uint64_t p = 0; p < pid_to_tile.size() && p < np; ++p) {
    const std::uint64_t tile = pid_to_tile[p];
    if (tile >= np) continue;
    const std::uint64_t vi = tile / t.view_n, vj = tile % t.view_n;
    const std::size_t cell = static_cast<std::size_t>(vi * t.rows / t.view_m) * t.cols + static_cast<std::size_t>(vj * t.cols / t.view_n);
    const int die = hw.dispatch.die_of(static_cast<unsigned>(p), t.num_dies) % t.num_dies;
    ++count[cell * t.num_dies + die];
    pid_sum[cell] += static_cast<double>(p);
    ++tiles[cell];
    if (one_per_cell) t.pid[cell] = static_cast<std::int64_t>(p);
  }
  t.die.assign(cells, -1);
  t.purity.assign(cells, 0);
  t.order.assign(cells, 0);
  for (std::size_t c = 0; c < cells; ++c) {
    if (tiles[c] == 0) continue;
    const auto* first = &count[c * t.num_dies];
    const auto* best = std::max_element(first, first + t.num_dies);
    t.die[c] = static_cast<int>(best - first);
    t.purity[c] = static_cast<int>(std::lround(100.0 * *best / tiles[c]));
    t.order[c] = static_cast<int>(std::lround(999.0 * (pid_sum[c] / tiles[c]) / std::max<double>(1, static_cast<double>(np - 1))));
  }
  return t;
}

TileMap identity_tile_map(TileGrid grid, const HardwareProfile& hw, unsigned max_side) {
  std::vector<std::uint32_t> id(static_cast<std::size_t>(grid.m) * grid.n);
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::uint32_t>(i);
  return make_tile_map(grid, id, hw, max_side);
}

}  // namespace swz
