// The CUDA/HIP source scanner's launch queries for `check` (cli/port_check): which size
// value bounds a kernel's x and y block index (launch_axis_sizes, traced from the kernel's
// guard through run()'s argument to setup()'s s[i]; -1 rather than a guess), and the 2-D/3-D
// launches a port left on its run() path (unflattened_launches). Token walks over one
// CudaSource, bounded by the text; the scan itself: the comment atop core/cuda_scan.cpp.
#include "swizzleperf/core/cuda_scan.h"

#include "cuda_scan_detail.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace swz {

namespace {
// `word` as a whole identifier in code text.
bool names_identifier(std::string_view code, std::string_view word) {
  const auto is_ident = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
  for (std::size_t at = code.find(word); at != std::string_view::npos; at = code.find(word, at + 1))
    if ((at == 0 || !is_ident(code[at - 1])) && (at + word.size() >= code.size() || !is_ident(code[at + word.size()])))
      return true;
  return false;
}
}  // namespace

namespace {
using Words = std::vector<std::string_view>;

Words words_in(const CudaSource& src, std::size_t begin, std::size_t end) {
  Words w;
  for (const auto& t : src.tokens_in(begin, end)) w.push_back(src.text().substr(t.begin, t.end - t.begin));
  return w;
}

bool word_is_ident(std::string_view w) { return !w.empty() && cuda_scan_detail::ident_start(static_cast<unsigned char>(w[0])); }
bool word_is_int(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return cuda_scan_detail::is_digit(static_cast<unsigned char>(c)); });
}

// Pieces of `w` split at commas outside brackets.
std::vector<Words> split_at_commas(const Words& w) {
  std::vector<Words> out(1);
  int depth = 0;
  for (auto x : w) {
    if (x == "(" || x == "[" || x == "{") ++depth;
    if (x == ")" || x == "]" || x == "}") --depth;
    if (x == "," && depth == 0) {
      out.emplace_back();
      continue;
    }
    out.back().push_back(x);
  }
  return out;
}

// `s [ 1 ]` -> 1; else -1.
int size_index_of(const Words& w, std::size_t at) {
  if (at + 3 < w.size() + 0 && word_is_ident(w[at]) && w[at + 1] == "[" && word_is_int(w[at + 2]) && w[at + 3] == "]" &&
      w[at + 2].size() < 3)
    return std::stoi(std::string(w[at + 2]));
  return -1;
}

// In a kernel body: the parameter that bounds the local assigned from `swz_block_idx.<axis>`.
std::string axis_bound(const Words& body, std::string_view axis, const std::vector<std::string_view>& params) {
  std::size_t i = 0;
  while (i + 2 < body.size() && !(body[i] == "swz_block_idx" && body[i + 1] == "." && body[i + 2] == axis)) ++i;
  if (i + 2 >= body.size()) return {};
  // Back to the '=' of its statement: `int x = swz_block_idx.x * 16 + threadIdx.x`.
  std::string_view var;
  for (std::size_t j = i; j-- > 1;) {
    const auto t = body[j];
    if (t == ";" || t == "{" || t == "}") break;
    if (t == "=" && body[j + 1] != "=" && word_is_ident(body[j - 1])) {
      var = body[j - 1];
      break;
    }
  }
  if (var.empty()) return {};
  const auto delimiter = [](std::string_view t) {
    return t == "(" || t == ")" || t == "&" || t == "|" || t == "?" || t == ";" || t == "," || t == "{" || t == "}" || t == "!";
  };
  // The first comparison `... var ... < P` / `>= P` / ... after it, P a parameter.
  for (std::size_t c = i + 3; c + 1 < body.size(); ++c) {
    if (body[c] != "<" && body[c] != ">") continue;
    if (body[c + 1] == body[c] || body[c - 1] == body[c] || body[c - 1] == "-") continue;  // << >> ->
    const std::size_t r = body[c + 1] == "=" ? c + 2 : c + 1;
    if (r + 1 >= body.size() || !word_is_ident(body[r]) || !delimiter(body[r + 1])) continue;
    bool has_var = false;
    for (std::size_t j = c; j-- > 0 && !delimiter(body[j]);) has_var = has_var || body[j] == var;
    if (has_var && std::find(params.begin(), params.end(), body[r]) != params.end()) return std::string(body[r]);
  }
  return {};
}
}  // namespace

