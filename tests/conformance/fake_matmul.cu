// The conformance suite's program for the fake toolchain: tests/fakes/fake_nvcc builds it into
// its emulator (the region is all it reads; tests/CMakeLists.txt builds it with the tests).
#include "swz_harness.h"
// swizzleperf:default-grid 16x16

// swizzleperf:begin
SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {
  return pid;
}
// swizzleperf:end
