// `swizzleperf init`'s rewrite (see the header). The input is scanned once
// (core/cuda_scan); the program is the input with a list of edits applied (inserts
// and small replacements at byte offsets, never overlapping), then the skeleton.
// Every byte that no edit touches is copied as it was.
#include "swizzleperf/core/kernel_init.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "swizzleperf/core/cuda_scan.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/source_edits.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace fs = std::filesystem;

static_assert(kMaxScanBytes == kMaxKernelFileBytes, "the scanner must see every byte of a kernel file init accepts");

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kHarnessFillKernel = "swz_fill_uniform_kernel";

// The end of the line holding `offset`: its CR-LF or LF, or the end of the text.
std::size_t line_end(std::string_view text, std::size_t offset) {
  const std::size_t nl = text.find('\n', offset);
  if (nl == std::string_view::npos) return text.size();
  return nl > offset && text[nl - 1] == '\r' ? nl - 1 : nl;
}

std::size_t line_begin(std::string_view text, std::size_t offset) {
  const std::size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// Text safe inside a `//` comment: one line, at most max_bytes (never cutting a UTF-8
// sequence), and no trailing backslash (which would splice the next line in).
std::string comment_safe(std::string s, std::size_t max_bytes) {
  s = comment_excerpt(std::move(s), max_bytes);
  while (!s.empty() && (s.back() == '\\' || s.back() == ' ')) s.pop_back();
  return s;
}

// A C++ string literal holding exactly s (octal escapes for anything not printable ASCII).
std::string c_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      const char oct[] = {'\\', static_cast<char>('0' + (c >> 6)), static_cast<char>('0' + ((c >> 3) & 7)),
                          static_cast<char>('0' + (c & 7))};
      out.append(oct, 4);
    }
  }
  return out + "\"";
}

// blur3x3 -> Blur3x3Program, gemm_kernel -> GemmKernelProgram (core/source_edits).
std::string class_name(const std::string& kernel, const CudaSource& src) {
  return program_class_name(kernel, [&](const std::string& name) { return !src.identifier_uses(name).empty(); });
}

// Top-level commas in code text (parentheses, brackets and braces nest): a
// declaration with one has several declarators.
bool has_top_level_comma(std::string_view code) {
  int depth = 0;
  for (char c : code) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (c == ',' && depth == 0) return true;
  }
  return false;
}

// The function definition whose body holds `offset`, or nullptr (functions() are in
// order and do not nest).
const FunctionDef* function_at(const CudaSource& src, std::size_t offset) {
  const auto& fs = src.functions();
  auto it = std::upper_bound(fs.begin(), fs.end(), offset,
                             [](std::size_t off, const FunctionDef& f) { return off < f.body_open; });
  if (it == fs.begin()) return nullptr;
  --it;
  return offset < it->body_close ? &*it : nullptr;
}

// The uses (in text order) that lie strictly inside the braces at [open, close].
std::pair<std::size_t, std::size_t> uses_inside(const std::vector<BlockUse>& uses, std::size_t open, std::size_t close) {
  auto by_begin = [](const BlockUse& u, std::size_t off) { return u.begin < off; };
  const auto b = std::lower_bound(uses.begin(), uses.end(), open + 1, by_begin);
  const auto e = std::lower_bound(b, uses.end(), close, by_begin);
  return {static_cast<std::size_t>(b - uses.begin()), static_cast<std::size_t>(e - uses.begin())};
}

// At most this many launches are copied into the skeleton's run().
constexpr std::size_t kMaxRunLaunches = 16;

int member_dims(char member) { return member == 'z' ? 3 : member == 'y' ? 2 : 1; }

}  // namespace

fs::path default_init_output(const fs::path& input) {
  return input.parent_path() / (input.stem().string() + "_swz" + input.extension().string());
}

Status check_init_input_name(const fs::path& input) {
  const auto ext = input.extension().string();
  if (ext == ".cu" || ext == ".hip" || ext == ".cuh") return ok_status();
  return make_error("init takes a .cu or .hip file (or a .cuh), or a Triton .py file: " + one_line(input.string(), 200) + " is none of these");
}

Status check_init_output_name(const fs::path& input, const fs::path& output) {
  const RegionLanguage in = language_of(input);
  if (language_of(output) == in) return ok_status();
  // The tools tell a program's language by its name: C++ written to blur.py would be run as Python.
  return make_error("-o " + one_line(output.string(), 200) + " names a " +
                    (language_of(output) == RegionLanguage::python ? "Python (Triton) program" : "C++ program") + ", but init writes a " +
                    (in == RegionLanguage::python ? "Triton program" : "C++ program") + " from " + one_line(input.filename().string(), 120) +
                    ": give -o a name ending in " + (in == RegionLanguage::python ? ".py" : ".cu or .hip") +
                    " (the tools tell a program's language by its name)");
}

