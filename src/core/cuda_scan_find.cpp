// The CUDA/HIP source scanner, second half: the functions, kernels and launches found
// from the tokens, and the queries (block uses, TODO marks, calls, declarations).
// How the scan works and its limits: the comment atop core/cuda_scan.cpp.
#include "swizzleperf/core/cuda_scan.h"

#include "cuda_scan_detail.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace swz {

using namespace cuda_scan_detail;

// ---- functions, kernels, launches --------------------------------------------------------------

void CudaSource::find_functions() {
  struct Open {
    std::uint32_t tok;
    bool function;
  };
  std::vector<Open> stack;
  int in_function = 0;
  for (std::uint32_t i = 0; i < toks_.size(); ++i) {
    if (punct(i, '{')) {
      bool fn = false;
      if (in_function == 0 && match_[i] != kNone) {
        const std::uint32_t name = function_name_before(i);
        if (name != kNone) {
          fn = true;
          // The declaration's first token: back over the return type, qualifiers,
          // `extern "C"` and a template clause (at most 32 tokens).
          std::uint32_t b = name;
          for (int steps = 0; steps < 32 && b > 0; ++steps) {
            const std::uint32_t p = b - 1;
            if ((ident(p) && !is_statement_word(tok(p))) || punct2(p, "::") || punct(p, '*') || punct(p, '&') ||
                toks_[p].kind == kString) {
              b = p;
              continue;
            }
            if (punct(p, '>')) {
              const std::uint32_t a = angle_open_before(p, 0);
              if (a != kNone && a > 0 && ident(a - 1)) {
                b = a - 1;
                continue;
              }
            }
            break;
          }
          FunctionDef f;
          f.name = std::string(tok(name));
          f.line = line_of(toks_[name].begin);
          f.name_begin = toks_[name].begin;
          f.decl_begin = toks_[b].begin;
          f.body_open = toks_[i].begin;
          f.body_close = toks_[match_[i]].begin;
          functions_.push_back(std::move(f));
          function_toks_.push_back({i, match_[i]});
        }
      }
      stack.push_back({i, fn});
      if (fn) ++in_function;
    } else if (punct(i, '}') && match_[i] != kNone) {
      const std::uint32_t open = match_[i];
      while (!stack.empty()) {
        const Open top = stack.back();
        stack.pop_back();
        if (top.function) --in_function;
        if (top.tok == open) break;
      }
    }
  }
}

void CudaSource::find_kernels() {
  const auto n = static_cast<std::uint32_t>(toks_.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!ident(i, "__global__")) continue;
    // Forward to the declarator's '(' (attributes stepped over). The walk stops at
    // the next __global__ and at a closer, so no token is walked twice.
    std::uint32_t name = kNone, popen = kNone;
    for (std::uint32_t j = i + 1; j < n;) {
      if (punct(j, ';') || punct(j, '{') || punct(j, '}') || punct(j, ')') || punct(j, ']') || ident(j, "__global__"))
        break;
      if (punct(j, '[') && punct(j + 1, '[') && match_[j] != kNone) {
        j = match_[j] + 1;
        continue;
      }
      if (punct(j, '(')) {
        if (match_[j] == kNone) break;
        const std::uint32_t nm = name_before_paren(j);
        if (nm != kNone && nm > i && !is_specifier_call(tok(nm))) {
          name = nm;
          popen = j;
          break;
        }
        j = match_[j] + 1;
        continue;
      }
      ++j;
    }
    if (name == kNone) continue;
    const std::uint32_t pclose = match_[popen];
    // Past the parameters: a body or the ';' of a declaration.
    std::uint32_t body = kNone;
    bool declaration = false;
    for (std::uint32_t k = pclose + 1; k < n;) {
      if (punct(k, '{')) {
        body = k;
        break;
      }
      if (punct(k, ';')) {
        declaration = true;
        break;
      }
      if (punct(k, '}') || punct(k, ')') || punct(k, ']') || ident(k, "__global__")) break;
      if ((punct(k, '(') || punct(k, '[')) && match_[k] != kNone) {
        k = match_[k] + 1;
        continue;
      }
      ++k;
    }
    if (body == kNone && !declaration) continue;
    if (body != kNone && match_[body] == kNone) continue;  // an unclosed body: not a definition
    // Back from __global__ over specifiers, attributes and `extern "C"` to a template clause.
    bool templ = false;
    std::uint32_t b = i;
    for (int steps = 0; steps < 64 && b > 0; ++steps) {
      const std::uint32_t p = b - 1;
      if (punct(p, '>')) {
        const std::uint32_t a = angle_open_before(p, 0);
        templ = a != kNone && a > 0 && ident(a - 1, "template");
        break;
      }
      if ((punct(p, ')') || punct(p, ']')) && match_[p] != kNone && match_[p] < p) {
        b = match_[p];
        continue;
      }
      if (ident(p) || toks_[p].kind == kString) {
        b = p;
        continue;
      }
      break;
    }
    KernelDecl k;
    k.name = std::string(tok(name));
    k.is_template = templ;
    k.line = line_of(toks_[name].begin);
    k.name_begin = toks_[name].begin;
    k.params_open = toks_[popen].begin;
    k.params_close = toks_[pclose].begin;
    if (body != kNone) {
      k.body_open = toks_[body].begin;
      k.body_close = toks_[match_[body]].begin;
      kernels_.push_back(std::move(k));
    } else {
      prototypes_.push_back(std::move(k));
    }
  }
}

