#!/usr/bin/env python3
"""Applies a fill file (tests/fixtures/triton_init/*.fill: one "@@ N" section per
swizzleperf:TODO line, in order, replacing N lines from that line on with the section's lines)
to `swizzleperf init`'s output, as tests/e2e/init_e2e_test.cpp does, and prints the result.
Used to run the hand-filled tutorial port on a GPU:
  swizzleperf init grouped_matmul.py && python3 bench/apply_fill.py grouped_matmul_swz.py FILL > port.py"""
import sys


def apply(generated, fill):
    lines = generated.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    todos = [i for i, l in enumerate(lines) if "swizzleperf:TODO" in l]
    sections = []
    for l in fill.split("\n"):
        if not sections and l.startswith("#"):
            continue
        if l.startswith("@@ "):
            sections.append((int(l[3:]), []))
        elif sections:
            sections[-1][1].append(l)
    if sections and sections[-1][1] and sections[-1][1][-1] == "":
        sections[-1][1].pop()
    if len(sections) != len(todos):
        sys.exit("apply_fill: %d sections for %d swizzleperf:TODO lines" % (len(sections), len(todos)))
    out, nxt = [], 0
    for (count, body), at in zip(sections, todos):
        out.extend(lines[nxt:at])
        out.extend(body)
        nxt = at + count
    out.extend(lines[nxt:])
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: apply_fill.py GENERATED FILL")
    with open(sys.argv[1]) as g, open(sys.argv[2]) as f:
        sys.stdout.write(apply(g.read(), f.read()))
