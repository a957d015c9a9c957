// Kernel-by-kernel comparison and its two renderings (Markdown, JUnit).
#include "swizzleperf/report/compare.h"
#include "swizzleperf/util/text.h"

#include <fmt/format.h>

#include "swizzleperf/util/text.h"

namespace swz {

namespace {

// A table cell: one line, no column break, no HTML (labels and errors may come from an LLM).
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

void judge(KernelComparison& k, const CompareThresholds& t) {
  const auto& o = *k.old_result;
  const auto& n = *k.new_result;
  if (!o.validated) {
    k.reasons.push_back("OLD has no validated kernel: nothing to regress from");
    return;
  }
  if (!n.validated) {
    k.verdict = CompareVerdict::regression;
    k.reasons.push_back("NEW has no validated kernel" + (n.error.empty() ? std::string() : ": " + n.error));
    return;
  }
  if (o.best_ms && n.best_ms && *o.best_ms > 0) {
    k.time_basis = "best_ms";
    k.slowdown = *n.best_ms / *o.best_ms - 1;
  } else if (o.speedup && n.speedup && *n.speedup > 0) {
    k.time_basis = "speedup";
    k.slowdown = *o.speedup / *n.speedup - 1;
  }
  if (k.slowdown && *k.slowdown > t.max_slowdown) {
    k.verdict = CompareVerdict::regression;
    k.reasons.push_back(k.time_basis == "best_ms"
                            ? fmt::format("best {:.1f} % slower ({:.4f} → {:.4f} ms; limit {:.1f} %)", 100 * *k.slowdown,
                                          *o.best_ms, *n.best_ms, 100 * t.max_slowdown)
                            : fmt::format("speedup fell {:.1f} % ({:.3f}x → {:.3f}x; limit {:.1f} %)", 100 * *k.slowdown,
                                          *o.speedup, *n.speedup, 100 * t.max_slowdown));
  }
  if (o.best_l2 && n.best_l2) {
    k.l2_delta = *n.best_l2 - *o.best_l2;
    if (-*k.l2_delta > t.max_l2_drop) {
      k.verdict = CompareVerdict::regression;
      k.reasons.push_back(fmt::format("best L2 hit rate fell {:.2f} points ({:.2f} → {:.2f} %; limit {:.2f})", -*k.l2_delta,
                                      *o.best_l2, *n.best_l2, t.max_l2_drop));
    }
  }
  if (!k.slowdown && !k.l2_delta) k.reasons.push_back("no time or L2 hit rate on both sides to compare");
}

}  // namespace

int Comparison::regressions() const {
  int n = 0;
  for (const auto& k : kernels) n += k.verdict == CompareVerdict::regression;
  return n;
}

int Comparison::in_both() const {
  int n = 0;
  for (const auto& k : kernels) n += k.old_result && k.new_result;
  return n;
}

Comparison compare_results(const ResultSet& old_set, const ResultSet& new_set, const CompareThresholds& t) {
  Comparison c{old_set.source, new_set.source, old_set.device, new_set.device, t, {}};
  for (const auto& o : old_set.kernels) {
    KernelComparison k;
    k.kernel = o.kernel;
    k.old_result = o;
    if (const KernelResult* n = new_set.find(o.kernel)) {
      k.new_result = *n;
      judge(k, t);
    } else {
      k.verdict = CompareVerdict::only_old;
    }
    c.kernels.push_back(std::move(k));
  }
  for (const auto& n : new_set.kernels)
    if (!old_set.find(n.kernel)) {
      KernelComparison k;
      k.kernel = n.kernel;
      k.new_result = n;
      k.verdict = CompareVerdict::only_new;
      c.kernels.push_back(std::move(k));
    }
  return c;
}

std::string render_compare_markdown(const Comparison& c) {
  int compared = 0;
  bool ci = false, sig = false, objective = false;
  for (const auto& k : c.kernels) {
    compared += k.old_result && k.new_result;
    for (const auto* r : {&k.old_result, &k.new_result})
      if (*r) {
        ci = ci || (*r)->speedup_ci_low || (*r)->speedup_ci_high;
        sig = sig || (*r)->significant.has_value();
        objective = objective || !(*r)->objective.empty();
      }
  }
  const int reg = c.regressions();
  std::string out = fmt::format("### swizzleperf compare: {}\n\n",
                                reg ? fmt::format("{} regression(s) in {} kernel(s) compared", reg, compared)
                                    : fmt::format("no regression in {} kernel(s) compared", compared));
  out += fmt::format("OLD `{}`{} · NEW `{}`{} · limits: {:.1f} % slower, {:.2f} L2 points lower\n\n", cell(c.old_source),
                     c.old_device.empty() ? "" : " (" + cell(c.old_device) + ")", cell(c.new_source),
                     c.new_device.empty() ? "" : " (" + cell(c.new_device) + ")", 100 * c.thresholds.max_slowdown,
                     c.thresholds.max_l2_drop);
  out += "| kernel | L2 hit % base → best, OLD | L2 hit % base → best, NEW | Δ best L2 (pts) | best ms OLD → NEW | Δ time | speedup OLD → NEW |";
  std::string rule = "|---|---|---|---:|---|---:|---|";
  if (ci) out += " speedup 95 % CI, NEW |", rule += "---|";
  if (sig) out += " significant, NEW |", rule += "---|";
  if (objective) out += " objective |", rule += "---|";
  out += " verdict |\n" + rule + "---|\n";
  const KernelResult none;
  for (const auto& k : c.kernels) {
    const KernelResult& o = k.old_result ? *k.old_result : none;
    const KernelResult& n = k.new_result ? *k.new_result : none;
    auto l2s = [&](const std::optional<KernelResult>& r) {
      return r ? fmt::format("{} → {}", format_or(r->baseline_l2, "–"), r->validated ? format_or(r->best_l2, "–") : "none") : std::string("–");
    };
    std::string dtime = k.slowdown ? fmt::format("{:+.1f} %{}", 100 * *k.slowdown, k.time_basis == "speedup" ? " (by speedup)" : "")
                                   : "–";
    if (k.verdict == CompareVerdict::regression && k.slowdown && *k.slowdown > c.thresholds.max_slowdown) dtime = "**" + dtime + "**";
    std::string dl2 = k.l2_delta ? fmt::format("{:+.2f}", *k.l2_delta) : "–";
    if (k.l2_delta && -*k.l2_delta > c.thresholds.max_l2_drop) dl2 = "**" + dl2 + "**";
    out += fmt::format("| {} | {} | {} | {} | {} → {} | {} | {} → {} |", cell(k.kernel), l2s(k.old_result), l2s(k.new_result), dl2,
                       format_or(o.best_ms, "–", "{:.4f}"), format_or(n.best_ms, "–", "{:.4f}"), dtime, format_or(o.speedup, "–", "{:.3f}x"),
                       format_or(n.speedup, "–", "{:.3f}x"));
    if (ci)
      out += n.speedup_ci_low || n.speedup_ci_high
                 ? fmt::format(" [{}, {}] |", format_or(n.speedup_ci_low, "–", "{:.3f}"), format_or(n.speedup_ci_high, "–", "{:.3f}"))
                 : " – |";
    if (sig) out += n.significant ? (*n.significant ? " yes |" : " no |") : " – |";
    if (objective) out += " " + cell(n.objective.empty() ? o.objective : n.objective) + " |";
    std::string verdict;
    switch (k.verdict) {
      case CompareVerdict::ok: verdict = "ok"; break;
      case CompareVerdict::regression: verdict = "**REGRESSION**: "; break;
      case CompareVerdict::only_old: verdict = "only in OLD (not compared)"; break;
      case CompareVerdict::only_new: verdict = "only in NEW (not compared)"; break;
    }
    for (std::size_t i = 0; i < k.reasons.size(); ++i)
      verdict += (i == 0 ? (k.verdict == CompareVerdict::regression ? "" : "; ") : "; ") + cell(k.reasons[i]);
    out += " " + verdict + " |\n";
  }
  int only = 0;
  for (const auto& k : c.kernels) only += k.verdict == CompareVerdict::only_old || k.verdict == CompareVerdict::only_new;
  if (only)
    out += fmt::format("\n{} kernel(s) appear in only one file: listed, not compared, not failures.\n", only);
  out += "\nΔ time: NEW's best median time over OLD's, minus 1 (positive = slower); by speedup when a file has no times.\n";
  return out;
}

JUnitSuite compare_junit(const Comparison& c) {
  JUnitSuite s{"swizzleperf compare", now_iso8601(), {}};
  for (const auto& k : c.kernels) {
    if (!k.old_result || !k.new_result) continue;
    JUnitCase jc{k.kernel, "swizzleperf.compare", 0, k.verdict == CompareVerdict::regression, "", "", "regression"};
    if (jc.failed) {
      for (const auto& r : k.reasons) jc.message += (jc.message.empty() ? "" : "; ") + r;
      jc.details = jc.message + fmt::format("\nOLD: {}\nNEW: {}", c.old_source, c.new_source);
    }
    s.cases.push_back(std::move(jc));
  }
  return s;
}

}  // namespace swz
