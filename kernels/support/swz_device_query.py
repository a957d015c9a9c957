#!/usr/bin/env python3
# swizzleperf device query for the triton backend: the same one JSON line as
# device_query.hip, read through torch (so a machine with torch + triton and no CUDA
# toolkit can run Triton programs):
#   {"name","arch","vendor","compute_units","l2_bytes","total_mem_bytes","clock_khz",
#    "warp_size","max_threads_per_block","shared_mem_per_block","num_xcc","driver_version",
#    "runtime_version","pci_bus_id"}
# arch: "sm_XY" on NVIDIA, gcnArchName on AMD (ROCm's torch). A field torch does not
# expose is 0 or "" (the tool fills the gaps from its arch table), except
# shared_mem_per_block, which is left out when torch has neither attribute (readers take it
# as optional): the opt-in maximum a block may use (shared_memory_per_block_optin, what a
# Triton kernel may ask for), else shared_memory_per_block. Exit 3 with one line on stderr
# when there is no GPU; 0 otherwise.
import json
import sys


def shared_mem_per_block(p):
    """The most shared memory one block may use in bytes, or None when torch does not say."""
    for attr in ("shared_memory_per_block_optin", "shared_memory_per_block"):
        v = getattr(p, attr, None)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return None


def main():
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any import failure is "no torch"
        print("error: cannot import torch: %s" % e, file=sys.stderr)
        return 3
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        print("error: no GPU device (torch.cuda.is_available() is False)", file=sys.stderr)
        return 3
    dev = torch.cuda.current_device()
    p = torch.cuda.get_device_properties(dev)
    amd = getattr(torch.version, "hip", None) is not None
    if amd:
        arch = getattr(p, "gcnArchName", "") or ""
    else:
        arch = "sm_%d%d" % (p.major, p.minor)
    bus = ""
    if not amd:
        try:
            bus = "%04x:%02x:%02x.0" % (getattr(p, "pci_domain_id", 0), getattr(p, "pci_bus_id", 0),
                                        getattr(p, "pci_device_id", 0))
        except Exception:  # noqa: BLE001
            bus = ""
    cuda_version = getattr(torch.version, "cuda", None) or ""
    runtime = 0
    if cuda_version:
        parts = cuda_version.split(".")
        try:
            runtime = int(parts[0]) * 1000 + (int(parts[1]) * 10 if len(parts) > 1 else 0)
        except ValueError:
            runtime = 0
    line = {
        "name": p.name,
        "arch": arch,
        "vendor": "amd" if amd else "nvidia",
        "compute_units": int(p.multi_processor_count),
        "l2_bytes": int(getattr(p, "L2_cache_size", 0) or 0),
        "total_mem_bytes": int(p.total_memory),
        "clock_khz": int(getattr(p, "clock_rate", 0) or 0),
        "warp_size": int(getattr(p, "warp_size", 64 if amd else 32) or (64 if amd else 32)),
        "max_threads_per_block": int(getattr(p, "max_threads_per_block", 1024) or 1024),
        "num_xcc": -1,
        "driver_version": 0,
        "runtime_version": runtime,
        "pci_bus_id": bus,
    }
    shared = shared_mem_per_block(p)
    if shared is not None:
        line["shared_mem_per_block"] = shared
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
