// A scanner of CUDA/HIP C++ source: the __global__ kernels a file defines, their
// launches (`k<<<grid, block>>>(args)`, `hipLaunchKernelGGL(k, ...)`), the reads of
// blockIdx/gridDim, and the `swizzleperf:TODO` comments. It is what `swizzleperf init`
// (core/kernel_init) reads a plain kernel file with and what `check` uses to flag a
// port that still reads blockIdx.y behind the swizzle's back.
//
// It is a lexer and a few bounded token walks, not a C++ parser: it knows comments,
// string/char/raw-string literals, preprocessor lines and bracket nesting, and
// recognises the shapes above by their tokens. Linear in the text, no regex, no
// recursion, any bytes; text past kMaxScanBytes (16 MiB) is not looked at.
// The limits (what it cannot see) are listed at the top of cuda_scan.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace swz {

inline constexpr std::size_t kNoOffset = static_cast<std::size_t>(-1);
// The most bytes scanned: kMaxKernelFileBytes of core/kernel_source.h (core/kernel_init
// checks that they agree; this header does not include that one, which includes it).
inline constexpr std::size_t kMaxScanBytes = 16u << 20;

// A __global__ function. Offsets are byte offsets into the scanned text; `line` is
// 1-based, the line of the name.
struct KernelDecl {
  std::string name;           // unqualified: "blur3x3"
  bool is_template = false;   // preceded by a template<...> clause
  std::size_t line = 0;
  std::size_t params_open = 0, params_close = 0;  // the '(' and ')' of the parameter list
  // The '{' and '}' of the body; kNoOffset for a declaration without one (only
  // CudaSource::kernel_prototypes() returns those).
  std::size_t body_open = kNoOffset, body_close = kNoOffset;
  std::size_t name_begin = 0;  // offset of the name
};

// One launch of a kernel.
struct LaunchSite {
  std::string kernel;  // unqualified name of the launched kernel
  std::size_t line = 0;
  std::size_t begin = 0, end = 0;  // the whole launch expression: name .. the closing ')'
  // The launch's parts as code text: comments dropped, every run of whitespace and
  // comments between two tokens written as one space ("dim3(w / 16, h / 16)").
  std::string grid, block;
  std::string rest;  // ", smem, stream" (what follows the block), or "" when absent
  std::string args;  // the kernel's arguments, "a, b, n" ("" when none)
  bool triple_chevron = false;     // k<<<...>>>(...); false: hipLaunchKernelGGL(k, ...)
  std::string enclosing_function;  // the named function whose body holds it ("main"), or ""
  // For rewriting (core/kernel_init):
  // the kernel as written: "k", "k<float, 4>", "ns::k", "HIP_KERNEL_NAME(k<T>)".
  std::string kernel_expr;
  std::size_t grid_begin = 0, grid_end = 0;  // source bytes of the grid expression
  // Where one more argument goes: just past the last argument's last token, or just
  // past '(' when the argument list is empty; append_comma says whether it needs ", ".
  std::size_t append_at = 0;
  bool append_comma = false;
};

// A use of the block index or grid size in code.
struct BlockUse {
  std::size_t begin = 0, end = 0;  // the whole use: "blockIdx . y" is one use
  std::size_t line = 0, column = 0;  // 1-based; the column is a byte column
  std::string text;     // normalised: "blockIdx.y", "gridDim", "hipBlockIdx_x"
  bool grid = false;    // gridDim / hipGridDim_*; false: blockIdx / hipBlockIdx_*
  char member = 0;      // 'x', 'y', 'z', or 0 for a bare blockIdx/gridDim
  bool in_swizzle_pid_call = false;  // inside the argument list of swizzle_pid(...)
  bool allowed = false;  // on a line with a `// swizzleperf:allow-blockidx` comment
};

struct SourceUse {
  std::size_t line = 0, column = 0;  // 1-based
  std::string text;                  // "blockIdx.y", "hipGridDim_x", "gridDim"
};

struct SourceMark {
  std::size_t line = 0;  // the marker's line, 1-based
  std::string text;      // the comment after the marker: one line, trimmed, at most 160 bytes
};

