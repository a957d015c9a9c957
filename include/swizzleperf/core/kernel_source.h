// KernelSource: a kernel program under the contract (docs/kernel-contract.md):
// exactly one region between the lines `// swizzleperf:begin` and
// `// swizzleperf:end` that defines swizzle_pid. Only that region ever changes;
// splice() rebuilds the file with a new region and everything else untouched.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "swizzleperf/core/result.h"

namespace swz {

struct TileGrid {
  unsigned m = 0;  // tile rows
  unsigned n = 0;  // tile columns
  unsigned num_pids() const { return m * n; }
};

class KernelSource {
 public:
  // Errors: no region, two regions, begin without end, region without swizzle_pid.
  static Result<KernelSource> parse(std::string text, std::filesystem::path path = {});
  static Result<KernelSource> load(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  const std::string& text() const { return text_; }
  std::string name() const;       // file stem: "gemm"
  std::string region() const;     // the lines between the markers, markers excluded
  // The whole file with the region replaced. The new region must itself define
  // swizzle_pid and contain no marker lines.
  Result<std::string> splice(std::string_view new_region) const;
  // From a `// swizzleperf:default-grid MxN` comment, if present.
  std::optional<TileGrid> default_grid() const { return default_grid_; }

 private:
  std::filesystem::path path_;
  std::string text_;
  std::size_t region_begin_ = 0;  // first byte after the begin marker's line
  std::size_t region_end_ = 0;    // first byte of the end marker's line
  std::optional<TileGrid> default_grid_;
};

// Checks that a region is acceptable on its own: defines swizzle_pid, no markers,
// no preprocessor includes (the region must stay plain arithmetic).
Status validate_region(std::string_view region);

// Unified diff (3 lines of context) from a to b; empty when equal.
std::string unified_diff(std::string_view a, std::string_view b, const std::string& a_name,
                         const std::string& b_name);

}  // namespace swz
