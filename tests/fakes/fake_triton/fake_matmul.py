# fake_matmul: a Triton kernel program for CI machines with neither a GPU, torch nor triton.
# It is shaped exactly like a real one (kernels/triton/*.py): a swizzle region between the
# markers, a SwzProgram, swz_main. Its "GPU" is EmulatedRuntime (swz_emulated.py, beside it) and
# its `triton` is the stub package beside it (triton.jit: identity; triton.language.I32: int32
# semantics), so the region runs as plain Python on int32 values.
#
# The kernel: a GEMM-like locality model, as tests/fakes/fake_nvcc.cpp's emulator. Size M,N,K
# (default 1024,1024,512), 64x64 tiles: a grid of ceil(M/64) x ceil(N/64) tiles; pid p computes
# tile swizzle_pid(p, num_pids, grid_m, grid_n) and writes output[t] = f(t) (one float32 per tile);
# a broken map leaves some tiles poisoned (NaN), so verify fails as on a real GPU. Each die
# (p % SWZ_NUM_DIES) is an LRU cache of 8 panels; a pass takes 1 + 4 x (miss fraction) modelled
# ms, so a grouped order is faster than row-major. In profile mode every launch prints one
# `SWZ_FAKE_METRICS {json}` line with fake_nvcc's keys (tests/fakes/fake_ncu.cpp reads them).
#
# Magic words in the region: SWZ_FAKE_HANG (every mode but info sleeps forever), SWZ_FAKE_CRASH
# (a launch dies by SIGSEGV), SWZ_FAKE_WRONG (one wrong output value). Env: SWZ_FAKE_SLEEP_MS=N
# (sleep N ms first, every mode), SWZ_FAKE_TIME_FLAT=1 (every order times 1 ms),
# SWZ_FAKE_SLOW_ABOVE_HIT_PCT=H / SWZ_FAKE_SLOW_FACTOR=F (an order of modelled hit rate >= H% runs
# F, default 1.5, times slower), SWZ_FAKE_LAUNCHES=N (run() is N identical launches),
# SWZ_FAKE_DUMP_TOL=T (dump_tol), SWZ_FAKE_OUTPUT_FILE=F (the output is F's bytes, u32 elements:
# hash digests given bytes), SWZ_FAKE_NO_DEVICE=1 (the runtime has no device: exit 3), SWZ_NUM_DIES. Run it with kernels/support on PYTHONPATH; a
# copy outside this directory finds swz_emulated.py and the stub through $SWZ_FAKE_TRITON_DIR
# (or PYTHONPATH).
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _d in (os.environ.get("SWZ_FAKE_TRITON_DIR", ""), _HERE):
    if _d and _d not in sys.path:
        sys.path.insert(0, _d)

import json  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

import triton  # noqa: E402
import triton.language as tl  # noqa: E402,F401

from swz_triton import SWZ_NUM_DIES, SwzProgram, swz_main  # noqa: E402
from swz_emulated import EmulatedRuntime, EmuTensor, emulate_launch  # noqa: E402

# swizzleperf:default-grid 16x16

# swizzleperf:begin
@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    return pid
# swizzleperf:end

TILE = 64
DEFAULT_K = 512


def _region_text():
    with open(os.path.abspath(__file__)) as f:
        text = f.read()
    begin = text.find("# swizzleperf:begin")
    end = text.find("# swizzleperf:end")
    return text[begin:end] if 0 <= begin < end else ""


_REGION = _region_text()
HANG = "SWZ_FAKE_HANG" in _REGION
CRASH = "SWZ_FAKE_CRASH" in _REGION
WRONG = "SWZ_FAKE_WRONG" in _REGION


def _env_on(name):
    v = os.environ.get(name, "")
    return bool(v) and v != "0"


def tile_value(t):
    """output[t]: exact in float32."""
    return ((t * 2654435761) % 65521) / 64.0 + 1.0


