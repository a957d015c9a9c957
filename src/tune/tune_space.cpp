// TuneSpace (see the header): a line scanner over the program's text. Each line is looked at
// once; a directive is a comment whose text starts with `swizzleperf:` and one of the four
// keys, so the region markers and TODO marks of the same files are left alone.
#include "swizzleperf/tune/tune_space.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "swizzleperf/util/text.h"

namespace swz {

namespace {

constexpr std::int64_t kMaxTunableValue = 2147483647;  // a define or constexpr int must hold it

bool tune_is_name(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A non-negative decimal integer up to kMaxTunableValue, or nullopt.
std::optional<std::int64_t> tune_parse_value(std::string_view s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v > kMaxTunableValue) return std::nullopt;
  return v;
}

// Splits on blanks and commas.
std::vector<std::string_view> tune_words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
    std::size_t j = i;
    while (j < s.size() && !(s[j] == ' ' || s[j] == '\t' || s[j] == ',')) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string_view tune_strip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Takes `word` (then at least one blank, or the end) off the front of s.
bool tune_take_word(std::string_view& s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  std::string_view rest = s.substr(word.size());
  if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t') return false;
  s = tune_strip(rest);
  return true;
}

struct TuneDirective {
  std::string key;         // tunable | restrict | shared-bytes | threads
  std::string_view code;   // the line before its comment, indentation kept
  std::string_view rest;   // after the key
};

// The directive on `line`, if its comment starts with one. In C++ the opener is "//" (a
// `#define` starts with '#' too); in Python '#' (no tunable line has one before its comment).
std::optional<TuneDirective> tune_directive_of(std::string_view line, RegionLanguage language) {
  const std::string_view opener = language == RegionLanguage::python ? "#" : "//";
  const std::size_t at = line.find(opener);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view comment = tune_strip(line.substr(at + opener.size()));
  const std::string_view prefix = "swizzleperf:";
  if (comment.substr(0, prefix.size()) != prefix) return std::nullopt;
  for (const char* key : {"tunable", "restrict", "shared-bytes", "threads"}) {
    std::string_view c = comment.substr(prefix.size());
    if (!tune_take_word(c, key)) continue;
    std::string_view code = line.substr(0, at);  // its indentation kept: Python's says "module level"
    while (!code.empty() && (code.back() == ' ' || code.back() == '\t')) code.remove_suffix(1);
    return TuneDirective{key, code, c};
  }
  return std::nullopt;
}

Result<std::vector<std::int64_t>> tune_parse_values(std::string_view text) {
  const auto w = tune_words(text);
  std::vector<std::int64_t> values;
  if (!w.empty() && w[0] == "pow2") {
    const std::size_t dots = w.size() == 2 ? w[1].find("..") : std::string_view::npos;
    const auto lo = dots == std::string_view::npos ? std::nullopt : tune_parse_value(w[1].substr(0, dots));
    const auto hi = dots == std::string_view::npos ? std::nullopt : tune_parse_value(w[1].substr(dots + 2));
    if (!lo || !hi || *lo < 1 || *lo > *hi) return make_error("write `pow2 A..B` with 1 <= A <= B, e.g. `pow2 16..256`");
    for (std::int64_t v = 1; v <= *hi; v *= 2)
      if (v >= *lo) values.push_back(v);
    if (values.empty()) return make_error("no power of two lies in " + std::string(w[1]));
  } else {
    for (auto word : w) {
      auto v = tune_parse_value(word);
      if (!v) return make_error(fmt::format("'{}' is not a value: values are integers from 0 to {}, separated by blanks or commas, "
                                            "or `pow2 A..B`", one_line(std::string(word), 40), kMaxTunableValue));
      values.push_back(*v);
    }
  }
  if (values.empty()) return make_error("no values: list them after swizzleperf:tunable, e.g. `swizzleperf:tunable 64 128 256`");
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() > kMaxTunableValues) return make_error(fmt::format("{} values, more than {}: list fewer", values.size(), kMaxTunableValues));
  return values;
}

// NAME and its value from the code before a tunable comment.
Result<std::pair<std::string, std::int64_t>> tune_declared(std::string_view code, RegionLanguage language) {
  std::string_view s = code;
  std::string_view name, value;
  if (language == RegionLanguage::python) {
    const std::size_t eq = s.find('=');
    if (eq == std::string_view::npos || s.empty() || s.front() == ' ' || s.front() == '\t')
      return make_error("a tunable is a module-level constant: `NAME = 128  # swizzleperf:tunable 64 128 256`");
    name = tune_strip(s.substr(0, eq));
    value = tune_strip(s.substr(eq + 1));
  } else {
    s = tune_strip(s);
    if (s.empty() || s.front() != '#') return make_error("a tunable is a guarded define: `#define NAME 128  // swizzleperf:tunable 64 128 256`");
    s = tune_strip(s.substr(1));
    if (!tune_take_word(s, "define")) return make_error("a tunable is a guarded define: `#define NAME 128  // swizzleperf:tunable 64 128 256`");
    const auto w = tune_words(s);
    if (w.size() != 2) return make_error("write `#define NAME VALUE` with one integer value before the comment");
    name = w[0];
    value = w[1];
  }
  if (!tune_is_name(name)) return make_error("'" + one_line(std::string(name), 40) + "' is not a name");
  auto v = tune_parse_value(value);
  if (!v) return make_error(fmt::format("{}'s value '{}' is not an integer from 0 to {}", std::string(name), one_line(std::string(value), 40), kMaxTunableValue));
  return std::make_pair(std::string(name), *v);
}

// True when `line` is `#ifndef NAME` (blanks allowed after '#').
bool tune_is_ifndef(std::string_view line, const std::string& name) {
  line = tune_strip(line);
  if (line.empty() || line.front() != '#') return false;
  line = tune_strip(line.substr(1));
  if (!tune_take_word(line, "ifndef")) return false;
  return line == name;
}

}  // namespace

