@triton.jit
def die_of(pid, per_die):
    return pid // per_die

@triton.jit
def swizzle_pid(pid, num_pids, grid_m, grid_n):
    # die-major order: pids of one die are contiguous
    per_die = tl.cdiv(num_pids, SWZ_NUM_DIES)
    if num_pids % SWZ_NUM_DIES != 0:
        return pid
    die = pid % SWZ_NUM_DIES
    return die * per_die + pid // SWZ_NUM_DIES + die_of(0, per_die) * 0
