// report.html rendering. Layout constants are in pixels of the SVG user space;
// every number shown is formatted here, every string escaped with xml_escape
// (valid for HTML text and attributes, and it repairs invalid UTF-8).
#include "swizzleperf/report/html_report.h"
#include "swizzleperf/util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/util/junit.h"
#include "swizzleperf/core/tile_map.h"
#include "swizzleperf/report/report.h"

namespace swz {

namespace {

std::string esc(std::string_view s) { return xml_escape(s); }

std::optional<double> l2_of(const Attempt& a) { return a.metrics ? a.metrics->l2_hit_pct : std::nullopt; }
std::optional<double> ms_of(const Attempt& a) { return a.timing ? std::optional<double>(a.timing->median_ms) : std::nullopt; }

constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px 32px;color:#1d232a;background:#fff;max-width:1200px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d6dbe1;padding-bottom:4px}
.meta{color:#56606b;font-size:13px;margin:0 0 14px}.meta code{font-size:12px}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #d6dbe1;border-radius:6px;padding:10px 14px;min-width:150px}
.card .k{font-size:12px;color:#56606b}.card .v{font-size:20px;font-weight:600;margin-top:2px}
table{border-collapse:collapse;font-size:13px;width:100%}th,td{border-bottom:1px solid #e3e7ec;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f8}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.best td{background:#eaf5ea}.st-ok{color:#2e7d32}.st-bad{color:#c62828}.st-dup{color:#6b7480}
td.note{max-width:460px;word-break:break-word;color:#3c454f}
pre{background:#f6f8fa;border:1px solid #e3e7ec;padding:10px;overflow:auto;font-size:12px}
.caption{font-size:12px;color:#56606b;margin:4px 0 0}svg{display:block;max-width:100%;height:auto}
svg text{font-family:inherit}
)";

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         esc(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
}

std::string die_colour(int d) {
  static const char* palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948", "#9c755f"};
  if (d >= 0 && d < 8) return palette[d];
  return fmt::format("hsl({},55%,50%)", (d * 137) % 360);
}

// Viridis-like ramp for the execution order: t in [0,1], first = dark purple.
std::string order_colour(double t) {
  static const double stops[][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  auto c = [&](int k) { return static_cast<int>(std::lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]))); };
  return fmt::format("#{:02x}{:02x}{:02x}", c(0), c(1), c(2));
}

std::string text(double x, double y, const std::string& s, const std::string& attrs = "") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}>{}</text>", x, y, attrs.empty() ? "" : " " + attrs, esc(s));
}

std::string short_status(AttemptStatus s) {
  switch (s) {
    case AttemptStatus::ok: return "ok";
    case AttemptStatus::proposal_failed: return "proposal";
    case AttemptStatus::rejected_mapping: return "mapping";
    case AttemptStatus::rejected_region: return "region";
    case AttemptStatus::duplicate: return "dup";
    case AttemptStatus::build_failed: return "build";
    case AttemptStatus::validation_failed: return "invalid";
    case AttemptStatus::run_failed: return "run";
    case AttemptStatus::profile_failed: return "profile";
  }
  return "?";
}

// ---- progression plot ---------------------------------------------------

struct Axis {
  double lo, hi, top, bottom;
  double y(double v) const { return bottom - (v - lo) / (hi - lo) * (bottom - top); }
};

std::string y_axis(const Axis& a, double left, double right, const char* f, const std::string& label, int ticks = 5) {
  std::string s;
  for (int i = 0; i <= ticks; ++i) {
    const double v = a.lo + (a.hi - a.lo) * i / ticks;
    const double y = a.y(v);
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e7ec\"/>", left, y, right, y);
    s += text(left - 6, y + 4, fmt::format(fmt::runtime(f), v), "text-anchor=\"end\" font-size=\"11\" fill=\"#56606b\"");
  }
  s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" fill=\"#1d232a\">{}</text>",
                   left - 46, (a.top + a.bottom) / 2, esc(label));
  return s;
}

// The best-so-far line follows the run's objective, as RunHistory::best() does
// (eligible_for_best, better_attempt): under `time` only significantly faster attempts
// count, ranked by speedup.
std::string best_so_far_legend(Objective objective) {
  if (objective == Objective::energy) return "best so far (lowest significant energy per run)";
  return objective == Objective::time ? "best so far (largest significant speedup)" : "best so far (L2 hit rate, then time)";
}

std::string progression_svg(const RunHistory& h) {
  const Objective objective = h.objective();
  const double W = 1100, left = 70, right = W - 30;
  int max_iter = 1;
  for (const auto& a : h.attempts) max_iter = std::max(max_iter, a.iteration);
  auto x = [&](int i) { return left + 20 + (right - left - 40) * i / static_cast<double>(max_iter); };
  // Ranges from the data, with a margin.
  double l2_lo = 100, l2_hi = 0, sp_lo = 1, sp_hi = 1;
  auto widen = [&](const Attempt& a) {
    if (auto v = l2_of(a)) l2_lo = std::min(l2_lo, *v), l2_hi = std::max(l2_hi, *v);
    if (a.speedup) sp_lo = std::min(sp_lo, *a.speedup), sp_hi = std::max(sp_hi, *a.speedup);
  };
  if (h.baseline) widen(*h.baseline);
  for (const auto& a : h.attempts) widen(a);
  if (l2_lo > l2_hi) l2_lo = 0, l2_hi = 100;
  l2_lo = std::max(0.0, std::floor((l2_lo - 5) / 10) * 10);
  l2_hi = std::min(100.0, std::ceil((l2_hi + 5) / 10) * 10);
  if (l2_hi <= l2_lo) l2_hi = l2_lo + 10;
  const double sp_pad = std::max(0.02, (sp_hi - sp_lo) * 0.15);
  sp_lo = std::max(0.0, sp_lo - sp_pad);
  sp_hi += sp_pad;
  const Axis l2{l2_lo, l2_hi, 50, 250};
  const Axis sp{sp_lo, sp_hi, 330, 470};
  const double lane = 290;  // failed attempts are marked on this line
  std::string s = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} 520\" width=\"{:.0f}\" height=\"520\" role=\"img\" aria-label=\"progression plot\">\n", W, W);
  s += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>";
  // Legend.
  s += "<g font-size=\"12\">";
  s += "<circle cx=\"80\" cy=\"20\" r=\"5\" fill=\"#4e79a7\"/>" + text(90, 24, "validated attempt");
  s += "<line x1=\"210\" y1=\"20\" x2=\"240\" y2=\"20\" stroke=\"#2e7d32\" stroke-width=\"2.5\"/>" + text(246, 24, best_so_far_legend(objective));
  // Room for the longer of the two best-so-far legends (about 42 characters).
  s += "<line x1=\"540\" y1=\"20\" x2=\"570\" y2=\"20\" stroke=\"#1d232a\" stroke-dasharray=\"5 4\"/>" + text(576, 24, "baseline");
  s += "<path d=\"M 650 15 l 10 10 m 0 -10 l -10 10\" stroke=\"#c62828\" stroke-width=\"2\"/>" + text(668, 24, "failed (status below)");
  s += "<circle cx=\"820\" cy=\"20\" r=\"5\" fill=\"none\" stroke=\"#6b7480\" stroke-width=\"1.5\"/>" + text(830, 24, "duplicate mapping (not measured)");
  s += "</g>\n";
  s += y_axis(l2, left, right, "{:.0f}", "L2 hit rate %");
  s += y_axis(sp, left, right, "{:.2f}", "speedup ×", 4);
  s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#d6dbe1\"/>", left, lane, right, lane);
  s += text(left - 6, lane + 4, "failed", "text-anchor=\"end\" font-size=\"11\" fill=\"#c62828\"");
  // x ticks.
  const int step = std::max(1, max_iter / 20);
  for (int i = 0; i <= max_iter; i += step)
    s += text(x(i), 492, i == 0 ? "base" : std::to_string(i), "text-anchor=\"middle\" font-size=\"11\" fill=\"#56606b\"");
  s += text((left + right) / 2, 512, "iteration", "text-anchor=\"middle\" font-size=\"12\"");
  // Baselines.
  if (h.baseline)
    if (auto v = l2_of(*h.baseline))
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#1d232a\" stroke-dasharray=\"5 4\"><title>baseline L2 hit rate {:.2f} %</title></line>",
                       left, l2.y(*v), right, l2.y(*v), *v);
  s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#1d232a\" stroke-dasharray=\"5 4\"/>", left, sp.y(1),
                   right, sp.y(1));
  // Best-so-far step lines.
  const Attempt* best = nullptr;
  std::string l2_path, sp_path;
  double prev_x = 0;
  std::optional<double> prev_l2, prev_sp;
  auto extend = [&](std::string& path, std::optional<double>& prev, std::optional<double> v, const Axis& ax, double px) {
    if (!v) return;
    if (path.empty()) path = fmt::format("M {:.1f} {:.1f}", px, ax.y(*v));
    else path += fmt::format(" H {:.1f} V {:.1f}", px, ax.y(*v));
    prev = v;
  };
  for (const auto& a : h.attempts) {
    if (eligible_for_best(a, objective) && (!best || better_attempt(a, *best, objective))) {
      best = &a;
      extend(l2_path, prev_l2, l2_of(a), l2, x(a.iteration));
      extend(sp_path, prev_sp, a.speedup, sp, x(a.iteration));
    }
    prev_x = x(a.iteration);
  }
  if (!l2_path.empty()) l2_path += fmt::format(" H {:.1f}", std::max(prev_x, x(max_iter)));
  if (!sp_path.empty()) sp_path += fmt::format(" H {:.1f}", std::max(prev_x, x(max_iter)));
  for (const auto& p : {l2_path, sp_path})
    if (!p.empty()) s += "<path d=\"" + p + "\" fill=\"none\" stroke=\"#2e7d32\" stroke-width=\"2.5\" opacity=\"0.85\"/>\n";
  // Points.
  auto point = [&](const Attempt& a, bool baseline) {
    const double px = x(a.iteration);
    const std::string tip = fmt::format("{} {}: {}", baseline ? "baseline" : "iteration " + std::to_string(a.iteration), a.label,
                                        a.validated() ? fmt::format("L2 {} %, {} ms, {}×", format_or(l2_of(a), "–"), format_or(ms_of(a), "–", "{:.4f}"), format_or(a.speedup, "–", "{:.3f}"))
                                                      : to_string(a.status) + " — " + a.reason.substr(0, 300));
    if (a.validated()) {
      const char* fill = baseline ? "#1d232a" : "#4e79a7";
      if (auto v = l2_of(a))
        s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"><title>{}</title></circle>", px, l2.y(*v), fill, esc(tip));
      if (a.speedup)
        s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"9\" height=\"9\" fill=\"{}\"><title>{}</title></rect>", px - 4.5,
                         sp.y(*a.speedup) - 4.5, baseline ? "#1d232a" : "#f28e2b", esc(tip));
      return;
    }
    if (a.status == AttemptStatus::duplicate)
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"none\" stroke=\"#6b7480\" stroke-width=\"1.5\"><title>{}</title></circle>", px, lane, esc(tip));
    else
      s += fmt::format("<path d=\"M {:.1f} {:.1f} l 10 10 m 0 -10 l -10 10\" stroke=\"#c62828\" stroke-width=\"2\"><title>{}</title></path>",
                       px - 5, lane - 5, esc(tip));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"{}\" text-anchor=\"start\" transform=\"rotate(35 {:.1f} {:.1f})\">{}</text>",
                     px - 2, lane + 16, a.status == AttemptStatus::duplicate ? "#6b7480" : "#c62828", px - 2, lane + 16,
                     esc(short_status(a.status)));
  };
  if (h.baseline) point(*h.baseline, true);
  for (const auto& a : h.attempts) point(a, false);
  s += "</svg>\n";
  return s;
}

