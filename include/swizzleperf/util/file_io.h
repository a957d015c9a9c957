// Whole-file reads and atomic writes: the one place the tool reads a file into
// memory or replaces one. Errors are values with one message style:
// "cannot read PATH: REASON" / "cannot write PATH: REASON".
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

}  // namespace swz
