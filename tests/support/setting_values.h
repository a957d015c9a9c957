// Values for the settings table's rows that tests set: one a command accepts and that
// differs from the command's default, found from the row's own type, range and choices
// (so a row added to the table is covered without a test listing it).
#pragma once

#include <string>

#include "swizzleperf/core/run_config.h"

namespace swz::test {

// A value of `row` that `command` accepts (row.check passes) and that is not the
// command's default; "" when the row has none (no such row in the table today).
std::string another_setting_value(const SettingRow& row, CommandSet command);

}  // namespace swz::test
