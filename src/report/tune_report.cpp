// TuneReport (see the header): one pass over the history's attempts into cells keyed by
// (point, order), then the rows, the per-value and per-order bests and the totals from them.
#include "swizzleperf/report/tune_report.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

namespace swz {

namespace {

// A define's value as an integer, whichever type Attempt::defines holds (the string form of
// older histories: decimal digits, maybe a sign). nullopt: not an integer.
template <typename V>
std::optional<std::int64_t> tune_report_define_value(const V& v) {
  if constexpr (std::is_integral_v<V>) {
    return static_cast<std::int64_t>(v);
  } else {
    const std::string s(v);
    std::size_t i = s.size() > 0 && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size() || s.size() > 19) return std::nullopt;
    std::int64_t out = 0;
    for (std::size_t j = i; j < s.size(); ++j) {
      if (s[j] < '0' || s[j] > '9') return std::nullopt;
      out = out * 10 + (s[j] - '0');
    }
    return s[0] == '-' ? -out : out;
  }
}

// The attempt's point: the own configuration with its defines applied (names the space does
// not declare are left out: they are no tunable of this program).
TunePoint tune_report_point_of(const Attempt& a, const TuneSpace& space) {
  TunePoint p = space.own_point();
  for (std::size_t i = 0; i < space.tunables.size(); ++i) {
    auto it = a.defines.find(space.tunables[i].name);
    if (it == a.defines.end()) continue;
    if (auto v = tune_report_define_value(it->second)) p[i] = *v;
  }
  return p;
}

std::string tune_report_order_of(const Attempt& a) {
  const std::size_t at = a.label.find(" @ ");
  return at == std::string::npos ? a.label : a.label.substr(0, at);
}

std::string tune_report_tile(const TunePoint& p) {
  std::string out;
  for (std::size_t i = 0; i < p.size(); ++i) out += (i ? "x" : "") + std::to_string(p[i]);
  return out;
}

// A table cell's text may not hold a '|' or a line break.
std::string tune_report_md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string tune_report_x(const std::optional<double>& v) { return v ? fmt::format("{:.2f}x", *v) : "n/a"; }

// Replaces `best` by the cell's evaluation when it is validated and faster.
void tune_report_consider(std::optional<TuneBest>& best, const TuneCell& c, const TunePoint& p, const std::string& order) {
  if (!c.ms) return;
  if (best && best->ms <= *c.ms) return;
  best = TuneBest{c.iteration, p, order, *c.ms, c.vs_baseline};
}

nlohmann::json tune_report_point_json(const std::vector<std::string>& names, const TunePoint& p) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < names.size() && i < p.size(); ++i) j[names[i]] = p[i];
  return j;
}

nlohmann::json tune_report_best_json(const std::vector<std::string>& names, const std::optional<TuneBest>& b) {
  if (!b) return nullptr;
  return {{"iteration", b->iteration}, {"point", tune_report_point_json(names, b->point)}, {"order", b->order},
          {"ms", b->ms}, {"vs_baseline", b->vs_baseline ? nlohmann::json(*b->vs_baseline) : nlohmann::json(nullptr)}};
}

std::string tune_report_best_text(const TuneBest& b) {
  return fmt::format("{:.3f} ms ({}), {} @ {}", b.ms, tune_report_x(b.vs_baseline), b.order, tune_report_tile(b.point));
}

}  // namespace

