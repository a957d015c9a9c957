#include "swizzleperf/cli/port_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "swizzleperf/core/cuda_scan.h"
#include "swizzleperf/core/triton_scan.h"
#include "swizzleperf/util/text.h"

namespace swz::cli {

namespace {

std::string size_arg(const nlohmann::json& size) {
  std::string s;
  for (const auto& v : size) s += (s.empty() ? "" : ",") + v.dump();
  return s;
}

// Sizes as the program listed them: arrays of positive integers only (anything else
// is itself a finding).
bool is_size(const nlohmann::json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& x : v)
    if (!x.is_number_integer() || x.get<long long>() <= 0) return false;
  return true;
}

// What `init` writes in place of a block-index use: blockIdx.y / hipBlockIdx_y ->
// swz_block_idx.y, gridDim.x / hipGridDim_x -> swz_grid.x; a bare one -> the whole value.
std::string swizzled_spelling(const std::string& use) {
  const bool grid = use.rfind("gridDim", 0) == 0 || use.rfind("hipGridDim", 0) == 0;
  const std::string base = grid ? "swz_grid" : "swz_block_idx";
  const char last = use.empty() ? 0 : use.back();
  const bool member = use.size() > 2 && (use[use.size() - 2] == '.' || use[use.size() - 2] == '_') &&
                      (last == 'x' || last == 'y' || last == 'z');
  return member ? base + "." + last : base;
}

// A Triton program: each line outside comments that reads `program_id(` without passing
// it to swizzle_pid on the same line (a line scan: Triton kernels read it once, by name).
std::vector<PortFinding> triton_findings(const KernelSource& kernel, bool strict) {
  std::vector<PortFinding> out;
  const std::string& t = kernel.text();
  std::size_t line = 0, pos = 0;
  while (pos < t.size()) {
    ++line;
    std::size_t nl = t.find('\n', pos);
    if (nl == std::string::npos) nl = t.size();
    const std::string_view full(t.data() + pos, nl - pos);
    const std::string_view code = full.substr(0, full.find('#'));
    if (code.find("program_id(") != std::string_view::npos && code.find("swizzle_pid(") == std::string_view::npos &&
        full.find("swizzleperf:allow-blockidx") == std::string_view::npos)
      out.push_back({strict, line,
                     "tl.program_id(...) does not go through swizzle_pid: this program id bypasses the swizzle, so a "
                     "reordered launch computes the wrong tiles (pass it to swizzle_pid, or mark a use that is not the "
                     "tile order with # swizzleperf:allow-blockidx)"});
    pos = nl + 1;
  }
  return out;
}

// A 2-D port whose launch_grid has x and y swapped reports the right grid at a square default
// size, so the default-grid comment agrees; verify on a GPU would find the unwritten tiles at
// a non-square size. Here: the size value that bounds the kernel's x (y) block index, as the
// source shows it (launch_axis_sizes), is halved (else doubled) in the default size, and info
// at that non-square size must move the grid's columns (rows), not only its rows (columns).
// No finding when the source does not show the axes or the program refuses both sizes.
Result<std::optional<PortFinding>> swapped_grid_finding(const KernelSource& kernel, Backend& backend,
                                                        const std::filesystem::path& exe, const ProgramInfo& info,
                                                        const ProgramCheckOptions& o) {
  const LaunchAxisSizes axes = launch_axis_sizes(kernel.text());
  const auto size = info.raw.find("size");
  const auto base = info.checked_grid();
  if (axes.x < 0 || !base || size == info.raw.end() || !is_size(*size) ||
      static_cast<std::size_t>(std::max(axes.x, axes.y)) >= size->size())
    return std::optional<PortFinding>();
  for (const bool x_axis : {true, false}) {
    const int value = x_axis ? axes.x : axes.y;
    for (const bool halve : {true, false}) {
      nlohmann::json at = *size;
      const long long v = (*size)[value].get<long long>();
      if (halve && v < 2) continue;
      at[value] = halve ? v / 2 : v * 2;
      auto r = backend.run_program(exe, {"info", "--size", size_arg(at)}, o.run_timeout);
      if (r.process.interrupted) return interrupted_error();
      if (!r.process.success() || !r.json.is_object()) continue;  // refused: try doubling, then the other axis
      const auto g = program_info_from_json(r.json).checked_grid();
      if (!g) break;
      const bool rows_moved = g->m != base->m, cols_moved = g->n != base->n;
      // x's value moved the rows alone, or y's value the columns alone: the extents are swapped.
      if (x_axis ? (rows_moved && !cols_moved) : (cols_moved && !rows_moved))
        return std::optional<PortFinding>(PortFinding{
            true, axes.launch_grid_line,
            fmt::format("launch_grid looks swapped: {} bounds its {} block index by {} (size value {}), yet at size {} (value "
                        "{} {}) info's grid is {}x{} against {}x{} at the default size {}: its {} moved, not its {}; "
                        "dim3(gx, gy) must take gx from size value {} and gy from value {}",
                        axes.kernel, x_axis ? "x" : "y", x_axis ? axes.x_bound : axes.y_bound, value + 1, at.dump(), value + 1,
                        halve ? "halved" : "doubled", g->m, g->n, base->m, base->n, size->dump(), x_axis ? "rows" : "columns",
                        x_axis ? "columns" : "rows", axes.x + 1, axes.y + 1)});
      break;
    }
  }
  return std::optional<PortFinding>();
}

}  // namespace

