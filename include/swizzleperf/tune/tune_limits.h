// tune_limits_of: what one block (workgroup) may use on a device, the one place every reader
// of those limits asks (the tune proposer's pruning, `tune`'s first count of the space, the
// templating prompt).
//
// Each limit is the device query's value where the query reports it as a positive integer
// (kernels/support/device_query.hip and swz_device_query.py: `shared_mem_per_block`, the
// opt-in maximum a kernel may use; `max_threads_per_block`; `warp_size`), else the vendor's
// documented value for the arch, else 0 (unknown: not checked). A value that is not an
// integer, is zero or negative, or does not fit 64 bits is ignored, so a malformed query
// never loosens or zeroes a limit the arch knows.
#pragma once

#include "swizzleperf/core/hardware.h"
#include "swizzleperf/tune/tune_space.h"

namespace swz {

// Per-arch fallbacks (see tune_limits.cpp for where each number comes from):
//   NVIDIA (vendor "nvidia" or arch sm_XY): threads 1024, warp 32; shared memory per block, the
//     opt-in maximum: sm_90 and sm_10x 232,448 bytes (227 KB), sm_80 and sm_87 166,912 (163 KB),
//     sm_86, sm_89 and sm_12x 101,376 (99 KB), sm_70/72 98,304 (96 KB), sm_75 65,536 (64 KB),
//     older or unknown 49,152 (48 KB, what every CUDA device gives without opting in).
//   AMD (vendor "amd" or arch gfx*): threads 1024, LDS 65,536 bytes per workgroup, wavefront 64
//     (gfx9: GCN, CDNA), 32 from gfx10 on (RDNA, HIP's default wave size there).
//   Anything else: 0 (not checked) unless the query says.
TuneLimits tune_limits_of(const HardwareProfile& hw);

}  // namespace swz
