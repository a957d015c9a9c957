# EmulatedRuntime: kernels/support/swz_triton.py's runtime interface in pure Python, for the fake
# Triton program (fake_matmul.py) on CI machines with neither a GPU, torch nor triton.
#
# "Device" buffers are EmuTensors (bytes in a bytearray). Time is virtual: a pass of the fake
# kernel advances the runtime's clock by its modelled milliseconds (emulate_launch below), the
# events read that clock, now() is it in seconds and sleep() advances it, so burst and sustained
# timings are deterministic and take no wall time. The telemetry is "fake": 1980 MHz (also the
# reference clock), no clock-limit reasons, an energy counter that grows with the modelled work.
# SWZ_FAKE_NO_DEVICE=1: init_device fails as on a machine without a GPU (exit 3).
# Its numbers are a model for testing the loop, never measurements.
#
# emulate_launch is the kernel model of tests/fakes/fake_nvcc.cpp's emulator: pid p computes tile
# swizzle_pid(p, num_pids, grid_m, grid_n) (called with I32 arguments: Triton's int32
# semantics); tile (i, j) of the m x n grid reads row panel i and column panel j; each die
# (p % dies) is an LRU cache of 8 panels, 1024 sectors a panel lookup.
import struct

from triton.language import I32

import os

from swz_triton import SwzError, SwzRuntime, Sample

PANEL_CAP = 8
SECTORS_PER_LOOKUP = 1024


class EmuTensor:
    """A 1-D device buffer of `count` elements of dtype 'f32', 'f64', 'i32', 'u32' or 'f16'."""

    SIZES = {"f32": 4, "f64": 8, "i32": 4, "u32": 4, "f16": 2}
    CODES = {"f32": "f", "f64": "d", "i32": "i", "u32": "I", "f16": "e"}

    def __init__(self, count, dtype="f32"):
        self.count = count
        self.dtype = dtype
        self.data = bytearray(count * self.SIZES[dtype])

    def set(self, i, value):
        struct.pack_into("<" + self.CODES[self.dtype], self.data, i * self.SIZES[self.dtype], value)

    def get(self, i):
        return struct.unpack_from("<" + self.CODES[self.dtype], self.data, i * self.SIZES[self.dtype])[0]


class LaunchModel:
    def __init__(self):
        self.tiles = []  # tile of each pid, in pid order (may be out of range: a broken map)
        self.hits = 0
        self.misses = 0


def emulate_launch(swizzle_pid, grid_m, grid_n, dies):
    """The tiles every pid computes, and the modelled L2 traffic (fake_nvcc's simulate)."""
    np_ = grid_m * grid_n
    dies = max(1, int(dies))
    lru = [[] for _ in range(dies)]  # most recent at the back
    r = LaunchModel()
    for pid in range(np_):
        t = int(swizzle_pid(I32(pid), I32(np_), I32(grid_m), I32(grid_n)))
        r.tiles.append(t)
        if t < 0 or t >= np_:
            continue  # a real kernel would read garbage; no modelled traffic
        cache = lru[pid % dies]
        for key in (t // grid_n, -1 - (t % grid_n)):
            if key in cache:
                cache.remove(key)
                r.hits += SECTORS_PER_LOOKUP
            else:
                if len(cache) >= PANEL_CAP:
                    del cache[0]
                r.misses += SECTORS_PER_LOOKUP
            cache.append(key)
    return r


class _Events:
    def __init__(self, rt):
        self.rt = rt
        self.t0 = self.t1 = 0.0

    def record_start(self):
        self.t0 = self.rt.clock_ms

    def record_stop(self):
        self.t1 = self.rt.clock_ms

    def wait_ms(self):
        return self.t1 - self.t0


class _FakeTelemetry:
    def __init__(self, rt):
        self.rt = rt

    def sample(self, with_energy=True):
        s = Sample()
        s.sm_mhz = 1980.0
        s.reasons = 0
        if with_energy:
            s.energy_mj = self.rt.energy_mj
        return s

    def source(self):
        return "fake"


class EmulatedRuntime(SwzRuntime):
    name = "emulated"
    hash_chunk_bytes = 256  # small chunks, as fake_nvcc's, so tests can see which chunk differs

    def __init__(self):
        self.clock_ms = 0.0
        self.energy_mj = 0.0

    def advance(self, ms, energy_mj=0.0):
        """The fake kernel's modelled cost of one launch."""
        self.clock_ms += ms
        self.energy_mj += energy_mj

    def init_device(self):
        v = os.environ.get("SWZ_FAKE_NO_DEVICE", "")
        if v and v != "0":  # a machine without a GPU: the harness's runtime error
            raise SwzError(3, "no GPU device (device count is 0)")

    def synchronize(self):
        pass

    def dtype(self, out):
        return out.dtype

    def numel(self, out):
        return out.count

    def read_bytes(self, out, offset=0, count=None):
        end = len(out.data) if count is None else offset + count
        return bytes(out.data[offset:end])

    def poison(self, out):
        out.data[:] = b"\xff" * len(out.data)

    def event_pair(self):
        return _Events(self)

    def scratch(self, nbytes):
        return None  # the L2 flush costs nothing in the model

    def flush(self, scratch, value):
        pass

    def now(self):
        return self.clock_ms / 1000.0

    def sleep(self, seconds):
        self.clock_ms += seconds * 1000.0

    def device_ids(self):
        return None, 1980.0

    def open_telemetry(self):
        return _FakeTelemetry(self)

    def random_uniform(self, count, rng, lo=-1.0, hi=1.0, dtype="f32"):
        t = EmuTensor(count, dtype)
        for i in range(count):
            t.set(i, rng.uniform(lo, hi))
        return t