// ---- swizzle maps ------------------------------------------------------

std::string die_name(const HardwareProfile& hw, int d) {
  if (hw.vendor == "amd") return fmt::format("XCD {}", d);
  if (hw.vendor == "nvidia") return fmt::format("L2 side {}", d);
  return fmt::format("die {}", d);
}

// One map panel (die colours, or execution order) at (x0, y0); returns SVG.
std::string map_panel(const TileMap& t, double x0, double y0, double cs, bool order) {
  std::string s;
  for (unsigned r = 0; r < t.rows; ++r)
    for (unsigned c = 0; c < t.cols; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * t.cols + c;
      if (t.die[i] < 0) continue;
      const double x = x0 + c * cs, y = y0 + r * cs;
      const std::string fill = order ? order_colour(t.order[i] / 999.0) : die_colour(t.die[i]);
      const double opacity = order ? 1.0 : 0.3 + 0.7 * t.purity[i] / 100.0;
      s += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\" fill-opacity=\"{:.2f}\"/>", x, y, cs,
                       cs, fill, opacity);
      if (!t.pid.empty() && cs >= 16 && t.pid[i] >= 0)
        s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.0f}\" text-anchor=\"middle\" fill=\"{}\">{}</text>", x + cs / 2,
                         y + cs / 2 + cs * 0.16, std::min(12.0, cs * 0.42), order && t.order[i] > 600 ? "#1d232a" : "#fff", t.pid[i]);
    }
  s += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"none\" stroke=\"#9aa3ad\"/>", x0, y0,
                   t.cols * cs, t.rows * cs);
  return s;
}

