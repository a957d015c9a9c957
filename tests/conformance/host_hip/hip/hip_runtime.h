// A host emulator of the HIP runtime: just enough of <hip/hip_runtime.h> for
// kernels/support/swz_harness.h and a small kernel program to compile with the host C++
// compiler and run on a machine without a GPU (tests/conformance builds the harness's
// conformance program against it with -I tests/conformance/host_hip).
//
// Contract of the emulation:
//  - "Device" memory is host memory (hipMalloc is malloc); every copy and memset is synchronous.
//  - A kernel launch runs at once, block after block in (z, y, x) order. A block of one thread is
//    a plain call; the threads of a larger block are fibers (ucontext) run in turn, each until it
//    returns or reaches __syncthreads(), so a block-wide barrier and __shared__ memory (a
//    function-local static: one block runs at a time) behave as on a GPU. Atomics need nothing:
//    everything runs on one OS thread.
//  - Time is virtual: each kernel launch advances a device clock by kLaunchMs, and events read
//    that clock, so event timings are deterministic and a sustained window of the harness fills
//    its batches in little wall time. hipDeviceAttributeClockRate is 1980 MHz; there is no PCI bus
//    id, so the harness's telemetry is "none".
//  - SWZ_FAKE_NO_DEVICE=1 in the environment: hipGetDeviceCount reports 0 devices.
// Not a general HIP: no streams beyond the null stream, no <<<>>> (use hipLaunchKernelGGL), no
// warp intrinsics. A call the harness makes and this file lacks is a compile error, on purpose.
#ifndef SWZ_HOST_HIP_RUNTIME_H
#define SWZ_HOST_HIP_RUNTIME_H

#include <ucontext.h>

#include <math.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

#define __global__
#define __host__
#define __device__
#define __forceinline__ inline
#define __shared__ static

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT: as HIP's
};

enum hipError_t { hipSuccess = 0, hipErrorNoDevice = 100, hipErrorInvalidValue = 1, hipErrorNotSupported = 801 };
enum hipMemcpyKind { hipMemcpyHostToHost, hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice };
enum hipDeviceAttribute_t { hipDeviceAttributeClockRate = 1 };
typedef double* hipEvent_t;
typedef void* hipStream_t;

namespace swz_host_hip {

constexpr double kLaunchMs = 0.5;  // virtual device time of one kernel launch

struct State {
  dim3 block_idx, thread_idx, block_dim, grid_dim;
  double clock_ms = 0;
  // Fibers of the running block: the scheduler's context and the current fiber's.
  ucontext_t scheduler;
  ucontext_t* current = nullptr;
};
inline State& state() {
  static State s;
  return s;
}

// The kernel body of the block now running, called by each fiber.
inline std::function<void()>& block_body() {
  static std::function<void()> f;
  return f;
}
inline void fiber_entry() { block_body()(); }

// Runs body once per thread of the current block: a plain call for one thread, fibers otherwise.
inline void run_block(unsigned threads, const std::function<void()>& body) {
  State& s = state();
  if (threads == 1) {
    s.thread_idx = dim3(0, 0, 0);
    body();
    return;
  }
  const size_t kStack = 64 * 1024;
  static std::vector<char> stacks;
  if (stacks.size() < threads * kStack) stacks.resize(threads * kStack);
  std::vector<ucontext_t> fibers(threads);
  std::vector<char> done(threads, 0);
  block_body() = body;
  for (unsigned t = 0; t < threads; ++t) {
    getcontext(&fibers[t]);
    fibers[t].uc_stack.ss_sp = &stacks[t * kStack];
    fibers[t].uc_stack.ss_size = kStack;
    fibers[t].uc_link = &s.scheduler;
    makecontext(&fibers[t], fiber_entry, 0);
  }
  // Rounds: every unfinished thread runs to its next barrier (or its end), in thread order.
  for (bool any = true; any;) {
    any = false;
    for (unsigned t = 0; t < threads; ++t) {
      if (done[t]) continue;
      const unsigned bx = s.block_dim.x, by = s.block_dim.y;
      s.thread_idx = dim3(t % bx, (t / bx) % by, t / (bx * by));
      // A fiber that reaches __syncthreads swaps back with `current` still set; one that returns
      // clears it (launch's body) and comes back through uc_link.
      s.current = &fibers[t];
      swapcontext(&s.scheduler, &fibers[t]);
      if (s.current == nullptr) done[t] = 1;
      any = any || !done[t];
    }
  }
  s.current = nullptr;
}

// Called by __syncthreads(): back to the scheduler until every thread of the block is here.
inline void barrier() {
  State& s = state();
  if (!s.current) return;  // a one-thread block
  swapcontext(s.current, &s.scheduler);
}

template <class... P, class... A>
void launch(void (*kernel)(P...), dim3 grid, dim3 block, A&&... args) {
  State& s = state();
  std::tuple<P...> params(std::forward<A>(args)...);
  s.grid_dim = grid;
  s.block_dim = block;
  const unsigned threads = block.x * block.y * block.z;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        s.block_idx = dim3(x, y, z);
        run_block(threads, [&]() {
          std::apply(kernel, params);
          if (state().current) {  // the fiber ends: tell the scheduler it returned
            state().current = nullptr;
          }
        });
      }
  s.clock_ms += kLaunchMs;
}

}  // namespace swz_host_hip

