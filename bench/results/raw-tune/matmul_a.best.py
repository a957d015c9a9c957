# swizzleperf kernel (Triton): tensor-core fp16 GEMM, C = A @ B with fp32 accumulation, fp32 C.
# swizzleperf:default-grid 32x128
#
# Layouts (all row-major, contiguous): A is M x K fp16, B is K x N fp16 (the "NN" GEMM: A has
# K contiguous, B has N contiguous), C is M x N fp32. Size is M,N,K; every value is free
# (ragged M, N and K are handled in the kernel), default 4096,32768,1024 (an LM-head-like
# shape, as kernels/tc/gemm_tc.hip: B is 64 MB, more than the H100's 50 MB L2, so the
# row-major tile order re-reads B from DRAM for every tile row).
#
# One program per tile of C: the declared BLOCK_M x BLOCK_N tile, 128 x 256 by default (with
# BLOCK_K 64, 8 warps and 3 pipeline stages: the shape the Triton matmul tutorial ships for
# fp16 on NVIDIA). The five are swizzleperf tunables (module-level constants below, with the
# rules that prune them); no Triton autotuning, so every candidate region compiles once per
# configuration, and `info` reports the grid for the values the program holds. The 1-D launch
# has tiles_m * tiles_n programs and program tl.program_id(0) computes logical tile
# swizzle_pid(pid, ...), row-major over the tile grid (tile_m = t // tiles_n, tile_n = t %
# tiles_n): the identity region is the plain row-major order, tile rows one after the other
# (128 tiles each at the default size and tile; the default-grid line above is that grid).
#
# Ragged sizes: the A rows and B columns a program loads are taken modulo M and N (every
# load stays inside A and B; the wrapped rows/columns only feed outputs that are never
# stored), the K tail is masked to zero (mask `k < K - k0`, other 0: adds nothing), and the
# store is masked to the rows < M and columns < N of C. A tile id outside [0, tiles) (a
# broken mapping) is computed as tile 0 and stored nowhere, so verify reports the tiles it
# left unwritten instead of the kernel writing out of bounds.
#
# Order independence: at a given configuration every output element is one tl.dot
# accumulation over the K slices in increasing order with a fixed instruction sequence,
# determined by its tile position alone, never by which program computes it or when; there
# are no atomics and no cross-program reductions, so full-size outputs are identical bit for
# bit under every swizzle (dump_tol 0). Another configuration (another BLOCK_K, tile or warp
# count) may sum in another order: it is held to the tolerance below, not to the bits.
#
# Tolerance: the harness default, abs = 4 * K * 2^-24 * max|ref|, rel 0. The inputs are
# uniform in [-1, 1) rounded to fp16, and the reference sums the exact products of those same
# fp16 values in float64, so input rounding is not an error. Each fp16 x fp16 product is exact
# in fp32 (11 + 11 significant bits); what remains is the fp32 accumulation on the tensor
# cores (products of one k16 step aligned and added, possibly truncating): one rounding of a
# few units of 2^-24 relative to the running partial sum per k16 step, K/16 steps whatever
# BLOCK_K is (a BLOCK_K slice is BLOCK_K/16 such steps), the partial sums of the order of
# max|ref| -- more than an order of magnitude below the bound.
# A wrong or missing tile, or a dropped k slice, errs by O(1) (|C| ~ sqrt(K)/3, one fp16
# product up to 1) or leaves the NaN poison.
#
# Integer ranges: offsets are int32 (M*N, M*K and K*N below 2^31: size_error), the launch
# below 2^31 programs. Values the kernel passes to swizzle_pid are runtime int32 scalars:
# M is not specialized (Triton would turn an M of 1 into a constexpr), grid_n comes from the
# launch size (tiles_m * tiles_n programs by construction) so that N keeps its
# divisibility-by-16 specialization, which the vectorized B loads and C stores need.
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from swz_triton import SwzProgram, swz_main, swz_time_torch_ms, SWZ_NUM_DIES  # noqa: E402,F401

