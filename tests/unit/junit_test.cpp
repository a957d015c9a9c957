// JUnit writer: every document it writes parses with libxml2 and says what it
// was given, hostile text included.
#include "swizzleperf/util/junit.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "support/junit_reader.h"

namespace swz {
namespace {

TEST(JUnit, PassAndFailCasesParseBack) {
  JUnitSuite s{"swizzleperf check", "2026-11-23T10:00:00Z", {}};
  s.cases.push_back({"kernels/gemm.hip", "swizzleperf.check", 1.25, false, "", "", "failure"});
  s.cases.push_back({"bad.hip", "swizzleperf.check", 0.5, true, "NOT a bijection on grid 32x256", "colliding pids 0,1", "failure"});
  auto p = test::parse_junit(render_junit(s));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.suite_name, "swizzleperf check");
  EXPECT_EQ(p.tests, 2);
  EXPECT_EQ(p.failures, 1);
  ASSERT_EQ(p.cases.size(), 2u);
  EXPECT_EQ(p.cases[0].name, "kernels/gemm.hip");
  EXPECT_FALSE(p.cases[0].failed);
  EXPECT_TRUE(p.cases[1].failed);
  EXPECT_EQ(p.cases[1].message, "NOT a bijection on grid 32x256");
  EXPECT_EQ(p.cases[1].text, "colliding pids 0,1");
}

TEST(JUnit, HostileTextSurvivesExactlyOrAsReplacementCharacters) {
  const std::string hostile = "<script>alert(\"x\")</script> & 'q' ]]> \t tab";
  const std::string control = std::string("bell\x07 nul") + '\0' + "end";
  const std::string bad_utf8 = "caf\xC3\xA9 \xFF\xFE \xED\xA0\x80 ok";  // é, two stray bytes, a surrogate
  JUnitSuite s{"s<&>", "", {}};
  s.cases.push_back({hostile, "c\"q", 0, true, hostile, "line1\nline2 " + hostile, "failure"});
  s.cases.push_back({"ctl", "c", 0, true, control, bad_utf8, "failure"});
  const auto xml = render_junit(s);
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  auto p = test::parse_junit(xml);
  ASSERT_TRUE(p.ok) << p.error << "\n" << xml;
  EXPECT_EQ(p.suite_name, "s<&>");
  ASSERT_EQ(p.cases.size(), 2u);
  EXPECT_EQ(p.cases[0].name, hostile);
  EXPECT_EQ(p.cases[0].classname, "c\"q");
  EXPECT_EQ(p.cases[0].message, hostile);
  EXPECT_EQ(p.cases[0].text, "line1\nline2 " + hostile);
  EXPECT_EQ(p.cases[1].message, "bell\xEF\xBF\xBD nul\xEF\xBF\xBD" "end");
  EXPECT_EQ(p.cases[1].text, "caf\xC3\xA9 \xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD ok");
}

TEST(JUnit, EscapeKeepsValidMultibyteText) {
  EXPECT_EQ(xml_escape("Δ 3 % → 🙂"), "Δ 3 % → 🙂");
  EXPECT_EQ(xml_escape("a<b"), "a&lt;b");
}

TEST(JUnit, WrittenAtomicallyAndAnUnwritablePathIsAnError) {
  test::TempDir tmp;
  JUnitSuite s{"x", "", {{"a", "c", 0, false, "", "", "failure"}}};
  ASSERT_TRUE(write_junit(tmp / "out.xml", s));
  EXPECT_TRUE(test::parse_junit(test::read_text(tmp / "out.xml")).ok);
  for (const auto& e : std::filesystem::directory_iterator(tmp.path()))
    EXPECT_EQ(e.path().filename(), "out.xml");  // no temp file left behind
  auto st = write_junit(tmp / "no" / "such" / "dir.xml", s);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("JUnit"), std::string::npos);
}

}  // namespace
}  // namespace swz
