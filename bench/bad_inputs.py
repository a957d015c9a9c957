#!/usr/bin/env python3
"""Runs swizzleperf on every bad input of docs/reliability.md's table and prints
the table: the case, the exit code and the error line, as the binary gives them.

    bench/bad_inputs.py --binary build/swizzleperf --fakes build/tests/fakes > table.md

No GPU needed: GPU-side cases use the fake nvcc/ncu of tests/fakes (the same ones
the e2e tests use), and the LLM cases a closed port and a tiny loopback server
started here (127.0.0.1 only). The e2e tests (tests/e2e/newcomer_e2e_test.cpp)
hold the same cases to their exit codes; this script only shows them to people.
"""
import argparse
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Replies(http.server.BaseHTTPRequestHandler):
    """Answers every POST with the status and body the server was given."""

    def do_POST(self):  # noqa: N802 (http.server's name)
        n = int(self.headers.get("content-length", "0"))
        self.rfile.read(n)
        status, body = self.server.reply
        self.send_response(status)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve(status, body):
    srv = http.server.HTTPServer(("127.0.0.1", 0), Replies)
    srv.reply = (status, body)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def gemm_with(tmp, name, region, grid=None):
    text = (ROOT / "kernels" / "gemm.hip").read_text()
    b = text.index("// swizzleperf:begin\n") + len("// swizzleperf:begin\n")
    e = text.index("// swizzleperf:end")
    text = text[:b] + region + text[e:]
    if grid:
        g = text.index("// swizzleperf:default-grid ")
        nl = text.index("\n", g)
        text = text[:g] + "// swizzleperf:default-grid " + grid + text[nl:]
    path = tmp / (name + ".hip")
    path.write_text(text)
    return str(path)