# swizzleperf:begin
# grouped_m(G=16) — proposed by swizzleperf's built-in proposer.
@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    # Grouped-M order over the tile grid: walk G tile rows at a time, column by
    # column, so blocks in flight share rows of A and columns of B in L2.
    t = pid
    if grid_m * grid_n == num_pids:
        width = 16 * grid_n
        first_m = (pid // width) * 16
        gs = tl.minimum(grid_m - first_m, 16)
        t = (first_m + (pid % width) % gs) * grid_n + (pid % width) // gs
    return t
# swizzleperf:end


# The configuration, declared for `swizzleperf tune` (docs/kernel-contract.md, Tunables); the
# values written are the program's own (the baseline a tuned point is judged against).
BLOCK_M = 128  # swizzleperf:tunable 64 128 256
BLOCK_N = 256  # swizzleperf:tunable 64 128 256
BLOCK_K = 64  # swizzleperf:tunable 32 64 128
NUM_WARPS = 8  # swizzleperf:tunable 4 8
NUM_STAGES = 4  # swizzleperf:tunable 2 3 4 5
# The fp32 accumulator, BLOCK_M * BLOCK_N values over NUM_WARPS * 32 threads, at most 128
# registers a thread (more spills: 256 x 256 on 8 warps would need 256), and at least a
# 64 x 64 block per 4 warps (smaller tiles leave warps without a tensor-core tile).
# swizzleperf:restrict BLOCK_M * BLOCK_N <= 128 * NUM_WARPS * 32
# swizzleperf:restrict BLOCK_M * BLOCK_N * 4 >= 64 * 64 * NUM_WARPS
# Shared memory: Triton's software pipeline keeps NUM_STAGES fp16 A and B tiles (its other
# scratch, such as the epilogue's layout conversion, reuses that space); a point that still
# does not fit fails to compile, and the tune run records it and goes on.
# swizzleperf:shared-bytes (BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * 2 * NUM_STAGES
# swizzleperf:threads NUM_WARPS * 32


@triton.jit(do_not_specialize=["M"])
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
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
    rows = offs_m % M  # in-bounds loads; rows >= M are never stored
    cols = offs_n % N
    a_ptrs = a_ptr + rows[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + cols[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kt in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - kt * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=tl.float32)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N

    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N) & valid
    tl.store(c_ptrs, acc, mask=c_mask)


def _cdiv(a, b):
    return (a + b - 1) // b


class MatmulProgram(SwzProgram):
    def __init__(self):
        super().__init__("matmul", "matmul_kernel")
        self._size = None
        self._a = self._b = self._c = None

    def default_size(self):
        return (4096, 32768, 1024)

    def size_multiple(self):
        return ()

    def size_max(self):
        return ()

    def size_error(self, size):
        M, N, K = size
        lim = 1 << 31
        if M * N >= lim or M * K >= lim or K * N >= lim:
            return "M*N, M*K and K*N must each be below 2^31 (int32 offsets)"
        gm, gn = self.grid(size)
        if gm * gn >= lim:
            return "tiles_m * tiles_n must be below 2^31"
        return None

    def grid(self, size):
        M, N, _ = size
        return (_cdiv(M, BLOCK_M), _cdiv(N, BLOCK_N))

    def footprint_bytes(self, size):
        M, N, K = size
        return 2 * (M * K + K * N) + 4 * M * N

    def flops(self, size):
        M, N, K = size
        return 2 * M * N * K

    def setup(self, size, seed):
        M, N, K = (int(v) for v in size)
        self._size = (M, N, K)
        self._a = self._b = self._c = None
        g = torch.Generator(device="cuda")
        g.manual_seed(int(seed))
        # uniform in [-1, 1), rounded to fp16 (the reference reads these same fp16 values)
        self._a = (torch.rand((M, K), generator=g, device="cuda", dtype=torch.float32)
                   .mul_(2.0).sub_(1.0).to(torch.float16))
        self._b = (torch.rand((K, N), generator=g, device="cuda", dtype=torch.float32)
                   .mul_(2.0).sub_(1.0).to(torch.float16))
        self._c = torch.empty((M, N), device="cuda", dtype=torch.float32)

    def run(self):
        M, N, K = self._size
        gm, gn = self.grid(self._size)
        matmul_kernel[(gm * gn,)](self._a, self._b, self._c, M, N, K,
                                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                  num_warps=NUM_WARPS, num_stages=NUM_STAGES)

    def output(self):
        return self._c

    def reference(self, size):
        # The exact products of the same fp16 inputs, summed in float64 (exact at verify sizes
        # up to rounding far below the fp32 output's), M x N row-major like output().
        return self._a.cpu().to(torch.float64) @ self._b.cpu().to(torch.float64)

    def reduction_length(self, size):
        return size[2]

    def dump_tol(self):
        return 0.0

    def baseline_throughput(self, size):
        """cuBLAS on the same inputs (those of the last setup() at `size`, else a fresh setup
        with seed 1234): torch.matmul with fp16 output, and, where this torch has it, the
        fp32-output GEMM (torch.mm(..., out_dtype=torch.float32), the kernel's own output
        type). Each: median of 30 CUDA-event timings after 5 warm-up calls, L2 flushed (256 MB
        write, untimed) before each. The top-level ms/tflops are the fp32-output variant's when
        it exists (same output bytes as the kernel), else the fp16 one's; `variants` lists
        every variant measured, `call` says which one the top level is."""
        size = tuple(int(v) for v in size)
        if self._size != size or self._a is None:
            self.setup(size, 1234)
        a, b = self._a, self._b
        M, N, K = size
        flops = self.flops(size)
        candidates = [
            ("torch.matmul(a, b)", "float16", lambda: torch.matmul(a, b)),
            ("torch.mm(a, b, out_dtype=torch.float32)", "float32",
             lambda: torch.mm(a, b, out_dtype=torch.float32)),
            ("torch.matmul(a, b, out_dtype=torch.float32)", "float32",
             lambda: torch.matmul(a, b, out_dtype=torch.float32)),
        ]
        variants = []
        have_fp32 = False
        for call, out_dtype, fn in candidates:
            if out_dtype == "float32" and have_fp32:
                continue
            try:
                probe = fn()
                torch.cuda.synchronize()
                if probe.dtype != getattr(torch, out_dtype) or tuple(probe.shape) != (M, N):
                    continue
                del probe
                ms = swz_time_torch_ms(fn)
            except Exception:  # noqa: BLE001 -- a torch without this overload
                continue
            variants.append({"call": call, "out_dtype": out_dtype, "ms": ms,
                             "tflops": flops / (ms * 1e-3) / 1e12})
            have_fp32 = have_fp32 or out_dtype == "float32"
        if not variants:
            return {"name": "torch.matmul (cuBLAS)", "ms": None, "tflops": None,
                    "error": "no torch GEMM call succeeded"}
        best = next((v for v in variants if v["out_dtype"] == "float32"), variants[0])
        return {"name": "torch.matmul (cuBLAS)", "ms": best["ms"], "tflops": best["tflops"],
                "call": best["call"], "out_dtype": best["out_dtype"], "variants": variants,
                "reps": 30, "warmup": 5, "l2_flush": "256 MB write before each rep (untimed)",
                "torch": torch.__version__}


if __name__ == "__main__":
    raise SystemExit(swz_main(MatmulProgram()))
