// Choosing a backend: the one place that knows every implementation (cuda, hip),
// so backend.h stays the interface alone and its implementations never include
// each other.
#pragma once

#include <memory>
#include <string>

#include "swizzleperf/backend/backend.h"

namespace swz {

// "cuda", "hip" or "auto": auto picks hip when rocprofv3 and an AMD GPU are
// present, cuda when ncu and an NVIDIA GPU are; otherwise an error saying what
// was looked for.
Result<std::unique_ptr<Backend>> make_backend(const std::string& which, ProcessRunner& runner,
                                              const ToolOptions& tools);

}  // namespace swz
