#!/usr/bin/env python3
"""Where the H100 runs the blocks after the first wave: statistics of `topology_probe order`
records (pid, %smid, start time) of several waves, against the L2 side of each SM measured by
`swizzleperf probe`.

For each run (K blocks per SM forced by shared memory, W waves, each block spinning U us):
  - same_sm_as_previous_wave: the share of later-wave blocks (pid >= wave) that ran on the SM
    of pid - wave (a schedule where slot s takes pids s, s + wave, ... gives 1.0);
  - same_side_as_previous_wave: the same for the L2 side (0.5: unrelated);
  - consecutive_same_side_first / _later: the share of pid pairs (p, p + 1) on the same side,
    in the first wave and in the later ones.

Usage: later_waves.py --probe PROBE.json --out OUT RUN.json [RUN.json ...]
(RUN: the last line of `topology_probe order --blocks-per-sm K --waves W --spin-us U`, whose
file name carries K, W and U as order-kK-wW-sU.json). Writes OUT.json; prints the table.
"""
import argparse
import json
import os
import re


def stats(run, side):
    k, n_sms = run["blocks_per_sm"], run["num_sms"]
    wave = k * n_sms
    sm = {p: s for p, s, _ in run["records"]}
    n = len(sm)
    if sorted(sm) != list(range(n)) or n <= wave:
        raise SystemExit("records must cover pids 0..N-1 with N above one wave")
    later = range(wave, n)
    same = lambda a, b: side[sm[a]] == side[sm[b]]
    return {"blocks_per_sm": k, "wave": wave, "blocks": n,
            "same_sm_as_previous_wave": sum(sm[p] == sm[p - wave] for p in later) / len(later),
            "same_side_as_previous_wave": sum(same(p, p - wave) for p in later) / len(later),
            "consecutive_same_side_first": sum(same(p, p + 1) for p in range(wave - 1)) / (wave - 1),
            "consecutive_same_side_later": sum(same(p, p + 1) for p in range(wave, n - 1)) / (n - 1 - wave)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    probe = json.load(open(a.probe))
    side = probe["sm_side"]
    rows = []
    for path in a.runs:
        run = json.loads(open(path).read().strip().splitlines()[-1])
        m = re.search(r"-s(\d+)\.json$", path)
        row = stats(run, side)
        row["spin_us"] = int(m.group(1)) if m else None
        row["file"] = os.path.basename(path)
        rows.append(row)
    out = {"what": "H100 block placement after the first wave (topology_probe order)", "probe": os.path.basename(a.probe),
           "device": probe.get("device_name"), "runs": rows}
    json.dump(out, open(a.out + ".json", "w"), indent=1)
    lines = ["| blocks per SM | wave | blocks | spin (us) | same SM as pid - wave | same side as pid - wave | "
             "consecutive pids on one side: first wave | later waves |", "|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        lines.append("| %d | %d | %d | %s | %.3f | %.3f | %.3f | %.3f |" % (
            r["blocks_per_sm"], r["wave"], r["blocks"], r["spin_us"], r["same_sm_as_previous_wave"],
            r["same_side_as_previous_wave"], r["consecutive_same_side_first"], r["consecutive_same_side_later"]))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