void CudaSource::find_launches() {
  const auto n = static_cast<std::uint32_t>(toks_.size());
  auto join = [&](const std::vector<Span>& parts, std::size_t from) {
    std::string out;
    for (std::size_t p = from; p < parts.size(); ++p) {
      if (p > from) out += ", ";
      out += code_tokens(parts[p].begin, parts[p].end);
    }
    return out;
  };
  std::uint32_t floor = 0;  // backward walks stop here: no token is walked back over twice
  for (std::uint32_t i = 0; i < n; ++i) {
    if (triple(i, '<')) {
      const std::uint32_t lo = floor;
      floor = i + 3;
      if (i == 0 || i - 1 < lo) continue;
      // The kernel: a name, or a name and its template arguments, maybe qualified.
      std::uint32_t name = kNone;
      const std::uint32_t p = i - 1;
      if (ident(p)) {
        name = p;
      } else if (punct(p, '>')) {
        const std::uint32_t a = angle_open_before(p, lo);
        if (a != kNone && a > lo && ident(a - 1)) name = a - 1;
      }
      if (name == kNone) continue;
      std::uint32_t start = name;
      while (start >= lo + 2 && punct2(start - 1, "::") && ident(start - 2)) start -= 2;
      if (start >= lo + 1 && punct2(start - 1, "::")) start -= 1;
      // The configuration, up to '>>>' at depth 0; it stops at a statement's end,
      // at a closer and at another '<<<'.
      std::uint32_t k = i + 3;
      bool found = false;
      while (k < n) {
        if (triple(k, '>')) {
          found = true;
          break;
        }
        if (triple(k, '<') || punct(k, ';') || punct(k, '}') || punct(k, ')') || punct(k, ']')) break;
        if (punct(k, '(') || punct(k, '[') || punct(k, '{')) {
          if (match_[k] == kNone) break;
          k = match_[k] + 1;
          continue;
        }
        ++k;
      }
      if (!found) continue;
      const auto config = split_top(i + 3, k);
      if (config.size() < 2 || config.size() > 4 || config[0].begin >= config[0].end || config[1].begin >= config[1].end)
        continue;
      const std::uint32_t a = k + 3;
      if (!punct(a, '(') || match_[a] == kNone) continue;
      const std::uint32_t close = match_[a];
      const auto args = split_top(a + 1, close);
      LaunchSite l;
      l.kernel = std::string(tok(name));
      l.kernel_expr = code_tokens(start, i);
      l.line = line_of(toks_[start].begin);
      l.begin = toks_[start].begin;
      l.end = toks_[close].end;
      l.grid = code_tokens(config[0].begin, config[0].end);
      l.block = code_tokens(config[1].begin, config[1].end);
      l.rest = config.size() > 2 ? ", " + join(config, 2) : "";
      l.args = join(args, 0);
      l.triple_chevron = true;
      l.grid_begin = toks_[config[0].begin].begin;
      l.grid_end = toks_[config[0].end - 1].end;
      l.append_comma = close > a + 1;
      l.append_at = l.append_comma ? toks_[close - 1].end : toks_[a].end;
      l.enclosing_function = enclosing(l.begin);
      launches_.push_back(std::move(l));
      // Past the launch: a launch inside another's arguments is not real code, and
      // reading it too would copy the same text once per level of nesting.
      i = close;
      floor = close + 1;
      continue;
    }
    if (ident(i, "hipLaunchKernelGGL") && punct(i + 1, '(') && match_[i + 1] != kNone) {
      const std::uint32_t open = i + 1, close = match_[open];
      const auto parts = split_top(open + 1, close);
      bool ok = parts.size() >= 5;
      for (std::size_t p = 0; ok && p < 5; ++p) ok = parts[p].begin < parts[p].end;
      if (!ok) continue;
      // The kernel argument: `k`, `k<T, 4>`, `ns::k`, `(k)`, `HIP_KERNEL_NAME(k<T>)`.
      std::uint32_t b = parts[0].begin, e = parts[0].end;
      for (int unwrap = 0; unwrap < 4; ++unwrap) {
        if (e - b >= 2 && punct(b, '(') && match_[b] == e - 1) {
          ++b;
          --e;
        } else if (e - b >= 3 && ident(b, "HIP_KERNEL_NAME") && punct(b + 1, '(') && match_[b + 1] == e - 1) {
          b += 2;
          --e;
        }
      }
      std::uint32_t name = kNone;
      for (std::uint32_t j = b; j < e && !punct(j, '<'); ++j)
        if (ident(j)) name = j;
      if (name == kNone) continue;
      LaunchSite l;
      l.kernel = std::string(tok(name));
      l.kernel_expr = code_tokens(parts[0].begin, parts[0].end);
      l.line = line_of(toks_[i].begin);
      l.begin = toks_[i].begin;
      l.end = toks_[close].end;
      l.grid = code_tokens(parts[1].begin, parts[1].end);
      l.block = code_tokens(parts[2].begin, parts[2].end);
      l.rest = ", " + join({parts[3], parts[4]}, 0);
      l.args = join(parts, 5);
      l.triple_chevron = false;
      l.grid_begin = toks_[parts[1].begin].begin;
      l.grid_end = toks_[parts[1].end - 1].end;
      l.append_comma = true;
      l.append_at = toks_[close - 1].end;
      l.enclosing_function = enclosing(l.begin);
      launches_.push_back(std::move(l));
      i = close;  // as above: nothing inside a launch is another launch
      floor = close + 1;
    }
  }
}

