// Whole-file reads and atomic writes: the one place the tool reads a file into
// memory or replaces one. Errors are values with one message style:
// "cannot read PATH: REASON" / "cannot write PATH: REASON" / "cannot create DIR: REASON".
#pragma once

#include <filesystem>
#include <string>

#include "swizzleperf/util/result.h"

namespace swz {

// The whole file as bytes; an Error "cannot read PATH: REASON" when it cannot be read
// (missing, a directory, no permission).
Result<std::string> read_file(const std::filesystem::path& path);

// Writes text to PATH.tmp.PID, fsyncs it, renames it over PATH and fsyncs the
// directory: a crash leaves either the old file or the new one, never a mix. Used
// for the history, reports, best.hip and every JSON the tool writes.
Status write_file_atomic(const std::filesystem::path& path, const std::string& text);

// Writes text to PATH only if no file of that name exists, atomically even against a
// racing writer: a temp file in PATH's directory (0666 less the umask), written and
// synced, then link()ed to PATH (which fails if the name exists) and unlinked; where the
// file system has no hard links, PATH is created with O_EXCL and written in place
// (removed again on a failure). true: written; false: the name exists, nothing written;
// an Error "cannot write PATH: REASON" otherwise, with no temp file left behind.
Result<bool> write_file_if_absent(const std::filesystem::path& path, const std::string& text);

// Whether another program (a compiler, a linker) will be able to write PATH: a probe file
// is created in PATH's directory and removed again; PATH itself is not touched. An Error
// "cannot write PATH: REASON" names the system's reason ("Read-only file system", "No
// such file or directory", "Permission denied") before the program's own multi-line
// complaint would.
Status check_can_write(const std::filesystem::path& path);

// Creates dir and any missing parents (nothing to do when it is a directory already).
// An Error "cannot create DIR: REASON" names the system's reason ("Read-only file
// system", "Permission denied", "Not a directory"): a later write into DIR would only
// say its file's directory is missing.
Status make_directories(const std::filesystem::path& dir);

// A new directory `PREFIX-XXXXXX` (mkdtemp) under the system's temp directory ($TMPDIR, else
// /tmp; std::filesystem::temp_directory_path); an empty path when it cannot be made (a TMPDIR
// that is not a directory included). The caller removes it.
std::filesystem::path make_temp_dir(const std::string& prefix);

}  // namespace swz
