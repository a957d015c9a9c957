// The machine modelled (check, predict, optimize without a GPU) or built for (build) when
// --arch is not given: chosen from this machine's GPU, the kernel files and the compilers
// present, and said in one line with the reason, so a CUDA user is not handed an MI300X's
// eight dies without knowing it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "swizzleperf/core/hardware.h"

namespace swz::cli {

// What the choice looks at.
struct MachineFacts {
  bool nvidia_gpu = false;
  bool amd_gpu = false;
  bool nvcc = false;
  bool hipcc = false;
};

// This machine: its GPU device nodes, and nvcc/hipcc (the given paths, else where the
// backends look for them: PATH, then /usr/local/cuda/bin or /opt/rocm/bin).
MachineFacts machine_facts(const std::string& nvcc = "", const std::string& hipcc = "");

struct ArchChoice {
  std::string arch;     // "sm_90" or "gfx942"
  std::string machine;  // "an NVIDIA H100", "an AMD MI300X"
  std::string why;      // "gemm.cu is a CUDA file"
};

// In order: the GPU present (NVIDIA: sm_90, AMD: gfx942); kernels that are all .cu files
// (sm_90); nvcc present and no hipcc (sm_90); .hip files with hipcc present and no nvcc
// (gfx942); otherwise the paper's MI300X (gfx942), the reason saying why nothing told.
ArchChoice default_arch(const std::vector<std::filesystem::path>& kernels, const MachineFacts& facts);

// "model: sm_90, 2 die(s), dispatch round_robin [assumed]", and where the arch was chosen
// rather than given (`choice` not null), "; no --arch: an NVIDIA H100, because gemm.cu is
// a CUDA file (pass --arch to model another)". One line, no newline.
std::string model_line(const HardwareProfile& hw, const ArchChoice* choice);

}  // namespace swz::cli