void CudaSource::find_harness_point() {
  const std::size_t n = text_.size();
  const std::size_t code = toks_.empty() ? n : toks_[0].begin;
  int depth = 0;
  bool pending = false;  // the last #include seen is inside a conditional not yet closed
  std::size_t after = kNoOffset;
  for (const auto& d : directives_) {
    if (d.begin >= code) break;
    if (d.kind == kDirOpen) ++depth;
    if (d.kind == kDirClose && depth > 0) --depth;
    if (d.kind == kDirInclude) {
      pending = true;
      after = kNoOffset;
    }
    if (pending && depth == 0) {
      pending = false;
      after = d.end < n ? d.end + 1 : n;
    }
  }
  if (after != kNoOffset) {
    harness_at_ = after;
    return;
  }
  if (code >= n) {
    harness_at_ = n;
    return;
  }
  std::size_t ls = line_starts_[line_of(code) - 1];
  for (std::size_t k = ls; k < code; ++k)
    if (text_[k] != ' ' && text_[k] != '\t') {
      ls = code;
      break;
    }
  harness_at_ = ls;
}

// ---- queries ---------------------------------------------------------------------------------

std::size_t CudaSource::line_of(std::size_t offset) const {
  return static_cast<std::size_t>(std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - line_starts_.begin());
}

