# swizzleperf kernel (Triton): flash-attention forward, fp16 Q/K/V, fp32 accumulation, fp32 output.
# swizzleperf:default-grid 64x128
#
# Size is batch,heads,kv_heads,seq_len,mask with mask 1 = none, 2 = causal (every --size
# value must be positive, so the flag is 1/2, not 0/1); head dim is fixed at 128. heads must
# be a multiple of kv_heads (GQA: heads/kv_heads query heads share one K/V head; kv_heads ==
# heads is plain multi-head attention). Layouts, all row-major and contiguous, as
# kernels/tc/attention_fwd.hip:
#   Q, O: [batch][heads][seq][128]    K, V: [batch][kv_heads][seq][128]
# O = softmax(Q K^T / sqrt(128)) V per (batch, head), query head h reading K/V head
# h // (heads / kv_heads), with a causal mask (key j <= query i) when mask = 2. O is fp32.
# Default 4,32,32,8192,1: B4 H32 (MHA) S8192, not causal; each head's K/V is 4 MB and the 128
# heads' K/V (512 MB) far exceed the L2.
#
# One program computes one 128-row query tile of one (batch, head): the 1-D launch has
# q_tiles * batch * heads programs and logical tile t -> grid m = q_tiles, n = batch * heads:
# tile_m = t // n is the query tile, tile_n = t % n = b + batch * h (batch fastest, then
# heads). The identity region therefore runs batch and heads fastest and the query tiles of
# one head far apart: the order serving frameworks launch prefill attention in.
#
# Flash attention (one pass over K/V, online softmax in base 2: scores scaled by
# log2(e)/sqrt(128), tl.math.exp2): BLOCK_M 128 query rows, BLOCK_N 64 keys per step, 8 warps,
# 3 pipeline stages (a config of the Triton fused-attention tutorial's NVIDIA search space;
# fixed, no autotuning; on an H100 at the default size 3 stages ran 9.1 ms, 2 stages 10.2 ms,
# both in a column-major order). S = Q K^T and O += P V on tl.dot (fp16 in, fp32
# accumulate), P rounded to fp16 before the second dot. The key range splits in two loops:
# key tiles every query row of the tile sees in full (no mask: non-causal [0, seq rounded
# down to 64), causal [0, q0)), then the masked ones (non-causal: the ragged tail tile;
# causal: the diagonal tiles [q0, min(q0 + 128, seq)), key <= query and key < seq). Masked
# keys score -inf; K/V rows past seq load as zeros; query rows past seq load as zeros and are
# never stored. A tile id outside [0, tiles) (a broken mapping) is computed as tile 0 and
# stored nowhere, so verify reports the tiles it left unwritten.
#
# Order independence: every output row's arithmetic (the key tiles and their order, the
# instruction sequence) depends only on its (batch, head, row), never on which program runs
# it or when; no atomics, no cross-program reductions: full-size outputs are identical bit
# for bit under every swizzle (dump_tol 0).
#
# Tolerance (abs 2e-3, rel 0; the argument of attention_fwd.hip): the reference is float64
# softmax attention on the same fp16 values. The dominant error is P rounded to fp16 before
# P V (relative 2^-11 per weight; the weights sum to 1 and |v| <= 1, so |error| <= 2^-11 ~
# 4.9e-4 worst case, ~1e-4 typical), plus fp32 rounding of Q K^T over 128 terms (|q.k| <=
# 128, ~1e-5 before scaling, negligible after exp2) and exp2's approximation (~2^-22
# relative). 2e-3 is 4x the worst case of the P rounding; outputs are means of V over many
# keys (|O| ~ 0.05..0.6 at verify sizes), so a wrong key tile, a wrong head or a missing row
# errs by O(0.01..0.1) or leaves the NaN poison.
#
# Values the kernel passes to swizzle_pid are runtime int32 scalars: batch, heads and seq are
# not specialized (Triton would turn a value of 1 into a constexpr). Their divisibility does
# not matter for speed: the contiguous dimension is the head dim (constexpr 128), and the
# (batch, head) base offsets are computed in int64.
import math
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


