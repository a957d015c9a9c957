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

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace swz {

class NamePattern;

struct KernelResources {
  std::string function;             // as the report names it (mangled)
  unsigned registers = 0;           // per thread
  std::uint64_t shared_bytes = 0;   // static shared memory per block
  std::uint64_t stack_bytes = 0;    // per thread
};

// Every function with a REG: line, in report order (a function in several cubins appears
// once per cubin).
std::vector<KernelResources> parse_cuobjdump_resources(std::string_view text);

// The most registers per thread among the functions whose name `kernels` matches (search,
// so "gemm_kernel" matches the mangled "_Z11gemm_kernelPKf..."), and how many matched;
// nullopt when none did.
struct MatchedRegisters {
  unsigned registers = 0;
  unsigned functions = 0;
};
std::optional<MatchedRegisters> registers_of(const std::vector<KernelResources>& report, const NamePattern& kernels);

// The most registers among the functions that are the kernel `name` (a C name such as
// "fdtd_ey_kernel"): named so exactly (extern "C", AMD's metadata of such a kernel), or whose
// mangled name holds it as one whole name, <length><name> as the Itanium ABI writes it
// ("_Z14fdtd_ey_kernelPf..."; not "_Z15fdtd_ey_kernel2Pf..."). nullopt when none is.
std::optional<MatchedRegisters> registers_of_kernel(const std::vector<KernelResources>& report, std::string_view name);

}  // namespace swz
