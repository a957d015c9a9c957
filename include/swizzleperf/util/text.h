// Small string helpers every layer uses: trimming, lower-casing, making outside
// text (a server's error page, a profiler's message, an LLM's reply) safe to show
// on one line, and formatting an optional number for a table.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/util/result.h"

namespace swz {

// s without leading and trailing whitespace.
std::string trim(std::string_view s);
std::string to_lower(std::string s);
// Every run of whitespace (a newline too) as one space, none at either end: a multi-line
// expression or signature on one line, or two texts compared up to their layout.
std::string collapse_spaces(std::string_view s);
// Control characters (newlines, tabs, escapes, DEL) become spaces: outside text
// never breaks an error line or a table row.
std::string one_line(std::string s);
// one_line, trimmed, and cut to max_chars with "..." appended when longer.
std::string one_line(std::string s, std::size_t max_chars);
// The current UTC time as strftime formats it ("%Y-%m-%dT%H:%M:%SZ").
std::string utc_now(const char* strftime_format);
// utc_now("%Y-%m-%dT%H:%M:%SZ"): the timestamps in histories and reports.
std::string now_iso8601();
// 4294967295 -> "4,294,967,295": large counts in messages people read.
std::string with_thousands(unsigned long long v);
// word as one word of a POSIX shell command line: unchanged when it has only letters,
// digits and _-./+,:@%=; else in single quotes ("dir with spaces/a.cu" ->
// "'dir with spaces/a.cu'", a ' inside as '\''). For commands the tool suggests.
std::string shell_quote(std::string_view word);
// "a,b,c" -> its numbers, each a decimal integer from 1 to max. The Error names the first
// bad item: "'x' is not a positive integer", "999999999999 is out of range (at most
// 1,073,741,824)" (digits past what a long long holds are out of range too).
Result<std::vector<long long>> parse_positive_list(std::string_view list, long long max);
// fmt-formats v with spec ("{:.2f}"), or returns `missing` when there is no value.
std::string format_or(const std::optional<double>& v, std::string_view missing, const char* spec = "{:.2f}");

// The lines of `text` without their '\n', as views into it (a text ending in '\n' ends with an
// empty line, so joining them with '\n' gives the text back). One pass, no allocation per line.
std::vector<std::string_view> split_lines_view(std::string_view text);

}  // namespace swz
