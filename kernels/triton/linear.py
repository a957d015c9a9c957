# swizzleperf kernel (Triton): fp16 GEMM in torch.nn.Linear layout, Y = X @ W^T with fp32
# accumulation, fp16 Y.
# swizzleperf:default-grid 32x64
#
# Layouts (all row-major, contiguous): X is M x K fp16 (the activations), W is N x K fp16
# (nn.Linear's weight, [out_features, in_features]: W[n, k] at n * K + k), Y is M x N fp16, and
# Y[m, n] = sum_k X[m, k] * W[n, k] -- what F.linear(x, w) computes (no bias). Both operands
# have K contiguous (the "NT" GEMM, where matmul.py's B has N contiguous). Size is M,N,K; every
# value is free (ragged M, N and K are handled in the kernel), default 4096,16384,8192 (4096
# tokens through an 8192 -> 16384 projection, an MLP up-projection's shape: W is 256 MB of
# fp16, five times the H100's 50 MB L2, so the row-major tile order streams all of W from
# DRAM again for every wave of tile rows; X is 64 MB, Y 128 MB).
#
# One program per 128 x 256 tile of Y (BLOCK_K 64, 8 warps, 3 pipeline stages, as matmul.py:
# fixed, no autotuning, so every candidate region compiles once). The 1-D launch has
# tiles_m * tiles_n programs and program tl.program_id(0) computes logical tile
# swizzle_pid(pid, ...), row-major over the tile grid (tile_m = t // tiles_n, tile_n =
# t % tiles_n): the identity region is the plain row-major order, tile rows of 64 tiles one
# after the other. The program loads its X row panel as BLOCK_M x BLOCK_K slices
# (X[m, k] at m * K + k) and its W row panel as BLOCK_K x BLOCK_N slices of W^T (element
# (k, n) of the slice is W[n, k], at n * K + k: K is the slice's contiguous dimension), and
# tl.dot's them.
#
# Ragged sizes: the X rows and W rows (Y columns) a program loads are taken modulo M and N
# (every load stays inside X and W; the wrapped rows only feed outputs that are never
# stored), the K tail is masked to zero (mask `k < K - k0`, other 0: adds nothing), and the
# store is masked to the rows < M and columns < N of Y; its addresses use the same wrapped
# rows and columns, so even a masked-off lane's address lies inside Y. A tile id outside
# [0, tiles) (a broken mapping) is computed as tile 0 and stored nowhere, so verify reports
# the tiles it left unwritten (the NaN poison) instead of the kernel writing out of bounds.
#
# Order independence: every output element is one tl.dot accumulation over the K slices in
# increasing order with a fixed instruction sequence, then one fp32 -> fp16 rounding,
# determined by its tile position alone, never by which program computes it or when; there
# are no atomics and no cross-program reductions, so full-size outputs are identical bit for
# bit under every swizzle (dump_tol 0).
#
# Tolerance: the harness's default for an fp16 output with reduction_length K,
# |Y - ref| <= 2^-24 + 4 * K * 2^-24 * max|ref| + 2^-11 * |ref| (abs 2^-24, rel 2^-11,
# abs_per_max_ref 4 * K * 2^-24: f32 accumulation, one fp16 rounding at the store). Why it
# holds for this kernel, and what it catches: the
# inputs are uniform in [-1, 1) rounded to fp16, and the reference sums the exact products of
# those same fp16 values in float64, so input rounding is not an error. Two errors remain:
#   - the fp32 accumulation, as in matmul.py: each fp16 x fp16 product is exact in fp32
#     (11 + 11 significant bits); the tensor cores add the products of one k16 step and the
#     running sum with one rounding of a few units of 2^-24 relative to the partial sum,
#     K/16 steps, the partial sums of the order of max|ref|: e <= about K/16 * 4 * 2^-24 *
#     max|ref|, so the term 4 * K * 2^-24 * max|ref| has a 16x margin;
#   - the final rounding of the fp32 result y' to fp16 (acc.to(tl.float16): round to nearest
#     even): |fl16(y') - y'| <= 2^-11 * |y'| for a normal fp16 result, and |y'| <= |ref| + e,
#     so <= 2^-11 * |ref| plus 2^-11 * e (inside e's margin): the rel term. A result below
#     2^-14 (fp16 subnormal) rounds to a multiple of 2^-24, error <= 2^-25: the abs term.
# What it catches: |Y| ~ sqrt(K)/3 (K products of two uniform [-1, 1) values, each of variance
# 1/9). At the largest verify K (300) max|ref| ~ 23, so the bound is at most ~1.6e-3 + 2^-11 *
# 23 ~ 1.3e-2 where |ref| is largest, while a wrong tile errs by ~ sqrt(2) * 5.8 and a dropped
# k slice by ~ sqrt(64)/3 ~ 2.7; at K = 1 (Y one product, bound ~ 2.4e-7 + 2^-11 |ref|) a wrong
# tile errs by ~ 1/3. A missing tile leaves the NaN poison, which verify counts as non-finite.
# (fp16 overflows above 65504; |Y| <= K, and ~ sqrt(K)/3 in practice, so not at any size an
# int32 allows: at the default K, |Y| ~ 30.)
#
# Integer ranges: offsets are int32 -- X's rows * K + k < M*K, W's cols * K + k < N*K, Y's
# rows * N + cols < M*N, each below 2^31 (size_error; the default's are 2^25, 2^27 and 2^26);
# the per-slice advance (+= BLOCK_K) is 64-bit pointer arithmetic; the launch is below 2^31
# programs. Values the kernel passes to swizzle_pid are runtime int32 scalars: M is not
# specialized (Triton would turn an M of 1 into a constexpr), grid_n comes from the launch
# size (tiles_m * tiles_n programs by construction) so that N and K keep their
# divisibility-by-16 specialization, which the vectorized X and W loads (K) and Y stores (N)
# need.
#
# Measured on an NVIDIA H200 (60 MB L2; torch 2.11.0, triton 3.6.0; 2026-11-28), not yet on an
# H100. By hand (kernels/support on PYTHONPATH): verify passes all 8 sizes (max_rel_err at most
# 4.0e-4: the fp16 rounding); `time --reps 20` at the default size: identity 2.22 ms (495
# TFLOP/s), Triton's grouped order (8 tile rows) 1.88 ms, the output's hash the same under
# identity, reversed and grouped orders; torch.nn.functional.linear (cuBLAS, fp16 out) 1.49 ms.
# `swizzleperf optimize linear.py --proposer builtin --iterations 1 --regime burst`: baseline
# L2 hit 35.6 %, 2.036 ms; grouped_m(G=8) L2 hit 70.5 %, DRAM bytes 6.46e9 -> 1.56e9, burst
# 1.097x [1.048, 1.161], significant.
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


