// The compiler's own report of a kernel's resources, as read back from a built program
// (NVIDIA: cuobjdump_parser; AMD: amdgpu_code_object_parser), and the lookups the locality
// model's occupancy makes in it: the most registers among the kernels a program's name
// pattern matches, or among the functions that are one named kernel.
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
  unsigned registers = 0;           // per thread (AMD: VGPRs + AGPRs per lane)
  std::uint64_t shared_bytes = 0;   // static shared memory (LDS) per block
  std::uint64_t stack_bytes = 0;    // per thread (AMD: scratch per lane)
};

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
