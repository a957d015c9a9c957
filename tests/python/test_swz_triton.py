"""Tests of kernels/support/swz_triton.py (the harness of Triton kernel programs), through the
fake Triton program tests/fakes/fake_triton/fake_matmul.py (plain Python: no torch, no triton).
Standard library only: python3 -m unittest discover -s tests/python -v"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUPPORT = os.path.join(ROOT, "kernels", "support")
FAKE_DIR = os.path.join(ROOT, "tests", "fakes", "fake_triton")
FAKE = os.path.join(FAKE_DIR, "fake_matmul.py")

sys.path.insert(0, SUPPORT)
sys.path.insert(0, FAKE_DIR)
import swz_triton  # noqa: E402
from triton.language import I32  # noqa: E402  (the stub's)
import triton.language as tl  # noqa: E402

GROUPED_REGION = """@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    group = 4 * grid_n
    first_m = (pid // group) * 4
    size_m = tl.minimum(grid_m - first_m, 4)
    return (first_m + (pid % group) % size_m) * grid_n + (pid % group) // size_m
"""


def run(args, program=FAKE, stdin=None, env=None, timeout=30):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([SUPPORT, FAKE_DIR])
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    for k in list(e):
        if k.startswith("SWZ_"):
            del e[k]
    e.update(env or {})
    p = subprocess.run([sys.executable, program] + list(args), input=stdin, capture_output=True, text=True,
                       env=e, timeout=timeout)
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    last = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None
    return p.returncode, last, p.stdout, p.stderr


def with_region(tmp, region, name="fake_matmul.py"):
    """A copy of the fake program with `region` between the markers."""
    with open(FAKE) as f:
        text = f.read()
    begin = text.index("# swizzleperf:begin\n") + len("# swizzleperf:begin\n")
    end = text.index("# swizzleperf:end")
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text[:begin] + region + text[end:])
    return path


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="swz_triton_test_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class ModesTest(Tmp):
    def test_import_needs_neither_torch_nor_triton(self):
        code = ("import sys, swz_triton; assert 'torch' not in sys.modules and 'triton' not in sys.modules; "
                "print(swz_triton.num_dies())")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=SUPPORT, SWZ_NUM_DIES="2"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "2")

    def test_info(self):
        rc, j, _, _ = run(["info"])
        self.assertEqual(rc, 0)
        self.assertEqual(list(j), ["kernel", "kernel_regex", "size", "grid", "num_pids", "footprint_bytes", "num_dies",
                                   "dump_tol", "verify_sizes", "launches", "launch_footprints_bytes", "warmup_runs"])
        self.assertEqual(j["kernel"], "fake_matmul")
        self.assertEqual(j["kernel_regex"], "fake_matmul_kernel")
        self.assertEqual(j["size"], [1024, 1024, 512])
        self.assertEqual(j["grid"], {"m": 16, "n": 16})
        self.assertEqual(j["num_pids"], 256)
        self.assertEqual(j["footprint_bytes"], 4 * (1024 * 512 * 2 + 1024 * 1024))
        self.assertEqual(j["num_dies"], 1)
        self.assertEqual(j["dump_tol"], 0)
        self.assertEqual(j["warmup_runs"], 1)
        self.assertEqual(j["launches"], 1)
        self.assertEqual(j["verify_sizes"][0], [1, 1, 1])
        self.assertEqual(len(j["verify_sizes"]), 8)
        rc, j, _, _ = run(["info", "--size", "200,130,8"], env={"SWZ_NUM_DIES": "8", "SWZ_FAKE_LAUNCHES": "3"})
        self.assertEqual((j["grid"], j["num_dies"], j["launches"]), ({"m": 4, "n": 3}, 8, 3))
        self.assertEqual(len(j["launch_footprints_bytes"]), 3)

    def test_verify_ok(self):
        rc, j, _, _ = run(["verify", "--seed", "7"])
        self.assertEqual(rc, 0)
        self.assertEqual((j["mode"], j["ok"], j["seed"]), ("verify", True, 7))
        self.assertEqual(len(j["cases"]), 8)
        c = j["cases"][0]
        self.assertEqual(list(c), ["size", "max_abs_err", "max_rel_err", "tol", "rel_tol", "mismatches", "nonfinite", "ok"])
        self.assertTrue(all(c["ok"] and c["mismatches"] == 0 for c in j["cases"]))

    def test_verify_fails_on_a_non_bijective_region(self):
        prog = with_region(self.tmp, "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return pid // 2\n")
        rc, j, _, _ = run(["verify"], program=prog)
        self.assertEqual(rc, 1)
        self.assertFalse(j["ok"])
        bad = [c for c in j["cases"] if not c["ok"]]
        self.assertTrue(bad)
        self.assertGreater(bad[0]["nonfinite"], 0)  # poisoned tiles never written
        self.assertIsNone(bad[0]["max_abs_err"])
        self.assertIn("first_bad", bad[0])

    def test_grouped_region_verifies_and_is_faster_than_row_major(self):
        prog = with_region(self.tmp, GROUPED_REGION)
        rc, j, _, _ = run(["verify"], program=prog)
        self.assertEqual(rc, 0, j)
        rc, grouped, _, _ = run(["time"], program=prog)
        rc2, identity, _, _ = run(["time"])
        self.assertEqual((rc, rc2), (0, 0))
        self.assertLess(grouped["median_ms"], identity["median_ms"])
        rc, flat, _, _ = run(["time"], program=prog, env={"SWZ_FAKE_TIME_FLAT": "1"})
        self.assertAlmostEqual(flat["median_ms"], 1.0, places=3)

    def test_magic_words(self):
        prog = with_region(self.tmp, "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
                                     "    return pid  # SWZ_FAKE_WRONG\n")
        rc, j, _, _ = run(["verify"], program=prog)
        self.assertEqual((rc, j["ok"]), (1, False))
        crash = with_region(self.tmp, "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
                                      "    return pid  # SWZ_FAKE_CRASH\n", name="crash.py")
        rc, _, _, _ = run(["time"], program=crash)
        self.assertEqual(rc, -signal.SIGSEGV)
        rc, j, _, _ = run(["info"], program=crash)
        self.assertEqual(rc, 0)
        hang = with_region(self.tmp, "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
                                     "    return pid  # SWZ_FAKE_HANG\n", name="hang.py")
        with self.assertRaises(subprocess.TimeoutExpired):
            run(["profile"], program=hang, timeout=1.5)

    def test_time_burst(self):
        rc, j, _, _ = run(["time", "--reps", "7", "--warmup", "2"])
        self.assertEqual(rc, 0)
        self.assertEqual(list(j), ["mode", "size", "median_ms", "min_ms", "max_ms", "mean_ms", "reps", "warmup", "times_ms",
                                   "regime", "telemetry", "sm_mhz_min", "sm_mhz_median", "sm_mhz_reference",
                                   "clock_reasons", "discarded", "throttle_threshold", "energy_mj_per_run",
                                   "regime_reached"])
        self.assertEqual((j["mode"], j["regime"], j["reps"], j["warmup"], len(j["times_ms"])), ("time", "burst", 7, 2, 7))
        self.assertEqual((j["telemetry"], j["sm_mhz_reference"], j["clock_reasons"], j["discarded"]), ("fake", 1980, 0, 0))
        self.assertIsNone(j["energy_mj_per_run"])
        self.assertTrue(j["regime_reached"])
        self.assertLessEqual(j["min_ms"], j["median_ms"])
        self.assertLessEqual(j["median_ms"], j["max_ms"])

    def test_time_sustained(self):
        rc, j, _, _ = run(["time", "--regime", "sustained"])
        self.assertEqual(rc, 0)
        self.assertEqual(j["regime"], "sustained")
        for k in ("passes", "batch", "window_s", "settle_s", "clock_slide_pct"):
            self.assertIn(k, j)
        self.assertGreater(j["energy_mj_per_run"], 0)
        self.assertGreaterEqual(j["reps"], 5)
        self.assertTrue(j["regime_reached"])
        self.assertGreaterEqual(j["settle_s"], 2.0)
        self.assertGreaterEqual(j["window_s"], 1.0)  # the default window
        # A window too short for 5 batches: not reached, with the reason.
        rc, j, _, _ = run(["time", "--regime=sustained", "--settle-seconds", "0", "--sustain-seconds", "0.01"])
        self.assertEqual(rc, 0)
        self.assertFalse(j["regime_reached"])
        self.assertIn("raise --sustain-seconds", j["regime_problem"])

    def test_profile_prints_metrics_per_launch(self):
        rc, j, out, _ = run(["profile"])
        self.assertEqual((rc, j), (0, {"mode": "profile", "ok": True}))
        metrics = [json.loads(ln.split(" ", 1)[1]) for ln in out.splitlines() if ln.startswith("SWZ_FAKE_METRICS ")]
        self.assertEqual(len(metrics), 2)  # the warm-up launch, then the profiled one
        m = metrics[-1]
        self.assertEqual(m["kernel"], "fake_matmul_kernel")
        for k in ("lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum",
                  "lts__t_sector_hit_rate.pct", "lts__t_sectors_srcunit_ltcfabric.sum", "dram__bytes_read.sum",
                  "dram__bytes_write.sum", "gpu__time_duration.sum"):
            self.assertIn(k, m)
        self.assertEqual(m["lts__t_sectors.sum"], m["lts__t_sectors_lookup_hit.sum"] + m["lts__t_sectors_lookup_miss.sum"])

    def test_dump_hash_compare_round_trip(self):
        dump = os.path.join(self.tmp, "out.bin")
        chunks = os.path.join(self.tmp, "chunks.txt")
        rc, j, _, _ = run(["dump", dump])
        self.assertEqual((rc, j), (0, {"mode": "dump", "bytes": 1024}))
        with open(dump, "rb") as f:
            data = f.read()
        self.assertEqual(len(data), 1024)
        rc, h, _, _ = run(["hash", "--chunks", chunks])
        self.assertEqual(rc, 0)
        self.assertEqual(list(h), ["mode", "bytes", "hash", "chunk_bytes", "chunks"])
        digests = swz_triton.digest_chunks_bytes(data, h["chunk_bytes"])
        with open(chunks) as f:
            self.assertEqual(f.read().split(), ["%016x" % d for d in digests])
        self.assertEqual(h["hash"], "%016x" % swz_triton.combine_digest(len(data), digests))
        rc2, h2, _, _ = run(["hash"])
        self.assertEqual(h2, h)  # deterministic
        rc, c, _, _ = run(["compare", dump])
        self.assertEqual((rc, c), (0, {"mode": "compare", "ok": True, "values": 256, "mismatches": 0, "first_index": -1, "tol": 0}))
        changed = bytearray(data)
        changed[4 * 9] ^= 0x40
        other = os.path.join(self.tmp, "other.bin")
        with open(other, "wb") as f:
            f.write(changed)
        rc, c, _, _ = run(["compare", other])
        self.assertEqual((rc, c["ok"], c["mismatches"], c["first_index"]), (1, False, 1, 9))
        rc, c, _, _ = run(["compare", other, "--tol", "1"])
        self.assertEqual((rc, c["ok"]), (0, True))
        with open(other, "wb") as f:
            f.write(data[:100])
        rc, c, _, err = run(["compare", other])
        self.assertEqual(rc, 1)
        self.assertEqual(c["error"], "output sizes differ (100 vs 1024 bytes)")
        rc, c, _, _ = run(["compare", os.path.join(self.tmp, "missing.bin")])
        self.assertEqual(rc, 2)
        self.assertTrue(c["error"].startswith("cannot open baseline file"))
        # A different order writes the same bytes: the same digest (identity vs grouped).
        rc, g, _, _ = run(["hash"], program=with_region(self.tmp, GROUPED_REGION))
        self.assertEqual(g["hash"], h["hash"])

    def test_evaluate(self):
        chunks = os.path.join(self.tmp, "chunks.txt")
        rc, j, _, _ = run(["evaluate", "--reps", "3", "--chunks", chunks])
        self.assertEqual(rc, 0)
        self.assertEqual(list(j), ["mode", "verify", "hash", "time", "ok", "seconds"])
        self.assertTrue(j["ok"] and j["verify"]["ok"])
        self.assertEqual(j["time"]["reps"], 3)
        self.assertEqual(list(j["seconds"]), ["verify", "check", "time"])
        self.assertTrue(os.path.exists(chunks))
        dump = os.path.join(self.tmp, "out.bin")
        run(["dump", dump])
        rc, j, _, _ = run(["evaluate", "--baseline", dump, "--tol", "0", "--reps", "2", "--regime", "sustained",
                           "--settle-seconds", "0.1", "--sustain-seconds", "0.2"])
        self.assertEqual(rc, 0)
        self.assertEqual(list(j), ["mode", "verify", "compare", "time", "ok", "seconds"])
        self.assertTrue(j["compare"]["ok"])
        self.assertEqual(j["time"]["regime"], "sustained")
        bad = with_region(self.tmp, "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n    return pid // 2\n")
        rc, j, _, _ = run(["evaluate", "--baseline", dump], program=bad)
        self.assertEqual(rc, 1)
        self.assertEqual(list(j), ["mode", "verify", "ok", "seconds"])

    def test_serve(self):
        rc, _, out, _ = run(["serve", "--reps", "4", "--settle-seconds", "0.1", "--sustain-seconds", "0.2"],
                            stdin="time\ntime sustained\ntime burst\nbogus\nquit\ntime\n")
        self.assertEqual(rc, 0)
        lines = [json.loads(ln) for ln in out.splitlines()]
        self.assertEqual(lines[0], {"mode": "serve", "ready": True, "size": [1024, 1024, 512]})
        self.assertEqual([ln.get("regime") for ln in lines[1:4]], ["burst", "sustained", "burst"])
        self.assertEqual(lines[1]["reps"], 4)
        self.assertEqual(lines[4], {"mode": "serve", "ok": False,
                                    "error": "unknown request 'bogus' (time|time burst|time sustained|quit)"})
        self.assertEqual(len(lines), 5)  # nothing after quit
        rc, _, out, _ = run(["serve", "--regime", "sustained", "--settle-seconds", "0", "--sustain-seconds", "0.2"],
                            stdin="time\n")  # end of input ends it
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out.splitlines()[1])["regime"], "sustained")


class ErrorsTest(Tmp):
    def usage(self, args, want):
        rc, j, out, err = run(args)
        self.assertEqual(rc, 2, (args, out, err))
        self.assertEqual(j["ok"], False)
        self.assertTrue(j["error"].startswith(want), (want, j["error"]))
        self.assertIn("error: " + want, err)
        self.assertEqual(len(out.splitlines()), 1)
        return j

    def test_usage_errors(self):
        j = self.usage(["time", "--size", "1024,x,3"], "--size wants positive integers separated by commas, got '1024,x,3'")
        self.assertEqual(j["mode"], "time")
        self.usage(["time", "--size", "1024,0,3"], "--size wants positive integers")
        self.usage(["time", "--size", "1024,1024"], "--size wants 3 values (default [1024,1024,512])")
        self.usage(["time", "--reps", "0"], "--reps wants an integer >= 1")
        self.usage(["time", "--reps=abc"], "--reps wants an integer >= 1")
        j = self.usage(["bogus"], "unknown mode 'bogus' (usage: prog info|verify|")
        self.assertEqual(j["mode"], "none")
        self.usage([], "missing mode")
        self.usage(["time", "--regime", "nonsense"], "--regime wants burst or sustained, got 'nonsense'")
        self.usage(["verify", "--size", "64,64,64"], "option --size is not valid for mode verify")
        self.usage(["info", "--reps", "3"], "option --reps is not valid for mode info")
        self.usage(["time", "--reps"], "option --reps needs a value")
        self.usage(["time", "stray"], "unexpected argument 'stray'")
        self.usage(["dump"], "dump needs an output FILE")
        self.usage(["compare", "--tol", "1"], "compare needs a BASELINE_FILE")
        self.usage(["compare", "x.bin", "--tol", "-1"], "--tol wants a finite number >= 0")
        self.usage(["time", "--throttle-threshold", "1"], "--throttle-threshold wants a number >= 0 and < 1")
        self.usage(["time", "--sustain-seconds", "0"], "--sustain-seconds wants a number > 0")
        self.usage(["time", "--seed", "-1"], "--seed wants an integer >= 0")

    def test_bad_die_count_is_a_usage_error(self):
        rc, j, _, _ = run(["info"], env={"SWZ_NUM_DIES": "zero"})
        self.assertEqual(rc, 2)
        self.assertIn("SWZ_NUM_DIES", j["error"])

    def test_size_checks_of_the_program(self):
        prog = os.path.join(self.tmp, "limited.py")
        with open(prog, "w") as f:
            f.write("import sys\nsys.path.insert(0, %r)\nfrom fake_matmul import FakeMatmul\n"
                    "from swz_emulated import EmulatedRuntime\nfrom swz_triton import swz_main\n"
                    "class P(FakeMatmul):\n"
                    "    def size_multiple(self): return (1, 16, 1)\n"
                    "    def size_error(self, s): return 'K must be even' if s[2] %% 2 else None\n"
                    "raise SystemExit(swz_main(P(), runtime=EmulatedRuntime()))\n" % FAKE_DIR)
        rc, j, _, _ = run(["time", "--size", "64,1000,64"], program=prog)
        self.assertEqual(rc, 2)
        self.assertTrue(j["error"].startswith("--size: value 2 (1000) must be a multiple of 16 (usage:"), j["error"])
        rc, j, _, _ = run(["time", "--size", "64,1008,63"], program=prog)
        self.assertEqual(rc, 2)
        self.assertTrue(j["error"].startswith("--size: K must be even"))
        # The default verify sizes keep only sizes that pass the program's checks.
        rc, j, _, _ = run(["info"], program=prog)
        self.assertEqual(rc, 0)
        self.assertTrue(all(s[1] % 16 == 0 and s[2] % 2 == 0 for s in j["verify_sizes"]), j["verify_sizes"])
        rc, j, _, _ = run(["verify"], program=prog)
        self.assertEqual((rc, j["ok"]), (0, True))

    def test_exception_in_setup_is_a_runtime_error(self):
        prog = os.path.join(self.tmp, "broken.py")
        with open(prog, "w") as f:
            f.write("import sys\nsys.path.insert(0, %r)\nfrom fake_matmul import FakeMatmul\n"
                    "from swz_emulated import EmulatedRuntime\nfrom swz_triton import swz_main\n"
                    "class P(FakeMatmul):\n"
                    "    def setup(self, size, seed): raise ValueError('no memory for \"A\"')\n"
                    "raise SystemExit(swz_main(P(), runtime=EmulatedRuntime()))\n" % FAKE_DIR)
        for mode in (["verify"], ["time"], ["hash"]):
            rc, j, out, err = run(mode, program=prog)
            self.assertEqual(rc, 3)
            self.assertEqual(out.splitlines(), [json.dumps(j, separators=(",", ":"))])
            self.assertEqual(j, {"mode": mode[0], "ok": False, "error": "ValueError: no memory for \"A\""})
            self.assertIn("Traceback", err)
        rc, j, _, _ = run(["info"], program=prog)
        self.assertEqual(rc, 0)


class VerifySizesTest(unittest.TestCase):
    ALL = staticmethod(lambda s: True)

    def test_same_sizes_as_swz_sizes_h(self):
        # Printed by a program built against kernels/support/swz_sizes.h (and its unit test's cases).
        cases = [
            (((4096, 32768, 1024), (), ()), [(1, 1, 1), (64, 64, 64), (3, 5, 7), (67, 131, 97), (97, 300, 67), (1, 300, 300),
                                              (300, 300, 1), (257, 300, 193)]),
            (((4096, 8192), (1, 4), ()), [(1, 4), (64, 64), (3, 8), (67, 132), (97, 300), (1, 300), (300, 4), (257, 300)]),
            (((1 << 29,), (), ()), [(1,), (64,), (5,), (67,), (97,), (1000,), (4099,), (100003,)]),
            (((8192, 8192, 24), (8, 1, 2), (0, 4096, 0)), [(8, 1, 2), (64, 64, 24), (8, 5, 8), (72, 131, 24), (104, 300, 24),
                                                          (8, 300, 24), (296, 300, 2), (264, 300, 24)]),
            (((4096, 4096, 4096, 4096), (2, 4, 8, 16), ()), [(2, 4, 8, 16), (64, 64, 64, 64), (4, 8, 8, 16),
                                                            (68, 68, 56, 80), (50, 76, 72, 80), (2, 152, 296, 288),
                                                            (150, 76, 152, 16), (66, 76, 56, 80)]),
            (((4, 32, 32, 8192, 2), (), (0, 0, 0, 0, 2)), [(1, 1, 1, 1, 1), (4, 32, 32, 64, 2), (3, 5, 7, 3, 2),
                                                          (4, 32, 32, 300, 2), (4, 32, 32, 131, 2), (1, 32, 32, 300, 2),
                                                          (4, 32, 32, 300, 1), (4, 32, 32, 257, 2)]),
            (((1000,), (8,), (640,)), [(8,), (64,), (72,), (104,), (640,)]),
            (((20, 5000, 3), (), ()), [(1, 1, 1), (20, 64, 3), (3, 5, 3), (20, 131, 3), (20, 300, 3), (1, 300, 3), (20, 300, 1)]),
            (((1024,) * 5, (), ()), [(1, 1, 1, 1, 1), (32, 32, 32, 32, 32), (3, 5, 7, 3, 5), (34, 33, 25, 19, 34),
                                     (25, 38, 34, 33, 25), (1, 75, 75, 75, 75), (75, 75, 75, 75, 1), (33, 19, 25, 33, 38)]),
            (((8, 64, 224, 224), (), ()), [(1, 1, 1, 1), (8, 64, 64, 64), (3, 5, 7, 3), (8, 64, 97, 224), (8, 64, 67, 131),
                                          (1, 64, 224, 224), (8, 64, 224, 1), (8, 64, 193, 224)]),
            (((16, 16), (16, 16), ()), [(16, 16)]),
        ]
        for (d, m, x), want in cases:
            self.assertEqual(swz_triton.default_verify_sizes(d, m, x, self.ALL), want, d)

    def test_only_legal_sizes(self):
        sizes = swz_triton.default_verify_sizes((4, 32, 32, 8192, 1), (), (), lambda s: s[1] % s[2] == 0)
        self.assertTrue(sizes)
        self.assertTrue(all(s[1] % s[2] == 0 for s in sizes))
        self.assertEqual(swz_triton.default_verify_sizes((4096, 4096), (), (), lambda s: False), [])

    def test_limit_messages(self):
        self.assertEqual(swz_triton.size_limit_error((4096, 1000), (1, 16), ()), "value 2 (1000) must be a multiple of 16")
        self.assertEqual(swz_triton.size_limit_error((5000, 16), (), (4096, 0)), "value 1 (5000) must be at most 4096")
        self.assertEqual(swz_triton.limits_error((64, 64), (16,), ()), "size_multiple() has 1 values, the default size 2")
        self.assertEqual(swz_triton.num_pids_error(1 << 31, 1 << 16, 1 << 15),
                         "num_pids 2147483648 (grid 65536 x 32768) is above 2^31 - 1, the most workgroups a 1-D launch takes")

    def test_default_tolerance(self):
        self.assertEqual(tuple(swz_triton.default_tol("i32", 100)), (0.0, 0.0, 0.0))
        self.assertEqual(swz_triton.default_tol("f32", 9).abs_per_max_ref, 4 * 9 * 2.0 ** -24)
        self.assertEqual(swz_triton.default_tol("f64", 0).abs_per_max_ref, 4 * 2.0 ** -53)
        # fp16 output: f32 accumulation and one rounding at the store, not 4 L 2^-11 R (~0.59 R at L = 300).
        f16 = swz_triton.default_tol("f16", 300)
        self.assertEqual(tuple(f16), (2.0 ** -24, 2.0 ** -11, 4 * 300 * 2.0 ** -24))
        self.assertLess(swz_triton.tol_abs(f16, 1.0) + f16.rel * 1.0, 1.2e-3)

    def test_fp16_default_tolerance_passes_a_rounded_sum_and_fails_a_missing_term(self):
        # A 300-term dot product of values in [-1, 1), summed exactly, then stored as fp16:
        # the default passes it; the same sum without one 64-term tile does not.
        import random
        import struct
        rng = random.Random(5)
        refs, rounded, missing = [], [], []
        for _ in range(64):
            terms = [rng.uniform(-1, 1) * rng.uniform(-1, 1) for _ in range(300)]
            ref = sum(terms)
            refs.append(ref)
            rounded.append(struct.unpack("e", struct.pack("e", ref))[0])
            missing.append(struct.unpack("e", struct.pack("e", ref - sum(terms[64:128])))[0])
        tol = swz_triton.default_tol("f16", 300)
        ok = swz_triton.CaseStats()
        swz_triton.check_values(rounded, refs, tol, ok)
        self.assertEqual(ok.mismatches, 0)
        bad = swz_triton.CaseStats()
        swz_triton.check_values(missing, refs, tol, bad)
        self.assertGreater(bad.mismatches, 48)
        self.assertEqual(swz_triton.tol_abs(swz_triton.SwzTol(1e-3, 0, 2.0), 10.0), 1e-3 + 20.0)

    def test_rng_and_digest(self):
        r = swz_triton.SwzRng(1234)
        a = [r.next() for _ in range(3)]
        r2 = swz_triton.SwzRng(1234)
        self.assertEqual(a, [swz_triton.mix64((1234 + (k + 1) * swz_triton.KSTEP) & swz_triton.MASK64) for k in range(3)])
        self.assertEqual(r2.next(), a[0])
        # One flipped bit changes the digest; the digest of no bytes is mix(0 ^ KSTEP).
        d1 = swz_triton.digest_chunks_bytes(b"\x01" * 1000, 256)
        d2 = swz_triton.digest_chunks_bytes(b"\x01" * 999 + b"\x03", 256)
        self.assertEqual(d1[:3], d2[:3])
        self.assertNotEqual(d1[3], d2[3])
        self.assertEqual(swz_triton.combine_digest(0, []), swz_triton.mix64(swz_triton.KSTEP))


class ConformanceDataTest(unittest.TestCase):
    """The Python harness against tests/conformance/cases.json without building anything: its
    usage text word for word, and its host digest at every vector's chunk size (1 MiB is what
    TorchRuntime's chunks are; the emulated runtime's 256-byte ones run in the C++ suite)."""
    DATA = os.path.join(ROOT, "tests", "conformance", "cases.json")

    def setUp(self):
        with open(self.DATA) as f:
            self.data = json.load(f)

    def test_usage_text(self):
        usage = self.data["usage"].replace("{modes}", self.data["usage_modes"]["python"])
        self.assertEqual(swz_triton.USAGE, usage)

    def test_digest_vectors(self):
        for v in self.data["digest_vectors"]["vectors"]:
            data = bytes((i * 131 + 7) & 0xFF for i in range(v["length"]))
            chunks = swz_triton.digest_chunks_bytes(data, v["chunk_bytes"])
            self.assertEqual(len(chunks), v["chunks"])
            self.assertEqual("%016x" % swz_triton.combine_digest(len(data), chunks), v["digest"], v)


class I32Test(unittest.TestCase):
    MIN, MAX = -(1 << 31), (1 << 31) - 1

    def test_wraps(self):
        self.assertEqual(int(I32(self.MAX) + 1), self.MIN)
        self.assertEqual(int(I32(self.MIN) - 1), self.MAX)
        self.assertEqual(int(I32(65536) * 65536), 0)
        self.assertEqual(int(I32(46341) * 46341), -2147479015)
        self.assertEqual(int(-I32(self.MIN)), self.MIN)
        self.assertEqual(int(I32(1 << 32)), 0)
        self.assertEqual(int(3 - I32(5)), -2)
        self.assertEqual(int(7 * I32(3)), 21)

    def test_division_truncates_toward_zero(self):
        for a, b, q, r in ((7, 2, 3, 1), (-7, 2, -3, -1), (7, -2, -3, 1), (-7, -2, 3, -1), (0, 5, 0, 0)):
            self.assertEqual((int(I32(a) // b), int(I32(a) % b)), (q, r), (a, b))
        self.assertEqual(int(I32(self.MIN) // -1), self.MIN)
        self.assertEqual(int(I32(self.MIN) % -1), 0)
        self.assertEqual(int(100 // I32(7)), 14)
        self.assertEqual(int(-100 % I32(7)), -2)
        with self.assertRaises(ZeroDivisionError):
            I32(1) // 0
        with self.assertRaises(TypeError):
            I32(1) / 2

    def test_shifts(self):
        self.assertEqual(int(I32(1) << 31), self.MIN)
        self.assertEqual(int(I32(1) << 32), 0)
        self.assertEqual(int(I32(1) << -1), 0)
        self.assertEqual(int(I32(-8) >> 1), -4)
        self.assertEqual(int(I32(-8) >> 40), -1)
        self.assertEqual(int(I32(8) >> 40), 0)
        self.assertEqual(int(1 << I32(4)), 16)

    def test_bitwise_and_comparisons(self):
        self.assertEqual(int(I32(0b1100) & 0b1010), 0b1000)
        self.assertEqual(int(I32(0b1100) | 0b1010), 0b1110)
        self.assertEqual(int(0b1100 ^ I32(0b1010)), 0b0110)
        self.assertEqual(int(~I32(0)), -1)
        self.assertIs(I32(3) < 4, True)
        self.assertIs(I32(3) == I32(3), True)
        self.assertIs(I32(3) != 3, False)
        self.assertIs(I32(-1) >= 0, False)
        self.assertEqual(int(tl.cdiv(I32(10), 4)), 3)
        self.assertEqual(int(tl.minimum(I32(3), 2)), 2)
        self.assertEqual(int(tl.maximum(I32(3), 2)), 3)
        self.assertEqual(tl.constexpr(5), 5)
        self.assertEqual([1, 2, 3][I32(1)], 2)


if __name__ == "__main__":
    unittest.main()
