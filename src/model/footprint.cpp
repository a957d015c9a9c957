// Parsing a program's footprint output: one pass over the lines, a hand-written tokenizer
// for the tile lines (they are most of the text: one per tile), nlohmann for the few JSON
// header lines. Every count is capped before anything is reserved.
#include "swizzleperf/model/footprint.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace swz {

namespace {

class Cursor {
 public:
  explicit Cursor(std::string_view line) : s_(line) {}
  bool at_end() {
    skip();
    return i_ >= s_.size();
  }
  // A non-negative decimal integer below 2^63.
  bool number(std::uint64_t& out) {
    skip();
    const std::size_t start = i_;
    std::uint64_t v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      const std::uint64_t d = static_cast<std::uint64_t>(s_[i_] - '0');
      if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10) return false;
      v = v * 10 + d;
      ++i_;
    }
    if (i_ == start || i_ - start > 19) return false;
    out = v;
    return true;
  }
  bool word(std::string_view& out) {
    skip();
    const std::size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ' ' && s_[i_] != '\t' && s_[i_] != '\r') ++i_;
    out = s_.substr(start, i_ - start);
    return i_ > start;
  }

 private:
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  std::string_view s_;
  std::size_t i_ = 0;
};

std::uint64_t json_u64(const nlohmann::json& j, const char* key, bool& ok) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) {
    if (it != j.end() && it->is_number_integer() && it->get<long long>() >= 0) return it->get<std::uint64_t>();
    ok = false;
    return 0;
  }
  return it->get<std::uint64_t>();
}

// Why the model cannot take a launch of an m x n grid ("" when it can): an empty grid, 2^32
// tiles or more (a pid is 32 bits), or more tiles than the model takes.
std::string grid_refusal(std::uint64_t launch, std::uint64_t m, std::uint64_t n, const FootprintLimits& limits) {
  if (m == 0 || n == 0 || m > kMaxGridPids || n > kMaxGridPids || m * n > kMaxGridPids)
    return fmt::format("launch {}: grid {}x{} is empty or has 2^32 tiles or more", launch, m, n);
  if (m * n > limits.max_tiles_per_launch)
    return fmt::format("launch {}: {} tiles (the model takes at most {})", launch, m * n, limits.max_tiles_per_launch);
  return "";
}

}  // namespace

Status check_footprint_grids(std::string_view text, const std::string& name, const FootprintLimits& limits) {
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.empty() || line[0] != '{') continue;  // tile lines: parse_footprint's business
    auto fail = [&](const std::string& why) {
      return make_error(fmt::format("{}'s footprint: line {}: {}", name, line_no, why));
    };
    // Anything but a well-formed launch header is left to parse_footprint, which says what
    // is wrong with it (the program's own error line included).
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("launch")) continue;
    const auto grid = j.find("grid");
    if (grid == j.end() || !grid->is_object()) continue;
    bool ok = true;
    const std::uint64_t launch = json_u64(j, "launch", ok), m = json_u64(*grid, "m", ok), n = json_u64(*grid, "n", ok);
    if (!ok) continue;
    if (const std::string e = grid_refusal(launch, m, n, limits); !e.empty()) return fail(e);
  }
  return ok_status();
}

