// Choosing a backend: the one place that knows every implementation (cuda, hip, triton),
// so backend.h stays the interface alone and its implementations never include
// each other.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "swizzleperf/backend/backend.h"

namespace swz {

// "cuda", "hip", "triton" or "auto": auto picks hip when rocprofv3 and an AMD GPU are
// present, cuda when ncu and an NVIDIA GPU are; otherwise an error saying what
// was looked for. (A Triton program's auto is resolved first: backend_for_kernel.)
Result<std::unique_ptr<Backend>> make_backend(const std::string& which, ProcessRunner& runner,
                                              const ToolOptions& tools);

// The backend that runs a kernel file when `which` was asked for: "triton" for auto and a
// Triton program (.py), else `which` itself; an Error when `which` cannot run it (a Triton
// program on cuda/hip, a C++ program on triton: one line naming the file and the backend
// to use).
Result<std::string> backend_for_kernel(const std::string& which, const std::filesystem::path& kernel);

}  // namespace swz