std::string swizzle_maps_html(const RunHistory& h) {
  const auto& info = h.program_info.raw;
  if (!info.contains("grid") || !info["grid"].is_object())
    return "<p class=\"caption\">No tile grid recorded (the baseline did not run): no swizzle map.</p>\n";
  const HardwareProfile hw = h.hardware.value_or(HardwareProfile{});  // none recorded: one die, round robin
  const TileGrid grid{info["grid"].value("m", 1u), info["grid"].value("n", 1u)};
  if (grid.num_pids() == 0) return "<p class=\"caption\">Empty tile grid: no swizzle map.</p>\n";
  const TileMap identity = identity_tile_map(grid, hw);
  const Attempt* best = h.best();
  std::optional<TileMap> best_map;
  std::string best_note;
  if (!best) {
    best_note = "no validated attempt yet";
  } else if (!best->mapping || !best->mapping->tile_map) {
    // core/history reads an unreadable map as none.
    best_note = "not recorded for this attempt (history written by an older swizzleperf, or unreadable)";
  } else {
    best_map = best->mapping->tile_map;
  }
  const double panel_w = 500, panel_h = 300, gap = 60, left = 10, top = 40;
  const double cs = std::clamp(std::floor(std::min((panel_w - 20) / identity.cols, panel_h / identity.rows) * 100) / 100, 1.5, 40.0);
  const double mw = identity.cols * cs, mh = identity.rows * cs;
  const double H = top + 2 * mh + 110;
  const double W = left + 2 * std::max(mw, 200.0) + gap + 20;
  std::string s = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" aria-label=\"swizzle maps\">\n",
                              W, H, W, H);
  s += "<defs><linearGradient id=\"order\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">";
  for (int i = 0; i <= 4; ++i) s += fmt::format("<stop offset=\"{}\" stop-color=\"{}\"/>", i / 4.0, order_colour(i / 4.0));
  s += "</linearGradient></defs>";
  const double x1 = left, x2 = left + std::max(mw, 200.0) + gap;
  s += text(x1, top - 12, "identity (pid order): die per tile", "font-size=\"13\" font-weight=\"600\"");
  s += text(x2, top - 12, best ? fmt::format("best, iteration {}: {}", best->iteration, best->label.substr(0, 60)) : "best",
            "font-size=\"13\" font-weight=\"600\"");
  s += map_panel(identity, x1, top, cs, false);
  s += map_panel(identity, x1, top + mh + 40, cs, true);
  s += text(x1, top + mh + 28, "identity: execution order (dispatch order of the pid)", "font-size=\"12\"");
  if (best_map && best_map->rows == identity.rows && best_map->cols == identity.cols) {
    s += map_panel(*best_map, x2, top, cs, false);
    s += map_panel(*best_map, x2, top + mh + 40, cs, true);
    s += text(x2, top + mh + 28, "best: execution order", "font-size=\"12\"");
  } else {
    if (best_map) best_note = "recorded for another grid shape";
    s += text(x2, top + 20, "(" + best_note + ")", "font-size=\"12\" fill=\"#56606b\"");
  }
  // Legend: dies and order ramp.
  const double ly = top + 2 * mh + 66;
  double lx = left;
  for (int d = 0; d < std::min(hw.num_dies, 16); ++d) {
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>", lx, ly - 10, die_colour(d));
    const auto name = die_name(hw, d);
    s += text(lx + 16, ly, name, "font-size=\"12\"");
    lx += 26 + 7.0 * name.size();
  }
  s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"120\" height=\"12\" fill=\"url(#order)\"/>", lx + 20, ly - 10);
  s += text(lx + 146, ly, "execution order: first → last", "font-size=\"12\"");
  s += "</svg>\n";
  std::string cap = fmt::format("Tile grid {}×{}", grid.m, grid.n);
  if (identity.wrapped()) cap += fmt::format(" (a 1-D grid, drawn wrapped into rows of {})", identity.view_n);
  if (identity.rows != identity.view_m || identity.cols != identity.view_n)
    cap += fmt::format("; each cell stands for about {:.0f}×{:.0f} tiles, coloured by the die computing most of them (paler = mixed)",
                       static_cast<double>(identity.view_m) / identity.rows, static_cast<double>(identity.view_n) / identity.cols);
  else if (!identity.pid.empty() && cs >= 16)
    cap += "; the numbers are each tile's pid, i.e. its place in the dispatch order";
  cap += fmt::format(". Die model: {} die(s), dispatch {} [{}]{}.", hw.num_dies, hw.dispatch.kind, hw.dispatch.source,
                     hw.dispatch.note.empty() ? "" : " — " + hw.dispatch.note);
  if (hw.dispatch.kind == "table")
    cap += " The measured table places the first wave only; later waves go where SMs free up.";
  return s + "<p class=\"caption\">" + esc(cap) + "</p>\n";
}

