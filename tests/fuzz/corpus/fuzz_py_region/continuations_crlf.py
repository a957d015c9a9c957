@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    # café \
    q = (pid +
         0x7fff_ffff) \
        - 0o17 + 0b1
    return -q >> 1 << 2 if q else ~q
