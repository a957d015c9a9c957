// The option checks every command shares (cli/options): --size read once, through
// util/text's parse_positive_list, so a number too large says "out of range", and
// `version` refusing an argument.
#include <gtest/gtest.h>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"

namespace swz::cli {
namespace {

// What validate_options says of `args` given to a command with the shared --size option.
std::string size_validation_of(const std::vector<std::string>& args) {
  cxxopts::Options o("test");
  o.add_options()("size", "", cxxopts::value<std::string>()->default_value(""))(
      "warmup", "", cxxopts::value<int>()->default_value("1"));
  std::vector<const char*> argv{"swizzleperf"};
  for (const auto& a : args) argv.push_back(a.c_str());
  return validate_options(o.parse(static_cast<int>(argv.size()), argv.data()));
}

TEST(Options, ASizeTooLargeIsOutOfRangeNotAMalformedList) {
  EXPECT_EQ(size_validation_of({"--size", "999999999999"}), "--size '999999999999': 999999999999 is out of range (at most 1,073,741,824)");
  EXPECT_EQ(size_validation_of({"--size", "4096,99999999999999999999999,1"}),
            "--size '4096,99999999999999999999999,1': 99999999999999999999999 is out of range (at most 1,073,741,824)");
  EXPECT_EQ(size_validation_of({"--size", "1,x"}), "--size '1,x': 'x' is not a positive integer");
  EXPECT_EQ(size_validation_of({"--size", "0,5,5"}), "--size '0,5,5': '0' is not a positive integer");
  EXPECT_EQ(size_validation_of({"--size", "4096,32768,1073741824"}), "");
  EXPECT_EQ(size_validation_of({}), "");
  // Every other check keeps its message.
  EXPECT_EQ(size_validation_of({"--warmup", "-5"}), "--warmup -5: use 0..10000");
}

TEST(Options, SizeOptionGivesIntsAndNamesTheOption) {
  auto v = parse_size_option("2048,8192,1024");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(*v, (std::vector<int>{2048, 8192, 1024}));
  auto sweep = parse_size_option("64,1073741825", "--sizes");
  ASSERT_FALSE(sweep);
  EXPECT_EQ(sweep.error().message, "--sizes '64,1073741825': 1073741825 is out of range (at most 1,073,741,824)");
}

TEST(Options, VersionTakesNoArgument) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int extra = cmd_version({"extra"});
  const int help = cmd_version({"--help"});
  const int plain = cmd_version({});
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(extra, kExitError);
  EXPECT_EQ(err, "swizzleperf: error: unexpected argument 'extra': version takes none (swizzleperf version)\n");
  EXPECT_EQ(help, kExitOk);
  EXPECT_EQ(plain, kExitOk);
  EXPECT_NE(out.find("swizzleperf "), std::string::npos) << out;
}

}  // namespace
}  // namespace swz::cli