// ---- table -------------------------------------------------------------

// "1.313× [1.309, 1.314] burst" when re-checked with an interval (each regime's with
// --regime both), "1.02× (one-shot burst)" when only the single timing of the attempt
// gave it, "–" when neither.
std::string speedup_text(const Attempt& a) {
  if (!a.speedup) return "–";
  const auto views = regime_views(a);
  if (views.size() < 2 && a.speedup_ci_low && a.speedup_ci_high)
    return fmt::format("{:.3f}× [{:.3f}, {:.3f}]{}", *a.speedup, *a.speedup_ci_low, *a.speedup_ci_high,
                       a.speedup_regime == Regime::unnamed ? "" : " " + regime_label(a.speedup_regime));
  if (!views.empty() && a.speedup_ci_low && a.speedup_ci_high) {
    std::string s;
    for (const auto& v : views)
      s += fmt::format("{}{:.3f}× [{:.3f}, {:.3f}]{}", s.empty() ? "" : "; ", v.speedup, v.low, v.high,
                       v.name().empty() ? "" : " " + v.name());
    return s;
  }
  return fmt::format("{:.3f}× (one-shot{})", *a.speedup,
                     a.speedup_regime == Regime::unnamed ? "" : " " + regime_label(a.speedup_regime));
}

// How the attempt was timed: "re-checked, 6 rounds (significant)", "one-shot", "".
std::string timing_kind(const Attempt& a) {
  if (const SpeedComparison* first = a.recheck ? a.recheck->first() : nullptr)
    return fmt::format("re-checked, {} rounds{}{}", first->ratio.n,
                       a.significant ? (*a.significant ? " (significant)" : " (not significant)") : "",
                       !a.recheck->untrusted.empty() ? " (untrusted: no winner named)" : "");
  if (a.recheck && !a.recheck->error.empty()) return "one-shot (re-check failed)";
  return a.timing ? "one-shot" : "";
}

