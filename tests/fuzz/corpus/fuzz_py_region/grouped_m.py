@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    # grouped-M order, G = 8
    q = pid
    if grid_m * grid_n == num_pids:
        G = 8
        width = G * grid_n
        first_m = (pid // width) * G
        gs = tl.minimum(grid_m - first_m, G)
        q = (first_m + (pid % width) % gs) * grid_n + (pid % width) // gs
    return q