std::vector<PortFinding> source_findings(const KernelSource& kernel, bool strict) {
  const bool python = kernel.language() == RegionLanguage::python;
  std::vector<PortFinding> out = python ? triton_findings(kernel, strict) : std::vector<PortFinding>();
  for (const auto& m : python ? python_todo_marks(kernel.text()) : todo_marks(kernel.text()))
    out.push_back({true, m.line, "swizzleperf:TODO left" + (m.text.empty() ? std::string() : ": " + m.text)});
  if (python) {  // a Triton port: its TODOs among the region's findings, in line order
    std::stable_sort(out.begin(), out.end(), [](const PortFinding& a, const PortFinding& b) { return a.line < b.line; });
    return out;
  }
  for (const auto& u : unswizzled_block_uses(kernel.text()))
    out.push_back({strict, u.line,
                   fmt::format("{} does not go through swizzle_pid: this block index bypasses the swizzle, so a "
                               "reordered launch computes the wrong blocks (use the swizzled one, {}, "
                               "or mark a use that is not the block order with // swizzleperf:allow-blockidx)",
                               u.text, swizzled_spelling(u.text))});
  for (const auto& l : unflattened_launches(kernel.text()))
    out.push_back({strict, l.line,
                   fmt::format("{}() launches {} on the grid '{}', not on swz_flat_grid(...): a 2-D/3-D launch bypasses the "
                               "harness's swizzled launch path (swizzle_pid sees blockIdx.x alone), which only verify on a GPU "
                               "would show; launch it as {}<<<swz_flat_grid({}), ...>>>(..., {}), as init writes it",
                               l.enclosing_function, l.kernel, one_line(l.grid, 60), l.kernel_expr, one_line(l.grid, 60),
                               one_line(l.grid, 60))});
  std::stable_sort(out.begin(), out.end(), [](const PortFinding& a, const PortFinding& b) { return a.line < b.line; });
  return out;
}

