#define BLOCK_M 128  // tile rows
#define TILE_N (64)
#define BLOCK_PAD (BLOCK_M + 4)
#define LUT_BLOCK 16
static constexpr int kBK = 8, kThreads = 256;
const int NUM_STAGES = 3;
/* #define BLOCK_Q 32
   still a comment */
const char* doc = "#define BLOCK_S 32";
float lut[LUT_BLOCK];
#ifndef GROUP_M
#define GROUP_M 8
#endif
__global__ void k(float* c) {
  __shared__ __align__(16) float As[kBK][BLOCK_M];
  __shared__ float Bs[kBK][TILE_N + 4];
}
