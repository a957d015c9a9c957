// Templating (see the header): the scan (templating_scan.cpp) finds the literal constants; here
// each one a name tells is turned into a tunable with a range, the program is written again by
// per-line edits in one pass, and the result is read back by parse_tune_space.
#include "swizzleperf/tune/templating.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "swizzleperf/core/cuda_scan.h"
#include "swizzleperf/core/triton_scan.h"
#include "swizzleperf/util/text.h"
#include "templating_detail.h"

namespace swz {

using namespace templating_detail;

namespace {

constexpr std::int64_t kTplMaxValue = 1 << 20;  // a tile, block or group size above this is not one

bool tpl_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The proposed values for a constant of `role` at `v`, or the reason there are none.
Result<std::vector<std::int64_t>> tpl_range(const std::string& role, std::int64_t v) {
  std::vector<std::int64_t> out;
  if (role == "stages") {
    if (v < 1 || v > 8) return make_error(fmt::format("{} is not a stage count (1..8)", v));
    out = {2, 3, 4, 5, v};
  } else {
    if (!tpl_pow2(v) || v > kTplMaxValue) return make_error(fmt::format("{} is not a power of two", v));
    if (role == "warps") {
      if (v > 32) return make_error(fmt::format("{} warps is more than a block holds", v));
      out = {4, 8, v};
    } else {
      const std::int64_t top = role == "threads" ? std::min<std::int64_t>(v * 2, std::max<std::int64_t>(v, 1024)) : v * 2;
      for (std::int64_t x = std::max<std::int64_t>(1, v / 2); x <= top; x *= 2) out.push_back(x);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string tpl_values_text(const std::vector<std::int64_t>& values) {
  std::string s;
  for (auto v : values) s += (s.empty() ? "" : " ") + std::to_string(v);
  return s;
}

// Edits of one line, applied by tpl_apply.
struct TplLineEdit {
  std::vector<std::tuple<std::size_t, std::size_t, std::string>> spans;  // [b, e) -> text
  std::optional<std::size_t> cut;                                        // keep [0, cut), then suffix
  std::string suffix;
  std::vector<std::string> before, after;
};

std::string tpl_apply(const std::vector<std::string_view>& lines, std::map<std::size_t, TplLineEdit>& edits,
                      std::size_t size_hint) {
  std::string out;
  out.reserve(size_hint + 256 * edits.size());
  bool first = true;
  auto emit = [&](std::string_view l) {
    if (!first) out.push_back('\n');
    first = false;
    out.append(l);
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto it = edits.find(i);
    if (it == edits.end()) {
      emit(lines[i]);
      continue;
    }
    TplLineEdit& e = it->second;
    for (const auto& b : e.before) emit(b);
    std::string l(lines[i]);
    if (e.cut) {
      l.resize(std::min(*e.cut, l.size()));
      while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.pop_back();
      l += e.suffix;
    }
    std::sort(e.spans.begin(), e.spans.end(), [](const auto& x, const auto& y) { return std::get<0>(x) > std::get<0>(y); });
    for (const auto& [b, en, t] : e.spans)
      if (b <= en && en <= l.size()) l.replace(b, en - b, t);
    emit(l);
    for (const auto& a : e.after) emit(a);
  }
  return out;
}

}  // namespace

const char* constant_form_name(ConstantForm form) {
  static const char* const names[] = {"#define", "constexpr", "module", "launch"};
  return names[static_cast<int>(form)];
}

Result<TemplateProposal> propose_template(std::string_view text, RegionLanguage language, const std::string& name) {
  auto declared = parse_tune_space(text, language, name);
  if (!declared) return declared.error();
  std::set<std::string> taken;  // names a new tunable may not take
  for (const auto& t : declared->tunables) taken.insert(t.name);
  std::string masked_text;
  auto scan = tpl_scan(text, language, name, masked_text);
  if (!scan) return scan.error();
  const auto lines = split_lines_view(text);
  const auto masked = split_lines_view(masked_text);
  const bool py = language == RegionLanguage::python;
  const std::string cmt = py ? "  # " : "  // ";

  TemplateProposal out;
  out.skipped = scan->skipped;
  std::map<std::size_t, TplLineEdit> edits;
  std::map<std::string, std::string> tunable_of;  // constant -> its tunable, for the shared-bytes rule
  const auto plain_arrays = tpl_plain_array_sizes(masked);
  std::uint64_t points = 1;  // the space's size so far: kept within kMaxTunePoints
  auto full = [&](int line, const std::string& n) {
    out.skipped.push_back({n, line, fmt::format("more than {} tunables: tune fewer at once", kMaxTunables)});
  };
  for (const auto& k : scan->constants) {
    const std::string role = tpl_role(k.name);
    const int line = static_cast<int>(k.line + 1);
    if (role.empty()) continue;
    if (out.tunables.size() >= kMaxTunables) {
      full(line, k.name);
      continue;
    }
    if (taken.count(k.name)) {
      out.skipped.push_back({k.name, line, "already a tunable"});
      continue;
    }
    auto values = tpl_range(role, k.value);
    if (!values) {
      out.skipped.push_back({k.name, line, values.error().message});
      continue;
    }
    if (role == "tile" || role == "group")
      if (auto at = plain_arrays.find(k.name); at != plain_arrays.end()) {
        out.skipped.push_back({k.name, line, fmt::format("sizes a plain array at line {}, not only tiles: tune it by hand if it is one", at->second)});
        continue;
      }
    if (points * values->size() > kMaxTunePoints) {
      out.skipped.push_back({k.name, line, fmt::format("the space would span more than {} points: tune fewer at once", with_thousands(kMaxTunePoints))});
      continue;
    }
    const std::string tunable = k.form == ConstantForm::cpp_const ? "SWZ_T_" + k.name : k.name;
    if (k.form == ConstantForm::cpp_const && tpl_has_ident(masked_text, tunable)) {
      out.skipped.push_back({k.name, line, tunable + " is already a name in the program"});
      continue;
    }
    // A trailing comment on the line moves to its own line (the tunable comment must start
    // the line's comment); a block comment that goes on past the line stays, and so does the line.
    const std::string_view orig = lines[k.line];
    const std::size_t code_end = k.form == ConstantForm::cpp_const ? orig.size() : k.v_end;
    const std::string trailing = trim(orig.substr(code_end));
    if (trailing.find("/*") != std::string::npos && trailing.find("*/") == std::string::npos) {
      out.skipped.push_back({k.name, line, "a block comment runs on from its line: move it, then propose again"});
      continue;
    }
    if (edits.count(k.line) && k.form != ConstantForm::cpp_const) continue;
    const std::string tun_comment = cmt + "swizzleperf:tunable " + tpl_values_text(*values);
    TplLineEdit& e = edits[k.line];
    if (k.form == ConstantForm::cpp_define) {
      std::size_t prev = k.line;
      while (prev > 0 && trim(lines[prev - 1]).empty()) --prev;
      bool guarded = false;
      if (prev > 0) {
        TplCursor g{masked[prev - 1]};
        guarded = g.take('#') && g.ident() == "ifndef" && g.ident() == k.name && g.end();
      }
      e.cut = code_end;
      e.suffix = tun_comment;
      e.spans.emplace_back(k.v_begin, k.v_end, std::to_string(k.value));
      if (guarded) {
        if (!trailing.empty()) e.after.push_back(trailing);
      } else {
        if (!trailing.empty()) e.before.push_back(trailing);
        e.before.push_back("#ifndef " + k.name);
        e.after.push_back("#endif");
      }
    } else if (k.form == ConstantForm::cpp_const) {
      e.before.push_back("#ifndef " + tunable);
      e.before.push_back("#define " + tunable + " " + std::to_string(k.value) + tun_comment);
      e.before.push_back("#endif");
      e.spans.emplace_back(k.v_begin, k.v_end, tunable);
    } else {  // py_module
      e.cut = code_end;
      e.suffix = tun_comment;
      if (!trailing.empty()) e.before.push_back(trailing);
    }
    taken.insert(tunable);
    points *= values->size();
    tunable_of[k.name] = tunable;
    out.tunables.push_back({k.name, tunable, k.value, std::move(*values), k.form, role, line});
  }
  // Python: each launch keyword with a literal becomes one module constant.
  std::vector<std::string> lifted;
  for (const char* kw : {"num_warps", "num_stages"}) {
    const std::string k(kw);
    const std::string cname = k == "num_warps" ? "NUM_WARPS" : "NUM_STAGES";
    std::optional<std::int64_t> first;
    std::vector<const TplConstant*> uses;
    for (const auto& u : scan->launch_kwargs) {
      if (u.name != k) continue;
      if (!first) first = u.value;
      if (u.value == *first) uses.push_back(&u);
      else out.skipped.push_back({k, static_cast<int>(u.line + 1), fmt::format("another launch uses {}={}: one constant for both would change it", k, *first)});
    }
    if (!first) continue;
    const int line = static_cast<int>(uses.front()->line + 1);
    if (taken.count(cname) || tpl_has_ident(masked_text, cname)) {
      out.skipped.push_back({k, line, cname + " is already a name in the program: use it at the launch"});
      continue;
    }
    auto values = tpl_range(k == "num_warps" ? "warps" : "stages", *first);
    if (!values) {
      out.skipped.push_back({k, line, values.error().message});
      continue;
    }
    if (out.tunables.size() >= kMaxTunables || points * values->size() > kMaxTunePoints) {
      full(line, k);
      continue;
    }
    points *= values->size();
    for (const auto* u : uses) edits[u->line].spans.emplace_back(u->v_begin, u->v_end, cname);
    lifted.push_back(cname + " = " + std::to_string(*first) + cmt + "swizzleperf:tunable " + tpl_values_text(*values));
    taken.insert(cname);
    out.tunables.push_back({k, cname, *first, std::move(*values), ConstantForm::py_launch, k == "num_warps" ? "warps" : "stages", line});
  }
  if (out.tunables.empty()) {
    out.text = std::string(text);
    return out;
  }
  if (!py) out.shared_bytes = tpl_shared_bytes(text, masked, tunable_of);
  if (!lifted.empty() || out.shared_bytes) {
    std::vector<std::string> block;
    if (!lifted.empty()) {
      block.push_back("# Launch options lifted to module constants by swizzleperf template.");
      block.insert(block.end(), lifted.begin(), lifted.end());
    }
    if (out.shared_bytes) block.push_back("// swizzleperf:shared-bytes " + *out.shared_bytes);
    // Python: after the imports; C++: after the last proposed tunable's lines.
    std::size_t at = py ? scan->py_insert_at : 0;
    if (!py)
      for (const auto& t : out.tunables) at = std::max<std::size_t>(at, static_cast<std::size_t>(t.line));
    if (at >= lines.size()) {
      auto& e = edits[lines.size() - 1];
      e.after.insert(e.after.end(), block.begin(), block.end());
    } else if (!py && at > 0) {
      auto& e = edits[at - 1];
      e.after.insert(e.after.end(), block.begin(), block.end());
    } else {
      auto& e = edits[at];
      e.before.insert(e.before.begin(), block.begin(), block.end());
    }
  }
  out.text = tpl_apply(lines, edits, text.size());
  std::sort(out.tunables.begin(), out.tunables.end(), [](const auto& a, const auto& b) { return a.line < b.line; });

  // The template must read back as a tune space whose own point is the original values.
  auto space = parse_tune_space(out.text, language, name + " (templated)");
  if (!space) return make_error("the proposed template does not parse as a tune space: " + space.error().message);
  const auto own = space->bind(space->own_point());
  for (const auto& t : out.tunables) {
    auto it = own.find(t.tunable);
    if (it == own.end() || it->second != t.value)
      return make_error(fmt::format("the proposed template does not declare {} at {}", t.tunable, t.value));
  }
  return out;
}

Result<TuneSpace> check_template_reply(std::string_view original, std::string_view reply, RegionLanguage language,
                                       const std::string& name) {
  if (reply.size() > kMaxTemplateScanBytes)
    return make_error(fmt::format("the template is {} bytes; the limit is {}", with_thousands(reply.size()), with_thousands(kMaxTemplateScanBytes)));
  auto space = parse_tune_space(reply, language, name);
  if (!space) return make_error("its tunables do not parse: " + space.error().message);
  if (space->empty()) return make_error("it declares no swizzleperf:tunable");
  const bool orig_region = KernelSource::parse(std::string(original)).ok();
  if (orig_region) {
    auto k = KernelSource::parse(std::string(reply));
    if (!k) return make_error("its swizzle region: " + k.error().message);
  }
  auto kernels = [&](std::string_view t) {
    std::vector<std::string> names;
    if (language == RegionLanguage::python) {
      const PySource ps(t);
      for (const auto& f : ps.functions())
        if (f.jit) names.push_back(f.name);
    } else {
      for (const auto& d : find_kernels(t)) names.push_back(d.name);
    }
    return names;
  };
  const auto want = kernels(original), got = kernels(reply);
  if (want != got) {
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
      return s.empty() ? std::string("none") : one_line(s, 200);
    };
    return make_error("its kernels (" + list(got) + ") are not the program's (" + list(want) + ")");
  }
  std::string masked;
  auto scan = tpl_scan(original, language, name, masked);
  if (!scan) return scan.error();
  std::map<std::string, std::int64_t> was;
  for (const auto& c : scan->constants) was.emplace(c.name, c.value);
  for (const auto& c : scan->launch_kwargs) was.emplace(c.name == "num_warps" ? "NUM_WARPS" : "NUM_STAGES", c.value);
  for (const auto& t : space->tunables) {
    const std::string base = t.name.rfind("SWZ_T_", 0) == 0 ? t.name.substr(6) : t.name;
    for (const std::string& n : {t.name, base}) {
      auto it = was.find(n);
      if (it != was.end() && it->second != t.value)
        return make_error(fmt::format("its default {}={} is not the program's {}={}: a template at its defaults must be the program",
                                      t.name, t.value, n, it->second));
    }
  }
  return space;
}

}  // namespace swz
