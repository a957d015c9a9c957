// TemplateGate against the in-process fake backend (tests/support/fake_backend.h): a template
// that builds, verifies and gives the original's digest is accepted; one that does not build,
// fails verify or gives another output is rejected with its reason; an original that does not
// build or verify is an error, not a verdict.
#include "swizzleperf/cli/template_gate.h"

#include <gtest/gtest.h>

#include "support/fake_backend.h"
#include "support/fixtures.h"
#include "support/scripted_runner.h"

namespace swz::cli {
namespace {

struct GateFixture {
  test::TempDir dir;
  test::ScriptedRunner runner;
  test::FakeBackend backend{runner};

  Result<TemplateVerdict> gate(const std::string& original_behaviour, const std::string& template_behaviour) {
    const auto original = dir / "prog.hip";
    test::write_text(original, test::fake_kernel_source(original_behaviour));
    TemplateGateRequest req{original, "#ifndef BLOCK_M\n#define BLOCK_M 64 // swizzleperf:tunable 32 64\n#endif\n" +
                                          test::fake_kernel_source(template_behaviour),
                            {{"BLOCK_M", 64}}, dir / "scratch", 1, "sm_90"};
    return gate_template(backend, req);
  }
};

TEST(TemplateGate, TheSameOutputIsAcceptedWithTheOriginalsDigest) {
  GateFixture f;
  auto v = f.gate("", "");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE(v->accepted) << v->reason;
  EXPECT_EQ(v->digest.size(), 16u);
  EXPECT_EQ(f.backend.builds(), 2);
  EXPECT_EQ(f.backend.modes(), (std::vector<std::string>{"verify", "verify", "hash", "hash"}));
  EXPECT_TRUE(test::has(test::read_text(f.dir / "scratch" / "template" / "prog.hip"), "#define BLOCK_M 64"));
}

TEST(TemplateGate, ATemplateThatDoesNotBuildVerifyOrKeepTheOutputIsRejected) {
  for (const auto& [behaviour, why] : std::vector<std::pair<std::string, std::string>>{
           {"build=fail", "at its defaults the template does not build: "},
           {"verify=bad", "at its defaults the template fails verify: "},
           {"out=diff", "at its defaults the template's full-size output differs from the original's: "}}) {
    GateFixture f;
    auto v = f.gate("", behaviour);
    ASSERT_TRUE(v) << v.error().message;
    EXPECT_FALSE(v->accepted) << behaviour;
    EXPECT_EQ(v->reason.rfind(why, 0), 0u) << v->reason;
    EXPECT_EQ(v->reason.find('\n'), std::string::npos);
  }
}

TEST(TemplateGate, AnOriginalThatDoesNotBuildOrVerifyIsAnError) {
  GateFixture f;
  auto nb = f.gate("build=fail", "");
  ASSERT_FALSE(nb);
  EXPECT_TRUE(test::has(nb.error().message, "prog.hip does not build: ")) << nb.error().message;
  GateFixture g;
  auto nv = g.gate("verify=bad", "");
  ASSERT_FALSE(nv);
  EXPECT_TRUE(test::has(nv.error().message, "prog.hip fails its own verify: ")) << nv.error().message;
}

}  // namespace
}  // namespace swz::cli