LaunchAxisSizes launch_axis_sizes(std::string_view text) {
  const CudaSource src(text);
  LaunchAxisSizes out, none;
  const auto& fns = src.functions();
  const auto fn = [&](std::string_view name) -> const FunctionDef* {
    for (const auto& f : fns)
      if (f.name == name) return &f;
    return nullptr;
  };
  const FunctionDef *lg = fn("launch_grid"), *run = fn("run"), *setup = fn("setup");
  if (!lg || !run || !setup) return none;
  out.launch_grid_line = lg->line;
  std::unordered_map<std::string_view, const KernelDecl*> kernels;
  for (const auto& k : src.kernels()) kernels.emplace(k.name, &k);
  const LaunchSite* launch = nullptr;
  const KernelDecl* kernel = nullptr;
  for (const auto& l : src.launches())
    if (run->body_open < l.begin && l.begin < run->body_close)
      if (const auto k = kernels.find(l.kernel); k != kernels.end()) {
        launch = &l, kernel = k->second;
        break;
      }
  if (!launch) return none;
  out.kernel = kernel->name;
  std::vector<std::string_view> params;
  for (const auto& p : split_at_commas(words_in(src, kernel->params_open + 1, kernel->params_close)))
    params.push_back(p.empty() ? std::string_view() : p.back());
  const Words body = words_in(src, kernel->body_open, kernel->body_close);
  const CudaSource args_src(launch->args);
  const auto args = split_at_commas(words_in(args_src, 0, launch->args.size()));
  const Words setup_body = words_in(src, setup->body_open, setup->body_close);
  const auto size_value = [&](const std::string& bound) -> int {
    const auto p = std::find(params.begin(), params.end(), bound);
    if (bound.empty() || p == params.end() || static_cast<std::size_t>(p - params.begin()) >= args.size()) return -1;
    const Words& arg = args[p - params.begin()];
    if (arg.size() == 4) return size_index_of(arg, 0);  // s[0], size_[1]
    if (arg.size() != 1 || !word_is_ident(arg[0])) return -1;
    // setup(): `w = static_cast<int>(s[0])`, up to the ';' or ',' that ends it.
    for (std::size_t q = 1; q + 2 < setup_body.size(); ++q) {
      if (setup_body[q] != arg[0] || setup_body[q + 1] != "=" || setup_body[q + 2] == "=" || setup_body[q - 1] == "." ||
          setup_body[q - 1] == "->")
        continue;
      int depth = 0;
      for (std::size_t e = q + 2; e < setup_body.size(); ++e) {
        const auto t = setup_body[e];
        if (t == "(" || t == "[") ++depth;
        if (t == ")" || t == "]") --depth;
        if (t == ";" || t == "}" || (t == "," && depth == 0) || depth < 0) break;
        if (const int i = size_index_of(setup_body, e); i >= 0) return i;
      }
      return -1;
    }
    return -1;
  };
  out.x_bound = axis_bound(body, "x", params);
  out.y_bound = axis_bound(body, "y", params);
  out.x = size_value(out.x_bound);
  out.y = size_value(out.y_bound);
  if (out.x < 0 || out.y < 0 || out.x == out.y) return none;
  return out;
}

std::vector<LaunchSite> unflattened_launches(std::string_view text) {
  const CudaSource src(text);
  std::vector<LaunchSite> out;
  const auto& fns = src.functions();
  if (std::none_of(fns.begin(), fns.end(), [](const FunctionDef& f) { return f.name == "launch_grid"; })) return out;
  // The launch path: run() and the functions it calls (a launch wrapper).
  std::unordered_set<std::string> path;
  for (const auto& f : fns)
    if (f.name == "run") {
      path.insert("run");
      for (auto& c : src.calls_in(f.body_open, f.body_close)) path.insert(std::move(c));
    }
  // Launches and functions are both in file order: one forward walk finds each launch's
  // function. At most 64 launches of the path are looked at (a real run() has a few).
  std::size_t fi = 0, looked = 0;
  for (const auto& l : src.launches()) {
    if (!path.count(l.enclosing_function)) continue;
    if (++looked > 64) break;
    if (names_identifier(l.grid, "swz_flat_grid")) continue;
    while (fi < fns.size() && fns[fi].body_close < l.begin) ++fi;
    // `k<<<flat, block>>>` with `const dim3 flat = swz_flat_grid(grid);` before it.
    if (fi < fns.size() && fns[fi].body_open < l.begin &&
        names_identifier(src.local_declaration(l.grid, fns[fi].body_open, l.begin), "swz_flat_grid"))
      continue;
    out.push_back(l);
  }
  return out;
}

}  // namespace swz