Result<ProgramFootprint> parse_footprint(std::string_view text, const std::string& name,
                                         const FootprintLimits& limits) {
  ProgramFootprint fp;
  LaunchFootprint* cur = nullptr;
  std::uint64_t expected_tiles = 0, next_tile = 0, spans_total = 0, runs_total = 0;
  bool summary = false;
  std::size_t line_no = 0, pos = 0;
  auto fail = [&](const std::string& why) {
    return make_error(fmt::format("{}'s footprint: line {}: {}", name, line_no, why));
  };
  auto close_launch = [&]() -> std::string {
    if (cur && next_tile != expected_tiles)
      return fmt::format("launch {} lists {} of its {} tiles", fp.launch_ids.back(), next_tile, expected_tiles);
    return "";
  };
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.empty() || line == "\r") continue;
    if (summary) return fail("text after the summary line");
    if (line[0] == 't' && line.size() > 1 && line[1] == ' ') {
      if (!cur) return fail("a tile line before any launch header");
      Cursor c(line.substr(1));
      std::uint64_t id = 0, n = 0;
      if (!c.number(id) || !c.number(n)) return fail("a tile line needs 't ID SPANS'");
      if (id != next_tile) return fail(fmt::format("tile {} where tile {} was expected (tiles in order)", id, next_tile));
      if (next_tile >= expected_tiles) return fail(fmt::format("more tiles than the {} the header announced", expected_tiles));
      if (n > limits.max_spans_per_tile) return fail(fmt::format("{} spans in one tile (at most {})", n, limits.max_spans_per_tile));
      spans_total += n;
      if (spans_total > limits.max_spans) return fail(fmt::format("more than {} spans in all", limits.max_spans));
      for (std::uint64_t k = 0; k < n; ++k) {
        FootprintSpan s;
        std::uint64_t buf = 0;
        std::string_view flags;
        if (!c.number(buf) || !c.number(s.offset) || !c.number(s.bytes) || !c.number(s.stride) || !c.number(s.count) ||
            !c.word(flags))
          return fail(fmt::format("span {} of tile {}: expected 'BUFFER OFFSET BYTES STRIDE COUNT FLAGS'", k, id));
        if (buf >= fp.buffers.size())
          return fail(fmt::format("span {} of tile {} names buffer {} of {}", k, id, buf, fp.buffers.size()));
        if (flags.size() < 2 || (flags[0] != 'r' && flags[0] != 'w') ||
            (flags[1] != 'R' && flags[1] != 'P' && flags[1] != 'O') || (flags.size() > 2 && flags[2] != '/'))
          return fail(fmt::format("span {} of tile {}: flags '{}' are not one of r|w then R|P|O", k, id,
                                  std::string(flags.substr(0, 8))));
        if (flags.size() > 2) {  // a read's piece: "/BYTES", 1 to 2^20 (flags[2] is the '/')
          Cursor piece(flags.substr(3));
          const bool ok = flags[0] == 'r' && piece.number(s.piece) && piece.at_end();
          if (!ok || s.piece == 0 || s.piece > (1u << 20))
            return fail(fmt::format("span {} of tile {}: '{}' is not a read's piece ('/' then 1 to 1048576 bytes)", k, id,
                                    std::string(flags.substr(0, 24))));
        }
        if (s.bytes == 0 || s.count == 0) return fail(fmt::format("span {} of tile {} is empty", k, id));
        if (s.count > limits.max_runs_per_span)
          return fail(fmt::format("span {} of tile {} has {} runs (at most {})", k, id, s.count, limits.max_runs_per_span));
        runs_total += s.count;
        if (runs_total > limits.max_runs) return fail(fmt::format("more than {} runs in all", limits.max_runs));
        s.buffer = static_cast<std::uint32_t>(buf);
        s.write = flags[0] == 'w';
        s.walk = flags[1] == 'R' ? SpanWalk::runs : flags[1] == 'P' ? SpanWalk::parallel : SpanWalk::once;
        if (s.count == 1) s.stride = 0;
        // Inside the buffer, without overflow: offset + (count-1)*stride + bytes <= size.
        const std::uint64_t size = fp.buffers[buf].bytes;
        bool inside = s.bytes <= size && s.offset <= size - s.bytes;
        if (inside && s.count > 1) {
          const std::uint64_t room = size - s.bytes - s.offset;
          inside = s.stride <= room / (s.count - 1) && s.stride >= s.bytes;
        }
        if (!inside)
          return fail(fmt::format("span {} of tile {} ({} runs of {} bytes from {} every {}) leaves buffer '{}' of {} bytes "
                                  "or overlaps itself",
                                  k, id, s.count, s.bytes, s.offset, s.stride, fp.buffers[buf].name, size));
        cur->spans.push_back(s);
      }
      if (!c.at_end()) return fail(fmt::format("tile {} has more fields than its {} spans", id, n));
      ++next_tile;
      cur->tile_begin.push_back(static_cast<std::uint32_t>(cur->spans.size()));
      if (cur->spans.size() > std::numeric_limits<std::uint32_t>::max() - 1) return fail("too many spans in one launch");
      continue;
    }
    if (line[0] != '{') return fail("neither a tile line nor a JSON line");
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
    if (j.contains("error")) {
      const auto& e = j["error"];
      return fail(fmt::format("the program says: {}", e.is_string() ? e.get<std::string>() : e.dump()));
    }
    if (j.contains("mode")) {  // the summary: size, launch count and buffers
      if (const std::string e = close_launch(); !e.empty()) return fail(e);
      bool ok = true;
      const auto size = j.find("size");
      if (size == j.end() || !size->is_array() || size->size() > 16) return fail("the summary line lacks size");
      for (const auto& v : *size) {
        if (!v.is_number_integer()) return fail("size values must be integers");
        fp.size.push_back(v.get<long long>());
      }
      fp.launches_total = static_cast<unsigned>(std::min<std::uint64_t>(json_u64(j, "launches", ok), 1u << 30));
      if (!ok) return fail("the summary line lacks launches");
      summary = true;
      continue;
    }
    // The buffers line comes first, so spans are checked as they come.
    if (j.contains("buffers")) {
      if (!fp.buffers.empty()) return fail("a second buffers line");
      const auto& bufs = j["buffers"];
      if (!bufs.is_array() || bufs.empty() || bufs.size() > 256) return fail("buffers must be a list of 1 to 256");
      for (const auto& b : bufs) {
        bool ok = b.is_object();
        FootprintBuffer fb;
        if (ok && b.contains("name") && b["name"].is_string()) fb.name = b["name"].get<std::string>().substr(0, 64);
        if (ok) fb.bytes = json_u64(b, "bytes", ok);
        if (!ok) return fail("a buffer needs name and bytes");
        fp.buffers.push_back(fb);
      }
      continue;
    }
    if (const std::string e = close_launch(); !e.empty()) return fail(e);
    bool ok = true;
    const std::uint64_t launch = json_u64(j, "launch", ok);
    const auto grid = j.find("grid");
    std::uint64_t m = 0, n = 0;
    if (grid != j.end() && grid->is_object()) {
      m = json_u64(*grid, "m", ok);
      n = json_u64(*grid, "n", ok);
    } else {
      ok = false;
    }
    const std::uint64_t tiles = json_u64(j, "tiles", ok);
    if (!ok) return fail("a launch header needs launch, grid {m, n} and tiles");
    if (fp.buffers.empty()) return fail("a launch header before the buffers line");
    if (const std::string e = grid_refusal(launch, m, n, limits); !e.empty()) return fail(e);
    if (tiles != m * n) return fail(fmt::format("launch {}: {} tiles listed for a {}x{} grid (all tiles are needed)", launch, tiles, m, n));
    if (fp.launches.size() >= limits.max_launches) return fail(fmt::format("more than {} launches", limits.max_launches));
    LaunchFootprint lf;
    lf.grid = {static_cast<unsigned>(m), static_cast<unsigned>(n)};
    if (const auto b = j.find("block"); b != j.end() && b->is_object()) {
      bool bok = true;
      lf.block.threads = static_cast<unsigned>(std::min<std::uint64_t>(json_u64(*b, "threads", bok), 1u << 20));
      lf.block.shared_bytes = json_u64(*b, "shared_bytes", bok);
      lf.block.registers = static_cast<unsigned>(std::min<std::uint64_t>(json_u64(*b, "registers", bok), 1u << 16));
      if (!bok) return fail("block needs threads, shared_bytes and registers");
      if (const auto k = b->find("kernel"); k != b->end()) {
        const std::string* name = k->is_string() ? k->get_ptr<const std::string*>() : nullptr;
        const bool ok_name = name && !name->empty() && name->size() <= 256 &&
                             std::all_of(name->begin(), name->end(), [](char c) {
                               return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
                             });
        if (!ok_name) return fail(fmt::format("launch {}: block kernel must be a function's name (1 to 256 letters, digits or '_')", launch));
        lf.block.kernel = *name;
      }
    }
    if (const auto s = j.find("swizzled"); s != j.end() && s->is_boolean()) lf.swizzled = s->get<bool>();
    lf.tile_begin.reserve(tiles + 1);
    lf.tile_begin.push_back(0);
    fp.launches.push_back(std::move(lf));
    fp.launch_ids.push_back(static_cast<unsigned>(std::min<std::uint64_t>(launch, 1u << 30)));
    cur = &fp.launches.back();
    expected_tiles = tiles;
    next_tile = 0;
  }
  if (!summary) {
    line_no = 0;
    return make_error(fmt::format("{}'s footprint: no summary line (the output is cut short)", name));
  }
  if (fp.launches.empty()) return make_error(fmt::format("{}'s footprint lists no launch", name));
  return fp;
}

std::uint64_t union_bytes(const LaunchFootprint& launch, std::size_t buffers) {
  std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> iv(buffers);
  for (const auto& s : launch.spans) {
    if (s.buffer >= buffers) continue;
    if (s.count == 1 || s.stride == s.bytes) {
      iv[s.buffer].push_back({s.offset, s.offset + s.bytes * s.count});
    } else {
      for (std::uint64_t i = 0; i < s.count; ++i) iv[s.buffer].push_back({s.offset + i * s.stride, s.offset + i * s.stride + s.bytes});
    }
  }
  std::uint64_t total = 0;
  for (auto& v : iv) {
    std::sort(v.begin(), v.end());
    std::uint64_t end = 0;
    bool any = false;
    for (const auto& [a, b] : v) {
      if (!any || a > end) {
        total += b - a;
        end = b;
        any = true;
      } else if (b > end) {
        total += b - end;
        end = b;
      }
    }
  }
  return total;
}

}  // namespace swz
