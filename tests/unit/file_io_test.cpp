// Tests of util/file_io: the no-overwrite write (write_file_if_absent) that `init` uses.
#include "swizzleperf/util/file_io.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace swz {
namespace {

using test::read_text;
using test::TempDir;
using test::write_text;

std::size_t entries_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(FileIo, WriteIfAbsentWritesANewFileAndLeavesNoTempFile) {
  TempDir tmp;
  auto r = write_file_if_absent(tmp / "new.cu", "int x;\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(*r);
  EXPECT_EQ(read_text(tmp / "new.cu"), "int x;\n");
  EXPECT_EQ(entries_in(tmp.path()), 1u);
}

TEST(FileIo, WriteIfAbsentNeverReplacesAnExistingFile) {
  TempDir tmp;
  write_text(tmp / "old.cu", "mine\n");
  auto r = write_file_if_absent(tmp / "old.cu", "theirs\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(*r);
  EXPECT_EQ(read_text(tmp / "old.cu"), "mine\n");
  EXPECT_EQ(entries_in(tmp.path()), 1u);
}

TEST(FileIo, WriteIfAbsentIntoAMissingDirectoryIsAnErrorNamingThePath) {
  TempDir tmp;
  auto r = write_file_if_absent(tmp / "no" / "such" / "x.cu", "x\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot write " + (tmp / "no" / "such" / "x.cu").string() + ": No such file or directory");
  EXPECT_EQ(entries_in(tmp.path()), 0u);
}

// Whether a compiler can write its output, asked before it runs (a read-only -o once
// came back as ld's two lines): the reason, and nothing left behind.
TEST(FileIo, CheckCanWriteNamesTheReasonAndLeavesNothing) {
  TempDir tmp;
  EXPECT_TRUE(check_can_write(tmp / "prog").ok());
  EXPECT_EQ(entries_in(tmp.path()), 0u);
  auto missing = check_can_write(tmp / "no" / "prog");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "cannot write " + (tmp / "no" / "prog").string() + ": No such file or directory");
  write_text(tmp / "file", "x\n");
  auto under_file = check_can_write(tmp / "file" / "prog");
  ASSERT_FALSE(under_file.ok());
  EXPECT_EQ(under_file.error().message, "cannot write " + (tmp / "file" / "prog").string() + ": Not a directory");
  EXPECT_EQ(entries_in(tmp.path()), 1u);
}

// A directory that cannot be made says why (a suite --out under a read-only mount once said
// only that the first file's temp name had no directory).
TEST(FileIo, MakeDirectoriesNamesTheSystemsReason) {
  TempDir tmp;
  EXPECT_TRUE(make_directories(tmp / "a" / "b").ok());
  EXPECT_TRUE(make_directories(tmp / "a" / "b").ok());  // already there
  write_text(tmp / "file", "x\n");
  auto r = make_directories(tmp / "file" / "out");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot create " + (tmp / "file" / "out").string() + ": Not a directory");
  auto f = make_directories(tmp / "file");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("cannot create " + (tmp / "file").string() + ": "), std::string::npos) << f.error().message;
}

}  // namespace
}  // namespace swz

namespace swz {
namespace {

TEST(FileIoTempDir, MakeTempDirMakesANewEmptyDirectoryEachTimeUnderTmpdir) {
  test::TempDir base;
  test::ScopedEnv tmp("TMPDIR", base.path().string());
  const auto a = make_temp_dir("swz-test");
  const auto b = make_temp_dir("swz-test");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_NE(a, b);
  EXPECT_EQ(a.parent_path(), base.path());
  EXPECT_EQ(a.filename().string().rfind("swz-test-", 0), 0u) << a;
  EXPECT_TRUE(std::filesystem::is_directory(a));
  EXPECT_TRUE(std::filesystem::is_empty(a));
}

TEST(FileIoTempDir, AnUnusableTempDirectoryGivesAnEmptyPath) {
  test::ScopedEnv tmp("TMPDIR", "/proc/swz-no-such-dir");
  EXPECT_TRUE(make_temp_dir("swz-test").empty());
}

}  // namespace
}  // namespace swz
