// The option checks every command shares (cli/options): --size read once, through
// util/text's parse_positive_list, so a number too large says "out of range", and
// `version` refusing an argument.
#include <gtest/gtest.h>

#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "support/setting_values.h"

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


// `args` parsed by a command's options as add_setting_options declares them.
cxxopts::ParseResult parse_settings_of(CommandSet command, const std::vector<std::string>& args) {
  cxxopts::Options o("test");
  add_setting_options(o, command, "Run");
  std::vector<const char*> argv{"swizzleperf"};
  for (const auto& a : args) argv.push_back(a.c_str());
  return o.parse(static_cast<int>(argv.size()), argv.data());
}

// Each command declares the rows it takes and no other, and reads every one it
// declares into the config: an option accepted and not read cannot hide here.
TEST(Options, EachCommandDeclaresAndReadsExactlyTheSettingsItTakes) {
  for (const CommandSet command : {kOptimize, kSuite, kGate, kSweep, kBuild, kProbe, kTune}) {
    for (const auto& row : settings_table()) {
      SCOPED_TRACE(std::string(row.key) + " for command bit " + std::to_string(command));
      const std::string value = test::another_setting_value(row, row.takes(command) ? command : kAnyCommand);
      const std::vector<std::string> args = {std::string("--") + row.key, value};
      if (!row.takes(command)) {
        EXPECT_THROW(parse_settings_of(command, args), cxxopts::exceptions::exception);
        continue;
      }
      const auto r = parse_settings_of(command, args);
      EXPECT_EQ(validate_options(r, command), "");
      RunConfig read;
      ASSERT_EQ(read_settings(r, command, read), "");
      RunConfig direct = default_config(command);
      ASSERT_TRUE(row.set(direct, value, command));
      EXPECT_EQ(row.text(read), row.text(direct));
      EXPECT_EQ(nlohmann::json(read), nlohmann::json(direct)) << "every other setting at the command's default";
      EXPECT_EQ(given_settings(r, read), std::set<std::string>{row.key});
    }
  }
}

TEST(Options, SweepRefusesTheEnergyObjectiveInOneLine) {
  EXPECT_EQ(validate_options(parse_settings_of(kSweep, {"--objective", "energy"}), kSweep),
            "--objective 'energy' is not one of: time, l2");
  EXPECT_EQ(validate_options(parse_settings_of(kOptimize, {"--objective", "energy"}), kOptimize), "");
  RunConfig c;
  EXPECT_EQ(read_settings(parse_settings_of(kOptimize, {"--objective", "energy", "--regime", "burst"}), kOptimize, c)
                .rfind("--objective energy with --regime burst", 0), 0u);
}

TEST(Options, CommandDefaultsAndHelpComeFromTheTable) {
  cxxopts::Options sweep("swizzleperf sweep");
  add_setting_options(sweep, kSweep, "Sweep");
  const std::string help = help_text(sweep);
  EXPECT_NE(help.find("timed repetitions per size (median reported) (default: 20)"), std::string::npos) << help;
  EXPECT_NE(help.find("--nvcc"), std::string::npos) << "the tools' paths come with the backend";
  EXPECT_EQ(help.find("--finalists"), std::string::npos);
  RunConfig c;
  ASSERT_EQ(read_settings(parse_settings_of(kGate, {}), kGate, c), "");
  EXPECT_EQ(c.recheck_rounds, 10);
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
