#!/usr/bin/env python3
"""Bench-only reference: torch scaled_dot_product_attention on the problem of
kernels/tc/attention_fwd.hip (fp16 Q/K/V [batch, heads, seq, 128], GQA via enable_gqa,
causal or not). Timed like the kernel programs' `time` mode: warmup runs, then event-timed
runs each after writing a 256 MB scratch buffer (L2 flush, untimed). Prints one JSON line.
Usage: sdpa.py BATCH HEADS KV_HEADS SEQ MASK [reps=30] [warmup=5]   (MASK 1 none, 2 causal)"""
import json
import sys

import torch
import torch.nn.functional as F


def main():
    if len(sys.argv) < 6:
        sys.exit("usage: sdpa.py BATCH HEADS KV_HEADS SEQ MASK [reps] [warmup]")
    b, h, kvh, s, mask = (int(x) for x in sys.argv[1:6])
    reps = int(sys.argv[6]) if len(sys.argv) > 6 else 30
    warmup = int(sys.argv[7]) if len(sys.argv) > 7 else 5
    causal = mask == 2
    d = 128
    g = torch.Generator(device="cuda").manual_seed(1234)
    q = torch.rand(b, h, s, d, device="cuda", generator=g, dtype=torch.float16) * 2 - 1
    k = torch.rand(b, kvh, s, d, device="cuda", generator=g, dtype=torch.float16) * 2 - 1
    v = torch.rand(b, kvh, s, d, device="cuda", generator=g, dtype=torch.float16) * 2 - 1
    kw = {"enable_gqa": True} if kvh != h else {}
    run = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, **kw)
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    scratch = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    times = []
    for i in range(reps):
        scratch.fill_(i & 0xFF)
        a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        run()
        e.record()
        e.synchronize()
        times.append(a.elapsed_time(e))
    times.sort()
    med = times[reps // 2] if reps % 2 else 0.5 * (times[reps // 2 - 1] + times[reps // 2])
    flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
    print(json.dumps({"reference": "torch.nn.functional.scaled_dot_product_attention fp16",
                      "torch": torch.__version__, "size": [b, h, kvh, s, mask],
                      "median_ms": med, "min_ms": times[0], "tflops": flops / (med * 1e-3) / 1e12,
                      "reps": reps}))


if __name__ == "__main__":
    main()