// A named function definition that is not inside another function's body (class
// members included, lambdas and local classes not).
struct FunctionDef {
  std::string name;  // unqualified: "run" for Foo::run
  std::size_t line = 0;
  std::size_t name_begin = 0;
  std::size_t decl_begin = 0;  // first token of the declaration (return type, template, ...)
  std::size_t body_open = 0, body_close = 0;  // '{' and '}'
};

struct TokenSpan {
  std::size_t begin = 0, end = 0;
};

// The text scanned once; every query is answered from the tokens. The text must
// outlive the object.
class CudaSource {
 public:
  explicit CudaSource(std::string_view text);

  std::string_view text() const { return text_; }

  // Every __global__ function definition (templates, __launch_bounds__(...),
  // extern "C", static and attributes allowed), in file order.
  const std::vector<KernelDecl>& kernels() const { return kernels_; }
  // __global__ declarations without a body (forward declarations).
  const std::vector<KernelDecl>& kernel_prototypes() const { return prototypes_; }
  // Every launch, in file order.
  const std::vector<LaunchSite>& launches() const { return launches_; }
  const std::vector<FunctionDef>& functions() const { return functions_; }
  // Every blockIdx/gridDim (with .x/.y/.z when present) and hipBlockIdx_x ...
  // hipGridDim_z in code (not comments, literals or preprocessor lines), in order.
  std::vector<BlockUse> block_uses() const;
  std::vector<SourceMark> todo_marks() const;

  // The names called in [begin, end): identifiers followed by '(' (or by template
  // arguments and '('), control keywords left out; each name once, in first-call order.
  std::vector<std::string> calls_in(std::size_t begin, std::size_t end) const;
  // Offsets of the code identifiers spelled `name`.
  std::vector<std::size_t> identifier_uses(std::string_view name) const;
  // The code tokens in [begin, end).
  std::vector<TokenSpan> tokens_in(std::size_t begin, std::size_t end) const;
  // Code text of [begin, end) as LaunchSite describes it (comments dropped, gaps as one space).
  std::string code_text(std::size_t begin, std::size_t end) const;
  // The statement that declares the local `name` in [scope_begin, before) - `dim3
  // block(16, 16)`, `const int threads = 256` - as code text without its ';' (the
  // last one there), or "" when none is found. Only `TYPE name(...)`, `TYPE name{...}`
  // and `TYPE name = ...;` at the start of a statement count, or such a name as a later
  // declarator of one: in `dim3 block(16, 16), grid(w / 16, h / 16);` grid's declaration
  // is `dim3 grid(w / 16, h / 16)` and block's `dim3 block(16, 16)`.
  std::string local_declaration(std::string_view name, std::size_t scope_begin, std::size_t before) const;

  // Where `#include "swz_harness.h"` and the swizzle region go: just after the line
  // of the last #include of the file's leading block of comments and preprocessor
  // lines (after the #endif that closes it when it is inside a conditional), else at
  // the start of the line of the first code token (the end of the text when none).
  std::size_t harness_include_at() const { return harness_at_; }

  std::size_t line_of(std::size_t offset) const;    // 1-based
  std::size_t column_of(std::size_t offset) const;  // 1-based byte column
  // True when `offset` lies inside a string or character literal (a raw string
  // spans lines).
  bool in_literal(std::size_t offset) const;

 private:
  struct Token {
    std::uint32_t begin, end;
    std::uint8_t kind;
  };
  struct Span {
    std::uint32_t begin, end;
  };
  struct Directive {
    std::uint32_t begin, end;  // '#' .. the newline that ends it (not included)
    std::uint8_t kind;         // include, open (if/ifdef/ifndef), close (endif), other
  };

  void lex();
  void match_brackets();
  void find_functions();
  void find_kernels();
  void find_launches();
  void find_harness_point();

