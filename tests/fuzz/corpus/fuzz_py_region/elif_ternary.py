@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    row = pid // grid_n
    col = pid % grid_n
    if grid_m * grid_n != num_pids: return pid
    elif row % 2 == 1 and not col < 0:
        col = grid_n - 1 - col
    else:
        pass
    x = row * grid_n + col if grid_n > 0 else pid
    x ^= 0
    return tl.maximum(tl.minimum(x, num_pids - 1), 0)
