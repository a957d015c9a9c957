// The compiler's own report of a kernel's resources, read back from the built program:
// on NVIDIA `cuobjdump --dump-resource-usage EXE` prints, per __global__ function of each
// embedded cubin, its registers per thread, static shared memory, stack and constant use:
//
//   Resource usage:
//    Common:
//     GLOBAL:0
//    Function _Z17stencil_2d_kernelPKfPfii11SwizzleGrid:
//     REG:26 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:580 TEXTURE:0 SURFACE:0 SAMPLER:0
//
// The locality model takes the register count from here (the footprint section can only
// declare a bound, e.g. __launch_bounds__). The text is a tool's output, so the parser is
// bounded: one pass over lines, no regex, numbers capped; unknown lines are skipped.
#pragma once

#include <string_view>
#include <vector>

#include "swizzleperf/backend/kernel_resources.h"

namespace swz {

// Every function with a REG: line, in report order (a function in several cubins appears
// once per cubin).
std::vector<KernelResources> parse_cuobjdump_resources(std::string_view text);

}  // namespace swz