TuneReport make_tune_report(const RunHistory& history, const TuneSpace& space, const TuneEnumeration* enumeration) {
  TuneReport r;
  r.kernel = history.kernel_name;
  for (const auto& t : space.tunables) r.names.push_back(t.name);
  r.own_point = space.own_point();
  r.space_size = space.size();
  if (enumeration) {
    r.pruned = enumeration->excluded;
    r.first_pruned = enumeration->first_exclusion;
  }
  r.stopped = history.stopped_because;
  if (history.baseline && history.baseline->timing && history.baseline->validated())
    r.baseline_ms = history.baseline->timing->median_ms;

  // Every evaluation, in history order (the baseline first), with its point and order.
  struct Evaluation {
    const Attempt* a;
    TunePoint point;
    std::string order;
  };
  std::vector<Evaluation> evals;
  if (history.baseline) {
    std::string order = history.baseline->label;
    for (const auto& a : history.attempts)
      if (!history.baseline->region.empty() && a.region == history.baseline->region) {
        order = tune_report_order_of(a);
        break;
      }
    evals.push_back({&*history.baseline, r.own_point, order});
    r.seconds += history.baseline->wall_seconds;
  }
  for (const auto& a : history.attempts) {
    r.seconds += a.wall_seconds;
    if (a.status == AttemptStatus::duplicate) {
      ++r.duplicates;
      continue;
    }
    ++r.evaluations;
    if (!a.validated()) {
      ++r.failed;
      ++r.failures[to_string(a.status)];
    }
    evals.push_back({&a, tune_report_point_of(a, space), tune_report_order_of(a)});
  }

  // Columns and rows.
  std::map<TunePoint, std::size_t> row_of;
  for (const auto& e : evals) {
    if (std::find(r.orders.begin(), r.orders.end(), e.order) == r.orders.end()) r.orders.push_back(e.order);
    row_of.emplace(e.point, 0);
  }
  for (auto& kv : row_of) {
    kv.second = r.rows.size();
    r.rows.push_back({kv.first, tune_report_tile(kv.first), kv.first == r.own_point, {}});
  }
  for (auto& row : r.rows) row.cells.resize(r.orders.size());

  // Per value and per order counts; cells keep their best validated time, else the first failure.
  for (const auto& t : space.tunables)
    for (auto v : t.values) r.per_value.push_back({t.name, v, 0, 0, std::nullopt});
  for (const auto& o : r.orders) r.per_order.push_back({o, 0, 0, std::nullopt});
  for (const auto& e : evals) {
    TuneCell c;
    c.iteration = e.a->iteration;
    c.status = e.a->status;
    if (e.a->validated() && e.a->timing && e.a->timing->median_ms > 0) {
      c.ms = e.a->timing->median_ms;
      if (r.baseline_ms) c.vs_baseline = *r.baseline_ms / *c.ms;
    }
    const std::size_t col = static_cast<std::size_t>(std::find(r.orders.begin(), r.orders.end(), e.order) - r.orders.begin());
    auto& slot = r.rows[row_of.at(e.point)].cells[col];
    if (!slot || (c.ms && (!slot->ms || *c.ms < *slot->ms))) slot = c;

    auto& ob = r.per_order[col];
    ++ob.evaluated;
    if (!e.a->validated()) ++ob.failed;
    tune_report_consider(ob.best, c, e.point, e.order);
    for (auto& vb : r.per_value) {
      const std::size_t i = static_cast<std::size_t>(std::find(r.names.begin(), r.names.end(), vb.name) - r.names.begin());
      if (e.point[i] != vb.value) continue;
      ++vb.evaluated;
      if (!e.a->validated()) ++vb.failed;
      tune_report_consider(vb.best, c, e.point, e.order);
    }
    tune_report_consider(r.best, c, e.point, e.order);
  }

  if (const Attempt* w = history.best()) {
    for (const auto& e : evals)
      if (e.a == w && e.a->timing) {
        TuneWinner win;
        win.screened = TuneBest{w->iteration, e.point, e.order, w->timing->median_ms,
                                r.baseline_ms && w->timing->median_ms > 0 ? std::optional<double>(*r.baseline_ms / w->timing->median_ms)
                                                                          : std::nullopt};
        win.speedup = w->speedup;
        win.ci_low = w->speedup_ci_low;
        win.ci_high = w->speedup_ci_high;
        win.significant = w->significant.value_or(false);
        r.winner = win;
      }
  }
  return r;
}