IDENTITY = "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n  return pid;\n}\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / "build" / "swizzleperf"))
    ap.add_argument("--fakes", default=str(ROOT / "build" / "tests" / "fakes"))
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    fakes = pathlib.Path(args.fakes).resolve()
    nvcc, ncu = str(fakes / "fake_nvcc"), str(fakes / "fake_ncu")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="swz-bad-inputs-"))
    gemm = str(ROOT / "kernels" / "gemm.hip")
    fake = ["--backend", "cuda", "--nvcc", nvcc, "--ncu", ncu, "--reps", "3"]
    ws = gemm_with(tmp, "whitespace", "SWZ_HD unsigned swizzle_pid" + " " * 30720 +
                   "(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n  return pid;\n}\n")
    big = gemm_with(tmp, "big_region", IDENTITY + "// " + "x" * 70 * 1024 + "\n")
    tall = gemm_with(tmp, "ten_million", IDENTITY, "1x10000000")
    inc = gemm_with(tmp, "include", "#include <cstdlib>\n" + IDENTITY)
    spin = gemm_with(tmp, "spin", "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
                     "  unsigned x = pid;\n  while (x == x) { x = x + 1; }\n  return x;\n}\n")
    (tmp / "outdir").mkdir()
    for name, device, kernel in (("a", "NVIDIA H100 80GB HBM3", "gemm"), ("b", "NVIDIA H100 80GB HBM3", "softmax"),
                                 ("c", "AMD Instinct MI300X", "gemm")):
        (tmp / f"{name}.json").write_text(json.dumps({
            "kind": "optimize", "kernel": kernel, "device": device,
            "baseline": {"l2_hit_pct": 50.0, "median_ms": 2.0},
            "best": {"l2_hit_pct": 60.0, "median_ms": 1.8, "pattern": "grouped"}}))
    impossible = json.loads((tmp / "a.json").read_text())
    impossible["best"]["median_ms"] = -1
    (tmp / "impossible.json").write_text(json.dumps(impossible))
    for name, objective in (("shard_time", "time"), ("shard_l2", "l2")):
        (tmp / name).mkdir()
        (tmp / name / "suite-summary.json").write_text(json.dumps({
            "objective": objective, "kernels": [{"kernel": "gemm", "validated": True, "objective": objective}]}))
    (tmp / "plain_file").write_text("x\n")
    (tmp / "empty.cu").write_text("")
    shutil.copy(ROOT / "examples" / "byok" / "blur.cu", tmp / "blur.cu")
    subprocess.run([binary, "init", "blur.cu"], cwd=tmp, capture_output=True, check=True)
    (tmp / "filled").mkdir()
    filled = str(tmp / "filled" / "blur_swz.cu")
    shutil.copy(ROOT / "examples" / "byok" / "blur_swz.cu", filled)
    s501 = serve(501, b"Not Implemented")
    sgarbage = serve(200, b"<html>hello</html>")
    llm = ["--proposer", "llm", "--llm-timeout", "5", "--iterations", "2", "--run-dir", str(tmp / "llm-run")] + fake
    cases = [
        ("region with 30 KB of whitespace (`check`)", ["check", ws, "--arch", "sm_90"]),
        ("region over 64 KiB (`check`)", ["check", big]),
        ("`check --grid 65536x65537`", ["check", gemm, "--grid", "65536x65537"]),
        ("`check --grid 10000x10000` (10^8 tiles)", ["check", gemm, "--grid", "10000x10000"]),
        # --no-build: the planted comment disagrees with gemm's info grid where nvcc is present;
        # the host evaluator's scale is the case (as in tests/e2e/newcomer_e2e_test.cpp).
        ("identity on `default-grid 1x10000000` (`--no-build`)", ["check", tall, "--arch", "sm_90", "--no-build"]),
        ("`#include` in the region (`check`)", ["check", inc]),
        ("`while` that never ends, `--check-timeout 2`", ["check", spin, "--check-timeout", "2"]),
        ("`suite --backend cuda` with no ncu", ["suite", gemm, "--backend", "cuda", "--nvcc", nvcc, "--ncu",
                                               "/nonexistent/ncu", "--out", str(tmp / "suite")]),
        ("`--base-url` at a closed port", ["optimize", gemm, "--base-url", "http://127.0.0.1:1/v1"] + llm),
        ("`--base-url` at a server answering 501",
         ["optimize", gemm, "--base-url", f"http://127.0.0.1:{s501.server_port}/v1"] + llm),
        ("`--base-url` at a server answering 200 with HTML",
         ["optimize", gemm, "--base-url", f"http://127.0.0.1:{sgarbage.server_port}/v1"] + llm),
        ("`suite --iterations -1`", ["suite", gemm, "--iterations", "-1"]),
        ("`compare` with no kernel in common", ["compare", str(tmp / "a.json"), str(tmp / "b.json")]),
        ("`compare` of two devices", ["compare", str(tmp / "a.json"), str(tmp / "c.json")]),
        ("`optimize --size 1,2` (3 numbers wanted), no GPU", ["optimize", gemm, "--size", "1,2", "--nvcc", "/nonexistent/nvcc"]),
        ("`optimize --warmup -5`", ["optimize", gemm, "--warmup", "-5"]),
        ("`optimize --proposer magic`", ["optimize", gemm, "--proposer", "magic"]),
        ("`optimize a.hip b.hip`", ["optimize", gemm, gemm]),
        ("`optimize --run-timeout -1`", ["optimize", gemm, "--run-timeout", "-1"]),
        ("`optimize` with no GPU", ["optimize", gemm, "--nvcc", "/nonexistent/nvcc"]),
        ("`optimize --json` of a missing file", ["optimize", str(tmp / "missing.hip"), "--json"]),
        ("`build -o` onto a directory", ["build", gemm, "--backend", "cuda", "--nvcc", nvcc, "-o", str(tmp / "outdir")]),
        ("`gate` with no ncu", ["gate", gemm, "--backend", "cuda", "--nvcc", nvcc, "--ncu", "/nonexistent/ncu"]),
        ("`compare` of a result whose time is -1 ms", ["compare", str(tmp / "a.json"), str(tmp / "impossible.json")]),
        ("`check --strict --no-build` of init's unfilled output", ["check", "--strict", "blur_swz.cu", "--no-build"]),
        ("`init blur.cu -o blur.py`", ["init", "blur.cu", "-o", "blur.py"]),
        ("`suite --merge` of shards run with other objectives", ["suite", "--merge", "shard_time", "shard_l2", "--out", "all"]),
        ("`suite --merge --out` where a file is in the way", ["suite", "--merge", "shard_time", "--out", "plain_file/all"]),
        ("`predict --size 1000000000,1000000000,1000000000`",
         ["predict", gemm, "--arch", "sm_90", "--size", "1000000000,1000000000,1000000000"]),
        ("`predict --size 999999999999`", ["predict", str(ROOT / "kernels" / "black_scholes.hip"), "--size", "999999999999"]),
        ("`version extra`", ["version", "extra"]),
        ("`check --host-cxx /bin/false --no-build`", ["check", gemm, "--host-cxx", "/bin/false", "--no-build"]),
        ("`sweep --run` of a missing dir", ["sweep", gemm, "--run", "runs/x", "--sizes", "64,64,64"]),
        ("`optimize --resume` of a file", ["optimize", "--resume", "empty.cu"]),
        ("`build -o` into a missing directory", ["build", gemm, "--backend", "cuda", "--nvcc", nvcc, "--arch", "sm_90",
                                                 "-o", "nodir/gemm"]),
        ("`optimize --arch sm_999`, no GPU", ["optimize", gemm, "--arch", "sm_999"]),
        # Not errors: the machine modelled or built for without --arch, said in one line.
        ("`check` of a finished `.cu` port, no `--arch`", ["check", filled, "--no-build"], "model:"),
        ("`build blur_swz.cu -o bb`, no `--arch`, no GPU", ["build", filled, "--nvcc", nvcc, "-o", "bb"], "built"),
    ]
    print("| input | exit | what it says |")
    print("|---|---:|---|")
    for label, argv, *shown in cases:
        r = subprocess.run([binary] + argv, cwd=tmp, capture_output=True, text=True, timeout=300)
        lines = [ln for ln in r.stderr.splitlines() if ln.startswith("swizzleperf: error:")]
        first = tuple(shown) or ("PASS", "FAIL")  # the stdout line shown when there is no error line
        said = lines[-1] if lines else next((ln for ln in r.stdout.splitlines() if ln.startswith(first)), "")
        said = said.replace(str(tmp) + "/", "").replace(str(ROOT) + "/", "").replace("|", "\\|")
        if len(said) > 220:
            said = said[:217] + "..."
        print(f"| {label} | {r.returncode} | {said} |")
    s501.shutdown()
    sgarbage.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
