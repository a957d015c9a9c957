# swizzleperf kernel (Triton): RMSNorm, y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w,
# fp16 x, w and y, fp32 arithmetic.
# swizzleperf:default-grid 1x65536
#
# Layouts (row-major, contiguous): x and y are rows x hidden fp16 (x[r, c] at r * hidden + c),
# w is hidden fp16; eps = 1e-5 (Llama's). Size is rows,hidden; rows is free, hidden is at most
# 32768 (size_max: a whole row sits in the program's registers), default 65536,8192 (65536
# tokens of an 8192-wide model: x is 1 GiB, y 1 GiB, w 16 KiB).
#
# One program per row: the 1-D launch has `rows` programs and the tile grid is 1-D, m = 1 row
# of n = rows tiles (as kernels/black_scholes.hip and kernels/spmv.hip: tile t = (tile_m =
# t // n = 0, tile_n = t % n = t)); program tl.program_id(0) normalizes row
# swizzle_pid(pid, ...). The identity region is the plain row order. The program loads its
# whole row at once (BLOCK_H = the next power of two >= hidden, at least 256; masked lanes
# load 0), squares and sums it in fp32 (tl.sum), takes rsqrt(sum / hidden + eps) (tl.math.rsqrt),
# multiplies x by it and by w in fp32, rounds to fp16 and stores the row. 8 warps at the
# default hidden (BLOCK_H / 1024 warps, 1 to 16): 32 fp16 values of x per thread, four 16-byte
# loads.
#
# Memory-bound, and the control: every byte of x is read once and every byte of y written once,
# by the one program that owns the row, with no re-read and no data shared between programs
# except w (16 KB, read by every program, resident in L2 and L1 under any order). The
# arithmetic is 4 fp32 flops per element, i.e. per 4 bytes moved, far below the ~18 fp32 flops
# per byte of DRAM bandwidth an H100 has (~60 TFLOP/s over 3.35 TB/s), so the kernel runs at
# DRAM bandwidth (2 GiB per pass at the default size, ~0.65 ms at 3.35 TB/s) and no block
# order can raise the L2 hit rate: every x line is a compulsory miss whatever the order, so
# any "gain" a candidate shows is noise (the role kernels/black_scholes.hip has among the C++
# programs).
#
# Ragged sizes: any hidden >= 1 (the lanes >= hidden are masked: they load 0, which adds
# nothing to the sum of squares, the mean divides by hidden, not BLOCK_H, and they store
# nothing) and any rows >= 1. A tile id outside [0, rows) (a broken mapping) is computed as
# row 0 and stored nowhere, so verify reports the rows it left unwritten (the NaN poison)
# instead of the kernel writing out of bounds.
#
# Order independence: each row is computed by exactly one program with a fixed instruction
# sequence (the reduction tree of tl.sum is fixed by BLOCK_H and the warp count, which depend
# on hidden alone), never depending on which program computes it or when; no atomics, no
# cross-program reductions: full-size outputs are identical bit for bit under every swizzle
# (dump_tol 0).
#
# Tolerance: |y - ref| <= 2^-24 + (2^-11 + (hidden + 16) * 2^-24) * |ref|, i.e. tolerance() =
# (abs 2^-24, rel 2^-11 + (hidden + 16) * 2^-24). (The harness's fp16 default is an absolute
# 4 * reduction_length * 2^-11 * max|ref|, over 0.5 * max|ref| at hidden 300: it would pass
# a wrong row.) The inputs are uniform in [-1, 1) rounded to fp16 and the reference computes
# x / sqrt(mean(x^2) + eps) * w in float64 on those same fp16 values, so input rounding is not
# an error. Write u = 2^-24 (fp32's unit roundoff). Relative errors of the fp32 part: x^2 is
# exact (11-bit significands); the sum of hidden non-negative terms in any order <=
# (hidden - 1) u; / hidden (div.full, 2 ulp) <= 4u; + eps <= u; rsqrt of an argument off by
# d is off by d/2, plus rsqrt.approx's own 2^-22.9 ~ 2.2u; * r and * w one rounding each:
# in all d_y <= (hidden + 4)/2 * u + 4.2u <= (hidden/2 + 6.2) u, so (hidden + 16) u is a
# margin of 2x or more on this worst case (a tree sum's error grows like log2(hidden), not
# hidden). Then the rounding of the fp32 result y' = ref (1 + d_y) to fp16 (round to nearest
# even): <= 2^-11 |y'| for a normal fp16 result, i.e. 2^-11 |ref| plus 2^-11 d_y |ref| (inside
# the margin); a result below 2^-14 (fp16 subnormal) rounds to a multiple of 2^-24, error
# <= 2^-25: the abs term. (eps enters the kernel as an
# fp32 1e-5, 2.5e-9 relative off the reference's float64 1e-5: moves r by < 1e-9, nothing.)
# What it catches: |ref| ~ |x| * 1.7 * |w| (mean x^2 ~ 1/3 on all but the shortest rows), and
# the bound is at most 2^-11 + 32784 u ~ 2.4e-3 relative (at hidden 32768; ~5e-4 at small
# hidden): a wrong row, a missing or misaligned weight, a mean over BLOCK_H instead of hidden
# (a factor 1.3 at hidden 300) or garbage in the masked lanes err by O(0.1..1) relative; a
# missing row leaves the NaN poison, which verify counts as non-finite.
#
# Verify sizes (verify_sizes below, not the derived ones, which keep hidden <= 300 and so
# would never run the 2- to 16-warp variants the default and larger hidden use): hidden 1, 5,
# 64, 131, 300 (1 warp, 256 or 512 lanes), 1000 (1 warp, 1024 lanes), 2048 (2 warps), 4000 (4
# warps, ragged), 8192 (the default's variant, 8 warps), 12289 (16 warps, a ragged 16384-lane
# block) and 32768 (the largest, 16 warps), rows from 1 to 131.
#
# Integer ranges: the row's base offset is int64 (row * hidden; rows * hidden may pass 2^31),
# column offsets are int32 below 32768, the launch is below 2^31 programs. Values the kernel
# passes to swizzle_pid are runtime int32 scalars: rows is not specialized (Triton would turn
# a rows of 1 into a constexpr), grid_n = rows, and grid_m = num_pids // grid_n (= 1: the launch
# is 1 x rows programs by construction) is computed at run time rather than written as the
# literal 1, which Triton would make a constexpr (folded with Python's rules, not int32's).
# hidden keeps its divisibility-by-16 specialization, which the vectorized loads and stores
# need.
#
# Measured on an NVIDIA H200 (4.8 TB/s; torch 2.11.0, triton 3.6.0; 2026-11-28), not yet on an
# H100. By hand (kernels/support on PYTHONPATH): verify passes all 11 sizes (max_rel_err at
# most 3.0e-4); `time --reps 20` at the default size: identity 0.519 ms (4.1 TB/s of x read
# plus y written), Triton's grouped order 0.518 ms, the output's hash the same under identity,
# reversed and grouped orders; torch.nn.functional.rms_norm 0.788 ms. `swizzleperf optimize
# rmsnorm.py --proposer builtin --iterations 1 --regime burst`: baseline 0.520 ms, DRAM bytes
# 2.12e9 (x and y once); die_rr 0.984x [0.983, 0.985]: "no significant speedup", as intended.
# A default `swizzleperf optimize` (both regimes, the speed judge): bench/results/2026-11-28-h200-judge.md.
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from swz_triton import SwzProgram, swz_main, swz_time_torch_ms, SWZ_NUM_DIES  # noqa: E402,F401

