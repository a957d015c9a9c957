#!/usr/bin/env python3
"""Writes a copy of a kernel program with its swizzle region replaced by a named order.

Usage: tc_region.py SRC OUT ORDER   with ORDER one of
  identity | grouped:G (Triton grouped order over m) | colmajor (tile t' = (pid % m) * n + pid / m)
  | colgrouped:G (column-major in bands of G columns)
  | longest:G (bands of G columns, rows descending) | gqa:G:S (the proposer's gqa_group)
For bench calibration only (the tool's own proposer is what optimize uses)."""
import re
import sys

ORDERS = {
    "identity": "  return pid;\n",
    "grouped": """  const unsigned G = {g}u, width = G * grid.n, first_m = pid / width * G;
  const unsigned gs = grid.m - first_m < G ? grid.m - first_m : G;
  const unsigned pid_m = first_m + (pid % width) % gs, pid_n = (pid % width) / gs;
  return pid_m * grid.n + pid_n;
""",
    "colmajor": "  return (pid % grid.m) * grid.n + pid / grid.m;\n",
    "colgrouped": """  const unsigned G = {g}u, height = G * grid.m, first_n = pid / height * G;
  const unsigned gs = grid.n - first_n < G ? grid.n - first_n : G;
  const unsigned pid_n = first_n + (pid % height) % gs, pid_m = (pid % height) / gs;
  return pid_m * grid.n + pid_n;
""",
    "longest": """  const unsigned G = {g}u, height = G * grid.m, first_n = pid / height * G;
  const unsigned gs = grid.n - first_n < G ? grid.n - first_n : G;
  const unsigned pid_n = first_n + (pid % height) % gs, pid_m = grid.m - 1 - (pid % height) / gs;
  return pid_m * grid.n + pid_n;
""",
    "gqa": """  const unsigned G = {g}u, S = {s}u;
  if (grid.n % (G * S) != 0) return pid;
  const unsigned span = G * grid.m, group = pid / span, r = pid % span;
  return (r / G) * grid.n + group % S + S * ((group / S) * G + r % G);
""",
}


def main():
    src, out, order = sys.argv[1:4]
    name, _, params = order.partition(":")
    g, _, st = params.partition(":")
    body = ORDERS[name].format(g=g, s=st)
    text = open(src).read()
    region = ("// swizzleperf:begin\nSWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, "
              "SwizzleGrid grid) {\n" + body + "}\n// swizzleperf:end\n")
    new, n = re.subn(r"// swizzleperf:begin\n.*?// swizzleperf:end\n", region, text, flags=re.S)
    if n != 1:
        sys.exit(f"error: {src}: expected one swizzle region, found {n}")
    open(out, "w").write(new)


if __name__ == "__main__":
    main()
