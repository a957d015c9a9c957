#!/usr/bin/env python3
"""Checks a kernel program's footprint (kernels/support/swz_footprint.h) against the program's
own byte counts. Standard library only; no GPU needed.

usage: footprint_check.py [options] PROGRAM [PROGRAM ...]
  PROGRAM        a built kernel program (it must have the `info` and `footprint` modes)
  --size a,b,..  check this size (repeatable); default: the default size and every verify size
                 from `info`
  --default-size NAME=a,b,..  (repeatable) use this size instead of program NAME's default size
                 (for a default whose union would be too slow here; none of the 12 needs it:
                 the largest, fdtd_2d and stencil_2d, take about 35 s each)
  --no-verify-sizes  only the default (or --default-size) size
  --source FILE  (one PROGRAM only) also cut the footprint section out of FILE, compile it alone
                 with g++ -std=c++11 -Wall -Wextra after #include "swz_footprint.h", and require
                 its `footprint` output to equal the program's byte for byte at every size
  --cxx CXX      host compiler for --source (default g++)

For every size it runs `PROGRAM info --size S` and `PROGRAM footprint --size S` and checks:
  * every span lies inside its buffer; tile ids run 0..tiles-1 with tiles = grid m * n;
  * per launch, the union of all tiles' spans (exact byte intervals per buffer, reads and
    writes together, merged) against info's launch_footprints_bytes[l] when reported;
  * the union over all launches against info's footprint_bytes;
  * info's launches (when reported) against the footprint's launch count, and info's grid and
    num_pids against one of the footprint's launch grids.
It prints one table row per (program, size, group of launches with the same figures) and exits
1 on any mismatch not listed in KNOWN_DIFFERENCES (each entry says why), 2 on a usage or run
error.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from array import array

# ---- known, documented differences between a program's own counts and the exact union -----
# Each entry: program name -> function(size, what, launch) returning (bytes, reason) with
# bytes = reported - union that is expected (0: none). `what` is "launch" (launch index in
# `launch`, of `launches`) or "total".


# (None: every shipped program's counts are exact.)
KNOWN_DIFFERENCES = {}

# ---- running the program ------------------------------------------------------------------


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, (p.stderr or p.stdout).strip()[-500:]))
    return p.stdout


def info(prog, size=None):
    cmd = [prog, "info"] + (["--size", size] if size else [])
    lines = [l for l in run(cmd).splitlines() if l.startswith("{")]
    return json.loads(lines[-1])


def size_str(s):
    return ",".join(str(v) for v in s)


# ---- unions --------------------------------------------------------------------------------

INTERVAL_LIMIT = 1500000  # runs above which a bitmap (at the spans' common granule) is used
BITMAP_LIMIT = 1 << 31    # bitmap cells at most


def merge(intervals):
    """Sorted, disjoint, non-adjacent-merged list of (start, end) from any list of them."""
    intervals.sort()
    out = []
    for s, e in intervals:
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


class BufferSpans:
    """The spans one launch's tiles touch in one buffer."""

    __slots__ = ("off", "nbytes", "stride", "count", "runs", "g")

    def __init__(self):
        self.off, self.nbytes, self.stride, self.count = array("Q"), array("Q"), array("Q"), array("Q")
        self.runs = 0
        self.g = 0

    def add(self, off, nbytes, stride, count):
        if count > 1 and stride == nbytes:  # contiguous: one run
            nbytes, stride, count = nbytes * count, 0, 1
        self.off.append(off)
        self.nbytes.append(nbytes)
        self.stride.append(stride)
        self.count.append(count)
        self.runs += count
        g = math.gcd(self.g, off)
        g = math.gcd(g, nbytes)
        if count > 1:
            g = math.gcd(g, stride)
        self.g = g

    def union(self, buf_bytes):
        """Merged (start, end) intervals of the union."""
        n = len(self.off)
        if n == 0:
            return []
        g = self.g or 1
        cells = -(-buf_bytes // g)
        if self.runs <= INTERVAL_LIMIT or cells > BITMAP_LIMIT:
            iv = []
            for i in range(n):
                o, b, st, c = self.off[i], self.nbytes[i], self.stride[i], self.count[i]
                if c == 1:
                    iv.append((o, o + b))
                else:
                    iv.extend((o + k * st, o + k * st + b) for k in range(c))
            return merge(iv)
        bm = bytearray(cells)
        longest = 0
        for i in range(n):
            longest = max(longest, self.nbytes[i] // g, self.count[i])
        ones = memoryview(b"\x01" * longest)
        for i in range(n):
            o, w, c = self.off[i] // g, self.nbytes[i] // g, self.count[i]
            if c == 1:
                bm[o:o + w] = ones[:w]
                continue
            st = self.stride[i] // g
            if c <= w:
                for k in range(c):
                    a = o + k * st
                    bm[a:a + w] = ones[:w]
            else:
                last = (c - 1) * st + 1
                for j in range(w):
                    bm[o + j:o + j + last:st] = ones[:c]
        return [(m.start() * g, m.end() * g) for m in re.finditer(b"\x01+", bm)]


def total(intervals):
    return sum(e - s for s, e in intervals)


# ---- parsing the footprint output ----------------------------------------------------------


class FootprintError(Exception):
    pass


def check_footprint(prog, size):
    """Streams `prog footprint --size size`; returns (buffers, launches) where launches is a
    list of dicts {grid, block, swizzled, tiles, union: [per-buffer merged intervals]}."""
    cmd = [prog, "footprint", "--size", size]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    buffers = None
    launches = []
    cur = None  # (header, [BufferSpans per buffer], next tile id)
    summary = None
    errors = []

    def close():
        if cur is None:
            return
        hdr, spans, nxt = cur
        if nxt != hdr["tiles"]:
            errors.append("launch %d lists %d of its %d tiles" % (hdr["launch"], nxt, hdr["tiles"]))
        hdr["union"] = [spans[b].union(buffers[b]["bytes"]) for b in range(len(buffers))]
        launches.append(hdr)

    for line in p.stdout:
        if line.startswith("t "):
            if cur is None:
                raise FootprintError("a tile line before any launch header")
            hdr, spans, nxt = cur
            tok = line.split()
            tid, nspans = int(tok[1]), int(tok[2])
            if tid != nxt:
                raise FootprintError("launch %d: tile %d where %d was expected" % (hdr["launch"], tid, nxt))
            if len(tok) != 3 + 6 * nspans:
                raise FootprintError("launch %d tile %d: %d spans declared, %d tokens" % (hdr["launch"], tid, nspans, len(tok)))
            for k in range(3, len(tok), 6):
                b, off, nb, st, cnt, flag = int(tok[k]), int(tok[k + 1]), int(tok[k + 2]), int(tok[k + 3]), int(tok[k + 4]), tok[k + 5]
                if b >= len(buffers) or nb == 0 or cnt == 0 or len(flag) != 2 or flag[0] not in "rw" or flag[1] not in "RPO":
                    raise FootprintError("launch %d tile %d: bad span %s" % (hdr["launch"], tid, " ".join(tok[k:k + 6])))
                if cnt > 1 and st < nb:
                    errors.append("launch %d tile %d: span %s has overlapping runs (stride < bytes)" % (hdr["launch"], tid, " ".join(tok[k:k + 6])))
                end = off + (cnt - 1) * st + nb
                if end > buffers[b]["bytes"]:
                    errors.append("launch %d tile %d: span %s ends at byte %d, past %s's %d bytes"
                                  % (hdr["launch"], tid, " ".join(tok[k:k + 6]), end, buffers[b]["name"], buffers[b]["bytes"]))
                spans[b].add(off, nb, st, cnt)
            cur = (hdr, spans, nxt + 1)
            continue
        if not line.startswith("{"):
            raise FootprintError("unexpected line: %r" % line[:100])
        j = json.loads(line)
        if "buffers" in j and "mode" not in j:
            buffers = j["buffers"]
        elif "launch" in j:
            close()
            if buffers is None:
                raise FootprintError("a launch header before the buffers line")
            if j["tiles"] != j["grid"]["m"] * j["grid"]["n"]:
                errors.append("launch %d: %d tiles, grid %dx%d" % (j["launch"], j["tiles"], j["grid"]["m"], j["grid"]["n"]))
            if j["launch"] != len(launches):
                errors.append("launch %d where %d was expected" % (j["launch"], len(launches)))
            cur = (j, [BufferSpans() for _ in buffers], 0)
        elif j.get("mode") == "footprint":
            close()
            cur = None
            summary = j
            if buffers is None and "buffers" in j:  # the older format: buffers in the summary
                buffers = j["buffers"]
        else:
            raise FootprintError("unexpected JSON line: %r" % line[:100])
    rc = p.wait()
    err = p.stderr.read()
    if rc != 0:
        raise FootprintError("%s: exit %d: %s" % (" ".join(cmd), rc, err.strip()[-300:]))
    if summary is None:
        raise FootprintError("no summary line")
    if summary.get("launches") != len(launches):
        errors.append("summary says %s launches, %d listed" % (summary.get("launches"), len(launches)))
    return buffers, launches, errors


# ---- the standalone section ----------------------------------------------------------------


def build_section(source, cxx, workdir):
    text = open(source).read()
    m = re.search(r"^// swizzleperf:footprint-begin\n(.*?)^// swizzleperf:footprint-end\n", text, re.S | re.M)
    if not m:
        raise RuntimeError("%s has no footprint section" % source)
    cpp = os.path.join(workdir, "section.cpp")
    with open(cpp, "w") as f:
        f.write('#include "swz_footprint.h"\n' + m.group(1) +
                "int main(int argc, char** argv) { return swz_footprint_main(swz_footprint_spec(), argc, argv); }\n")
    support = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "support")
    exe = os.path.join(workdir, "section")
    p = subprocess.run([cxx, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-O1", "-I", support, "-o", exe, cpp],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("the section of %s does not compile alone:\n%s" % (source, p.stdout[-3000:]))
    return exe


# ---- the table -----------------------------------------------------------------------------


def launch_list(ls):
    """[0,3,6,9] -> '0,3..9'; [0..23] -> '0-23'; a long irregular list -> '38 of 3-58'."""
    if len(ls) == 1:
        return str(ls[0])
    step = ls[1] - ls[0]
    if len(ls) > 2 and all(ls[i + 1] - ls[i] == step for i in range(len(ls) - 1)):
        return "%d-%d" % (ls[0], ls[-1]) if step == 1 else "%d,%d..%d" % (ls[0], ls[1], ls[-1])
    text = ",".join(str(l) for l in ls)
    return text if len(text) <= 12 else "%d of %d-%d" % (len(ls), ls[0], ls[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("programs", nargs="+")
    ap.add_argument("--size", action="append", default=[])
    ap.add_argument("--default-size", action="append", default=[], metavar="PROGRAM=SIZE")
    ap.add_argument("--no-verify-sizes", action="store_true")
    ap.add_argument("--source")
    ap.add_argument("--cxx", default="g++")
    a = ap.parse_args()
    if a.source and len(a.programs) != 1:
        ap.error("--source takes one PROGRAM")
    overrides = dict(d.split("=", 1) for d in a.default_size)
    failures = 0
    fmt = "%-18s %-20s %-12s %14s %14s %12s  %s"
    print(fmt % ("program", "size", "launch", "union", "reported", "diff", "status"))
    with tempfile.TemporaryDirectory() as tmp:
        section = build_section(a.source, a.cxx, tmp) if a.source else None
        for prog in a.programs:
            base = info(prog)
            name = base["kernel"]
            known = KNOWN_DIFFERENCES.get(name, lambda s, w, l: (0, ""))
            sizes = list(a.size)
            if not sizes:
                sizes.append(overrides.get(name, overrides.get(os.path.basename(prog), size_str(base["size"]))))
                if not a.no_verify_sizes:
                    sizes += [size_str(v) for v in base.get("verify_sizes", [])]
            if not base.get("footprint", False):
                print(fmt % (name, "-", "-", "-", "-", "-", "NO FOOTPRINT"))
                failures += 1
                continue
            for sz in sizes:
                size = [int(v) for v in sz.split(",")]

                def row(launch, union, reported, what, lidx=None):
                    nonlocal failures
                    if reported is None:
                        print(fmt % (name, sz, launch, union, "-", "-", "launch_footprints_bytes not reported"
                                     + (" (union: the launches' unions summed)" if "-" in launch else "")))
                        return
                    diff = reported - union
                    want, why = known(size, what, lidx)
                    if diff == 0 and want == 0:
                        status = "ok"
                    elif diff == want:
                        status = "ok (known: %s)" % why
                    else:
                        status = "MISMATCH" + (" (expected a difference of %d: %s)" % (want, why) if want else "")
                        failures += 1
                    print(fmt % (name, sz, launch, union, reported, diff, status))

                try:
                    inf = info(prog, sz)
                    buffers, launches, errors = check_footprint(prog, sz)
                except (RuntimeError, FootprintError, ValueError) as e:
                    print(fmt % (name, sz, "-", "-", "-", "-", "ERROR: %s" % e))
                    failures += 1
                    continue
                if section:
                    out_prog = run([prog, "footprint", "--size", sz])
                    out_sec = run([section, "footprint", "--size", sz])
                    if out_prog != out_sec:
                        errors.append("the standalone section's footprint output differs from the program's")
                nl = len(launches)
                if "launches" in inf and inf["launches"] != nl:
                    errors.append("info says %d launches, the footprint %d" % (inf["launches"], nl))
                grids = [(l["grid"]["m"], l["grid"]["n"]) for l in launches]
                ig = (inf["grid"]["m"], inf["grid"]["n"])
                if ig not in grids:
                    errors.append("info's grid %dx%d is none of the footprint's launch grids" % ig)
                if inf.get("num_pids") != ig[0] * ig[1]:
                    errors.append("info's num_pids %s is not its grid's m*n" % inf.get("num_pids"))
                for e in errors:
                    print(fmt % (name, sz, "-", "-", "-", "-", "ERROR: %s" % e))
                    failures += 1
                reported = inf.get("launch_footprints_bytes") or []
                if reported and len(reported) != nl:
                    print(fmt % (name, sz, "-", "-", "-", "-", "ERROR: %d launch footprints for %d launches" % (len(reported), nl)))
                    failures += 1
                    reported = []
                if not reported:  # one row: the launches' unions summed (re-reads across launches count)
                    row(launch_list(list(range(nl))), sum(total(iv) for hdr in launches for iv in hdr["union"]),
                        None, "launch")
                groups = {}  # launches with the same figures and the same known difference
                for l, hdr in (enumerate(launches) if reported else ()):
                    u = sum(total(iv) for iv in hdr["union"])
                    r = reported[l] if reported else None
                    groups.setdefault((u, r, known(size, "launch", l)), []).append(l)
                for (u, r, _), ls in sorted(groups.items(), key=lambda kv: kv[1][0]):
                    row(launch_list(ls), u, r, "launch", ls[0])
                whole = 0
                for b in range(len(buffers)):
                    whole += total(merge([iv for hdr in launches for iv in hdr["union"][b]]))
                row("all", whole, inf.get("footprint_bytes"), "total")
    print("%s: %d mismatch%s" % ("FAIL" if failures else "PASS", failures, "" if failures == 1 else "es"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
