// Source edits shared by the two `init` writers (core/kernel_init for CUDA/HIP files,
// core/triton_init for Triton files): a set of insertions and replacements at byte
// offsets of the original text, applied in one pass, and the small text rules both
// follow (the input's line ending, a comment-safe one-line excerpt, identifiers, name
// lists, the program class's name).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace swz {

// Edits at offsets of one source text. apply() sorts them by offset (at one offset,
// insertions before a replacement, then in the order they were made) and skips an edit
// that starts inside an earlier replacement or past the end: never out of bounds.
class SourceEdits {
 public:
  void insert(std::size_t pos, std::string text) { edits_.push_back({pos, 0, std::move(text), edits_.size()}); }
  void replace(std::size_t pos, std::size_t len, std::string text) {
    edits_.push_back({pos, len, std::move(text), edits_.size()});
  }
  std::string apply(std::string_view src) const;

 private:
  struct Edit {
    std::size_t pos, len;
    std::string text;
    std::size_t seq;
  };
  std::vector<Edit> edits_;
};

// The input's line ending: CRLF when its first newline has a CR before it, else LF.
std::string eol_of(std::string_view text);

// s as one trimmed line of at most max_bytes (cut before a UTF-8 continuation byte,
// "..." appended), safe inside a line comment.
std::string comment_excerpt(std::string s, std::size_t max_bytes);

// A C-like identifier (letters, digits, '_', UTF-8 bytes; not starting with a digit).
bool is_identifier(std::string_view s);

// "a, b, c": at most 12 names (each one line, at most 80 bytes), then ", ...".
std::string name_list(const std::vector<std::string>& names);

// The program class a writer names after `kernel`: gemm_kernel -> GemmKernelProgram,
// "Swz" in front when it would start with a digit, is the harness's SwzProgram, or is
// `taken` in the file (at most 4 more times).
std::string program_class_name(const std::string& kernel, const std::function<bool(const std::string&)>& taken);

}  // namespace swz