std::size_t CudaSource::column_of(std::size_t offset) const { return offset - line_starts_[line_of(offset) - 1] + 1; }

bool CudaSource::in_literal(std::size_t offset) const {
  const std::size_t t = token_at_or_after(offset + 1);
  if (t == 0) return false;
  const Token& tk = toks_[t - 1];
  return (tk.kind == kString || tk.kind == kChar) && offset >= tk.begin && offset < tk.end;
}

std::vector<BlockUse> CudaSource::block_uses() const {
  std::vector<char> allowed(line_starts_.size() + 2, 0);
  for (const auto& c : comments_)
    if (text_.substr(c.begin, c.end - c.begin).find("swizzleperf:allow-blockidx") != std::string_view::npos)
      allowed[line_of(c.begin)] = 1;
  std::vector<BlockUse> uses;
  std::uint32_t inside_until = 0;  // tokens before this index are inside a swizzle_pid(...) call
  const auto n = static_cast<std::uint32_t>(toks_.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!ident(i)) continue;
    const std::string_view w = tok(i);
    if (w == "swizzle_pid" && punct(i + 1, '(') && match_[i + 1] != kNone) {
      inside_until = std::max(inside_until, match_[i + 1]);
      continue;
    }
    BlockUse u;
    u.begin = toks_[i].begin;
    u.end = toks_[i].end;
    if (w == "blockIdx" || w == "gridDim") {
      if (i > 0 && (punct(i - 1, '.') || punct2(i - 1, "->"))) continue;  // a member of something else
      u.grid = w == "gridDim";
      u.text = std::string(w);
      if (punct(i + 1, '.') && ident(i + 2) && one_of(tok(i + 2), {"x", "y", "z"})) {
        u.member = tok(i + 2)[0];
        u.end = toks_[i + 2].end;
        u.text += '.';
        u.text += u.member;
      }
    } else if ((w.size() == 13 && w.substr(0, 12) == "hipBlockIdx_") || (w.size() == 12 && w.substr(0, 11) == "hipGridDim_")) {
      const char m = w.back();
      if (m != 'x' && m != 'y' && m != 'z') continue;
      u.grid = w[3] == 'G';
      u.member = m;
      u.text = std::string(w);
    } else {
      continue;
    }
    u.line = line_of(u.begin);
    u.column = column_of(u.begin);
    u.in_swizzle_pid_call = i < inside_until;
    u.allowed = allowed[u.line] != 0;
    uses.push_back(std::move(u));
  }
  return uses;
}

std::vector<SourceMark> CudaSource::todo_marks() const {
  constexpr std::string_view kMarker = "swizzleperf:TODO";
  std::vector<SourceMark> marks;
  for (const auto& c : comments_) {
    std::string_view body = text_.substr(c.begin, c.end - c.begin);
    const std::size_t at = body.find(kMarker);
    if (at == std::string_view::npos) continue;
    const bool block = body.substr(0, 2) == "/*";
    if (block && body.size() >= 4 && body.substr(body.size() - 2) == "*/") body.remove_suffix(2);
    std::string t(body.substr(at + kMarker.size()));
    for (char& ch : t)
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = ' ';
    std::size_t b = 0, e = t.size();
    while (b < e && t[b] == ' ') ++b;
    while (e > b && t[e - 1] == ' ') --e;
    if (e - b > 160) {
      e = b + 160;
      // Never cut a UTF-8 sequence in two.
      while (e > b && (static_cast<unsigned char>(t[e]) & 0xC0) == 0x80) --e;
      while (e > b && t[e - 1] == ' ') --e;
    }
    marks.push_back({line_of(c.begin + at), t.substr(b, e - b)});
  }
  return marks;
}

