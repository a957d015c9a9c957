// RFC 4180 reading and number parsing for profiler CSV (see csv.h for the contract).
#include "swizzleperf/util/csv.h"

#include <charconv>
#include <cmath>
#include <string>

namespace swz {

namespace {

bool is_blank_record(const std::vector<std::string>& fields, bool any_quoted) {
  return !any_quoted && fields.size() == 1 && fields[0].empty();
}

}  // namespace

Result<std::vector<CsvRow>> parse_csv(std::string_view text) {
  // Editors and Excel exports sometimes prepend a UTF-8 byte-order mark; it is
  // not part of the first header name.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);

  std::vector<CsvRow> rows;
  std::vector<std::string> fields;
  std::string field;
  bool in_quotes = false;
  bool any_quoted = false;    // a quoted empty field makes a record non-blank
  bool field_started = false; // a quote opens a field only as its first char
  std::size_t line = 1;
  std::size_t record_line = 1;
  std::size_t quote_line = 0;

  auto end_field = [&] {
    fields.push_back(std::move(field));
    field.clear();
    field_started = false;
  };
  auto end_record = [&] {
    end_field();
    if (!is_blank_record(fields, any_quoted)) rows.push_back(CsvRow{record_line, std::move(fields)});
    fields.clear();
    any_quoted = false;
  };

  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < n && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    switch (c) {
      case ',':
        end_field();
        break;
      case '"':
        if (!field_started) {
          in_quotes = true;
          any_quoted = true;
          field_started = true;
          quote_line = line;
        } else {
          field.push_back(c);  // a stray quote mid-field is kept, as most readers do
        }
        break;
      case '\r':
        if (i + 1 < n && text[i + 1] == '\n') break;  // the LF ends the record
        if (i + 1 == n) break;
        field.push_back(c);
        field_started = true;
        break;
      case '\n':
        end_record();
        ++line;
        record_line = line;
        break;
      default:
        field.push_back(c);
        field_started = true;
        break;
    }
  }
  if (in_quotes) {
    return Error{"CSV ends inside a quoted field that starts on line " + std::to_string(quote_line) +
                 " (truncated file?)"};
  }
  if (!field.empty() || !fields.empty() || any_quoted) end_record();
  return rows;
}

std::vector<std::string> split_csv_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  std::vector<std::string> fields;
  std::string field;
  bool in_quotes = false;
  bool field_started = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        field.push_back(c);
      }
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      field_started = false;
    } else if (c == '"' && !field_started) {
      in_quotes = true;
      field_started = true;
    } else {
      field.push_back(c);
      field_started = true;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

std::optional<double> parse_number(std::string_view text) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;

  std::string clean;
  clean.reserve(text.size());
  std::size_t i = 0;
  if (text[0] == '+' || text[0] == '-') {
    if (text[0] == '-') clean.push_back('-');
    ++i;
  }

  // Integer part, possibly grouped by thousands. Groups are checked so that a
  // list such as "1,23" is not silently read as 123.
  const std::size_t int_begin = i;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == ',')) ++i;
  std::string_view int_part = text.substr(int_begin, i - int_begin);
  if (int_part.find(',') != std::string_view::npos) {
    std::size_t group_start = 0;
    bool first = true;
    while (true) {
      const std::size_t comma = int_part.find(',', group_start);
      const std::size_t len = (comma == std::string_view::npos ? int_part.size() : comma) - group_start;
      if (first ? (len < 1 || len > 3) : len != 3) return std::nullopt;
      first = false;
      if (comma == std::string_view::npos) break;
      group_start = comma + 1;
    }
  }
  for (char c : int_part)
    if (c != ',') clean.push_back(c);

  // Fraction and exponent: only digits, '.', exponent marks and signs, which
  // keeps out "inf", "nan" and hex that from_chars would otherwise accept.
  bool has_digit = !int_part.empty();
  for (; i < text.size(); ++i) {
    const char c = text[i];
    const bool ok = (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
    if (!ok) return std::nullopt;
    if (c >= '0' && c <= '9' && clean.find_first_of("eE") == std::string::npos) has_digit = true;
    clean.push_back(c);
  }
  if (!has_digit) return std::nullopt;

  double value = 0;
  const char* first = clean.data();
  const char* last = clean.data() + clean.size();
  auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
  if (ec != std::errc{} || ptr != last) return std::nullopt;
  return value;
}

std::optional<long long> parse_whole_number(std::string_view text, long long lo, long long hi) {
  const auto v = parse_number(text);
  // Compared as doubles first. A double converts to long long without undefined
  // behaviour only strictly inside (-2^63 - 1, 2^63); double(hi) may round up to
  // 2^63, so that bound is checked on its own. The exact bounds are checked after.
  constexpr double two_to_63 = 9223372036854775808.0;
  if (!v || *v != std::floor(*v) || *v < -two_to_63 || *v >= two_to_63 || *v < static_cast<double>(lo) ||
      *v > static_cast<double>(hi))
    return std::nullopt;
  const auto whole = static_cast<long long>(*v);
  if (whole < lo || whole > hi) return std::nullopt;
  return whole;
}

}  // namespace swz
