// Tests for the AMD code-object readers (backend/amdgpu_code_object_parser): the offload
// bundles of a HIP program, and the kernel metadata llvm-readelf --notes printed for the
// shipped gemm built with Debian's hipcc for gfx940 (tests/fixtures/amdgpu), plus hostile
// inputs. The real tools run in tests/e2e/amd_build_e2e_test.cpp.
#include "swizzleperf/backend/amdgpu_code_object_parser.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "swizzleperf/util/name_pattern.h"

namespace swz {
namespace {

using test::fixture_path;
using test::read_text;

void put_u64(std::string& s, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) s.push_back(static_cast<char>(v >> (8 * k) & 0xFF));
}

struct Entry {
  std::string triple, bytes;
};
// A bundle as clang-offload-bundler writes it, its code objects after the header.
std::string bundle(const std::vector<Entry>& entries) {
  std::uint64_t header = 24 + 8;
  for (const auto& e : entries) header += 24 + e.triple.size();
  std::string s = "__CLANG_OFFLOAD_BUNDLE__";
  put_u64(s, entries.size());
  std::uint64_t at = header;
  for (const auto& e : entries) {
    put_u64(s, at);
    put_u64(s, e.bytes.size());
    put_u64(s, e.triple.size());
    s += e.triple;
    at += e.bytes.size();
  }
  for (const auto& e : entries) s += e.bytes;
  return s;
}

TEST(AmdgpuCodeObjects, FindsTheAmdgcnEntriesOfEveryBundle) {
  const std::string prefix(1000, '\x7f');
  const std::string a = bundle({{"host-x86_64-unknown-linux", ""}, {"hipv4-amdgcn-amd-amdhsa--gfx940", "ELF-one"}});
  const std::string b = bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", "ELF-two!"}});
  const std::string file = prefix + a + "padding" + b;
  auto r = amdgcn_code_objects(file);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].triple, "hipv4-amdgcn-amd-amdhsa--gfx940");
  EXPECT_EQ(file.substr((*r)[0].offset, (*r)[0].size), "ELF-one");
  EXPECT_EQ((*r)[1].triple, "hipv4-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(file.substr((*r)[1].offset, (*r)[1].size), "ELF-two!");
}

TEST(AmdgpuCodeObjects, RefusesWhatIsNoBundleOrDoesNotFit) {
  auto none = amdgcn_code_objects("an ELF with no device code");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no AMD code object"), std::string::npos) << none.error().message;
  auto compressed = amdgcn_code_objects(std::string(".hip_fatbin") + "CCOB\x01\x00...");
  ASSERT_FALSE(compressed);
  EXPECT_NE(compressed.error().message.find("compressed"), std::string::npos) << compressed.error().message;
  // Entries pointing past the file, a cut header, a huge count or triple: skipped, not read.
  std::string past = bundle({{"hipv4-amdgcn-amd-amdhsa--gfx940", "ELF"}});
  past.resize(past.size() - 1);
  EXPECT_FALSE(amdgcn_code_objects(past));
  std::string cut = bundle({{"hipv4-amdgcn-amd-amdhsa--gfx940", "ELF"}}).substr(0, 40);
  EXPECT_FALSE(amdgcn_code_objects(cut));
  std::string many = "__CLANG_OFFLOAD_BUNDLE__";
  put_u64(many, ~0ull);
  EXPECT_FALSE(amdgcn_code_objects(many));
  std::string wide = "__CLANG_OFFLOAD_BUNDLE__";
  put_u64(wide, 1);
  put_u64(wide, 0);
  put_u64(wide, 1);
  put_u64(wide, ~0ull);  // triple size
  EXPECT_FALSE(amdgcn_code_objects(wide));
  std::string wrap = "__CLANG_OFFLOAD_BUNDLE__";
  put_u64(wrap, 1);
  put_u64(wrap, ~0ull - 2);  // offset + size would wrap around
  put_u64(wrap, 8);
  put_u64(wrap, 6);
  wrap += "amdgcn";
  EXPECT_FALSE(amdgcn_code_objects(wrap));
}

TEST(AmdgpuNotes, ReadsEveryKernelOfHipccsMetadata) {
  const auto report = parse_amdgpu_metadata_notes(read_text(fixture_path("amdgpu/gemm-gfx940-notes.txt")));
  ASSERT_EQ(report.size(), 4u);
  EXPECT_EQ(report[2].function, "_Z11gemm_kernelPKfS0_Pfiii11SwizzleGrid");
  EXPECT_EQ(report[2].registers, 124u);    // .vgpr_count 124 + .agpr_count 0
  EXPECT_EQ(report[2].shared_bytes, 8320u);  // .group_segment_fixed_size
  EXPECT_EQ(report[2].stack_bytes, 0u);
  EXPECT_EQ(report[0].function, "_ZN10swz_detail22swz_hash_chunks_kernelEPKhyyPy");
  EXPECT_EQ(report[0].registers, 16u);
  EXPECT_EQ(report[0].shared_bytes, 2048u);
  auto gemm = NamePattern::compile("gemm_kernel");
  ASSERT_TRUE(gemm);
  const auto m = registers_of(report, *gemm);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->registers, 124u);
  EXPECT_EQ(m->functions, 1u);
}

TEST(AmdgpuNotes, AgprsAddToVgprsAndArgumentsAreNotKernels) {
  const std::string text =
      "Displaying notes found in: .note\n"
      "amdhsa.kernels:\n"
      "  - .agpr_count:     8\n"
      "    .args:\n"
      "      - .name:     not_a_kernel\n"
      "        .vgpr_count: 999\n"
      "    .name:           'quoted_kernel'\n"
      "    .vgpr_count:     40\n"
      "    .private_segment_fixed_size: 16\n"
      "  - .vgpr_count:     7\n"       // no name: dropped
      "  - .name: second\n"
      "    .vgpr_count: 1e300\n"      // not a count: 0
      "amdhsa.target:   amdgcn-amd-amdhsa--gfx942\n"
      "  - .name: after_the_list\n";
  const auto report = parse_amdgpu_metadata_notes(text);
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[0].function, "quoted_kernel");
  EXPECT_EQ(report[0].registers, 48u);
  EXPECT_EQ(report[0].stack_bytes, 16u);
  EXPECT_EQ(report[1].function, "second");
  EXPECT_EQ(report[1].registers, 0u);
  EXPECT_TRUE(parse_amdgpu_metadata_notes("").empty());
  EXPECT_TRUE(parse_amdgpu_metadata_notes(std::string(1 << 20, '-')).empty());
}

}  // namespace
}  // namespace swz
