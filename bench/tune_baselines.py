"""What a tune run is measured against, all timed the same way (triton.testing.do_bench medians).

Usage (GPU machine, repository root):
    python3 bench/tune_baselines.py M N K PROGRAM.py [BEST.py ...] > baselines.json
Prints one JSON object:
  cublas_tflops          torch.matmul on the program's own fp16 inputs (fp16 output)
  cublas_f32out_tflops   the same with an fp32 output (torch.mm out_dtype), where torch has it
  programs               {file: tflops} for each program file given (its own run(), as set up)
  autotune_tflops, autotune_wall_s, autotune_best, autotune_configs
                         Triton's autotuner over the first program's declared space
                         (its `# swizzleperf:tunable` lines and `swizzleperf:restrict` /
                         `shared-bytes` / `threads` rules), at the program's own order
The first program must be a Triton GEMM shaped like kernels/triton/matmul.py (a kernel named
matmul_kernel(a, b, c, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K), module constants NUM_WARPS and
NUM_STAGES).
"""
import importlib.util
import itertools
import json
import os
import sys
import time

sys.path.insert(0, os.path.abspath("kernels/support"))
import torch  # noqa: E402
import triton  # noqa: E402
from triton.testing import do_bench  # noqa: E402


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def program_of(mod):
    import swz_triton
    for v in vars(mod).values():
        if isinstance(v, type) and issubclass(v, swz_triton.SwzProgram) and v is not swz_triton.SwzProgram:
            return v()
    raise SystemExit("no SwzProgram subclass in " + mod.__file__)


def tflops(flops, ms):
    return flops / (ms * 1e-3) / 1e12


def values_of(spec):
    spec = spec.strip()
    if spec.startswith("pow2"):
        a, b = (int(x) for x in spec[4:].strip().split(".."))
        out, v = [], 1
        while v <= b:
            if v >= a:
                out.append(v)
            v *= 2
        return out
    return [int(x) for x in spec.replace(",", " ").split()]


def space_of(path):
    names, values, rules, shared, threads = [], [], [], None, None
    for line in open(path):
        s = line.strip()
        if "swizzleperf:tunable" in s and "=" in s and not s.startswith("#"):
            names.append(s.split("=")[0].strip())
            values.append(values_of(s.split("swizzleperf:tunable", 1)[1]))
        for key in ("swizzleperf:restrict", "swizzleperf:shared-bytes", "swizzleperf:threads"):
            if s.startswith("#") and key in s:
                expr = s.split(key, 1)[1].strip().replace("&&", " and ").replace("||", " or ")
                expr = expr.replace("!=", "<>").replace("!", " not ").replace("<>", "!=").replace("/", "//")
                if key.endswith("restrict"):
                    rules.append(expr)
                elif key.endswith("shared-bytes"):
                    shared = expr
                else:
                    threads = expr
    return names, values, rules, shared, threads


def main():
    M, N, K = (int(x) for x in sys.argv[1:4])
    files = sys.argv[4:]
    out = {"shape": [M, N, K], "device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "triton": triton.__version__, "programs": {}}
    flops = 2 * M * N * K
    first = None
    for i, f in enumerate(files):
        mod = load(f, "swz_prog_%d" % i)
        prog = program_of(mod)
        prog.setup((M, N, K), 1234)
        prog.run()
        torch.cuda.synchronize()
        out["programs"][f] = round(tflops(flops, do_bench(prog.run)), 2)
        if first is None:
            first = (mod, prog)
    mod, prog = first
    a, b = prog._a, prog._b
    out["cublas_tflops"] = round(tflops(flops, do_bench(lambda: torch.matmul(a, b))), 2)
    try:
        out["cublas_f32out_tflops"] = round(tflops(flops, do_bench(lambda: torch.mm(a, b, out_dtype=torch.float32))), 2)
    except Exception as e:  # older torch: no out_dtype
        out["cublas_f32out_tflops"] = None
        out["cublas_f32out_error"] = str(e).splitlines()[0][:200]
    names, values, rules, shared, threads = space_of(files[0])
    props = torch.cuda.get_device_properties(0)
    smem = getattr(props, "shared_memory_per_block_optin", 0) or 232448
    configs = []
    for point in itertools.product(*values):
        env = dict(zip(names, point))
        if not all(eval(r, {}, env) for r in rules):
            continue
        if shared and eval(shared, {}, env) > smem:
            continue
        if threads and eval(threads, {}, env) > 1024:
            continue
        kw = {n: env[n] for n in ("BLOCK_M", "BLOCK_N", "BLOCK_K") if n in env}
        configs.append(triton.Config(kw, num_warps=env.get("NUM_WARPS", mod.NUM_WARPS),
                                     num_stages=env.get("NUM_STAGES", mod.NUM_STAGES)))
    out["autotune_configs"] = len(configs)
    tuned = triton.autotune(configs=configs, key=["M", "N", "K"])(mod.matmul_kernel)
    c = prog._c

    def launch():
        tuned[lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)](a, b, c, M, N, K)

    t0 = time.time()
    launch()
    torch.cuda.synchronize()
    out["autotune_wall_s"] = round(time.time() - t0, 1)
    out["autotune_best"] = str(tuned.best_config)
    out["autotune_tflops"] = round(tflops(flops, do_bench(launch)), 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