# swizzleperf:begin
@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    return pid
# swizzleperf:end


EPS = 1e-5
MAX_HIDDEN = 32768
MIN_BLOCK_H = 256


@triton.jit(do_not_specialize=["rows"])
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, rows, hidden, eps, BLOCK_H: tl.constexpr):
    num_pids = tl.num_programs(0)
    grid_n = rows  # one program per row
    grid_m = num_pids // grid_n  # 1: the launch is 1 x rows programs (see the header)
    tile = swizzle_pid(tl.program_id(0), num_pids, grid_m, grid_n)
    valid = (tile >= 0) & (tile < grid_m * grid_n)
    tile = tl.where(valid, tile, 0)
    row = tile % grid_n  # logical tile t: tile_m = t // n = 0, tile_n = t % n = t, the row

    cols = tl.arange(0, BLOCK_H)
    in_row = cols < hidden
    base = row.to(tl.int64) * hidden
    x = tl.load(x_ptr + base + cols, mask=in_row, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=in_row, other=0.0).to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / hidden
    r = tl.math.rsqrt(mean_sq + eps)
    y = x * r * w
    tl.store(y_ptr + base + cols, y.to(tl.float16), mask=in_row & valid)


def block_h(hidden):
    """The lanes of one program: the next power of two >= hidden, at least MIN_BLOCK_H."""
    return max(MIN_BLOCK_H, 1 << (int(hidden) - 1).bit_length())