BLOCK_M = 128
BLOCK_N = 256
BLOCK_K = 64
NUM_WARPS = 8
NUM_STAGES = 3


@triton.jit(do_not_specialize=["M"])
def linear_kernel(x_ptr, w_ptr, y_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    num_pids = tl.num_programs(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = num_pids // grid_m  # the launch is grid_m * grid_n programs (see the header)
    tile = swizzle_pid(tl.program_id(0), num_pids, grid_m, grid_n)
    valid = (tile >= 0) & (tile < grid_m * grid_n)
    tile = tl.where(valid, tile, 0)
    pid_m = tile // grid_n  # logical tile t is row-major: tile_m = t // n, tile_n = t % n
    pid_n = tile % grid_n

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    rows = offs_m % M  # in-bounds rows of X and Y; rows >= M are never stored
    cols = offs_n % N  # in-bounds rows of W (columns of Y); cols >= N are never stored
    x_ptrs = x_ptr + rows[:, None] * K + offs_k[None, :]  # X[m, k]: BLOCK_M x BLOCK_K
    w_ptrs = w_ptr + cols[None, :] * K + offs_k[:, None]  # W[n, k] = (W^T)[k, n]: BLOCK_K x BLOCK_N

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kt in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - kt * BLOCK_K
        x = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        w = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(x, w, acc, out_dtype=tl.float32)
        x_ptrs += BLOCK_K  # both operands advance along K, their contiguous dimension
        w_ptrs += BLOCK_K

    y_ptrs = y_ptr + rows[:, None] * N + cols[None, :]
    y_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N) & valid
    tl.store(y_ptrs, acc.to(tl.float16), mask=y_mask)


def _cdiv(a, b):
    return (a + b - 1) // b


class LinearProgram(SwzProgram):
    def __init__(self):
        super().__init__("linear", "linear_kernel")
        self._size = None
        self._x = self._w = self._y = None

    def default_size(self):
        return (4096, 16384, 8192)

    def size_multiple(self):
        return ()

    def size_max(self):
        return ()

    def size_error(self, size):
        M, N, K = size
        lim = 1 << 31
        if M * N >= lim or M * K >= lim or N * K >= lim:
            return "M*N, M*K and N*K must each be below 2^31 (int32 offsets)"
        gm, gn = self.grid(size)
        if gm * gn >= lim:
            return "tiles_m * tiles_n must be below 2^31"
        return None

    def grid(self, size):
        M, N, _ = size
        return (_cdiv(M, BLOCK_M), _cdiv(N, BLOCK_N))

    def footprint_bytes(self, size):
        M, N, K = size
        return 2 * (M * K + N * K) + 2 * M * N

    def flops(self, size):
        M, N, K = size
        return 2 * M * N * K

    def setup(self, size, seed):
        M, N, K = (int(v) for v in size)
        self._size = (M, N, K)
        self._x = self._w = self._y = None
        g = torch.Generator(device="cuda")
        g.manual_seed(int(seed))
        # uniform in [-1, 1), rounded to fp16 (the reference reads these same fp16 values)
        self._x = (torch.rand((M, K), generator=g, device="cuda", dtype=torch.float32)
                   .mul_(2.0).sub_(1.0).to(torch.float16))
        self._w = (torch.rand((N, K), generator=g, device="cuda", dtype=torch.float32)
                   .mul_(2.0).sub_(1.0).to(torch.float16))
        self._y = torch.empty((M, N), device="cuda", dtype=torch.float16)

    def run(self):
        M, N, K = self._size
        gm, gn = self.grid(self._size)
        linear_kernel[(gm * gn,)](self._x, self._w, self._y, M, N, K,
                                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                  num_warps=NUM_WARPS, num_stages=NUM_STAGES)

    def output(self):
        return self._y

    def reference(self, size):
        # The exact products of the same fp16 inputs, summed in float64 (exact at verify sizes
        # up to rounding far below the fp16 output's): X @ W^T, M x N row-major like output().
        return self._x.cpu().to(torch.float64) @ self._w.cpu().to(torch.float64).t()

    def reduction_length(self, size):
        return size[2]

    def dump_tol(self):
        return 0.0

    def baseline_throughput(self, size):
        """cuBLAS on the same inputs (those of the last setup() at `size`, else a fresh setup
        with seed 1234): torch.nn.functional.linear(x, w), fp16 output like the kernel's.
        Median of 30 CUDA-event timings after 5 warm-up calls, L2 flushed (256 MB write,
        untimed) before each."""
        size = tuple(int(v) for v in size)
        if self._size != size or self._x is None:
            self.setup(size, 1234)
        x, w = self._x, self._w
        fn = lambda: torch.nn.functional.linear(x, w)  # noqa: E731
        ms = swz_time_torch_ms(fn)
        return {"name": "torch.nn.functional.linear (cuBLAS)", "ms": ms,
                "tflops": self.flops(size) / (ms * 1e-3) / 1e12, "out_dtype": "float16",
                "reps": 30, "warmup": 5, "l2_flush": "256 MB write before each rep (untimed)",
                "torch": torch.__version__}


if __name__ == "__main__":
    raise SystemExit(swz_main(LinearProgram()))