std::uint64_t TuneSpace::size() const {
  std::uint64_t n = tunables.empty() ? 0 : 1;
  for (const auto& t : tunables) n = std::min<std::uint64_t>(n * t.values.size(), kMaxTunePoints + 1);
  return n;
}

TunePoint TuneSpace::own_point() const {
  TunePoint p;
  for (const auto& t : tunables) p.push_back(t.value);
  return p;
}

std::map<std::string, std::int64_t> TuneSpace::bind(const TunePoint& p) const {
  std::map<std::string, std::int64_t> out;
  for (std::size_t i = 0; i < tunables.size() && i < p.size(); ++i) out[tunables[i].name] = p[i];
  return out;
}

std::string TuneSpace::describe(const TunePoint& p) const {
  std::string out;
  for (std::size_t i = 0; i < tunables.size() && i < p.size(); ++i)
    out += (i ? " " : "") + tunables[i].name + "=" + std::to_string(p[i]);
  return out;
}

Result<TuneSpace> parse_tune_space(std::string_view text, RegionLanguage language, const std::string& name) {
  TuneSpace space;
  const std::vector<std::string_view> lines = split_lines_view(text);
  auto fail = [&](std::size_t i, const std::string& why) { return make_error(fmt::format("{}:{}: {}", name, i + 1, why)); };
  std::set<std::string> names;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto d = tune_directive_of(lines[i], language);
    if (!d) continue;
    const int line = static_cast<int>(i + 1);
    if (d->key == "tunable") {
      auto decl = tune_declared(d->code, language);
      if (!decl) return fail(i, decl.error().message);
      const std::string& n = decl->first;
      if (language == RegionLanguage::cpp) {
        std::size_t prev = i;
        while (prev > 0 && tune_strip(lines[prev - 1]).empty()) --prev;
        if (prev == 0 || !tune_is_ifndef(lines[prev - 1], n))
          return fail(i, "put `#ifndef " + n + "` on the line before (and `#endif` after), so that a build's -D" + n + "=V takes effect");
      }
      if (!names.insert(n).second) return fail(i, n + " is declared tunable twice");
      if (space.tunables.size() >= kMaxTunables) return fail(i, fmt::format("more than {} tunables: tune fewer at once", kMaxTunables));
      auto values = tune_parse_values(d->rest);
      if (!values) return fail(i, n + ": " + values.error().message);
      if (!std::binary_search(values->begin(), values->end(), decl->second)) {
        std::string list;
        for (auto v : *values) list += (list.empty() ? "" : " ") + std::to_string(v);
        return fail(i, fmt::format("{}'s value {} is not among its tunable values ({}): add it, since it is the configuration "
                                   "a tuned point is judged against",
                                   n, decl->second, list));
      }
      space.tunables.push_back({n, decl->second, std::move(*values), line});
      continue;
    }
    if (space.restrictions.size() + 2 >= kMaxTuneRules) return fail(i, fmt::format("more than {} rules", kMaxTuneRules));
    auto expr = IntExpr::parse(tune_strip(d->rest));
    if (!expr) return fail(i, "swizzleperf:" + d->key + ": " + expr.error().message);
    TuneRule rule{std::move(*expr), line};
    if (d->key == "restrict") {
      space.restrictions.push_back(std::move(rule));
    } else {
      auto& slot = d->key == "threads" ? space.threads : space.shared_bytes;
      if (slot) return fail(i, "swizzleperf:" + d->key + " is declared twice (first at line " + std::to_string(slot->line) + ")");
      slot = std::move(rule);
    }
  }
  // Every rule reads tunables only (a rule may come before the tunables it reads).
  std::vector<const TuneRule*> rules;
  for (const auto& r : space.restrictions) rules.push_back(&r);
  if (space.shared_bytes) rules.push_back(&*space.shared_bytes);
  if (space.threads) rules.push_back(&*space.threads);
  for (const TuneRule* r : rules)
    for (const auto& n : r->expr.names())
      if (!names.count(n))
        return fail(static_cast<std::size_t>(r->line - 1), "'" + n + "' is not a tunable (declare it with swizzleperf:tunable, or write its value)");
  if (space.tunables.empty() && !rules.empty())
    return fail(static_cast<std::size_t>(rules.front()->line - 1), "a rule without any swizzleperf:tunable declaration");
  if (space.size() > kMaxTunePoints)
    return make_error(fmt::format("{}: the tunables span more than {} points: list fewer values", name, with_thousands(kMaxTunePoints)));
  // The program's own configuration must be a point of its own space.
  const auto own = space.bind(space.own_point());
  for (const auto& r : space.restrictions) {
    auto v = r.expr.eval(own);
    if (!v || *v == 0)
      return fail(static_cast<std::size_t>(r.line - 1), "the program's own configuration (" + space.describe(space.own_point()) +
                                                          ") breaks this restriction" + (v ? "" : ": " + v.error().message));
  }
  return space;
}

