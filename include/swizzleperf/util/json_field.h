// Reading optional fields of JSON written by us or by an earlier version, or
// edited by hand: a missing, null or wrongly typed field leaves the value unset
// instead of throwing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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

// x as an int when it is an integer within int's range, else fallback.
// (Converting a larger floating-point value to int is undefined behaviour, and
// nlohmann's value()/get<int>() do exactly that for 9e41: found by fuzz_history.)
inline int int_value_or(const nlohmann::json& x, int fallback) {
  if (x.is_number_unsigned()) return x.get<std::uint64_t>() <= 2147483647u ? static_cast<int>(x.get<std::uint64_t>()) : fallback;
  if (x.is_number_integer()) {
    const auto v = x.get<std::int64_t>();
    return v >= -2147483648LL && v <= 2147483647LL ? static_cast<int>(v) : fallback;
  }
  return fallback;
}

// j[key] (an object's field) or j[index] (an array's element) as int_value_or does.
inline int int_or(const nlohmann::json& j, const char* key, int fallback) {
  return j.is_object() && j.contains(key) ? int_value_or(j[key], fallback) : fallback;
}
inline int int_or(const nlohmann::json& j, std::size_t index, int fallback) {
  return j.is_array() && index < j.size() ? int_value_or(j[index], fallback) : fallback;
}

// j.at(key) as an int; anything but an integer within int's range throws nlohmann's
// type_error (302), which the loaders already turn into one "corrupt" line.
inline int int_at(const nlohmann::json& j, const char* key) {
  const auto& x = j.at(key);
  const bool in_range = x.is_number_integer() && int_value_or(x, 0) == x.get<std::int64_t>();
  if (!in_range)
    throw nlohmann::json::type_error::create(
        302, std::string("'") + key + "' must be an integer within int range, not " + x.dump().substr(0, 40), &x);
  return static_cast<int>(x.get<std::int64_t>());
}

}  // namespace swz