std::vector<std::string> CudaSource::calls_in(std::size_t begin, std::size_t end) const {
  std::vector<std::string> names;
  std::unordered_set<std::string_view> seen;
  const auto n = static_cast<std::uint32_t>(toks_.size());
  for (auto t = static_cast<std::uint32_t>(token_at_or_after(begin)); t < n && toks_[t].end <= end; ++t) {
    if (!ident(t) || (t > 0 && (punct(t - 1, '.') || punct2(t - 1, "->")))) continue;
    bool call = punct(t + 1, '(');
    if (!call && punct(t + 1, '<')) {
      const std::uint32_t close = template_close_after(t + 1, n);
      call = close != kNone && punct(close + 1, '(');
    }
    const std::string_view w = tok(t);
    if (!call || is_control(w) || is_specifier_call(w)) continue;
    if (seen.insert(w).second) names.emplace_back(w);
  }
  return names;
}

std::vector<std::size_t> CudaSource::identifier_uses(std::string_view name) const {
  std::vector<std::size_t> at;
  for (std::size_t t = 0; t < toks_.size(); ++t)
    if (ident(t, name)) at.push_back(toks_[t].begin);
  return at;
}

std::vector<TokenSpan> CudaSource::tokens_in(std::size_t begin, std::size_t end) const {
  std::vector<TokenSpan> spans;
  for (std::size_t t = token_at_or_after(begin); t < toks_.size() && toks_[t].end <= end; ++t)
    spans.push_back({toks_[t].begin, toks_[t].end});
  return spans;
}

std::string CudaSource::code_text(std::size_t begin, std::size_t end) const {
  const auto b = static_cast<std::uint32_t>(token_at_or_after(begin));
  auto e = b;
  while (e < toks_.size() && toks_[e].end <= end) ++e;
  return code_tokens(b, e);
}

std::string CudaSource::local_declaration(std::string_view name, std::size_t scope_begin, std::size_t before) const {
  const auto t0 = static_cast<std::uint32_t>(token_at_or_after(scope_begin));
  const auto t1 = static_cast<std::uint32_t>(token_at_or_after(before));
  // A declarator's end: the ';' of its statement, or the ',' that starts the next
  // declarator (`, NAME(`, `, NAME{`, `, NAME =`, `, NAME,`, `, NAME;`), at depth 0 and at
  // most 256 tokens on; kNone when neither comes.
  auto declarator_end = [&](std::uint32_t d) -> std::uint32_t {
    std::uint32_t e = d + 1;
    for (int steps = 0; steps < 256 && e < t1; ++steps) {
      if (punct(e, ';')) return e;
      if (punct(e, ',') && ident(e + 1) &&
          (punct(e + 2, '(') || punct(e + 2, '{') || (punct(e + 2, '=') && !punct(e + 3, '=')) || punct(e + 2, ',') ||
           punct(e + 2, ';')))
        return e;
      if ((punct(e, '(') || punct(e, '[') || punct(e, '{')) && match_[e] != kNone && match_[e] > e) {
        e = match_[e] + 1;
        continue;
      }
      if (punct(e, '}') || punct(e, ')') || punct(e, ']')) break;
      ++e;
    }
    return kNone;
  };
  // For a later declarator (`dim3 block(16, 16), grid(...)`: `grid` after a ','), the
  // statement's first declarator name, whose type both share: back at depth 0 to the
  // statement's start, then forward to the first name followed by '(', '{', '=' or ',';
  // kNone when the statement is not of that shape.
  auto first_declarator = [&](std::uint32_t comma) -> std::uint32_t {
    std::uint32_t j = comma;
    for (int steps = 0; steps < 256 && j > t0 + 1; ++steps) {
      const std::uint32_t p = j - 1;
      if (punct(p, ';') || punct(p, '{')) break;
      if ((punct(p, ')') || punct(p, ']') || punct(p, '}')) && match_[p] != kNone && match_[p] < p) {
        // A brace initializer (`block{16, 16}`) belongs to the statement; a block's '}' ends an earlier one.
        if (punct(p, '}') && !(match_[p] > 0 && (ident(match_[p] - 1) || punct(match_[p] - 1, '=') || punct(match_[p] - 1, ','))))
          break;
        j = match_[p];
        continue;
      }
      j = p;
    }
    for (std::uint32_t k = j; k + 1 < comma; ++k) {
      if (punct(k + 1, '(') || punct(k + 1, '{') || punct(k + 1, '=') || punct(k + 1, ','))
        return ident(k) ? k : kNone;
      if (punct(k + 1, '<') || punct(k + 1, '>') || punct2(k + 1, "::") || ident(k + 1)) continue;
      return kNone;
    }
    return kNone;
  };
  std::string found;
  for (std::uint32_t t = t0 + 1; t < t1; ++t) {
    if (!ident(t, name)) continue;
    const bool opens = punct(t + 1, '(') || punct(t + 1, '{') || (punct(t + 1, '=') && !punct(t + 2, '='));
    if (!opens) continue;
    // The name whose type comes right before it: this one, or the statement's first.
    const std::uint32_t first = punct(t - 1, ',') ? first_declarator(t - 1) : t;
    if (first == kNone || first <= t0) continue;
    const bool typed = (ident(first - 1) && !is_statement_word(tok(first - 1))) || punct(first - 1, '>');
    if (!typed) continue;
    // The statement's start: back over the type (words, '::', template arguments).
    std::uint32_t s = first - 1;
    for (int steps = 0; steps < 16 && s > t0; ++steps) {
      if (punct(s, '>')) {
        const std::uint32_t a = angle_open_before(s, t0);
        if (a == kNone || a == 0 || !ident(a - 1)) break;
        s = a - 1;
        continue;
      }
      if (ident(s - 1) || punct2(s - 1, "::")) {
        --s;
        continue;
      }
      break;
    }
    if (s > 0 && !(punct(s - 1, ';') || punct(s - 1, '{') || punct(s - 1, '}'))) continue;
    const std::uint32_t e = declarator_end(t);
    if (e == kNone) continue;
    // `TYPE NAME...` for the first declarator; the shared type, then this one, for a later one.
    found = first == t ? code_tokens(s, e) : code_tokens(s, first) + " " + code_tokens(t, e);
  }
  return found;
}

