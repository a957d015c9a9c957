// A scanner of plain Triton (Python) source: its logical lines, its top-level functions
// (which are @triton.jit kernels, with their parameters and body lines), the reads of
// `tl.program_id(...)` in a function, the launches `kernel[grid](...)` outside the kernels,
// and the `# swizzleperf:TODO` comments. It is what `swizzleperf init kernel.py`
// (core/triton_init) reads a plain Triton file with.
//
// It is a line and token scanner, not a Python parser: it knows comments, string literals
// (quotes, triple quotes, escapes), bracket nesting and backslash continuations, so it
// sees logical lines as Python does, and recognises the shapes above by their tokens.
// Linear in the text (brackets are matched once, with an explicit stack), no regex, no
// recursion, any bytes; a match further than kMaxPyMatchBytes is not one, and text past
// kMaxScanBytes (16 MiB) is not looked at.
// What it cannot see: functions defined inside other statements (a kernel under `if`),
// launches spelled through another name (`k = kernel; k[grid](...)`).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "swizzleperf/core/cuda_scan.h"

namespace swz {

// How far a closing bracket may be from its opening one to count (a launch's grid and
// arguments are a few lines).
inline constexpr std::size_t kMaxPyMatchBytes = 64 * 1024;

// One logical line: a statement with its continuation lines (open brackets, a trailing
// backslash, a triple-quoted string), or a blank or comment-only line.
struct PyLine {
  std::size_t begin = 0;   // its first byte (the start of its first physical line)
  std::size_t end = 0;     // its end: the newline ending its last physical line (or the text's end)
  std::size_t line = 0;    // 1-based number of its first physical line
  std::size_t indent = 0;  // columns of blanks before its first token (a tab to the next multiple of 8)
  bool blank = true;       // nothing but blanks and a comment
};

// A function defined at the top level of the file (column 0).
struct PyFunction {
  std::string name;
  std::size_t line = 0;   // the `def` line, 1-based
  std::size_t first = 0;  // index in lines() of its first decorator (the def's when none)
  std::size_t def = 0;    // index in lines() of the `def` line
  std::size_t end = 0;    // one past the index of the last non-blank line of its body
  bool jit = false;       // decorated `@triton.jit`, `@triton.jit(...)` or `@jit`
  bool autotuned = false; // decorated `@triton.autotune(...)` too
  std::vector<std::string> params;  // parameter names in order (no `*`, no annotations)
};

// A read of the program id: `tl.program_id(0)`, `tl.program_id(axis=0)`, ...
struct PyProgramId {
  std::size_t begin = 0, end = 0;  // the call's bytes, receiver included ("tl.program_id(axis=0)")
  std::size_t line_index = 0;      // the logical line holding it (index in lines())
  int axis = -1;                   // 0, 1 or 2 when written as a literal; -1 otherwise
};

// A launch `kernel[grid](args)`.
struct PyLaunch {
  std::size_t begin = 0, end = 0;  // kernel name .. the closing ')'
  std::size_t line = 0;            // 1-based line of the name
  std::string grid;                // the subscript, one line: "grid", "(triton.cdiv(M, 64),)"
  std::string args;                // the arguments, one line, comments dropped: "a, b, c, M, N"
  std::size_t args_begin = 0, args_end = 0;  // the bytes between the parentheses
  std::string enclosing_function;  // the top-level function holding it, or "" (module level)
};

class PySource {
 public:
  explicit PySource(std::string_view text);

  std::string_view text() const { return text_; }
  const std::vector<PyLine>& lines() const { return lines_; }
  const std::vector<PyFunction>& functions() const { return functions_; }
  // The text with comments blanked (same length, newlines kept): code as Python sees it.
  std::string_view code() const { return code_; }
  // The text with comments and the contents of string literals blanked (quotes kept).
  std::string_view masked() const { return masked_; }
  // A logical line's code, trimmed ("" for a blank line).
  std::string_view line_code(std::size_t index) const;
  std::size_t line_of(std::size_t offset) const;  // 1-based
  // The index in lines() of the logical line holding `offset`.
  std::size_t line_index_of(std::size_t offset) const;

  // Calls of `program_id(...)` in f's body (any receiver), in order.
  std::vector<PyProgramId> program_ids(const PyFunction& f) const;
  // Launches `kernel[...](...)` outside every @triton.jit function, in order.
  std::vector<PyLaunch> launches(std::string_view kernel) const;
  // Offsets where `name` occurs as a whole identifier (not after a '.') in [begin, end).
  std::vector<std::size_t> identifier_uses(std::string_view name, std::size_t begin, std::size_t end) const;
  // `# ... swizzleperf:TODO ...` comments, in order.
  std::vector<SourceMark> todo_marks() const;

 private:
  void scan();
  void find_functions();
  void match_brackets();
  // The byte after the bracket closing the one at `open` (masked text), or kNoOffset (none,
  // or further than kMaxPyMatchBytes).
  std::size_t match_bracket(std::size_t open) const;

  std::string_view text_;
  std::string code_, masked_;
  std::vector<std::size_t> newlines_;  // offsets of every '\n'
  std::vector<PyLine> lines_;
  std::vector<std::pair<std::size_t, std::size_t>> comments_;  // [begin, end) of each '#' comment
  std::vector<std::pair<std::size_t, std::size_t>> brackets_;  // (opening, closing or kNoOffset), by opening
  std::vector<PyFunction> functions_;
};

// The `# swizzleperf:TODO` comments of a Triton program (what `check` lists and the run
// commands refuse).
std::vector<SourceMark> python_todo_marks(std::string_view text);

}  // namespace swz
