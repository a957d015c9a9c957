// `swizzleperf init kernel.py`'s rewrite (see the header). The input is scanned once
// (core/triton_scan); the program is the input with a list of edits applied (inserts and
// replacements at byte offsets, never overlapping), then the skeleton. Every byte no edit
// touches is copied as it was.
#include "swizzleperf/core/triton_init.h"

#include <algorithm>
#include <set>

#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/source_edits.h"
#include "swizzleperf/core/triton_scan.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTinitBom = "\xEF\xBB\xBF";

// A Python string literal holding s (UTF-8 kept; quotes, backslashes and controls escaped).
std::string tinit_py_string(std::string_view s) {
  static const char* const kHex = "0123456789abcdef";
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// Where text goes at the end of a line: before its CR-LF or LF.
std::size_t tinit_line_end(std::string_view text, const PyLine& line) {
  return line.end > line.begin && line.end <= text.size() && text[line.end - 1] == '\r' ? line.end - 1 : line.end;
}

// matmul_kernel -> MatmulKernelProgram (core/source_edits).
std::string tinit_class_name(const std::string& kernel, const PySource& src) {
  return program_class_name(kernel,
                            [&](const std::string& name) { return !src.identifier_uses(name, 0, src.text().size()).empty(); });
}

// `NAME = <rhs>` (not ==, not an augmented assignment): NAME, and the rhs's offset in `code`;
// empty when the line is not one.
std::pair<std::string, std::size_t> tinit_assignment(std::string_view code) {
  std::size_t k = 0;
  while (k < code.size() && (is_identifier(code.substr(k, 1)) || (k > 0 && code[k] >= '0' && code[k] <= '9'))) ++k;
  if (k == 0) return {};
  std::size_t e = k;
  while (e < code.size() && (code[e] == ' ' || code[e] == '\t')) ++e;
  if (e >= code.size() || code[e] != '=' || (e + 1 < code.size() && code[e + 1] == '=')) return {};
  return {std::string(code.substr(0, k)), e + 1};
}

// Whether a tile-count name means rows ('m') or columns ('n'): from the cdiv's first
// argument (M / N) or the name's last letter (num_pid_m, grid_n, tiles_m).
char tinit_grid_axis(const std::string& name, std::string_view rhs) {
  const std::size_t at = rhs.find("cdiv(");
  if (at != std::string_view::npos) {
    std::size_t k = at + 5;
    while (k < rhs.size() && rhs[k] == ' ') ++k;
    std::size_t e = k;
    while (e < rhs.size() && (is_identifier(rhs.substr(e, 1)) || (rhs[e] >= '0' && rhs[e] <= '9'))) ++e;
    const std::string_view first = rhs.substr(k, e - k);
    if (first == "M") return 'm';
    if (first == "N") return 'n';
  }
  const char last = name.empty() ? 0 : static_cast<char>(name.back() | 0x20);
  return last == 'm' || last == 'n' ? last : 0;
}

}  // namespace