Result<std::string> with_tunable_values(std::string_view text, RegionLanguage language,
                                        const std::map<std::string, std::int64_t>& values, const std::string& name) {
  auto space = parse_tune_space(text, language, name);
  if (!space) return space.error();
  std::map<int, std::pair<std::string, std::int64_t>> by_line;  // declaring line -> (name, new value)
  for (const auto& kv : values) {
    const std::string& n = kv.first;  // not a structured binding: clang 14's lambdas cannot capture one
    const std::int64_t v = kv.second;
    auto t = std::find_if(space->tunables.begin(), space->tunables.end(), [&](const Tunable& x) { return x.name == n; });
    if (t == space->tunables.end()) return make_error(fmt::format("{}: {} is not a tunable of the program", name, n));
    if (!std::binary_search(t->values.begin(), t->values.end(), v))
      return make_error(fmt::format("{}:{}: {} is not among {}'s values", name, t->line, v, n));
    by_line[t->line] = {n, v};
  }
  const std::vector<std::string_view> lines = split_lines_view(text);
  std::string out;
  out.reserve(text.size() + 16 * values.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out.push_back('\n');
    const std::string_view l = lines[i];
    auto it = by_line.find(static_cast<int>(i + 1));
    if (it == by_line.end()) {
      out.append(l);
      continue;
    }
    // The value is the first run of digits after the name (after `=` in Python, after
    // `#define NAME` in C++): parse_tune_space accepted exactly that shape.
    const std::size_t name_from = language == RegionLanguage::python ? 0 : l.find("define") + 6;
    std::size_t v0 = l.find(it->second.first, name_from) + it->second.first.size();
    while (v0 < l.size() && !std::isdigit(static_cast<unsigned char>(l[v0]))) ++v0;
    std::size_t v1 = v0;
    while (v1 < l.size() && std::isdigit(static_cast<unsigned char>(l[v1]))) ++v1;
    out.append(l.substr(0, v0));
    out.append(std::to_string(it->second.second));
    out.append(l.substr(v1));
  }
  return out;
}

std::string point_excluded(const TuneSpace& space, const TunePoint& p, const TuneLimits& limits) {
  const auto bound = space.bind(p);
  for (const auto& r : space.restrictions) {
    auto v = r.expr.eval(bound);
    if (!v) return fmt::format("restriction at line {} ({}) cannot be evaluated: {}", r.line, r.expr.text(), v.error().message);
    if (*v == 0) return fmt::format("restriction at line {} ({}) is false", r.line, r.expr.text());
  }
  if (space.shared_bytes && limits.shared_bytes_per_block > 0) {
    auto v = space.shared_bytes->expr.eval(bound);
    if (!v) return "its shared memory cannot be computed: " + v.error().message;
    if (*v > limits.shared_bytes_per_block)
      return fmt::format("needs {} bytes of shared memory per block, the device allows {}", *v, limits.shared_bytes_per_block);
  }
  if (space.threads && (limits.threads_per_block > 0 || limits.warp_size > 0)) {
    auto v = space.threads->expr.eval(bound);
    if (!v) return "its threads per block cannot be computed: " + v.error().message;
    if (*v < 1) return fmt::format("{} threads per block", *v);
    if (limits.threads_per_block > 0 && *v > limits.threads_per_block)
      return fmt::format("needs {} threads per block, the device allows {}", *v, limits.threads_per_block);
    if (limits.warp_size > 0 && *v % limits.warp_size != 0)
      return fmt::format("{} threads per block is not a multiple of the warp size {}", *v, limits.warp_size);
  }
  return {};
}

TuneEnumeration enumerate_points(const TuneSpace& space, const TuneLimits& limits) {
  TuneEnumeration out;
  if (space.empty() || space.size() > kMaxTunePoints) return out;
  std::vector<std::size_t> at(space.tunables.size(), 0);
  TunePoint p(space.tunables.size());
  while (true) {
    for (std::size_t i = 0; i < at.size(); ++i) p[i] = space.tunables[i].values[at[i]];
    const std::string why = point_excluded(space, p, limits);
    if (why.empty()) {
      out.points.push_back(p);
    } else {
      if (out.excluded++ == 0) out.first_exclusion = space.describe(p) + ": " + why;
    }
    std::size_t i = at.size();
    while (i > 0) {
      --i;
      if (++at[i] < space.tunables[i].values.size()) break;
      at[i] = 0;
      if (i == 0) return out;
    }
  }
}

}  // namespace swz
