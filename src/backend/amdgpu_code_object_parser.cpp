// Readers of an AMD program's device code and of its kernels' metadata (see the header
// for both shapes).
#include "swizzleperf/backend/amdgpu_code_object_parser.h"

#include <cstring>
#include <optional>

#include "swizzleperf/util/csv.h"

namespace swz {

namespace {

constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::string_view kCompressedMagic = "CCOB";  // clang's compressed bundle
constexpr std::uint64_t kMaxEntries = 4096;            // far above any real fat binary
constexpr std::uint64_t kMaxTriple = 1024;

std::optional<std::uint64_t> u64_at(std::string_view s, std::uint64_t at) {
  if (at > s.size() || s.size() - at < 8) return std::nullopt;
  std::uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = v << 8 | static_cast<unsigned char>(s[at + static_cast<std::uint64_t>(k)]);
  return v;  // little-endian, as the bundler writes it on every host it supports
}

// The entries of the bundle whose magic starts at `at`; stops at the first entry that
// does not fit in the file (a magic inside other data, or a cut file).
void read_bundle(std::string_view file, std::uint64_t at, std::vector<OffloadCodeObject>& out) {
  const auto n = u64_at(file, at + kBundleMagic.size());
  if (!n || *n == 0 || *n > kMaxEntries) return;
  std::uint64_t p = at + kBundleMagic.size() + 8;
  for (std::uint64_t e = 0; e < *n; ++e) {
    const auto offset = u64_at(file, p), size = u64_at(file, p + 8), triple_size = u64_at(file, p + 16);
    if (!offset || !size || !triple_size || *triple_size > kMaxTriple) return;
    p += 24;
    if (p > file.size() || file.size() - p < *triple_size) return;
    std::string triple(file.substr(p, *triple_size));
    p += *triple_size;
    if (*offset > file.size() - at || *size > file.size() - at - *offset) return;
    if (*size > 0 && triple.find("amdgcn") != std::string::npos) out.push_back({std::move(triple), at + *offset, *size});
  }
}

// "key: value" of a YAML line (leading spaces and a list dash removed by the caller).
struct KeyValue {
  std::string_view key, value;
};
std::optional<KeyValue> key_value(std::string_view s) {
  const std::size_t colon = s.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view v = s.substr(colon + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.remove_suffix(1);
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return KeyValue{s.substr(0, colon), v};
}

std::size_t indent_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  return i;
}

}  // namespace

Result<std::vector<OffloadCodeObject>> amdgcn_code_objects(std::string_view file) {
  std::vector<OffloadCodeObject> out;
  for (std::size_t at = file.find(kBundleMagic); at != std::string_view::npos; at = file.find(kBundleMagic, at + 1))
    read_bundle(file, at, out);
  if (!out.empty()) return out;
  if (file.find(kCompressedMagic) != std::string_view::npos && file.find(".hip_fatbin") != std::string_view::npos)
    return make_error("the program holds no uncompressed AMD code object (a compressed offload bundle, "
                      "--offload-compress, is not read): build without compression");
  return make_error("the program holds no AMD code object (no clang offload bundle with an amdgcn entry)");
}

std::vector<KernelResources> parse_amdgpu_metadata_notes(std::string_view text) {
  std::vector<KernelResources> out;
  bool in_kernels = false;
  std::size_t item_indent = std::string_view::npos;  // the column of a kernel item's "- "
  KernelResources cur;  // the kernel item being read, while in_item
  bool in_item = false;
  unsigned vgprs = 0, agprs = 0;
  auto finish = [&] {
    if (in_item && !cur.function.empty()) {
      cur.registers = vgprs + agprs;
      out.push_back(std::move(cur));
    }
    cur = KernelResources{};
    in_item = false;
    vgprs = agprs = 0;
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t ind = indent_of(line);
    std::string_view body = line.substr(ind);
    if (body.empty() || body == "\r") continue;
    if (ind == 0 && body.front() != '-') {  // a top-level key, or the document's end
      finish();
      in_kernels = body.substr(0, 15) == "amdhsa.kernels:";
      item_indent = std::string_view::npos;
      continue;
    }
    if (!in_kernels) continue;
    std::size_t key_indent = ind;
    if (body.size() >= 2 && body[0] == '-' && body[1] == ' ') {
      if (item_indent == std::string_view::npos) item_indent = ind;
      if (ind < item_indent) {  // shallower than the kernels' list: it has ended
        finish();
        in_kernels = false;
        continue;
      }
      if (ind != item_indent) continue;  // an argument's item
      finish();
      in_item = true;
      key_indent = ind + 2;
      body = body.substr(2);
      while (!body.empty() && body.front() == ' ') {
        body.remove_prefix(1);
        ++key_indent;
      }
    }
    if (!in_item || key_indent != item_indent + 2) continue;  // an argument's fields, or stray text
    const auto kv = key_value(body);
    if (!kv) continue;
    if (kv->key == ".name") {
      cur.function = std::string(kv->value.substr(0, 4096));
    } else if (kv->key == ".vgpr_count") {
      vgprs = static_cast<unsigned>(parse_whole_number(kv->value, 0, 1 << 20).value_or(0));
    } else if (kv->key == ".agpr_count") {
      agprs = static_cast<unsigned>(parse_whole_number(kv->value, 0, 1 << 20).value_or(0));
    } else if (kv->key == ".group_segment_fixed_size") {
      cur.shared_bytes = static_cast<std::uint64_t>(parse_whole_number(kv->value, 0, 1ll << 40).value_or(0));
    } else if (kv->key == ".private_segment_fixed_size") {
      cur.stack_bytes = static_cast<std::uint64_t>(parse_whole_number(kv->value, 0, 1ll << 40).value_or(0));
    }
  }
  finish();
  return out;
}

}  // namespace swz
