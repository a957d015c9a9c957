#include "swizzleperf/core/program_info.h"

#include <algorithm>

#include "swizzleperf/util/json_field.h"

namespace swz {

Result<TileGrid> ProgramInfo::checked_grid() const {
  if (!grid_error.empty()) return make_error(grid_error);
  return grid;
}

ProgramInfo program_info_from_json(const nlohmann::json& info) {
  ProgramInfo p;
  if (!info.is_object()) {
    p.grid_error = "the kernel program's info mode reports no grid";
    return p;
  }
  p.raw = info;
  const auto gj = info.find("grid");
  auto dim = [&](const char* k) {
    return gj != info.end() && gj->is_object() && gj->contains(k) && (*gj)[k].is_number_integer()
               ? (*gj)[k].get<long long>()
               : -1;
  };
  auto grid = make_tile_grid(dim("m"), dim("n"), "the kernel program's info mode reports grid");
  if (grid)
    p.grid = *grid;
  else
    p.grid_error = grid.error().message;
  if (info.contains("kernel_regex") && info["kernel_regex"].is_string()) p.kernel_regex = info["kernel_regex"].get<std::string>();
  if (info.contains("dump_tol") && info["dump_tol"].is_number()) p.dump_tol = std::max(0.0, info["dump_tol"].get<double>());
  // Launches: the count when given, else one per reported launch footprint.
  if (const auto f = info.find("launch_footprints_bytes"); f != info.end() && f->is_array())
    p.launches = static_cast<int>(std::min<std::size_t>(f->size(), 1u << 24));
  if (const auto n = info.find("launches"); n != info.end() && n->is_number_integer())
    p.launches = static_cast<int>(std::clamp<long long>(n->get<long long>(), 0, 1 << 24));
  if (const auto s = info.find("size"); s != info.end() && s->is_array())
    for (std::size_t i = 0; i < s->size(); ++i)
      if (const int v = int_or(*s, i, 0); v > 0) p.size.push_back(v);
  return p;
}

void to_json(nlohmann::json& j, const ProgramInfo& p) { j = p.raw; }

}  // namespace swz