std::string render_tune_markdown(const TuneReport& r) {
  std::string out = fmt::format("## Tune: {}\n\n", r.kernel);
  std::string fails;
  for (const auto& kv : r.failures) fails += fmt::format("{}{} {}", fails.empty() ? "" : ", ", kv.second, kv.first);
  out += fmt::format("- Evaluations: {} of a space of {} points ({} failed{}{}), {:.1f} s evaluating (baseline included).\n",
                     r.evaluations, r.space_size, r.failed, fails.empty() ? "" : ": " + fails,
                     r.duplicates ? fmt::format("; {} duplicates not run", r.duplicates) : "", r.seconds);
  if (r.pruned)
    out += fmt::format("- Pruned before any build: {} of the {} points{}.\n", *r.pruned, r.space_size,
                       r.first_pruned.empty() ? "" : " (first: " + tune_report_md_cell(r.first_pruned) + ")");
  if (!r.stopped.empty()) out += "- Stopped: " + tune_report_md_cell(r.stopped) + ".\n";
  std::string names;
  for (std::size_t i = 0; i < r.names.size(); ++i) names += (i ? " x " : "") + r.names[i];
  out += fmt::format("- Points are {}; the program's own: {}.\n", names, tune_report_tile(r.own_point));
  out += "- Baseline: " + (r.baseline_ms ? fmt::format("{:.3f} ms", *r.baseline_ms) : std::string("not measured")) + ".\n";
  out += "- Fastest screened: " + (r.best ? tune_report_best_text(*r.best) : std::string("none validated")) + ".\n";
  if (r.winner) {
    out += "- Judged winner: " + tune_report_best_text(r.winner->screened);
    if (r.winner->ci_low && r.winner->ci_high)
      out += fmt::format("; re-checked {} [{:.3f}, {:.3f}]{}", tune_report_x(r.winner->speedup), *r.winner->ci_low,
                         *r.winner->ci_high, r.winner->significant ? ", significant" : "");
    out += ".\n";
  } else {
    out += "- Judged winner: none (no point was significantly faster than the baseline).\n";
  }

  out += "\n### Best per parameter value\n\n| parameter | value | best ms | x baseline | at | evaluated | failed |\n|---|---|---|---|---|---|---|\n";
  for (const auto& v : r.per_value)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", v.name, v.value, v.best ? fmt::format("{:.3f}", v.best->ms) : "-",
                       v.best ? tune_report_x(v.best->vs_baseline) : "-",
                       v.best ? tune_report_md_cell(v.best->order + " @ " + tune_report_tile(v.best->point)) : "-", v.evaluated, v.failed);

  out += "\n### Best per order\n\n| order | best ms | x baseline | at | evaluated | failed |\n|---|---|---|---|---|---|\n";
  for (const auto& o : r.per_order)
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", tune_report_md_cell(o.order), o.best ? fmt::format("{:.3f}", o.best->ms) : "-",
                       o.best ? tune_report_x(o.best->vs_baseline) : "-", o.best ? tune_report_tile(o.best->point) : "-", o.evaluated,
                       o.failed);

  out += "\n### The space (screened ms, x baseline; a failure shows its status, - not tried)\n\n| " +
         tune_report_md_cell(names) + " |";
  for (const auto& o : r.orders) out += " " + tune_report_md_cell(o) + " |";
  out += "\n|---|";
  for (std::size_t i = 0; i < r.orders.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : r.rows) {
    out += "| " + row.tile + (row.own ? " (own)" : "") + " |";
    for (const auto& c : row.cells) {
      std::string text = "-";
      if (c && c->ms) {
        const bool top = r.best && r.best->iteration == c->iteration;
        text = fmt::format("{}{:.3f} ({}){}", top ? "**" : "", *c->ms, tune_report_x(c->vs_baseline), top ? "**" : "");
      } else if (c) {
        text = c->status == AttemptStatus::ok ? "no timing" : to_string(c->status);
      }
      out += " " + text + " |";
    }
    out += "\n";
  }
  return out;
}

nlohmann::json tune_report_json(const TuneReport& r) {
  nlohmann::json j;
  j["kernel"] = r.kernel;
  j["tunables"] = r.names;
  j["own_point"] = tune_report_point_json(r.names, r.own_point);
  j["space_size"] = r.space_size;
  j["pruned"] = r.pruned ? nlohmann::json(*r.pruned) : nlohmann::json(nullptr);
  if (!r.first_pruned.empty()) j["first_pruned"] = r.first_pruned;
  j["stopped_because"] = r.stopped;
  j["orders"] = r.orders;
  j["baseline_ms"] = r.baseline_ms ? nlohmann::json(*r.baseline_ms) : nlohmann::json(nullptr);
  j["evaluations"] = r.evaluations;
  j["failed"] = r.failed;
  j["duplicates"] = r.duplicates;
  j["failures"] = r.failures;
  j["seconds"] = r.seconds;
  j["best"] = tune_report_best_json(r.names, r.best);
  if (r.winner) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    j["winner"] = {{"screened", tune_report_best_json(r.names, r.winner->screened)},
                   {"speedup", opt(r.winner->speedup)},
                   {"ci_low", opt(r.winner->ci_low)},
                   {"ci_high", opt(r.winner->ci_high)},
                   {"significant", r.winner->significant}};
  } else {
    j["winner"] = nullptr;
  }
  j["per_value"] = nlohmann::json::array();
  for (const auto& v : r.per_value)
    j["per_value"].push_back({{"name", v.name}, {"value", v.value}, {"evaluated", v.evaluated}, {"failed", v.failed},
                              {"best", tune_report_best_json(r.names, v.best)}});
  j["per_order"] = nlohmann::json::array();
  for (const auto& o : r.per_order)
    j["per_order"].push_back({{"order", o.order}, {"evaluated", o.evaluated}, {"failed", o.failed},
                              {"best", tune_report_best_json(r.names, o.best)}});
  j["space"] = nlohmann::json::array();
  for (const auto& row : r.rows) {
    nlohmann::json cells = nlohmann::json::object();
    for (std::size_t i = 0; i < row.cells.size() && i < r.orders.size(); ++i) {
      if (!row.cells[i]) continue;
      const auto& c = *row.cells[i];
      cells[r.orders[i]] = {{"iteration", c.iteration}, {"status", to_string(c.status)},
                            {"ms", c.ms ? nlohmann::json(*c.ms) : nlohmann::json(nullptr)},
                            {"vs_baseline", c.vs_baseline ? nlohmann::json(*c.vs_baseline) : nlohmann::json(nullptr)}};
    }
    j["space"].push_back({{"point", tune_report_point_json(r.names, row.point)}, {"own", row.own}, {"cells", cells}});
  }
  return j;
}

}  // namespace swz