Result<InitResult> make_contract_program(std::string_view text, const fs::path& input,
                                         const std::optional<std::string>& kernel, const fs::path& output_arg) {
  const std::string shown = one_line(input.string(), 200);
  if (auto st = check_init_input_name(input); !st) return st.error();
  if (!output_arg.empty())
    if (auto st = check_init_output_name(input, output_arg); !st) return st.error();
  if (text.size() > kMaxKernelFileBytes)
    return make_error(shown + " is " + with_thousands(text.size()) + " bytes; the limit is " +
                      with_thousands(kMaxKernelFileBytes) + " (a kernel file is tens of KB)");
  if (has_region_begin_line(text))
    return make_error(shown + " is already a swizzleperf program (it has a '// swizzleperf:begin' line): run swizzleperf check on it");

  const CudaSource src(text);
  std::vector<std::string> names;  // each once, in file order
  std::set<std::string> named;
  for (const auto& k : src.kernels())
    if (named.insert(k.name).second) names.push_back(k.name);
  if (names.empty())
    return make_error(shown + " has no __global__ kernel: init needs a CUDA or HIP file that defines one");
  std::string chosen;
  if (kernel) {
    if (!named.count(*kernel))
      return make_error(shown + " has no kernel named '" + one_line(*kernel, 80) + "' (its kernel" +
                        (names.size() == 1 ? ": " : "s: ") + name_list(names) + ")");
    chosen = *kernel;
  } else if (names.size() > 1) {
    return make_error(shown + " has " + std::to_string(names.size()) + " kernels (" + name_list(names) +
                      "): pick one with --kernel NAME");
  } else {
    chosen = names.front();
  }
  const std::string K = chosen;
  const std::string K_shown = one_line(K, 80);

  std::vector<const LaunchSite*> in_main, elsewhere;
  for (const auto& l : src.launches())
    if (l.kernel == K) (l.enclosing_function == "main" ? in_main : elsewhere).push_back(&l);
  if (in_main.empty() && elsewhere.empty())
    return make_error("no launch of " + K_shown + " found in " + shown + " (looked for " + K_shown +
                      "<<<grid, block>>>(...) and hipLaunchKernelGGL(" + K_shown + ", ...)): init needs one to rewrite");

  const fs::path output = output_arg.empty() ? default_init_output(input) : output_arg;
  const std::string in_name = comment_safe(input.filename().string(), 120);
  const std::string out_name = comment_safe(output.filename().string(), 120);
  const std::string eol = eol_of(text);
  SourceEdits edits;
  std::vector<std::pair<std::size_t, std::string>> warnings;  // (input line, message)
  InitResult result;
  result.kernel = K;

  // 1. The header, after a byte order mark if there is one.
  const std::size_t start = text.substr(0, 3) == kBom ? 3 : 0;
  edits.insert(start, "// swizzleperf program made by 'swizzleperf init " + in_name + "' from kernel " +
                          comment_safe(K, 120) + "." + eol +
                          "// Next: fill in each TODO marked below, then run 'swizzleperf check --strict " + out_name +
                          "' (it lists what is left)." + eol +
                          "// swizzleperf:TODO default-grid: once the sizes are filled in, 'swizzleperf check " +
                          out_name + "' prints the '// swizzleperf:default-grid MxN' line to put here" + eol);

  // 2. The harness and the identity region, after the leading include block.
  {
    const std::size_t at = src.harness_include_at();
    std::string block;
    if (at > 0 && text[at - 1] != '\n') block += eol;
    block += "#include \"swz_harness.h\"" + eol + eol + "// swizzleperf:begin" + eol +
             "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {" + eol +
             "  return pid;" + eol + "}" + eol + "// swizzleperf:end" + eol;
    if (at < text.size() && text[at] != '\n' && text[at] != '\r') block += eol;
    edits.insert(at, block);
  }

  // 3. The kernel: its parameter, its prologue, its block and grid reads.
  const auto uses = src.block_uses();
  std::map<std::size_t, std::pair<std::size_t, std::string>> todos;  // line -> (an offset on it, hint)
  auto add_param = [&](const KernelDecl& k) {
    const auto params = src.tokens_in(k.params_open + 1, k.params_close);
    auto spelled = [&](const TokenSpan& t) { return text.substr(t.begin, t.end - t.begin); };
    if (params.empty()) {
      edits.insert(k.params_open + 1, "dim3 swz_grid");
    } else if (params.size() == 1 && spelled(params[0]) == "void") {
      edits.replace(params[0].begin, 4, "dim3 swz_grid");
    } else {
      edits.insert(params.back().end, ", dim3 swz_grid");
      for (std::size_t i = 0; i < params.size(); ++i) {
        const bool eq = spelled(params[i]) == "=" &&
                        !(i + 1 < params.size() && spelled(params[i + 1]) == "=" && params[i + 1].begin == params[i].end) &&
                        !(i > 0 && params[i - 1].end == params[i].begin && std::string_view("=!<>").find(spelled(params[i - 1])) != std::string_view::npos);
        if (eq) {
          warnings.emplace_back(src.line_of(k.params_open),
                                "kernel " + K_shown + " has a parameter with a default argument: dim3 swz_grid, added last, "
                                "has none, which does not compile; give it one or drop the defaults");
          break;
        }
      }
    }
  };
  const std::string prologue =
      eol + "  const SwzBlock swz_block_idx = swz_block(swizzle_pid(blockIdx.x, gridDim.x, swz_tile_grid(swz_grid)), swz_grid);" +
      eol + "  if (swz_block_idx.z >= swz_grid.z) return;  // swizzleperf: a broken swizzle leaves this block's tile unwritten (verify reports it)";
  std::vector<const KernelDecl*> defs;
  for (const auto& k : src.kernels())
    if (k.name == K) defs.push_back(&k);
  for (const KernelDecl* k : defs) {
    add_param(*k);
    const std::size_t after = k->body_open + 1;
    const bool rest_blank = blank(text.substr(after, line_end(text, after) - after));
    edits.insert(after, rest_blank ? prologue : prologue + eol);
    const auto [ub, ue] = uses_inside(uses, k->body_open, k->body_close);
    for (std::size_t ui = ub; ui < ue; ++ui) {
      const BlockUse& u = uses[ui];
      if (u.in_swizzle_pid_call || u.allowed) continue;  // already the swizzle's input, or marked as meant
      if (u.member) {
        edits.replace(u.begin, u.end - u.begin, std::string(u.grid ? "swz_grid." : "swz_block_idx.") + u.member);
        result.grid_dims = std::max(result.grid_dims, member_dims(u.member));
      } else if (!todos.count(u.line)) {
        todos[u.line] = {u.begin, u.text + " without .x/.y/.z is not rewritten here: use swz_block_idx (blockIdx) or swz_grid "
                                  "(gridDim), which the swizzle maps"};
      }
    }
  }
  for (const auto& k : src.kernel_prototypes())
    if (k.name == K) add_param(k);

  // Helpers the kernel calls (transitively) that read blockIdx/gridDim themselves.
  {
    std::set<std::size_t> kernel_names_at;
    for (const auto& k : src.kernels()) kernel_names_at.insert(k.name_begin);
    std::unordered_map<std::string, std::vector<const FunctionDef*>> by_name;
    for (const auto& f : src.functions())
      if (!kernel_names_at.count(f.name_begin)) by_name[f.name].push_back(&f);
    std::vector<std::string> work;
    std::set<std::string> queued;
    for (const KernelDecl* k : defs)
      for (auto& c : src.calls_in(k->body_open, k->body_close))
        if (queued.insert(c).second) work.push_back(c);
    for (std::size_t w = 0; w < work.size(); ++w) {
      const auto it = by_name.find(work[w]);
      if (it == by_name.end()) continue;
      for (const FunctionDef* f : it->second) {
        const auto [ub, ue] = uses_inside(uses, f->body_open, f->body_close);
        for (std::size_t ui = ub; ui < ue; ++ui) {
          const BlockUse& u = uses[ui];
          if (u.in_swizzle_pid_call || u.allowed) continue;
          if (u.member) result.grid_dims = std::max(result.grid_dims, member_dims(u.member));
          if (!todos.count(u.line))
            todos[u.line] = {u.begin, one_line(f->name, 80) + "(), called by kernel " + K_shown + ", reads " + u.text +
                                          " directly, which bypasses the swizzle: pass swz_block_idx (and swz_grid) in from the kernel"};
        }
        for (auto& c : src.calls_in(f->body_open, f->body_close))
          if (queued.insert(c).second) work.push_back(c);
      }
    }
  }
  for (const auto& [line, todo] : todos) {
    const std::size_t end = line_end(text, todo.first);
    const bool can_mark = !src.in_literal(end) && !(end > 0 && text[end - 1] == '\\');
    if (can_mark) edits.insert(end, " // swizzleperf:TODO " + comment_safe(todo.second, 200));
    warnings.emplace_back(line, todo.second + (can_mark ? "" : " (no TODO comment added: the line ends inside a literal or with a backslash)"));
  }

  // 4. Every launch outside main: a 1-D grid, and the grid as the last argument.
  for (const LaunchSite* l : elsewhere) {
    edits.insert(l->grid_begin, "swz_flat_grid(");
    edits.insert(l->grid_end, ")");
    edits.insert(l->append_at, (l->append_comma ? ", " : "") + l->grid);
  }

  // 5. main kept for reference, out of the build.
  for (const auto& f : src.functions()) {
    if (f.name != "main") continue;
    const std::string if0 = "#if 0  // swizzleperf: the original main, kept for reference while you fill in the TODOs; delete it when done";
    const std::size_t ls = line_begin(text, f.decl_begin);
    if (blank(text.substr(ls, f.decl_begin - ls))) edits.insert(ls, if0 + eol);
    else edits.insert(f.decl_begin, eol + if0 + eol);
    const std::size_t after = f.body_close + 1;
    const bool rest_blank = blank(text.substr(after, line_end(text, after) - after));
    edits.insert(after, eol + "#endif" + (rest_blank ? "" : eol));
  }

  // Warnings for what init leaves alone.
  for (const auto& k : src.kernels()) {
    if (k.name == K) continue;
    const auto [ub, ue] = uses_inside(uses, k.body_open, k.body_close);
    for (std::size_t ui = ub; ui < ue; ++ui) {
      const BlockUse& u = uses[ui];
      if (!u.in_swizzle_pid_call && !u.allowed) {
        warnings.emplace_back(k.line, "kernel " + one_line(k.name, 80) + " reads " + u.text + " too; init ports only " +
                                          K_shown + ", so it was left as it was");
        break;
      }
    }
  }
  {
    // Where K may be named without a warning: its definitions and declarations, its
    // launches and main (kept out of the build).
    std::set<std::size_t> names_at;
    for (const auto& k : src.kernels()) names_at.insert(k.name_begin);
    for (const auto& k : src.kernel_prototypes()) names_at.insert(k.name_begin);
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // [begin, end), in order
    for (const auto& l : src.launches())
      if (l.kernel == K) spans.emplace_back(l.begin, l.end);
    for (const auto& f : src.functions())
      if (f.name == "main") spans.emplace_back(f.decl_begin, f.body_close + 1);
    std::sort(spans.begin(), spans.end());
    std::size_t reach = 0;  // running maximum of the span ends, for the binary search below
    std::vector<std::size_t> reach_at;
    for (const auto& sp : spans) reach_at.push_back(reach = std::max(reach, sp.second));
    auto inside_span = [&](std::size_t at) {
      auto it = std::upper_bound(spans.begin(), spans.end(), std::make_pair(at, kNoOffset));
      return it != spans.begin() && at < reach_at[static_cast<std::size_t>(it - spans.begin()) - 1];
    };
    std::set<std::size_t> lines;
    for (const std::size_t at : src.identifier_uses(K)) {
      const bool known = names_at.count(at) || inside_span(at);
      const std::size_t line = src.line_of(at);
      if (!known && lines.insert(line).second)
        warnings.emplace_back(line, K_shown + " is named here outside a launch init could rewrite: if this launches it, "
                                              "launch swz_flat_grid(G) blocks and pass G, the original grid, as the last argument");
    }
  }
  if (kHarnessFillKernel.find(K) != std::string_view::npos)
    warnings.emplace_back(defs.front()->line, "the profiler's kernel filter '" + K_shown +
                                                  "' also matches the harness's fill kernel swz_fill_uniform_kernel: make the "
                                                  "kernel_regex in the program's constructor longer");

  // 6. The program skeleton.
  auto chosen_launches = in_main.empty() ? elsewhere : in_main;
  if (chosen_launches.size() > kMaxRunLaunches) {
    warnings.emplace_back(chosen_launches[kMaxRunLaunches]->line,
                          "only the first " + std::to_string(kMaxRunLaunches) + " launches of " + K_shown +
                              " were copied into run(); add the others there by hand");
    chosen_launches.resize(kMaxRunLaunches);
  }
  std::vector<std::string> run_lines;
  auto add_line = [&](const std::string& line) {
    if (std::find(run_lines.begin(), run_lines.end(), line) == run_lines.end()) run_lines.push_back(line);
  };
  std::string grid_hint;
  std::set<std::string> declared;  // block variables whose declaration run() already has
  for (const LaunchSite* l : chosen_launches) {
    const FunctionDef* scope = function_at(src, l->begin);
    const std::size_t scope_begin = scope ? scope->body_open : 0;
    if (grid_hint.empty()) {
      const std::string decl = is_identifier(l->grid) ? src.local_declaration(l->grid, scope_begin, l->begin) : "";
      grid_hint = decl.empty() ? l->grid : decl;
    }
    if (is_identifier(l->block) && l->block != "grid" && !declared.count(l->block)) {
      // The block size as the original declared it (`dim3 block(16, 16);`), once.
      const std::string decl = src.local_declaration(l->block, scope_begin, l->begin);
      if (!decl.empty() && !has_top_level_comma(decl)) {
        add_line("    " + decl + ";");
        declared.insert(l->block);
      }
    }
    if (l->triple_chevron)
      add_line("    " + l->kernel_expr + "<<<swz_flat_grid(grid), " + l->block + l->rest + ">>>(" + l->args +
               (l->args.empty() ? "" : ", ") + "grid);");
    else
      add_line("    hipLaunchKernelGGL(" + l->kernel_expr + ", swz_flat_grid(grid), " + l->block + l->rest +
               (l->args.empty() ? "" : ", " + l->args) + ", grid);");
  }

  const std::string cls = class_name(K, src);
  std::string s;
  if (!text.empty() && text.back() != '\n') s += eol;
  auto L = [&](const std::string& line) { s += line + eol; };
  L("");
  L("class " + cls + " : public SwzProgram {");
  L(" public:");
  L("  " + cls + "() : SwzProgram(" + c_string(input.stem().string()) + ", " + c_string(K) + ") {}");
  L("  // swizzleperf:TODO the default problem size: the numbers the launch and the buffers depend on, e.g. {8192, 8192}");
  L("  SwzSize default_size() const override { return {}; }");
  L("  // swizzleperf:TODO the launch grid at size s, as the original code computed it: " + comment_safe(grid_hint, 200));
  L("  dim3 launch_grid(const SwzSize& s) const override { return dim3(1); }");
  L("  // swizzleperf:TODO unique bytes read plus written by one run() at size s, e.g. 8ull * s[0] * s[1] for one float in "
    "and one float out per element");
  L("  unsigned long long footprint_bytes(const SwzSize& s) const override { return 0; }");
  L("  void setup(const SwzSize& s, unsigned long long seed) override {");
  L("    size_ = s;");
  L("    SwzRng rng(seed);");
  L("    // swizzleperf:TODO allocate with swz_alloc<T>(count) and fill inputs: h_in_ = swz_random_f32_device(d_in_, count, "
    "rng) (keep host copies for reference())");
  L("  }");
  L("  void run() override {");
  L("    const dim3 grid = launch_grid(size_);");
  L("    // swizzleperf:TODO the original launch, rewritten for the 1-D grid: its arguments must be members set in setup(), "
    "and its block size the original's");
  for (const auto& line : run_lines) {
    L(line);
    if (line.find("swz_flat_grid(grid)") != std::string::npos) L("    SWZ_CHECK_LAUNCH();");  // after each launch
  }
  L("  }");
  L("  // swizzleperf:TODO the output buffer: {device pointer, element count, SwzDType::f32 (or f64, i32, u32)}");
  L("  SwzOutput output() const override { return {nullptr, 0, SwzDType::f32}; }");
  L("  // swizzleperf:TODO the CPU result in double, same element order as output(), from the host copies of the inputs");
  L("  std::vector<double> reference(const SwzSize& s) const override { return {}; }");
  L("");
  L(" private:");
  L("  SwzSize size_;");
  L("  // swizzleperf:TODO the device buffers and host copies setup() fills, e.g. float* d_in_ = nullptr; std::vector<float> h_in_;");
  L("};");
  L("");
  L("int main(int argc, char** argv) {");
  L("  " + cls + " prog;");
  L("  return swz_main(prog, argc, argv);");
  L("}");
  edits.insert(text.size(), s);

  result.text = edits.apply(text);
  result.todo_count = todo_marks(result.text).size();
  std::stable_sort(warnings.begin(), warnings.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [line, message] : warnings) result.warnings.push_back(std::to_string(line) + ": " + one_line(message));
  return result;
}

}  // namespace swz
