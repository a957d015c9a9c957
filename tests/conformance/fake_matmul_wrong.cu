// fake_matmul.cu whose output is wrong (fake_nvcc's magic word in the region): verify fails.
#include "swz_harness.h"
// swizzleperf:default-grid 16x16

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  // SWZ_FAKE_WRONG
  return pid;
}
// swizzleperf:end
