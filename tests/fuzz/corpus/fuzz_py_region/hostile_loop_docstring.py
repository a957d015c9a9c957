@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    """Spin."""
    while True:
        pid += 1
    return pid
