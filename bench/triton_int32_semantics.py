#!/usr/bin/env python3
# Triton's int32 semantics on the GPU, measured: what `//`, `%`, `<<`, `>>`, `+`, `*` and
# tl.cdiv give on run-time int32 values (negative operands, INT_MIN, -1, overflow, shift
# counts 0..31), compared element by element with the rules the tool's Python-region
# translator (core/py_region) and the fake Triton stub (tests/fakes/fake_triton) use:
# wrap-around + - *, `//` truncating toward zero, `%` with the dividend's sign. Shift counts
# outside 0..31 and INT_MIN // -1 are undefined in Triton (LLVM poison) and are not tested. Prints one JSON
# line: the cases, the mismatches (expected none) and the versions.
# Usage: python3 bench/triton_int32_semantics.py  (a GPU with torch + triton)
import json
import os
import sys

import torch
import triton
import triton.language as tl

import importlib.util  # noqa: E402

# The stub's int32 rules (tests/fakes/fake_triton/triton/language.py), loaded by path: its
# package name is `triton`, which is the real one here.
_stub = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fakes", "fake_triton", "triton", "language.py")
_spec = importlib.util.spec_from_file_location("swz_stub_language", _stub)
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
I32 = _mod.I32


@triton.jit
def ops_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    a = tl.load(a_ptr + i, mask=m, other=1)
    b = tl.load(b_ptr + i, mask=m, other=1)
    tl.store(out_ptr + i * 6 + 0, a // b, mask=m)
    tl.store(out_ptr + i * 6 + 1, a % b, mask=m)
    tl.store(out_ptr + i * 6 + 2, a + b, mask=m)
    tl.store(out_ptr + i * 6 + 3, a * b, mask=m)
    tl.store(out_ptr + i * 6 + 4, tl.cdiv(a, b), mask=m)
    tl.store(out_ptr + i * 6 + 5, a - b, mask=m)


@triton.jit
def shift_kernel(a_ptr, s_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    a = tl.load(a_ptr + i, mask=m, other=0)
    s = tl.load(s_ptr + i, mask=m, other=0)
    tl.store(out_ptr + i * 2 + 0, a << s, mask=m)
    tl.store(out_ptr + i * 2 + 1, a >> s, mask=m)


MAP_KERNEL = """
@triton.jit(do_not_specialize=["num_pids", "grid_m", "grid_n"])
def swz_map_kernel(out_ptr, num_pids, grid_m, grid_n):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, swizzle_pid(pid, num_pids, grid_m, grid_n))
"""


def region_mappings(region, grids, dies, tmpdir, tag):
    """The region's pid -> tile table on each grid, computed by real Triton on the GPU and by
    the stub's int32 rules on the host; returns the grids where they differ."""
    import types
    path = os.path.join(tmpdir, "swz_region_%s.py" % tag)
    with open(path, "w") as f:
        f.write("import triton\nimport triton.language as tl\nSWZ_NUM_DIES = tl.constexpr(%d)\n" % dies)
        f.write(region + "\n" + MAP_KERNEL)
    spec = importlib.util.spec_from_file_location("swz_region_%s" % tag, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    host = {"triton": types.SimpleNamespace(jit=lambda f: f), "tl": _mod, "SWZ_NUM_DIES": dies}
    exec(compile(region, "<region>", "exec"), host)
    bad = []
    for gm, gn in grids:
        n = gm * gn
        out = torch.full((n,), -12345, dtype=torch.int32, device="cuda")
        mod.swz_map_kernel[(n,)](out, n, gm, gn)
        gpu = out.cpu().tolist()
        cpu = [int(host["swizzle_pid"](I32(p), I32(n), I32(gm), I32(gn))) for p in range(n)]
        if gpu != cpu:
            bad.append({"grid": [gm, gn], "first_diff": next(i for i in range(n) if gpu[i] != cpu[i])})
    return bad


def main():
    imin, imax = -2 ** 31, 2 ** 31 - 1
    vals = [-7, 7, -8, 8, -1, 1, 2, -2, 3, -3, 13, -13, 100, -100, imin, imax, imin + 1, 65536, -65536, 123456789]
    divs = [2, -2, 3, -3, 1, -1, 7, -7, 16, -16, 65536, imax, imin]
    pairs = [(a, b) for a in vals for b in divs if not (a == imin and b == -1)]
    a = torch.tensor([p[0] for p in pairs], dtype=torch.int32, device="cuda")
    b = torch.tensor([p[1] for p in pairs], dtype=torch.int32, device="cuda")
    out = torch.empty(len(pairs) * 6, dtype=torch.int32, device="cuda")
    ops_kernel[(triton.cdiv(len(pairs), 128),)](a, b, out, len(pairs), BLOCK=128)
    got = out.cpu().tolist()
    names = ["//", "%", "+", "*", "cdiv", "-"]
    mismatches = []
    for k, (x, y) in enumerate(pairs):
        X, Y = I32(x), I32(y)
        want = [int(X // Y), int(X % Y), int(X + Y), int(X * Y), int((X + Y - 1) // Y), int(X - Y)]
        for j in range(6):
            if got[k * 6 + j] != want[j]:
                mismatches.append({"op": names[j], "a": x, "b": y, "triton": got[k * 6 + j], "rule": want[j]})
    shifts = [(x, s) for x in vals for s in range(32)]
    sa = torch.tensor([p[0] for p in shifts], dtype=torch.int32, device="cuda")
    ss = torch.tensor([p[1] for p in shifts], dtype=torch.int32, device="cuda")
    so = torch.empty(len(shifts) * 2, dtype=torch.int32, device="cuda")
    shift_kernel[(triton.cdiv(len(shifts), 128),)](sa, ss, so, len(shifts), BLOCK=128)
    sg = so.cpu().tolist()
    for k, (x, s) in enumerate(shifts):
        want = [int(I32(x) << s), int(I32(x) >> s)]
        for j in range(2):
            if sg[k * 2 + j] != want[j]:
                mismatches.append({"op": ["<<", ">>"][j], "a": x, "b": s, "triton": sg[k * 2 + j], "rule": want[j]})
    # The regions the tool's built-in proposer wrote in this session's H100 runs.
    import glob
    import tempfile
    regions = {}
    for h in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "raw-triton", "*-history.json"))):
        for att in json.load(open(h)).get("attempts", []):
            regions[att["label"]] = att["region"]
    grids = [(32, 128), (64, 128), (7, 5), (13, 1), (1, 13), (9, 16), (33, 17)]
    region_diffs = {}
    with tempfile.TemporaryDirectory() as tmpdir:
        for i, (label, region) in enumerate(sorted(regions.items())):
            for dies in (1, 2):
                d = region_mappings(region, grids, dies, tmpdir, "%d_%d" % (i, dies))
                if d:
                    region_diffs["%s dies=%d" % (label, dies)] = d
    examples = {f"{x} {op} {y}": got[pairs.index((x, y)) * 6 + j]
                for (x, y) in [(-7, 2), (7, -2), (-7, -2)] for j, op in [(0, "//"), (1, "%")]}
    print(json.dumps({"torch": torch.__version__, "triton": triton.__version__, "device": torch.cuda.get_device_name(),
                      "cases": len(pairs) * 6 + len(shifts) * 2, "mismatches": mismatches[:20],
                      "mismatch_count": len(mismatches), "examples": examples,
                      "regions_compared": sorted(regions), "region_grids": grids, "region_mismatches": region_diffs}))
    return 0 if not mismatches and not region_diffs else 1


if __name__ == "__main__":
    sys.exit(main())