def num_warps(hidden):
    """BLOCK_H / 1024 warps, 1 to 16 (32 elements a thread up to 16 warps)."""
    return min(16, max(1, block_h(hidden) // 1024))


class RmsNormProgram(SwzProgram):
    def __init__(self):
        super().__init__("rmsnorm", "rmsnorm_kernel")
        self._size = None
        self._x = self._w = self._y = None

    def default_size(self):
        return (65536, 8192)

    def size_multiple(self):
        return ()

    def size_max(self):
        return (0, MAX_HIDDEN)

    # Small rows, every warp-count variant (see the header): the derived sizes cap hidden at 300.
    def verify_sizes(self):
        return [(1, 1), (3, 5), (64, 64), (67, 131), (131, 300), (7, 1000), (11, 2048),
                (9, 4000), (33, 8192), (5, 12289), (3, 32768)]

    def size_error(self, size):
        return None  # hidden <= 32768 is size_max's; rows < 2^31 the harness's launch limit

    def grid(self, size):
        rows, _ = size
        return (1, rows)

    def footprint_bytes(self, size):
        rows, hidden = size
        return 2 * rows * hidden + 2 * hidden + 2 * rows * hidden

    def bytes_moved(self, size):
        rows, hidden = size
        return 4 * rows * hidden  # x read once, y written once (w stays in cache)

    def setup(self, size, seed):
        rows, hidden = (int(v) for v in size)
        self._size = (rows, hidden)
        self._x = self._w = self._y = None
        g = torch.Generator(device="cuda")
        g.manual_seed(int(seed))
        # uniform in [-1, 1), rounded to fp16 (the reference reads these same fp16 values)
        self._x = (torch.rand((rows, hidden), generator=g, device="cuda", dtype=torch.float32)
                   .mul_(2.0).sub_(1.0).to(torch.float16))
        self._w = (torch.rand((hidden,), generator=g, device="cuda", dtype=torch.float32)
                   .mul_(2.0).sub_(1.0).to(torch.float16))
        self._y = torch.empty((rows, hidden), device="cuda", dtype=torch.float16)

    def run(self):
        rows, hidden = self._size
        rmsnorm_kernel[(rows,)](self._x, self._w, self._y, rows, hidden, EPS,
                                BLOCK_H=block_h(hidden), num_warps=num_warps(hidden))

    def output(self):
        return self._y

    def reference(self, size):
        # float64 on the same fp16 values, rows x hidden row-major like output()
        x = self._x.cpu().to(torch.float64)
        w = self._w.cpu().to(torch.float64)
        mean_sq = (x * x).mean(dim=1, keepdim=True)
        return x / torch.sqrt(mean_sq + EPS) * w

    def reduction_length(self, size):
        return size[1]

    def tolerance(self, size):
        # (abs, rel): fp16 subnormal rounding; fp16 rounding of the result plus the fp32
        # sum of squares over hidden and the rest (argued in the header)
        hidden = size[1]
        return (2.0 ** -24, 2.0 ** -11 + (hidden + 16) * 2.0 ** -24)

    def dump_tol(self):
        return 0.0

    def baseline_throughput(self, size):
        """torch's RMSNorm on the same inputs (those of the last setup() at `size`, else a
        fresh setup with seed 1234): torch.nn.functional.rms_norm(x, (hidden,), w, eps) where
        this torch has it, else the same formula in torch ops (fp32 math, fp16 result).
        Median of 30 CUDA-event timings after 5 warm-up calls, L2 flushed (256 MB write,
        untimed) before each; GB/s counts x read once and y written once."""
        size = tuple(int(v) for v in size)
        if self._size != size or self._x is None:
            self.setup(size, 1234)
        x, w = self._x, self._w
        hidden = size[1]
        call = "torch.nn.functional.rms_norm(x, (hidden,), w, eps)"
        fn = lambda: torch.nn.functional.rms_norm(x, (hidden,), w, EPS)  # noqa: E731
        try:
            probe = fn()
            torch.cuda.synchronize()
            if probe.dtype != torch.float16 or tuple(probe.shape) != size:
                raise RuntimeError("unexpected result")
            del probe
        except (AttributeError, TypeError, RuntimeError):
            call = ("(x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)"
                    " * w.float()).half()")

            def fn():
                xf = x.float()
                return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).half()
        ms = swz_time_torch_ms(fn)
        return {"name": "torch RMSNorm", "call": call, "ms": ms,
                "gbps": self.bytes_moved(size) / (ms * 1e-3) / 1e9, "out_dtype": "float16",
                "reps": 30, "warmup": 5, "l2_flush": "256 MB write before each rep (untimed)",
                "torch": torch.__version__}


if __name__ == "__main__":
    raise SystemExit(swz_main(RmsNormProgram()))
