BLOCK_M = 128  # swizzleperf:tunable 64,128,256
BLOCK_N = 64  # swizzleperf:tunable 64 128
NUM_STAGES = 3  # swizzleperf:tunable 2 3 4
# swizzleperf:restrict BLOCK_M * BLOCK_N <= 128 * 128 or not NUM_STAGES > 3
