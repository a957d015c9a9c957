// swizzleperf: a small HIP-on-CUDA mapping, owned by this project.
//
// Contract: with `-I kernels/support/hip_on_cuda`, a plain HIP program that does
// `#include <hip/hip_runtime.h>` compiles with nvcc (`-x cu`; tested with CUDA 13.0) and runs
// on NVIDIA GPUs. Debian's hip/nvidia_detail headers use CUDA APIs removed in
// CUDA 13 (cudaDeviceProp::clockRate, ...), hence this header.
//
// It maps only what swizzleperf's kernels need: memory (hipMalloc/Free/Memcpy/
// Memset, async forms), sync, errors, events, streams, device selection,
// hipGetDeviceProperties (hipDeviceProp_t: a HIP-shaped struct filled from CUDA;
// gcnArchName holds "sm_XY", clockRate comes from cudaDeviceGetAttribute),
// hipDeviceGetAttribute (attributes listed below), hipFuncSetAttribute (dynamic shared
// memory limit), driver/runtime version, PCI bus
// id, hipLaunchKernelGGL / HIP_KERNEL_NAME, hipThreadIdx_x-style names. Kernel
// language (__global__, __shared__, threadIdx, blockIdx, __syncthreads,
// __launch_bounds__, warpSize) is CUDA's own and passes through unchanged.
// Anything else is deliberately absent: a compile error names what is missing.
//
// Marker macros: SWZ_HIP_ON_CUDA = 1 and __HIP_PLATFORM_NVIDIA__ = 1.
#ifndef SWZ_HIP_ON_CUDA_HIP_RUNTIME_H
#define SWZ_HIP_ON_CUDA_HIP_RUNTIME_H

#define SWZ_HIP_ON_CUDA 1
#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

// ---- errors -----------------------------------------------------------------
typedef cudaError_t hipError_t;
#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipErrorNotReady cudaErrorNotReady
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName

// ---- memory -----------------------------------------------------------------
typedef cudaMemcpyKind hipMemcpyKind;
#define hipMemcpyHostToHost cudaMemcpyHostToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault

template <class T>
inline hipError_t hipMalloc(T** ptr, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemGetInfo cudaMemGetInfo

// ---- device, sync -----------------------------------------------------------
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDeviceReset cudaDeviceReset
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceCount cudaGetDeviceCount
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipDeviceGetPCIBusId cudaDeviceGetPCIBusId

// ---- streams, events --------------------------------------------------------
typedef cudaStream_t hipStream_t;
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamDefault cudaStreamDefault
#define hipStreamNonBlocking cudaStreamNonBlocking

typedef cudaEvent_t hipEvent_t;
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy
#define hipEventQuery cudaEventQuery
#define hipEventDefault cudaEventDefault
#define hipEventBlockingSync cudaEventBlockingSync
#define hipEventDisableTiming cudaEventDisableTiming

// ---- attributes ---------------------------------------------------------------
// hipDeviceGetAttribute(int*, attr, device) has CUDA's signature; only these names.
typedef cudaDeviceAttr hipDeviceAttribute_t;
// Kernel attributes (dynamic shared memory above 48 KB needs the limit raised first).
typedef cudaFuncAttribute hipFuncAttribute;
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
inline hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(func, attr, value);
}

#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttributeClockRate cudaDevAttrClockRate
#define hipDeviceAttributeMemoryClockRate cudaDevAttrMemoryClockRate
#define hipDeviceAttributeMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeL2CacheSize cudaDevAttrL2CacheSize
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceAttributeMaxThreadsPerBlock cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeMaxThreadsPerMultiProcessor cudaDevAttrMaxThreadsPerMultiProcessor
#define hipDeviceAttributeMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock
#define hipDeviceAttributeSharedMemPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#define hipDeviceAttributeMaxGridDimX cudaDevAttrMaxGridDimX
#define hipDeviceAttributePciBusId cudaDevAttrPciBusId

// ---- properties ---------------------------------------------------------------
// A HIP-shaped subset of hipDeviceProp_t (field names and types as in HIP).
struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;  // kHz, from cudaDevAttrClockRate (the prop field is gone in CUDA 13)
  int memoryClockRate;  // kHz, from cudaDevAttrMemoryClockRate
  int memoryBusWidth;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  size_t maxSharedMemoryPerMultiProcessor;
  int pciDomainID;
  int pciBusID;
  int pciDeviceID;
  char gcnArchName[256];  // "sm_XY" on NVIDIA
};

inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
  cudaDeviceProp c;
  cudaError_t e = cudaGetDeviceProperties(&c, device);
  if (e != cudaSuccess) return e;
  std::memset(p, 0, sizeof(*p));
  std::memcpy(p->name, c.name, sizeof(p->name));
  p->name[sizeof(p->name) - 1] = '\0';
  p->totalGlobalMem = c.totalGlobalMem;
  p->sharedMemPerBlock = c.sharedMemPerBlock;
  p->regsPerBlock = c.regsPerBlock;
  p->warpSize = c.warpSize;
  p->maxThreadsPerBlock = c.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    p->maxThreadsDim[i] = c.maxThreadsDim[i];
    p->maxGridSize[i] = c.maxGridSize[i];
  }
  if ((e = cudaDeviceGetAttribute(&p->clockRate, cudaDevAttrClockRate, device)) != cudaSuccess)
    return e;
  if ((e = cudaDeviceGetAttribute(&p->memoryClockRate, cudaDevAttrMemoryClockRate, device)) !=
      cudaSuccess)
    return e;
  p->memoryBusWidth = c.memoryBusWidth;
  p->major = c.major;
  p->minor = c.minor;
  p->multiProcessorCount = c.multiProcessorCount;
  p->l2CacheSize = c.l2CacheSize;
  p->maxThreadsPerMultiProcessor = c.maxThreadsPerMultiProcessor;
  p->maxSharedMemoryPerMultiProcessor = c.sharedMemPerMultiprocessor;
  p->pciDomainID = c.pciDomainID;
  p->pciBusID = c.pciBusID;
  p->pciDeviceID = c.pciDeviceID;
  std::snprintf(p->gcnArchName, sizeof(p->gcnArchName), "sm_%d%d", c.major, c.minor);
  return cudaSuccess;
}

// ---- launch -------------------------------------------------------------------
// hipLaunchKernelGGL(kernel, grid, block, dynamic_shared_bytes, stream, args...)
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
// Wraps a template kernel name holding commas: HIP_KERNEL_NAME(k<A, B>).
#define HIP_KERNEL_NAME(...) __VA_ARGS__

#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

#endif  // SWZ_HIP_ON_CUDA_HIP_RUNTIME_H
