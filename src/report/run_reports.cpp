#include "swizzleperf/report/run_reports.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "swizzleperf/report/html_report.h"
#include "swizzleperf/report/report.h"
#include "swizzleperf/util/file_io.h"

namespace swz {

namespace {

std::string fmt_pct(const std::optional<Metrics>& m) {
  return m && m->l2_hit_pct ? fmt::format("{:.2f}%", *m->l2_hit_pct) : "n/a";
}

}  // namespace

Status RunReportWriter::on_attempt(const RunHistory& history, const Attempt&) {
  return write_file_atomic(run_dir_ / "report.html", render_run_html(history));
}

Status RunReportWriter::on_finish(const OptimizeSummary& summary) {
  if (auto st = write_file_atomic(run_dir_ / "report.md", render_report_markdown(summary)); !st) return st;
  return write_file_atomic(run_dir_ / "report.html", render_run_html(summary.history));
}

Status ConsoleProgress::on_baseline(const RunHistory& h) {
  if (!h.baseline) return ok_status();
  spdlog::info("baseline: L2 hit {}, median {:.4f} ms", fmt_pct(h.baseline->metrics),
               h.baseline->timing ? h.baseline->timing->median_ms : 0.0);
  return ok_status();
}

Status ConsoleProgress::on_attempt(const RunHistory& h, const Attempt& a) {
  const int counted = h.counted_attempts();
  const int budget = h.config.iterations;
  const auto& base = h.baseline;
  const double base_l2 = base && base->metrics && base->metrics->l2_hit_pct ? *base->metrics->l2_hit_pct : 0;
  if (a.validated()) {
    // Re-checked: each regime's interval; else the one-shot ratio and its regime.
    std::string speed;
    for (const auto& v : regime_views(a)) speed += (speed.empty() ? "" : "; ") + regime_text(v);
    if (speed.empty())
      speed = fmt::format("{:.3f}x, one-shot{}", a.speedup.value_or(0), a.speedup_regime == Regime::unnamed ? "" : " " + regime_label(a.speedup_regime));
    spdlog::info("[{}/{}] {}: L2 hit {} ({:+.2f} pts), {:.4f} ms ({})", counted, budget, a.label, fmt_pct(a.metrics),
                 a.metrics && a.metrics->l2_hit_pct ? *a.metrics->l2_hit_pct - base_l2 : 0.0,
                 a.timing ? a.timing->median_ms : 0.0, speed);
  }
  else
    spdlog::info("[{}/{}] {}: {} — {}", counted, budget, a.label.empty() ? "(no proposal)" : a.label,
                 to_string(a.status), a.reason);
  return ok_status();
}

Status ConsoleProgress::on_judged(const RunHistory& h) {
  if (h.judge && !h.judge->why_none.empty()) spdlog::info("speed judge: no finalist ({})", h.judge->why_none);
  for (const auto& a : h.attempts) {
    const auto views = regime_views(a);
    if (views.empty()) continue;
    std::string speed;
    for (const auto& v : views) speed += (speed.empty() ? "" : "; ") + regime_text(v);
    spdlog::info("judged {}: {}", a.label, speed);
  }
  return ok_status();
}

Status ConsoleProgress::on_finish(const OptimizeSummary& s) {
  if (!s.history.stopped_because.empty()) spdlog::info("stopped: {}", s.history.stopped_because);
  return ok_status();
}

}  // namespace swz