Result<ProgramFacts> program_findings(const KernelSource& kernel, Backend& backend, const ProgramCheckOptions& o) {
  ProgramFacts facts;
  std::error_code ec;
  std::filesystem::create_directories(o.work_dir, ec);
  const auto exe = o.work_dir / (kernel.name() + ".info");
  BuildRequest req{kernel.path(), exe, o.num_dies, o.arch};
  req.info_only = true;
  const auto t0 = std::chrono::steady_clock::now();
  auto built = backend.build(req);
  if (!built) return built.error();
  facts.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!built->ok) {
    facts.findings.push_back({true, 0, "does not build with " + backend.name() + ": " + built->failure});
    return facts;
  }
  facts.built = true;
  auto run = backend.run_program(exe, {"info"}, o.run_timeout);
  if (run.process.interrupted) return interrupted_error();
  if (!run.process.success() || !run.json.is_object()) {
    facts.findings.push_back({true, 0, "the program's " + run.failure("info") + " (info must run without a GPU)"});
    return facts;
  }
  ProgramInfo info = program_info_from_json(run.json);
  facts.info = info;
  const std::string where_size = info.raw.contains("size") ? info.raw["size"].dump() : std::string("?");
  if (auto g = info.checked_grid(); !g) {
    facts.findings.push_back({true, 0, g.error().message});
  } else if (!kernel.default_grid()) {
    facts.findings.push_back({true, 0,
                              fmt::format("no '{0} swizzleperf:default-grid MxN' comment: the program's info says the grid is "
                                          "{1}x{2} at its default size {3}; add the line {0} swizzleperf:default-grid {1}x{2}",
                                          comment_prefix(kernel.language()), g->m, g->n, where_size)});
  } else if (kernel.default_grid()->m != g->m || kernel.default_grid()->n != g->n) {
    facts.findings.push_back(
        {true, kernel.default_grid_line(),
         fmt::format("the default-grid comment says {}x{} but the program's info says {}x{} at its default size {}: the host "
                     "mapping check would prove the wrong grid; make it {} swizzleperf:default-grid {}x{}",
                     kernel.default_grid()->m, kernel.default_grid()->n, g->m, g->n, where_size, comment_prefix(kernel.language()),
                     g->m, g->n)});
  }
  if (kernel.language() != RegionLanguage::python) {
    auto swapped = swapped_grid_finding(kernel, backend, exe, info, o);
    if (!swapped) return swapped.error();
    if (*swapped) facts.findings.push_back(std::move(**swapped));
  }
  const auto fp = info.raw.find("footprint_bytes");
  if (fp == info.raw.end() || !fp->is_number_integer() || fp->get<long long>() <= 0)
    facts.findings.push_back({true, 0, fmt::format("info reports footprint_bytes {} at {}: footprint_bytes() must return the unique "
                                                   "bytes one pass reads and writes",
                                                   fp == info.raw.end() ? std::string("(none)") : fp->dump(), where_size)});
  const auto vs = info.raw.find("verify_sizes");
  if (vs == info.raw.end() || !vs->is_array() || vs->empty()) {
    facts.findings.push_back({true, 0, "info lists no verify_sizes: verify would check nothing"});
    return facts;
  }
  const std::size_t arity = info.raw.contains("size") && info.raw["size"].is_array() ? info.raw["size"].size() : 0;
  for (const auto& size : *vs) {
    if (facts.sizes_checked >= o.max_sizes) break;
    if (!is_size(size) || (arity && size.size() != arity)) {
      facts.findings.push_back({true, 0, fmt::format("verify size {} is not {} positive integers like the default size {}",
                                                     one_line(size.dump(), 60), arity, where_size)});
      continue;
    }
    ++facts.sizes_checked;
    auto r = backend.run_program(exe, {"info", "--size", size_arg(size)}, o.run_timeout);
    if (r.process.interrupted) return interrupted_error();
    if (!r.process.success() || !r.json.is_object()) {
      facts.findings.push_back({true, 0, fmt::format("verify size {} fails the program's own checks: {}", size.dump(), r.failure("info"))});
      continue;
    }
    const ProgramInfo at = program_info_from_json(r.json);
    if (auto g = at.checked_grid(); !g)
      facts.findings.push_back({true, 0, fmt::format("at verify size {}: {}", size.dump(), g.error().message)});
    const auto f = r.json.find("footprint_bytes");
    if (f == r.json.end() || !f->is_number_integer() || f->get<long long>() <= 0)
      facts.findings.push_back({true, 0, fmt::format("at verify size {}: info reports no positive footprint_bytes", size.dump())});
  }
  return facts;
}

const char* const kVerifyOnlyNote =
    "not checked without a GPU: the CPU reference and the kernel's arithmetic (a wrong reference, a wrong result); "
    "only the program's verify on a GPU shows those (optimize runs it first)";

std::string format_finding(const std::string& file, const PortFinding& f) {
  const char* level = f.error ? "error" : "warning";
  if (f.line == 0) return fmt::format("{}: {}: {}", file, level, f.text);
  return fmt::format("{}:{}: {}: {}", file, f.line, level, f.text);
}

}  // namespace swz::cli
