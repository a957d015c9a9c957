"""Shared by the bench result formatters (bench_result.py, suite_result.py,
tc_result.py, loop_result.py, h100_loop.sh): one way to print a table cell, one way
to write a result as <stem>.json (for machines) and <stem>.md (for people), and one
reading of a run's attempts (their wall and stage medians, its best pattern).
Standard library only."""
import json, os, statistics


def cell(v, fmt="{:.2f}", missing="n/a"):
    """A Markdown table cell: `missing` for None, booleans and strings as they are,
    numbers through `fmt`."""
    if v is None:
        return missing
    if isinstance(v, (bool, str)):
        return str(v)
    return fmt.format(v)


def write_result(stem, data, md_lines):
    """Writes stem.json (indented) and stem.md (the lines, newline-terminated);
    creates the folder. Returns the .md path."""
    os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
    with open(stem + ".json", "w") as f:
        json.dump(data, f, indent=2)
    with open(stem + ".md", "w") as f:
        f.write("\n".join(md_lines) + "\n")
    return stem + ".md"


def attempt_medians(histories):
    """Median attempt wall (history's wall_seconds), per-stage medians and the attempt
    count over the histories' attempts, duplicates left out (they build and run nothing)."""
    walls, stages = [], {}
    for h in histories:
        for a in h.get("attempts", []):
            if a.get("status") == "duplicate":
                continue
            walls.append(a.get("wall_seconds", 0))
            for k, v in a.get("stage_seconds", {}).items():
                stages.setdefault(k, []).append(v)
    return (statistics.median(walls) if walls else None,
            {k: round(statistics.median(v), 3) for k, v in sorted(stages.items())}, len(walls))


def best_pattern(h):
    """The run's best by its own objective (history.cpp's RunHistory::best): under time the
    validated attempt with the largest significant speedup (None when there is none), else
    the highest L2 hit rate, then the lowest time."""
    if (h.get("config") or {}).get("objective") == "time":
        fast = [a for a in h.get("attempts", []) if a.get("status") == "ok" and a.get("significant")
                and (a.get("speedup_ci_low") or 0) > 1.0]
        return max(fast, key=lambda a: a.get("speedup") or 0).get("label") if fast else None
    best = None
    for a in h.get("attempts", []):
        if a.get("status") != "ok" or not a.get("metrics"):
            continue
        key = (a["metrics"].get("l2_hit_pct") or -1, -(a.get("timing") or {}).get("median_ms", 1e30))
        if best is None or key > best[0]:
            best = (key, a.get("label"))
    return best[1] if best else None
