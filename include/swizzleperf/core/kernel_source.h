// KernelSource: a kernel program under the contract (docs/kernel-contract.md):
// exactly one region between the lines `// swizzleperf:begin` and
// `// swizzleperf:end` (`# swizzleperf:begin` / `# swizzleperf:end` in a Triton
// program, a .py file) that defines swizzle_pid. Only that region ever changes;
// splice() rebuilds the file with a new region and everything else untouched.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "swizzleperf/util/result.h"

namespace swz {

// A logical tile grid. The contract numbers pids with a 32-bit `unsigned`, so a
// grid the tool accepts has at most kMaxGridPids tiles (parse_tile_grid and every
// reader of a grid refuse more); num_pids() is 64-bit so that refusing can be done
// without overflowing first.
struct TileGrid {
  unsigned m = 0;  // tile rows
  unsigned n = 0;  // tile columns
  std::uint64_t num_pids() const { return static_cast<std::uint64_t>(m) * n; }
};

// The most tiles a grid may have: pids are 32-bit and num_pids is itself passed as
// an `unsigned`, so 2^32 - 1.
inline constexpr std::uint64_t kMaxGridPids = 0xffffffffull;
// The most bytes a swizzle region may have. A swizzle is a few lines of integer
// arithmetic; anything near this size is not one, and refusing it keeps every
// scanner of region text cheap whatever it is fed.
inline constexpr std::size_t kMaxRegionBytes = 64 * 1024;
// The most bytes a kernel file may have (the harness-based programs are tens of KB).
inline constexpr std::size_t kMaxKernelFileBytes = 16u << 20;

// "MxN" (or "MXN") with 1 <= M, N and M*N <= kMaxGridPids; the Error says which
// rule failed. Digits only: no sign, no spaces, no leading '+'.
Result<TileGrid> parse_tile_grid(std::string_view text);
// The rules themselves, also for numbers read elsewhere (a program's info): m and n at
// least 1, m*n at most kMaxGridPids. `what`, when not empty, starts the Error ("the
// program's info grid 0x4 is not a grid of positive sides").
Result<TileGrid> make_tile_grid(long long m, long long n, const std::string& what);

// The language a program and its region are written in: C++ (a .hip or .cu program, the
// region a C++ subset: core/region_validator) or Python (a Triton program, .py, the region a
// Python subset: core/py_region). It follows the file name; a region never crosses over.
enum class RegionLanguage { cpp, python };
RegionLanguage language_of(const std::filesystem::path& path);
// The extension the tool gives a copy of a program in this language: ".hip" / ".py".
const char* source_extension(RegionLanguage language);
// The region's comment marker: "//" / "#".
const char* comment_prefix(RegionLanguage language);

class KernelSource {
 public:
  // Errors: no region, two regions, begin without end, region without swizzle_pid.
  static Result<KernelSource> parse(std::string text, std::filesystem::path path = {});
  static Result<KernelSource> load(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  const std::string& text() const { return text_; }
  std::string name() const;       // file stem: "gemm"
  RegionLanguage language() const { return language_; }
  std::string region() const;     // the lines between the markers, markers excluded
  // The whole file with the region replaced. The new region must itself define
  // swizzle_pid and contain no marker lines.
  Result<std::string> splice(std::string_view new_region) const;
  // From a `// swizzleperf:default-grid MxN` comment, if present.
  std::optional<TileGrid> default_grid() const { return default_grid_; }
  // Its 1-based line (0 when there is none).
  std::size_t default_grid_line() const { return default_grid_line_; }
  // How many numbers the program's size takes, read from a harness program's
  // `default_size() ... { return {a, b, c}; }` without building it (so `--size`
  // is checked on a machine with no compiler or GPU); nullopt when not found.
  std::optional<std::size_t> declared_size_arity() const;

 private:
  std::filesystem::path path_;
  RegionLanguage language_ = RegionLanguage::cpp;
  std::string text_;
  std::size_t region_begin_ = 0;  // first byte after the begin marker's line
  std::size_t region_end_ = 0;    // first byte of the end marker's line
  std::optional<TileGrid> default_grid_;
  std::size_t default_grid_line_ = 0;
};

// Whether some line of `text` is the region's begin marker, as parse() recognises it
// (a file that is already a program under the contract, for `init` to refuse).
bool has_region_begin_line(std::string_view text);

// A kernel program's file name: .hip, or .cu (CUDA as written: built by nvcc on the
// cuda backend; the hip backend refuses a program that uses the CUDA runtime), or .py
// (a Triton program: the triton backend).
bool is_kernel_file_name(const std::filesystem::path& path);

// A program `swizzleperf init` wrote that is not finished yet: an Error naming the first
// `swizzleperf:TODO` left and how many there are. The run commands (optimize, build,
// gate, suite, sweep) refuse such a file before anything builds; `check` lists them all.
Status check_no_todo(const KernelSource& kernel);

// A region of `bytes` over kMaxRegionBytes is an Error stating the limit: the one
// size rule, applied where a region enters (kernel file, reply, history).
Status check_region_size(std::size_t bytes);

// Checks that a region is acceptable on its own: at most kMaxRegionBytes, defines
// swizzle_pid, no markers, no preprocessor includes (C++: the region must stay plain
// arithmetic). A linear scan with no recursion, for any bytes. The full check of
// what a region may contain is region_validator's (py_region's for Python); callers
// run that too.
Status validate_region(std::string_view region, RegionLanguage language = RegionLanguage::cpp);

// Unified diff (3 lines of context) from a to b; empty when equal.
std::string unified_diff(std::string_view a, std::string_view b, const std::string& a_name,
                         const std::string& b_name);

}  // namespace swz
