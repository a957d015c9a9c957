// The compiler's own report of a kernel's resources on AMD, read back from the built
// program (the counterpart of cuobjdump --dump-resource-usage on NVIDIA).
//
// A HIP executable carries its device code in clang offload bundles (section .hip_fatbin):
//
//   "__CLANG_OFFLOAD_BUNDLE__"  24-byte magic
//   u64 N                       entries, then N times:
//   u64 offset, u64 size        of the entry, from the magic's first byte
//   u64 triple_size, triple     e.g. "hipv4-amdgcn-amd-amdhsa--gfx940"
//
// Each amdgcn entry is an ELF code object whose NT_AMDGPU_METADATA note lists every kernel
// with its .vgpr_count, .agpr_count, .group_segment_fixed_size (static LDS) and
// .private_segment_fixed_size (scratch per lane). `llvm-readelf --notes CODE_OBJECT`
// prints that note as YAML; the list of kernels is the top-level key amdhsa.kernels:
//
//   amdhsa.kernels:
//     - .agpr_count:     0
//       .args:
//         - .offset: 0 ...           (deeper items: the arguments, skipped)
//       .group_segment_fixed_size: 2048
//       .name:           _Z11gemm_kernelPKfS0_Pfiii11SwizzleGrid
//       .vgpr_count:     64
//
// Both inputs are untrusted bytes (a program the user built, a tool's output), so both
// parsers are one bounded pass: no regex, no recursion, numbers range-checked, offsets
// checked against the input before they are used.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/backend/kernel_resources.h"
#include "swizzleperf/util/result.h"

namespace swz {

struct OffloadCodeObject {
  std::string triple;         // e.g. hipv4-amdgcn-amd-amdhsa--gfx940
  std::uint64_t offset = 0;   // in the file
  std::uint64_t size = 0;
};

// The amdgcn code objects of every uncompressed offload bundle in `file` (an executable's
// bytes), in file order. An Error when there is none, saying whether the file holds a
// compressed bundle (which this reader does not unpack) or no bundle at all.
Result<std::vector<OffloadCodeObject>> amdgcn_code_objects(std::string_view file);

// Every kernel of `llvm-readelf --notes` output: registers = .vgpr_count + .agpr_count
// (CDNA allocates both from one file), shared_bytes = .group_segment_fixed_size,
// stack_bytes = .private_segment_fixed_size. A kernel without a name is dropped; a count
// that is not a whole number from 0 to 2^20 (2^40 for the byte sizes) is read as 0.
std::vector<KernelResources> parse_amdgpu_metadata_notes(std::string_view text);

}  // namespace swz