std::string attempts_table(const RunHistory& h) {
  const Attempt* best = h.best();
  std::string s = "<table>\n<tr><th>iter</th><th>pattern</th><th>proposer</th><th>status</th><th>L2 hit %</th><th>median ms</th>"
                  "<th>speedup [95 % interval]</th><th>timing</th><th>note</th></tr>\n";
  auto row = [&](const Attempt& a) {
    const char* cls = a.validated() ? "st-ok" : a.status == AttemptStatus::duplicate ? "st-dup" : "st-bad";
    std::string note = a.reason.size() > 400 ? a.reason.substr(0, 400) + " …" : a.reason;
    s += fmt::format("<tr{}><td class=\"n\">{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                     "<td class=\"n\">{}</td><td>{}</td><td class=\"note\">{}</td></tr>\n",
                     &a == best ? " class=\"best\"" : "", a.iteration, esc(a.label), esc(a.proposer), cls, esc(to_string(a.status)),
                     format_or(l2_of(a), "–"), format_or(ms_of(a), "–", "{:.4f}"), esc(speedup_text(a)), esc(timing_kind(a)), esc(note));
  };
  if (h.baseline) row(*h.baseline);
  for (const auto& a : h.attempts) row(a);
  return s + "</table>\n";
}

}  // namespace