class FakeMatmul(SwzProgram):
    def __init__(self):
        super().__init__("fake_matmul", "fake_matmul_kernel")
        self._models = {}
        self.launches = max(1, int(os.environ.get("SWZ_FAKE_LAUNCHES", "1") or 1))

    def default_size(self):
        return (16 * TILE, 16 * TILE, DEFAULT_K)

    def grid(self, size):
        m, n, _ = size
        return ((m + TILE - 1) // TILE, (n + TILE - 1) // TILE)

    def footprint_bytes(self, size):
        m, n, k = size
        return 4 * (m * k + k * n + m * n)

    def launch_footprints_bytes(self, size):
        return [self.footprint_bytes(size)] * self.launches

    def dump_tol(self):
        return float(os.environ.get("SWZ_FAKE_DUMP_TOL", "0") or 0)

    def reduction_length(self, size):
        return size[2]

    def setup(self, size, seed):
        if HANG:
            while True:
                time.sleep(1)
        self.size = tuple(size)
        self.gm, self.gn = self.grid(size)
        self.fixed = None
        path = os.environ.get("SWZ_FAKE_OUTPUT_FILE", "")
        if path:
            with open(path, "rb") as f:
                self.fixed = f.read()
            self.out = EmuTensor(len(self.fixed) // 4, "u32")
        else:
            self.out = EmuTensor(self.gm * self.gn, "f32")

    def _model(self):
        key = (self.gm, self.gn)
        if key not in self._models:  # the region is fixed for the process: model each grid once
            self._models[key] = emulate_launch(swizzle_pid, self.gm, self.gn, int(SWZ_NUM_DIES))
        return self._models[key]

    def _launch(self):
        if CRASH:
            os.kill(os.getpid(), signal.SIGSEGV)
        model = self._model()
        np_ = self.gm * self.gn
        if self.fixed is not None:
            self.out.data[:] = self.fixed[:len(self.out.data)]
        for t in (model.tiles if self.fixed is None else ()):
            if 0 <= t < np_:
                self.out.set(t, tile_value(t))
        if WRONG and np_ and self.fixed is None:
            self.out.set(0, tile_value(0) + 1.0)
        sectors = model.hits + model.misses
        miss_frac = model.misses / sectors if sectors else 0.0
        ms = 1.0 if _env_on("SWZ_FAKE_TIME_FLAT") else 1.0 + 4.0 * miss_frac
        slow = os.environ.get("SWZ_FAKE_SLOW_ABOVE_HIT_PCT", "")
        if slow and sectors and 100.0 * model.hits / sectors >= float(slow):
            ms *= float(os.environ.get("SWZ_FAKE_SLOW_FACTOR", "") or 1.5)
        rt = self.runtime
        spread = (0, 1, -1, 2, -2)[getattr(rt, "launches_done", 0) % 5]
        rt.launches_done = getattr(rt, "launches_done", 0) + 1
        rt.advance(ms * (1.0 + 1e-4 * spread), ms * (300.0 + 200.0 * miss_frac))
        if rt.mode == "profile":
            metrics = {
                "kernel": "fake_matmul_kernel", "grid_size": np_,
                "lts__t_sectors.sum": sectors, "lts__t_sectors_lookup_hit.sum": model.hits,
                "lts__t_sectors_lookup_miss.sum": model.misses,
                "lts__t_sector_hit_rate.pct": round(100.0 * model.hits / sectors if sectors else 0.0, 6),
                "lts__t_sectors_srcunit_ltcfabric.sum": model.misses // 2,
                "dram__bytes_read.sum": model.misses * 32,
                "dram__bytes_write.sum": len(model.tiles) * SECTORS_PER_TILE_WRITE,
                "gpu__time_duration.sum": 1000000 + model.misses * 10,
                "sm__throughput.avg.pct_of_peak_sustained_elapsed":
                    round(40.0 + (40.0 * model.hits / sectors if sectors else 0.0), 6),
            }
            sys.stdout.write("SWZ_FAKE_METRICS " + json.dumps(metrics, separators=(",", ":")) + "\n")

    def run(self):
        for _ in range(self.launches):
            self._launch()

    def output(self):
        return self.out

    def reference(self, size):
        gm, gn = self.grid(size)
        return [tile_value(t) for t in range(gm * gn)]


SECTORS_PER_TILE_WRITE = 1024 * 32 // 8  # fake_nvcc: tiles * kSectorsPerLookup * 32 / 8 bytes written

if __name__ == "__main__":
    if os.environ.get("SWZ_FAKE_SLEEP_MS"):
        time.sleep(int(os.environ["SWZ_FAKE_SLEEP_MS"]) / 1000.0)
    raise SystemExit(swz_main(FakeMatmul(), runtime=EmulatedRuntime()))