#define blockIdx (swz_host_hip::state().block_idx)
#define threadIdx (swz_host_hip::state().thread_idx)
#define blockDim (swz_host_hip::state().block_dim)
#define gridDim (swz_host_hip::state().grid_dim)

inline void __syncthreads() { swz_host_hip::barrier(); }
inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  const unsigned long long old = *p;
  *p += v;
  return old;
}
inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
  const unsigned long long old = *p;
  if (v < old) *p = v;
  return old;
}

#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  swz_host_hip::launch(kernel, dim3(grid), dim3(block), __VA_ARGS__)

inline const char* hipGetErrorString(hipError_t e) {
  switch (e) {
    case hipSuccess: return "no error";
    case hipErrorNoDevice: return "no ROCm-capable device is detected";
    case hipErrorNotSupported: return "operation not supported";
    default: return "invalid argument";
  }
}
inline hipError_t hipGetLastError() { return hipSuccess; }
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
inline hipError_t hipGetDeviceCount(int* n) {
  const char* v = std::getenv("SWZ_FAKE_NO_DEVICE");
  *n = v && *v && std::strcmp(v, "0") != 0 ? 0 : 1;
  return hipSuccess;
}
inline hipError_t hipSetDevice(int d) { return d == 0 ? hipSuccess : hipErrorInvalidValue; }
inline hipError_t hipMalloc(void** p, size_t bytes) {
  *p = std::malloc(bytes ? bytes : 1);
  return *p ? hipSuccess : hipErrorInvalidValue;
}
inline hipError_t hipFree(void* p) {
  std::free(p);
  return hipSuccess;
}
inline hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind) {
  if (bytes) std::memmove(dst, src, bytes);
  return hipSuccess;
}
inline hipError_t hipMemset(void* p, int v, size_t bytes) {
  if (bytes) std::memset(p, v, bytes);
  return hipSuccess;
}
inline hipError_t hipMemsetAsync(void* p, int v, size_t bytes, hipStream_t = nullptr) { return hipMemset(p, v, bytes); }
inline hipError_t hipEventCreate(hipEvent_t* e) {
  *e = new double(0);
  return hipSuccess;
}
inline hipError_t hipEventDestroy(hipEvent_t e) {
  delete e;
  return hipSuccess;
}
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t = nullptr) {
  *e = swz_host_hip::state().clock_ms;
  return hipSuccess;
}
inline hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) {
  *ms = static_cast<float>(*b - *a);
  return hipSuccess;
}
inline hipError_t hipDeviceGetPCIBusId(char*, int, int) { return hipErrorNotSupported; }
inline hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t a, int) {
  if (a != hipDeviceAttributeClockRate) return hipErrorNotSupported;
  *v = 1980000;  // kHz
  return hipSuccess;
}

#endif  // SWZ_HOST_HIP_RUNTIME_H
