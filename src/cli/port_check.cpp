#include "swizzleperf/cli/port_check.h"

#include <fmt/format.h>

#include <chrono>

#include "swizzleperf/core/cuda_scan.h"
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

}  // namespace

std::vector<PortFinding> source_findings(const KernelSource& kernel, bool strict) {
  if (kernel.language() == RegionLanguage::python) return triton_findings(kernel, strict);
  std::vector<PortFinding> out;
  for (const auto& m : todo_marks(kernel.text()))
    out.push_back({true, m.line, "swizzleperf:TODO left" + (m.text.empty() ? std::string() : ": " + m.text)});
  for (const auto& u : unswizzled_block_uses(kernel.text()))
    out.push_back({strict, u.line,
                   fmt::format("{} does not go through swizzle_pid: this block index bypasses the swizzle, so a "
                               "reordered launch computes the wrong blocks (use the swizzled one, {}, "
                               "or mark a use that is not the block order with // swizzleperf:allow-blockidx)",
                               u.text, swizzled_spelling(u.text))});
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

std::string format_finding(const std::string& file, const PortFinding& f) {
  const char* level = f.error ? "error" : "warning";
  if (f.line == 0) return fmt::format("{}: {}: {}", file, level, f.text);
  return fmt::format("{}:{}: {}: {}", file, f.line, level, f.text);
}

}  // namespace swz::cli