HEAD_DIM = 128
BLOCK_M = 128
BLOCK_N = 64
NUM_WARPS = 8
NUM_STAGES = 3
LOG2E = 1.4426950408889634


@triton.jit
def _attend_keys(acc, l_i, m_i, q, k_base, v_base, offs_q, lo, hi, seq, qk_scale,
                 HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                 MASKED: tl.constexpr, CAUSAL: tl.constexpr):
    """Online softmax over the key tiles [lo, hi) (lo a multiple of BLOCK_N), in order.
    MASKED: keys >= seq (and, CAUSAL, keys > query) are masked; else every key is valid."""
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    kv_offs = (lo + offs_n)[:, None] * HEAD_DIM + offs_d[None, :]
    k_ptrs = k_base + kv_offs
    v_ptrs = v_base + kv_offs
    for start_n in range(lo, hi, BLOCK_N):
        keys = start_n + offs_n
        in_seq = keys < seq
        if MASKED:
            k = tl.load(k_ptrs, mask=in_seq[:, None], other=0.0)
        else:
            k = tl.load(k_ptrs)
        s = tl.dot(q, tl.trans(k), out_dtype=tl.float32) * qk_scale  # [BLOCK_M, BLOCK_N], log2 units
        if MASKED:
            keep = in_seq[None, :]
            if CAUSAL:
                keep = keep & (keys[None, :] <= offs_q[:, None])
            s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        if MASKED:
            # a row with every key so far masked keeps m = -inf: subtract 0 instead, so exp2
            # gives 0, not NaN (cannot happen with the tile split above; kept for safety)
            m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        else:
            m_use = m_new
        p = tl.math.exp2(s - m_use[:, None])
        alpha = tl.math.exp2(m_i - m_use)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        if MASKED:
            v = tl.load(v_ptrs, mask=in_seq[:, None], other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = tl.dot(p.to(tl.float16), v, acc, out_dtype=tl.float32)
        m_i = m_new
        k_ptrs += BLOCK_N * HEAD_DIM
        v_ptrs += BLOCK_N * HEAD_DIM
    return acc, l_i, m_i


@triton.jit(do_not_specialize=["batch", "heads", "seq"])
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, batch, heads, kv_heads, seq, qk_scale,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     CAUSAL: tl.constexpr):
    grid_m = tl.cdiv(seq, BLOCK_M)
    grid_n = batch * heads
    tile = swizzle_pid(tl.program_id(0), tl.num_programs(0), grid_m, grid_n)
    valid = (tile >= 0) & (tile < grid_m * grid_n)
    tile = tl.where(valid, tile, 0)
    q_tile = tile // grid_n  # logical tile t is row-major: tile_m = t // n, tile_n = t % n
    col = tile % grid_n      # col = b + batch * h
    b = col % batch
    h = col // batch
    kvh = h // (heads // kv_heads)

    q_base_off = (b * heads + h).to(tl.int64) * seq * HEAD_DIM
    kv_base_off = (b * kv_heads + kvh).to(tl.int64) * seq * HEAD_DIM
    k_base = k_ptr + kv_base_off
    v_base = v_ptr + kv_base_off

    q0 = q_tile * BLOCK_M
    offs_q = q0 + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q_offs = offs_q[:, None] * HEAD_DIM + offs_d[None, :]
    q_rows = offs_q[:, None] < seq
    q = tl.load(q_ptr + q_base_off + q_offs, mask=q_rows, other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

    if CAUSAL:
        full_hi = q0  # keys < q0 <= every query row of the tile (q0 is a multiple of BLOCK_N)
        tail_lo = q0
        tail_hi = tl.minimum(q0 + BLOCK_M, seq)
    else:
        full_hi = (seq // BLOCK_N) * BLOCK_N
        tail_lo = full_hi
        tail_hi = seq
    acc, l_i, m_i = _attend_keys(acc, l_i, m_i, q, k_base, v_base, offs_q, 0, full_hi, seq,
                                 qk_scale, HEAD_DIM, BLOCK_N, False, CAUSAL)
    acc, l_i, m_i = _attend_keys(acc, l_i, m_i, q, k_base, v_base, offs_q, tail_lo, tail_hi, seq,
                                 qk_scale, HEAD_DIM, BLOCK_N, True, CAUSAL)

    out = acc / l_i[:, None]
    tl.store(o_ptr + q_base_off + q_offs, out, mask=q_rows & valid)


def _cdiv(a, b):
    return (a + b - 1) // b


class AttentionProgram(SwzProgram):
    def __init__(self):
        super().__init__("attention", "attention_kernel")
        self._size = None
        self._q = self._k = self._v = self._o = None

    def default_size(self):
        return (4, 32, 32, 8192, 1)

    def size_multiple(self):
        return ()

    # No size_max: the harness applies it to every --size, and a cap small enough for the CPU
    # reference (seq <= 512) would forbid the default size. verify_sizes() below keeps the
    # verify cases small instead (the derived ones would never cover causal, GQA or several
    # heads per K/V head: no derived value exceeds the default's mask 1, and they mostly break
    # heads % kv_heads == 0).
    def size_max(self):
        return ()

    # Small and ragged (the CPU reference is O(B H S^2 D)): seq not a multiple of 64 or 128,
    # seq a multiple of 64 (no tail tile) and of 128, GQA groups of 2 and 4, MHA, causal and
    # not, a single short tile, several query tiles.
    def verify_sizes(self):
        return [(1, 2, 2, 64, 1), (2, 4, 2, 130, 2), (1, 4, 1, 77, 1), (1, 1, 1, 5, 2),
                (2, 3, 3, 200, 1), (1, 8, 2, 257, 2), (2, 2, 1, 192, 2), (1, 2, 1, 256, 1)]

    def size_error(self, size):
        B, H, KH, S, mask = size
        if KH > H or H % KH != 0:
            return "heads must be a multiple of kv_heads"
        if mask > 2:
            return "mask must be 1 (none) or 2 (causal)"
        if S * HEAD_DIM >= (1 << 31) or B * H >= (1 << 31):
            return "seq * 128 and batch * heads must be below 2^31"
        if _cdiv(S, BLOCK_M) * B * H >= (1 << 31):
            return "q_tiles * batch * heads must be below 2^31"
        return None

    def grid(self, size):
        B, H, _, S, _ = size
        return (_cdiv(S, BLOCK_M), B * H)

    def footprint_bytes(self, size):
        B, H, KH, S, _ = size
        rows = B * S * HEAD_DIM
        return 2 * rows * (H + 2 * KH) + 4 * rows * H

    # For the proposer: causal (query tiles do unequal work: tile i reads about 2i+2 key
    # tiles), and the GQA group: grid columns n and n + k * n_group_stride for k < n_group
    # (the query heads of one K/V head, at one batch index) read the same K/V.
    def info_hints(self, size):
        B, H, KH, _, mask = size
        return {"causal": mask == 2, "n_group": H // KH, "n_group_stride": B}

    def flops(self, size):
        B, H, _, S, mask = size
        f = 4 * B * H * S * S * HEAD_DIM
        return f // 2 if mask == 2 else f

    def setup(self, size, seed):
        B, H, KH, S, mask = (int(v) for v in size)
        self._size = (B, H, KH, S, mask)
        self._q = self._k = self._v = self._o = None
        g = torch.Generator(device="cuda")
        g.manual_seed(int(seed))

        def uniform16(shape):  # uniform in [-1, 1), rounded to fp16
            return (torch.rand(shape, generator=g, device="cuda", dtype=torch.float32)
                    .mul_(2.0).sub_(1.0).to(torch.float16))

        self._q = uniform16((B, H, S, HEAD_DIM))
        self._k = uniform16((B, KH, S, HEAD_DIM))
        self._v = uniform16((B, KH, S, HEAD_DIM))
        self._o = torch.empty((B, H, S, HEAD_DIM), device="cuda", dtype=torch.float32)

    def run(self):
        B, H, KH, S, mask = self._size
        gm, gn = self.grid(self._size)
        attention_kernel[(gm * gn,)](self._q, self._k, self._v, self._o, B, H, KH, S,
                                     LOG2E / math.sqrt(HEAD_DIM),
                                     HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                     CAUSAL=(mask == 2),
                                     num_warps=NUM_WARPS, num_stages=NUM_STAGES)

    def output(self):
        return self._o

    # Softmax attention in float64 on the same fp16 input values, one (batch, head) at a time
    # (S x S scores at most), same [batch][heads][seq][128] order as output().
    def reference(self, size):
        B, H, KH, S, mask = self._size
        group = H // KH
        q = self._q.cpu().to(torch.float64)
        k = self._k.cpu().to(torch.float64)
        v = self._v.cpu().to(torch.float64)
        out = torch.empty((B, H, S, HEAD_DIM), dtype=torch.float64)
        scale = 1.0 / math.sqrt(HEAD_DIM)
        allowed = torch.ones((S, S), dtype=torch.bool).tril() if mask == 2 else None
        for b in range(B):
            for h in range(H):
                s = (q[b, h] @ k[b, h // group].transpose(0, 1)) * scale
                if allowed is not None:
                    s = s.masked_fill(~allowed, float("-inf"))
                out[b, h] = torch.softmax(s, dim=-1) @ v[b, h // group]
        return out

    def reduction_length(self, size):
        return size[3]

    def tolerance(self, size):
        return (2e-3, 0.0)  # argued in the header

    def dump_tol(self):
        return 0.0

    def baseline_throughput(self, size):
        """torch.nn.functional.scaled_dot_product_attention on the same fp16 Q/K/V (those of
        the last setup() at `size`, else a fresh setup with seed 1234), its own output dtype
        (fp16), is_causal for mask 2, GQA through enable_gqa=True where this torch has it,
        else K/V repeated per query head beforehand (untimed). Median of 30 CUDA-event
        timings after 5 warm-up calls, L2 flushed (256 MB write, untimed) before each."""
        size = tuple(int(v) for v in size)
        if self._size != size or self._q is None:
            self.setup(size, 1234)
        B, H, KH, S, mask = size
        causal = mask == 2
        q, k, v = self._q, self._k, self._v
        sdpa = torch.nn.functional.scaled_dot_product_attention
        fn = None
        gqa = "none (heads == kv_heads)"
        if H == KH:
            fn = lambda: sdpa(q, k, v, is_causal=causal)  # noqa: E731
        else:
            try:
                probe = sdpa(q, k, v, is_causal=causal, enable_gqa=True)
                torch.cuda.synchronize()
                del probe
                fn = lambda: sdpa(q, k, v, is_causal=causal, enable_gqa=True)  # noqa: E731
                gqa = "enable_gqa=True"
            except (TypeError, RuntimeError):
                kr = k.repeat_interleave(H // KH, dim=1)
                vr = v.repeat_interleave(H // KH, dim=1)
                fn = lambda: sdpa(q, kr, vr, is_causal=causal)  # noqa: E731
                gqa = "K/V repeat_interleave'd to heads before timing"
        ms = swz_time_torch_ms(fn)
        return {"name": "torch.nn.functional.scaled_dot_product_attention", "ms": ms,
                "tflops": self.flops(size) / (ms * 1e-3) / 1e12, "out_dtype": "float16",
                "causal": causal, "gqa": gqa, "reps": 30, "warmup": 5,
                "l2_flush": "256 MB write before each rep (untimed)", "torch": torch.__version__}


if __name__ == "__main__":
    raise SystemExit(swz_main(AttentionProgram()))
