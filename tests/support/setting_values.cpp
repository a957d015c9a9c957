#include "support/setting_values.h"

#include <fmt/format.h>

#include <vector>

namespace swz::test {

std::string another_setting_value(const SettingRow& row, CommandSet command) {
  const std::string def = row.default_for(command);
  std::vector<std::string> tries;
  switch (row.type) {
    case SettingType::choice: tries = row.choices_for(command); break;
    case SettingType::size: tries = {"64,32,16", "7"}; break;
    case SettingType::text: tries = {def + "-other"}; break;
    case SettingType::integer:
    case SettingType::count:
    case SettingType::real: {
      const auto r = row.range_for(command);
      const double lo = r ? r->lo : 0, hi = r ? r->hi : 100;
      for (double v : {hi, lo, (lo + hi) / 2, lo + 1})
        tries.push_back(row.type == SettingType::real ? fmt::format("{}", v) : std::to_string(static_cast<long long>(v)));
      break;
    }
  }
  for (const auto& t : tries)
    if (t != def && row.check(t, command).empty()) return t;
  return "";
}

}  // namespace swz::test
