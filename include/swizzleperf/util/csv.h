// CSV reading for profiler output (Nsight Compute, rocprofv3).
// Contract: RFC 4180 records — fields separated by commas, optionally quoted;
// inside quotes commas, CR/LF and doubled quotes ("") are literal. Records end
// at LF or CRLF. Blank lines are skipped rather than read as one empty field,
// because profilers end files with a newline and tools interleave blank lines.
// parse_number reads the numbers those tools print: thousands separators,
// decimals, exponents; "n/a" and anything else unreadable give std::nullopt.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/util/result.h"

#include "swizzleperf/util/text.h"  // one_line: every parser error is one line

namespace swz {

struct CsvRow {
  std::size_t line = 0;             // 1-based line in the input where the record starts
  std::vector<std::string> fields;  // unquoted field values
};

// Reads every record of `text`. Fails only on a quoted field left open at the
// end of the input (a truncated file), naming the line where it began.
Result<std::vector<CsvRow>> parse_csv(std::string_view text);

// Splits one line (no record separator inside) into fields. Lenient: an open
// quote runs to the end of the line. For scanning mixed text line by line.
std::vector<std::string> split_csv_line(std::string_view line);

// "8,085,788,928" -> 8085788928, "43.72", "1.5e+03", "-2", " 7 " -> values;
// "", "n/a", "1,23", "abc", "inf" -> std::nullopt.
std::optional<double> parse_number(std::string_view text);

// A parse_number that is a whole number within [lo, hi], else std::nullopt:
// "12" -> 12, "1.5e+03" -> 1500; "2.5", "6.7e+100" (outside the range) -> none.
// Use it before any conversion to an integer type, where a value out of the
// type's range would be undefined behaviour.
std::optional<long long> parse_whole_number(std::string_view text, long long lo, long long hi);


}  // namespace swz
