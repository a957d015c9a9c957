// Content hashing for noticing change (a kernel edited since its run started, two
// mappings that are the same table, a build-cache key). Not cryptographic.
#pragma once

#include <string>
#include <string_view>

namespace swz {

// "fnv1a64:<16 hex digits>": FNV-1a 64 over the bytes.
std::string content_hash(std::string_view bytes);

}  // namespace swz