// Problem size, reps, warm-up, re-check rounds and objective: what a reader needs to
// reproduce or weigh the numbers.
static std::string measurement_line(const RunHistory& h) {
  const RunConfig& c = h.config;
  const std::vector<int>& size = !c.size.empty() ? c.size : h.program_info.size;
  return fmt::format("problem size {} · {} timed reps per run after {} warm-up · speed re-check {} · objective {}",
                     size.empty() ? "the program's default" : size_text(size), c.time_reps, c.warmup,
                     c.recheck_rounds <= 0 ? std::string("off") : std::to_string(c.recheck_rounds) + " interleaved rounds",
                     to_string(h.objective()));
}

std::string render_run_html(const RunHistory& h) {
  std::string s = page_head("swizzleperf: " + h.kernel_name);
  s += "<h1>swizzleperf run: " + esc(h.kernel_name) + "</h1>\n";
  s += fmt::format("<p class=\"meta\">kernel <code>{}</code> · device {} · state {} · started {} · report written {}</p>\n",
                   esc(h.kernel_path), esc(h.hardware ? h.hardware->name : "?"), esc(h.state), esc(h.created_at), now_iso8601());
  s += "<p class=\"meta\">" + esc(measurement_line(h)) + "</p>\n";
  const Attempt* best = h.best();
  auto card = [](const std::string& k, const std::string& v) {
    return "<div class=\"card\"><div class=\"k\">" + esc(k) + "</div><div class=\"v\">" + esc(v) + "</div></div>";
  };
  std::optional<double> bl = h.baseline ? l2_of(*h.baseline) : std::nullopt;
  s += "<div class=\"cards\">";
  s += card("L2 hit rate, baseline → best", format_or(bl, "–") + " → " + (best ? format_or(l2_of(*best), "–") + " %" : std::string("none")));
  s += card("median time, baseline → best",
            (h.baseline ? format_or(ms_of(*h.baseline), "–", "{:.4f}") : "–") + " → " + (best ? format_or(ms_of(*best), "–", "{:.4f}") + " ms" : std::string("none")));
  s += card("speedup of the best [95 % interval]", best ? speedup_text(*best) : "–");
  int validated = 0;
  for (const auto& a : h.attempts) validated += a.validated();
  s += card("attempts (validated)", fmt::format("{} ({})", h.attempts.size(), validated));
  s += card("best pattern", best ? fmt::format("#{} {}", best->iteration, best->label.substr(0, 40)) : "none");
  s += card("power regime", to_string(h.config.timing.regime));
  if (best && best->energy_ratio)
    s += card("energy per run (sustained)", fmt::format("×{:.3f} [{:.3f}, {:.3f}]", *best->energy_ratio,
                                                       best->energy_ci_low.value_or(0), best->energy_ci_high.value_or(0)));
  s += "</div>\n";
  s += "<h2>Progression</h2>\n" + progression_svg(h);
  s += "<p class=\"caption\">L2 hit rate (top) and speedup over the baseline (bottom, baseline median / attempt median, same run) per "
       "attempt. " + std::string(h.objective() == Objective::time
                      ? "The best so far is the validated attempt with the largest significant speedup (95 % interval above 1); "
                        "an attempt timed only once is not eligible."
                      : "The best so far is the validated attempt with the highest L2 hit rate, then the lowest time.") + "</p>\n";
  s += "<h2>Swizzle map</h2>\n" + swizzle_maps_html(h);
  s += "<h2>Attempts</h2>\n" + attempts_table(h);
  if (best) {
    std::string regimes;
    for (const auto& v : regime_views(*best)) regimes += "<li>" + esc(regime_text(v)) + "</li>";
    if (!regimes.empty()) s += "<h2>Re-check by power regime</h2>\n<ul>" + regimes + "</ul>\n";
  }
  if (best) s += fmt::format("<h2>Best region (iteration {})</h2>\n<pre><code>{}</code></pre>\n", best->iteration, esc(best->region));
  s += "</body>\n</html>\n";
  return s;
}

