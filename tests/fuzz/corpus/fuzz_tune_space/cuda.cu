#ifndef BLOCK_M
#define BLOCK_M 128  // swizzleperf:tunable 64 128 256
#endif
#ifndef BLOCK_K
#define BLOCK_K 32 // swizzleperf:tunable pow2 16..64
#endif
// swizzleperf:restrict BLOCK_M >= BLOCK_K && (BLOCK_M % BLOCK_K == 0)
// swizzleperf:shared-bytes BLOCK_M * BLOCK_K * 2 * 2
// swizzleperf:threads 4 * 32