Result<InitResult> make_triton_program(std::string_view text, const fs::path& input, const std::optional<std::string>& kernel,
                                       const fs::path& output_arg, const fs::path& support_dir) {
  const std::string shown = one_line(input.string(), 200);
  if (language_of(input) != RegionLanguage::python)
    return make_error("init writes a Triton program from a .py file: " + shown + " is not one");
  if (!output_arg.empty())
    if (auto st = check_init_output_name(input, output_arg); !st) return st.error();
  if (text.size() > kMaxKernelFileBytes)
    return make_error(shown + " is " + with_thousands(text.size()) + " bytes; the limit is " + with_thousands(kMaxKernelFileBytes) +
                      " (a kernel file is tens of KB)");

  const PySource src(text);
  const auto& lines = src.lines();
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (src.line_code(i).empty() && trim(text.substr(lines[i].begin, lines[i].end - lines[i].begin)).rfind("# swizzleperf:begin", 0) == 0)
      return make_error(shown + " is already a swizzleperf program (it has a '# swizzleperf:begin' line): run swizzleperf check on it");

  std::vector<const PyFunction*> jits;
  std::vector<std::string> jit_names, ported_names;
  for (const auto& f : src.functions())
    if (f.jit) {
      jits.push_back(&f);
      jit_names.push_back(f.name);
    }
  if (jits.empty())
    return make_error(shown + " has no @triton.jit kernel: init needs a Triton file that defines one (at the top level)");
  auto reads_pid0 = [&](const PyFunction& f) {
    const auto ids = src.program_ids(f);
    return std::any_of(ids.begin(), ids.end(), [](const PyProgramId& p) { return p.axis == 0; });
  };
  std::vector<const PyFunction*> candidates;
  for (const PyFunction* f : jits)
    if (reads_pid0(*f)) {
      candidates.push_back(f);
      ported_names.push_back(f->name);
    }
  const PyFunction* K = nullptr;
  if (kernel) {
    for (const PyFunction* f : jits)
      if (f->name == *kernel) K = f;
    if (!K)
      return make_error(shown + " has no @triton.jit kernel named '" + one_line(*kernel, 80) + "' (its kernel" +
                        (jits.size() == 1 ? ": " : "s: ") + name_list(jit_names) + ")");
    if (!reads_pid0(*K))
      return make_error("kernel " + one_line(*kernel, 80) + " in " + shown +
                        " does not read tl.program_id(0): init ports a kernel launched over a 1-D grid of tiles, one program each");
  } else if (candidates.empty()) {
    return make_error(shown + " has no @triton.jit kernel that reads tl.program_id(0) (its kernel" + (jits.size() == 1 ? ": " : "s: ") +
                      name_list(jit_names) + "): init ports a kernel launched over a 1-D grid of tiles, one program each");
  } else if (candidates.size() > 1) {
    return make_error(shown + " has " + std::to_string(candidates.size()) + " kernels that read tl.program_id(0) (" +
                      name_list(ported_names) + "): pick one with --kernel NAME");
  } else {
    K = candidates.front();
  }
  const std::string name = K->name;
  const std::string name_shown = one_line(name, 80);

  const fs::path output = output_arg.empty() ? default_init_output(input) : output_arg;
  const std::string in_name = comment_excerpt(input.filename().string(), 120);
  const std::string out_name = comment_excerpt(output.filename().string(), 120);
  const std::string eol = eol_of(text);
  SourceEdits edits;
  std::vector<std::pair<std::size_t, std::string>> warnings;  // (input line, message)
  InitResult result;
  result.kernel = name;
  result.grid_dims = 1;

  // 1. The header, after a byte order mark and a #! line.
  std::size_t start = text.substr(0, 3) == kTinitBom ? 3 : 0;
  if (text.substr(start, 2) == "#!") {
    const std::size_t nl = text.find('\n', start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  {
    std::string h = "# swizzleperf program made by 'swizzleperf init " + in_name + "' from Triton kernel " +
                    comment_excerpt(name, 120) + "." + eol +
                    "# Next: fill in each TODO marked below, then run 'swizzleperf check --strict " + out_name +
                    "' (it lists what is left)." + eol +
                    "# swizzleperf:TODO default-grid: the line '# swizzleperf:default-grid MxN' here, MxN being grid(default_size()); "
                    "'swizzleperf check " + out_name + "' prints it where Python has torch and triton" + eol;
    if (start > 0 && text[start - 1] != '\n') h = eol + h;
    edits.insert(start, h);
  }

  // 2. After the leading imports (and docstring, comments): what the contract needs.
  std::size_t prelude_at = start;
  std::set<std::string> top_imports;
  bool any_import = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const PyLine& l = lines[i];
    if (l.end <= start || l.blank) continue;
    const std::string code(src.line_code(i));
    const bool import = l.indent == 0 && (code.rfind("import ", 0) == 0 || code.rfind("from ", 0) == 0);
    const bool docstring = !any_import && l.indent == 0 && (code.front() == '"' || code.front() == '\'');
    if (!import && !docstring) break;
    any_import = any_import || import;
    if (import) top_imports.insert(code);
    prelude_at = l.end < text.size() ? l.end + 1 : text.size();
  }
  {
    std::string p;
    if (prelude_at > 0 && text[prelude_at - 1] != '\n') p += eol;
    if (prelude_at > start) p += eol;
    for (const char* imp : {"import os", "import sys"})
      if (!top_imports.count(imp)) p += std::string(imp) + eol;
    for (const char* imp : {"import torch", "import triton", "import triton.language as tl"})
      if (!top_imports.count(imp)) p += std::string(imp) + eol;
    p += eol;
    p += "# swz_triton.py, swizzleperf's Triton harness, for running this file directly (swizzleperf's own commands put it on "
         "sys.path themselves; $SWIZZLEPERF_SUPPORT_DIR overrides)" + eol;
    if (support_dir.empty()) {
      p += "# swizzleperf:TODO the directory holding swz_triton.py: swizzleperf's kernels/support, or share/swizzleperf/support "
           "where swizzleperf is installed" + eol;
      p += "sys.path.insert(0, os.environ.get(\"SWIZZLEPERF_SUPPORT_DIR\") or \"kernels/support\")" + eol;
    } else {
      std::error_code ec;
      fs::path out_dir = fs::absolute(output, ec).parent_path().lexically_normal();
      if (const fs::path canon = fs::weakly_canonical(out_dir, ec); !ec && !canon.empty()) out_dir = canon;
      const fs::path rel = support_dir.lexically_relative(out_dir);
      int ups = 0;
      for (const auto& part : rel)
        if (part == "..") ++ups;
      fs::path common = out_dir;
      for (int u = 0; u < ups; ++u) common = common.parent_path();
      const fs::path common_rel = common.relative_path();
      const auto common_depth = std::distance(common_rel.begin(), common_rel.end());
      // Near the file (kernels/triton beside kernels/support, one project's tree): relative, so
      // that the tree can move; else the absolute directory this binary reads.
      if (!rel.empty() && rel.is_relative() && ups <= 2 && common_depth >= 2)
        p += "sys.path.insert(0, os.environ.get(\"SWIZZLEPERF_SUPPORT_DIR\") or os.path.join(os.path.dirname(os.path.abspath(__file__)), " +
             tinit_py_string(rel.generic_string()) + "))" + eol;
      else
        p += "sys.path.insert(0, os.environ.get(\"SWIZZLEPERF_SUPPORT_DIR\") or " + tinit_py_string(support_dir.string()) + ")" + eol;
    }
    p += "from swz_triton import SwzProgram, swz_main, SWZ_NUM_DIES  # noqa: E402,F401" + eol + eol;
    p += "# swizzleperf:begin" + eol + "@triton.jit" + eol + "def swizzle_pid(pid, num_pids, grid_m, grid_n):" + eol +
         "    return pid" + eol + "# swizzleperf:end" + eol;
    // One blank line after the region, or none where the file has one already.
    const std::size_t next_nl = text.find('\n', prelude_at);
    if (next_nl == std::string_view::npos || !trim(text.substr(prelude_at, next_nl - prelude_at)).empty()) p += eol;
    edits.insert(prelude_at, p);
  }

  // 3. The kernel: its tile from the swizzle.
  const auto ids = src.program_ids(*K);
  const PyProgramId* pid = nullptr;
  for (const auto& id : ids)
    if (id.axis == 0) {
      pid = &id;
      break;
    }
  const std::size_t P = pid->line_index;
  const PyLine& pline = lines[P];
  const std::string indent(text.substr(pline.begin, [&] {
    std::size_t k = pline.begin;
    while (k < pline.end && (text[k] == ' ' || text[k] == '\t')) ++k;
    return k - pline.begin;
  }()));
  // The kernel's tile counts: its first `X = ...cdiv(...)` per axis.
  std::string gm, gn;
  std::size_t gm_at = 0, gn_at = 0;
  std::string gm_code, gn_code;
  for (std::size_t i = K->def + 1; i < K->end; ++i) {
    if (lines[i].blank) continue;
    const std::string code(src.line_code(i));
    const auto [lhs, rhs_at] = tinit_assignment(code);
    if (lhs.empty() || code.find("cdiv(", rhs_at) == std::string::npos) continue;
    const char axis = tinit_grid_axis(lhs, std::string_view(code).substr(rhs_at));
    if (axis == 'm' && gm.empty()) gm = lhs, gm_at = i, gm_code = code;
    if (axis == 'n' && gn.empty()) gn = lhs, gn_at = i, gn_code = code;
  }
  std::string group;
  for (const auto& p : K->params) {
    std::string up = p;
    for (char& c : up) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
    if (up.find("GROUP") != std::string::npos) {
      group = p;
      break;
    }
  }
  auto call = [&](const std::string& m, const std::string& n) {
    return "swizzle_pid(tl.program_id(0), tl.num_programs(0), " + m + ", " + n + ")";
  };
  std::vector<std::string> notes;  // comment lines above the tile's line, without indent
  notes.push_back("# swizzleperf: swizzle_pid gives the logical tile t, row-major over grid_m x grid_n: tile row t // grid_n, "
                  "column t % grid_n");
  if (!group.empty())
    notes.push_back("# swizzleperf:TODO " + comment_excerpt(group, 60) + ": this kernel orders its tiles itself; run() "
                    "launches it with " + comment_excerpt(group, 60) + "=1 (or delete the grouping) so that swizzle_pid's "
                    "order is the only one; then delete this line");
  auto notes_text = [&] {
    std::string s;
    for (const auto& n : notes) s += indent + n + eol;
    return s;
  };
  const std::size_t found_last = std::max(gm_at, gn_at);
  const std::string pcode(src.line_code(P));
  const auto [pname, prhs_at] = tinit_assignment(pcode);
  bool movable = !gm.empty() && !gn.empty() && found_last > P && !pname.empty();
  if (movable) {
    // The statement is exactly `NAME = <the call>`, the lines up to the tile counts are in its
    // block, and none of them reads NAME.
    movable = trim(pcode.substr(prhs_at)) == trim(text.substr(pid->begin, pid->end - pid->begin)) &&
              src.identifier_uses(pname, lines[P + 1].begin, lines[found_last].end).empty() && pname != gm && pname != gn;
    for (std::size_t i = P + 1; movable && i <= found_last; ++i)
      if (!lines[i].blank && lines[i].indent != pline.indent) movable = false;
  }
  if (!gm.empty() && !gn.empty() && found_last < P) {
    edits.insert(pline.begin, notes_text());
    edits.replace(pid->begin, pid->end - pid->begin, call(gm, gn));
  } else if (movable) {
    const std::size_t del_end = pline.end < text.size() ? pline.end + 1 : pline.end;
    edits.replace(pline.begin, del_end - pline.begin, "");
    const std::size_t after = tinit_line_end(text, lines[found_last]);
    edits.insert(after, eol + notes_text() + indent + pname + " = " + call(gm, gn) + "  # swizzleperf: was " +
                            comment_excerpt(pcode, 120) + ", above; moved below the tile counts it needs" +
                            (after < text.size() ? "" : eol));
  } else {
    const std::string m = gm.empty() ? "grid_m" : gm, n = gn.empty() ? "grid_n" : gn;
    notes.push_back("# swizzleperf:TODO " + m + " and " + n + ": the kernel's tile rows and columns (e.g. " + m +
                    " = tl.cdiv(M, BLOCK_M) and " + n + " = tl.cdiv(N, BLOCK_N)), computed before this line");
    edits.insert(pline.begin, notes_text());
    edits.replace(pid->begin, pid->end - pid->begin, call(m, n));
    warnings.emplace_back(pline.line, "grid_m and grid_n (the tile counts swizzle_pid needs) were not found before " +
                                          comment_excerpt(pcode, 80) + "; a TODO marks where they go");
  }
  // Other program ids the kernel reads.
  std::set<std::size_t> marked;
  for (const auto& id : ids) {
    if (&id == pid || marked.count(id.line_index)) continue;
    marked.insert(id.line_index);
    const std::string spelled(trim(text.substr(id.begin, id.end - id.begin)));
    const std::string why = spelled + (id.axis == 0 ? " is read again here: use the tile the swizzle gave"
                                                    : " is not the 1-D tile id init ports: a 2-D launch's axis is left to you");
    edits.insert(tinit_line_end(text, lines[id.line_index]), "  # swizzleperf:TODO " + comment_excerpt(why, 200));
    warnings.emplace_back(lines[id.line_index].line, why);
  }
  if (K->autotuned)
    warnings.emplace_back(lines[K->first].line, "kernel " + name_shown + " is autotuned: its configurations are re-benchmarked for "
                                                 "every candidate region; pick one and drop @triton.autotune for steady timings");
  for (const PyFunction* f : candidates)
    if (f != K)
      warnings.emplace_back(f->line, "kernel " + one_line(f->name, 80) + " reads tl.program_id(0) too; init ports only " +
                                         name_shown + ", so it was left as it was");

  // 4. The file's __main__ block, kept out of the run.
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].indent != 0 || lines[i].blank) continue;
    std::string sq;
    for (const char c : src.line_code(i))
      if (c != ' ' && c != '\t') sq += c;
    bool is_main = false;
    for (const char* form : {"if__name__==\"__main__\":", "if__name__=='__main__':", "if\"__main__\"==__name__:", "if'__main__'==__name__:"})
      if (sq.rfind(form, 0) == 0) is_main = true;
    const std::size_t colon = src.masked().find(':', lines[i].begin);
    if (is_main && colon < lines[i].end) {
      edits.replace(lines[i].begin, colon + 1 - lines[i].begin,
                    "if False:  # swizzleperf: the original __main__ block, kept for reference while you fill in the TODOs; "
                    "delete it when done");
    }
  }

  // 5. The skeleton: the launch on (grid_m * grid_n,) programs.
  const auto launches = src.launches(name);
  std::string launch_line, grid_hint;
  if (!launches.empty()) {
    const PyLaunch& l = launches.front();
    grid_hint = l.grid;
    if (is_identifier(l.grid)) {
      for (const auto& f : src.functions()) {
        if (f.name != l.enclosing_function) continue;
        for (std::size_t i = f.def + 1; i < f.end && lines[i].begin < l.begin; ++i) {
          const std::string code(src.line_code(i));
          if (tinit_assignment(code).first == l.grid) grid_hint = one_line(code);
        }
      }
    }
    // The arguments, the grouping set to 1.
    std::string args;
    const std::string_view masked = src.masked().substr(l.args_begin, l.args_end - l.args_begin);
    const std::string_view code = src.code().substr(l.args_begin, l.args_end - l.args_begin);
    int depth = 0;
    std::size_t piece = 0;
    std::vector<std::string> pieces;
    for (std::size_t k = 0; k <= masked.size(); ++k) {
      const char c = k < masked.size() ? masked[k] : ',';
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
      else if (c == ',' && depth <= 0) {
        std::string pc = one_line(std::string(code.substr(piece, k - piece)));
        std::string collapsed;
        for (const char ch : trim(pc)) {
          if (ch == ' ' && !collapsed.empty() && collapsed.back() == ' ') continue;
          collapsed += ch;
        }
        if (!group.empty()) {
          const auto [kw, at] = tinit_assignment(collapsed);
          if (kw == group) collapsed = group + "=1";
        }
        if (!collapsed.empty()) pieces.push_back(collapsed);
        piece = k + 1;
      }
    }
    for (const auto& pc : pieces) args += (args.empty() ? "" : ", ") + pc;
    launch_line = name + "[(grid_m * grid_n,)](" + args + ")";
    if (launches.size() > 1)
      warnings.emplace_back(launches[1].line, "only the first launch of " + name_shown + " (line " + std::to_string(l.line) +
                                                  ") was copied into run(); add the others there by hand");
  } else {
    warnings.emplace_back(K->line, "no launch " + name_shown + "[grid](...) found: run() has a TODO for it");
  }

  const std::string cls = tinit_class_name(name, src);
  std::string s;
  if (!text.empty() && text.back() != '\n') s += eol;
  auto L = [&](const std::string& line) { s += line + eol; };
  L("");
  L("");
  L("def _swz_cdiv(a, b):  # tl.cdiv on the host");
  L("    return (a + b - 1) // b");
  L("");
  L("");
  L("class " + cls + "(SwzProgram):");
  L("    def __init__(self):");
  L("        super().__init__(" + tinit_py_string(input.stem().string()) + ", " + tinit_py_string(name) + ")");
  L("        self._size = None");
  L("");
  L("    # swizzleperf:TODO the default problem size: the numbers the tensors and the launch depend on, e.g. (4096, 4096, 4096) "
    "for M, N, K");
  L("    def default_size(self):");
  L("        return ()");
  L("");
  {
    std::string how;
    if (!gm_code.empty()) how += gm_code;
    if (!gn_code.empty()) how += (how.empty() ? "" : "; ") + gn_code;
    L("    # swizzleperf:TODO the tile grid (grid_m, grid_n) at `size`, as the kernel counts its tiles" +
      (how.empty() ? std::string() : ": " + comment_excerpt(how, 200)) +
      (grid_hint.empty() ? std::string() : " (the launch's grid: " + comment_excerpt(grid_hint, 160) + ")"));
  }
  L("    def grid(self, size):");
  L("        return (1, 1)");
  L("");
  L("    # swizzleperf:TODO unique bytes one run() reads plus writes at `size`, e.g. 2 * (M * K + K * N + M * N) for fp16 A, B "
    "and C");
  L("    def footprint_bytes(self, size):");
  L("        return 0");
  L("");
  L("    # swizzleperf:TODO how many terms each output element sums (K for a GEMM, 1 elementwise): the default tolerance grows "
    "with it (or define tolerance(size))");
  L("    def reduction_length(self, size):");
  L("        return 1");
  L("");
  L("    def setup(self, size, seed):");
  L("        self._size = tuple(int(v) for v in size)");
  L("        g = torch.Generator(device=\"cuda\")");
  L("        g.manual_seed(int(seed))");
  L("        # swizzleperf:TODO the inputs (from g) and the output as members, e.g. self._a = torch.rand((M, K), generator=g, "
    "device=\"cuda\").mul_(2).sub_(1).to(torch.float16)");
  L("");
  L("    def run(self):");
  L("        grid_m, grid_n = self.grid(self._size)");
  if (!launch_line.empty()) {
    L("        # swizzleperf:TODO the names this launch reads, from setup()'s members (e.g. a, b, c = self._a, self._b, "
      "self._c); one program per tile");
    L("        " + launch_line);
  } else {
    L("        # swizzleperf:TODO launch " + comment_excerpt(name, 80) + "[(grid_m * grid_n,)](...) on setup()'s members: one "
      "program per tile");
    L("        pass");
  }
  L("");
  L("    # swizzleperf:TODO the tensor the kernel writes (a member setup() made)");
  L("    def output(self):");
  L("        return None");
  L("");
  L("    # swizzleperf:TODO the result on the CPU from the same inputs, float64, in output()'s element order (e.g. "
    "self._a.cpu().double() @ self._b.cpu().double())");
  L("    def reference(self, size):");
  L("        return None");
  L("");
  L("    # Optional (docs/kernel-contract.md §3 and §6): size_multiple(), size_max(), size_error(size), dump_tol(), and");
  L("    # info_hints(size), facts for the proposer's prompt.");
  L("");
  L("");
  L("if __name__ == \"__main__\":");
  L("    raise SystemExit(swz_main(" + cls + "()))");
  edits.insert(text.size(), s);

  result.text = edits.apply(text);
  result.todo_count = python_todo_marks(result.text).size();
  std::stable_sort(warnings.begin(), warnings.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [line, message] : warnings) result.warnings.push_back(std::to_string(line) + ": " + one_line(message));
  return result;
}

}  // namespace swz
