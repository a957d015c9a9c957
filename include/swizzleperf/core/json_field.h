// Reading optional fields of JSON written by us or by an earlier version, or
// edited by hand: a missing, null or wrongly typed field leaves the value unset
// instead of throwing.
#pragma once

#include <optional>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace swz {

// v = j[key] when j is an object holding a number (a boolean for T = bool) there.
template <typename T>
void read_optional(const nlohmann::json& j, const char* key, std::optional<T>& v) {
  if (!j.is_object() || !j.contains(key)) return;
  const auto& x = j[key];
  if constexpr (std::is_same_v<T, bool>) {
    if (x.is_boolean()) v = x.get<bool>();
  } else {
    if (x.is_number()) v = x.get<T>();
  }
}

}  // namespace swz