std::string render_suite_html(const std::vector<SuiteRow>& rows, const nlohmann::json& meta) {
  std::string s = page_head("swizzleperf suite");
  s += "<h1>swizzleperf suite</h1>\n";
  std::string from;
  if (meta.contains("merged_from") && meta["merged_from"].is_array())
    for (const auto& d : meta["merged_from"]) from += (from.empty() ? "" : ", ") + (d.is_string() ? d.get<std::string>() : d.dump());
  s += fmt::format("<p class=\"meta\">device {} · date {}{}{}</p>\n", esc(meta.value("device", "?")), esc(meta.value("date", "?")),
                   meta.contains("shard") && meta["shard"].is_string() ? " · shard " + esc(meta["shard"].get<std::string>()) : "",
                   from.empty() ? "" : " · merged from " + esc(from));
  // Bars: L2 (baseline vs best, 0-100) and speedup around 1.
  double sp_max = 1.1, sp_min = 0.9;
  for (const auto& r : rows)
    if (r.speedup) sp_max = std::max(sp_max, *r.speedup), sp_min = std::min(sp_min, *r.speedup);
  const double row_h = 34, top = 40, name_w = 170, l2_w = 420, sp_x = name_w + l2_w + 80, sp_w = 300;
  const double H = top + row_h * rows.size() + 30, W = sp_x + sp_w + 90;
  auto spx = [&](double v) { return sp_x + (v - sp_min) / (sp_max - sp_min) * sp_w; };
  std::string g = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" aria-label=\"per-kernel bars\">\n",
                              W, H, W, H);
  g += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>";
  g += text(name_w, 16, "L2 hit rate %: baseline (grey) vs best (blue)", "font-size=\"13\" font-weight=\"600\"");
  g += text(sp_x, 16, "speedup of the best (× baseline)", "font-size=\"13\" font-weight=\"600\"");
  for (int v = 0; v <= 100; v += 25) {
    const double x = name_w + l2_w * v / 100.0;
    g += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e7ec\"/>", x, top - 6, x, H - 24);
    g += text(x, H - 10, std::to_string(v), "text-anchor=\"middle\" font-size=\"11\" fill=\"#56606b\"");
  }
  g += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#1d232a\" stroke-dasharray=\"4 3\"/>", spx(1), top - 6,
                   spx(1), H - 24);
  g += text(spx(1), H - 10, "1.0", "text-anchor=\"middle\" font-size=\"11\" fill=\"#56606b\"");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double y = top + row_h * i;
    g += text(name_w - 8, y + 19, r.kernel, "text-anchor=\"end\" font-size=\"12\"");
    if (!r.error.empty() && !r.validated) {
      g += text(name_w, y + 19, "failed: " + r.error.substr(0, 90), "font-size=\"11\" fill=\"#c62828\"");
      continue;
    }
    if (r.baseline_l2)
      g += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"11\" fill=\"#9aa3ad\"><title>baseline {:.2f} %</title></rect>",
                       name_w, y + 4, l2_w * std::clamp(*r.baseline_l2, 0.0, 100.0) / 100, *r.baseline_l2);
    if (r.best_l2) {
      g += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"11\" fill=\"#4e79a7\"><title>best {:.2f} %</title></rect>",
                       name_w, y + 16, l2_w * std::clamp(*r.best_l2, 0.0, 100.0) / 100, *r.best_l2);
      g += text(name_w + l2_w * std::clamp(*r.best_l2, 0.0, 100.0) / 100 + 4, y + 26, fmt::format("{:.1f}", *r.best_l2), "font-size=\"10\"");
    } else if (!r.validated) {
      g += text(name_w + 4, y + 26, "no validated candidate", "font-size=\"10\" fill=\"#56606b\"");
    }
    if (r.speedup) {
      const double a = spx(std::min(1.0, *r.speedup)), b = spx(std::max(1.0, *r.speedup));
      g += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"16\" fill=\"{}\"><title>{:.3f}×</title></rect>", a, y + 7,
                       std::max(1.0, b - a), *r.speedup >= 1 ? "#59a14f" : "#e15759", *r.speedup);
      g += text(b + 4, y + 20, fmt::format("{:.3f}×", *r.speedup), "font-size=\"11\"");
    }
  }
  g += "</svg>\n";
  s += "<h2>Per kernel</h2>\n" + g;
  s += "<h2>Table</h2>\n<table>\n<tr><th>kernel</th><th>validated</th><th>L2 hit % base → best</th><th>ideal %</th><th>median ms base → best</th>"
       "<th>speedup</th><th>best pattern</th><th>iter</th><th>attempts</th><th>wall s</th></tr>\n";
  for (const auto& r : rows)
    s += fmt::format("<tr><td>{}</td><td class=\"{}\">{}</td><td class=\"n\">{} → {}</td><td class=\"n\">{}</td><td class=\"n\">{} → {}</td>"
                     "<td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1f}</td></tr>\n",
                     esc(r.kernel), r.validated ? "st-ok" : "st-bad",
                     r.validated ? "yes" : esc(r.error.empty() ? "no" : "failed: " + r.error.substr(0, 200)), format_or(r.baseline_l2, "–"),
                     format_or(r.best_l2, "–"), format_or(r.ideal_l2, "–"), format_or(r.baseline_ms, "–", "{:.4f}"), format_or(r.best_ms, "–", "{:.4f}"), format_or(r.speedup, "–", "{:.3f}"),
                     esc(r.best_pattern), r.iterations_to_best, r.attempts, r.wall_s);
  s += "</table>\n</body>\n</html>\n";
  return s;
}

}  // namespace swz