  std::string_view tok(std::size_t i) const { return text_.substr(toks_[i].begin, toks_[i].end - toks_[i].begin); }
  bool punct(std::size_t i, char c) const;
  bool punct2(std::size_t i, std::string_view two) const;
  bool ident(std::size_t i) const;
  bool ident(std::size_t i, std::string_view word) const;
  bool adjacent(std::size_t i) const;  // token i starts where token i-1 ends
  bool triple(std::size_t i, char c) const;
  std::size_t token_at_or_after(std::size_t offset) const;
  std::uint32_t name_before_paren(std::uint32_t open) const;
  std::uint32_t angle_open_before(std::uint32_t close, std::uint32_t floor) const;
  std::uint32_t function_name_before(std::uint32_t brace) const;
  std::uint32_t template_close_after(std::uint32_t open, std::uint32_t end) const;
  std::vector<Span> split_top(std::uint32_t begin, std::uint32_t end) const;
  std::string code_tokens(std::uint32_t begin, std::uint32_t end) const;
  std::string enclosing(std::size_t offset) const;

  std::string_view text_;
  std::vector<Token> toks_;
  std::vector<std::uint32_t> match_;  // index of the matching bracket token, or kNone
  std::vector<Span> comments_;
  std::vector<Directive> directives_;
  std::vector<std::uint32_t> line_starts_;
  std::vector<FunctionDef> functions_;
  std::vector<Span> function_toks_;  // body '{' and '}' token indices, parallel to functions_
  std::vector<KernelDecl> kernels_, prototypes_;
  std::vector<LaunchSite> launches_;
  std::size_t harness_at_ = 0;
};

// The same queries on a text scanned for the occasion.
std::vector<KernelDecl> find_kernels(std::string_view text);
std::vector<LaunchSite> find_launches(std::string_view text);
// Each blockIdx/gridDim (with its .x/.y/.z when present) and hipBlockIdx_x/y/z,
// hipGridDim_x/y/z in code that is not inside the arguments of a swizzle_pid(...)
// call and not on a line carrying a `// swizzleperf:allow-blockidx` comment: a kernel
// under the contract that reads one of these bypasses the swizzle.
std::vector<SourceUse> unswizzled_block_uses(std::string_view text);
// The launches of a 2-D/3-D port (a program that defines `launch_grid`) that bypass the
// harness's swizzled launch path: each launch in `run()`, or in a function `run()` calls,
// whose grid is not `swz_flat_grid(...)` (written there, or as the declaration of the local
// it names). A leftover `k<<<grid, block>>>` launches the 2-D grid itself, so swizzle_pid
// sees only blockIdx.x; only verify on a GPU would notice. None for any other program.
std::vector<LaunchSite> unflattened_launches(std::string_view text);
// Which value of a 2-D port's size bounds its kernel's x and y block index, as the source
// shows it along one path: run()'s first launch of a kernel of the file; in the kernel, the
// first local assigned from `swz_block_idx.x` (`.y`) and the first comparison of an
// expression of it with a parameter (`x >= w`, `col0 + c < N`); run()'s argument for that
// parameter, either `s[i]`/`size_[i]` or a member that setup() assigns from `s[i]`. Both
// axes found and different, or neither (-1): a guess is never returned. `check` halves each
// value in turn and asks the program's info which grid extent moved (a swapped launch_grid).
struct LaunchAxisSizes {
  int x = -1, y = -1;                // 0-based size values bounding the x and y block index
  std::string kernel;                // the launched kernel
  std::string x_bound, y_bound;      // the parameters they are compared with ("w", "h")
  std::size_t launch_grid_line = 0;  // the line of launch_grid's name
};
LaunchAxisSizes launch_axis_sizes(std::string_view text);

// Every comment containing `swizzleperf:TODO`, with its text after the marker.
std::vector<SourceMark> todo_marks(std::string_view text);
// The first use of the CUDA runtime in code: an `#include` of a cuda*.h header, or an
// identifier spelled `cuda` + an upper-case letter or '_' (cudaMalloc, cudaStream_t); its
// `text` is the header line or the identifier. Such a program builds with nvcc only (the
// hip backend refuses it and names this use); none: line 0.
SourceUse first_cuda_runtime_use(std::string_view text);

}  // namespace swz