// ---- free functions --------------------------------------------------------------------------

std::vector<KernelDecl> find_kernels(std::string_view text) { return CudaSource(text).kernels(); }

std::vector<LaunchSite> find_launches(std::string_view text) { return CudaSource(text).launches(); }

std::vector<SourceUse> unswizzled_block_uses(std::string_view text) {
  std::vector<SourceUse> out;
  for (auto& u : CudaSource(text).block_uses())
    if (!u.in_swizzle_pid_call && !u.allowed) out.push_back({u.line, u.column, std::move(u.text)});
  return out;
}

std::vector<SourceMark> todo_marks(std::string_view text) { return CudaSource(text).todo_marks(); }

SourceUse first_cuda_runtime_use(std::string_view text) {
  const CudaSource src(text);
  SourceUse first;
  // #include lines naming a cuda header (directives are not tokens: a line scan, bounded
  // by the text; a line inside a string literal is not a directive).
  std::size_t at = 0, line = 1;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::size_t i = at;
    while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < end && text[i] == '#' && !src.in_literal(i)) {
      ++i;
      while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
      const std::string_view rest = text.substr(i, end - i);
      if (rest.substr(0, 7) == "include") {
        const std::size_t q = rest.find_first_of("<\"", 7);
        if (q != std::string_view::npos && rest.substr(q + 1, 4) == "cuda") {
          first = {line, i + 1 - at, std::string(rest.substr(0, std::min<std::size_t>(rest.size(), 80)))};
          break;
        }
      }
    }
    at = end + 1;
    ++line;
  }
  for (const auto& t : src.tokens_in(0, text.size())) {
    const std::string_view w = text.substr(t.begin, t.end - t.begin);
    if (w.size() > 4 && w.substr(0, 4) == "cuda" && ((w[4] >= 'A' && w[4] <= 'Z') || w[4] == '_')) {
      const std::size_t l = src.line_of(t.begin);
      if (first.line == 0 || l < first.line) first = {l, src.column_of(t.begin), std::string(w)};
      break;
    }
  }
  return first;
}

}  // namespace swz
