// End-to-end: hostile swizzle regions through the real binary.
// Each one goes through `swizzleperf check` (a kernel file holding it: exit 1,
// one line naming the line and the token, the marker file never created) and,
// all in one run, through `optimize --proposer llm` against the loopback server
// (each recorded as rejected_region with its reason and shown to the LLM in the
// next prompt, no file created, the run going on to its next attempt).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>

#include "support/chat_server.h"
#include "support/fixtures.h"

namespace swz::test {
namespace {

struct Hostile {
  std::string name;
  std::string region;  // MARKER stands for the marker file's path
  int line;            // what the rejection must name
  std::string token;
};

const std::string kSig = "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n";

std::vector<Hostile> hostile_regions() {
  return {
      {"system() in the function", kSig + "  system(\"touch MARKER\");\n  return pid;\n}\n", 2, "system"},
      {"file-scope initializer", "static int evil = system(\"touch MARKER\");\n" + kSig + "  return pid;\n}\n", 1, "static"},
      {"constructor struct", "struct Evil { Evil() { system(\"touch MARKER\"); } } evil;\n" + kSig + "  return pid;\n}\n", 1, "struct"},
      {"__attribute__((constructor))", "__attribute__((constructor)) void evil() { system(\"touch MARKER\"); }\n" + kSig + "  return pid;\n}\n", 1, "__attribute__"},
      {"asm volatile", kSig + "  asm volatile(\"\" ::: \"memory\");\n  return pid;\n}\n", 2, "asm"},
      {"%:include", "%:include <cstdlib>\n" + kSig + "  return pid + system(\"touch MARKER\") * 0;\n}\n", 1, "%:"},
      {"?\?=include", "?\?=include <cstdlib>\n" + kSig + "  return pid + system(\"touch MARKER\") * 0;\n}\n", 1, "?\?="},
      {"a string literal", kSig + "  return pid + \"evil\"[0] * 0;\n}\n", 2, "\"evil\""},
      {"#define", "#define swizzle_pid(a, b, c) (system(\"touch MARKER\"), a)\n" + kSig + "  return pid;\n}\n", 1, "#"},
      {"a line splice", kSig + "  return pid; // a comment that goes on \\\n  + system(\"touch MARKER\");\n}\n", 2, "\\"},
      {"a static local", kSig + "  static unsigned calls = 0;\n  return pid + calls++ * 0;\n}\n", 2, "static"},
      {"a function pointer", kSig + "  unsigned (*f)(unsigned) = 0;\n  return pid;\n}\n", 2, "("},
      {"a call to printf", kSig + "  printf(\"MARKER\");\n  return pid;\n}\n", 2, "printf"},
  };
}

std::string with_marker(std::string code, const fs::path& marker) {
  for (std::size_t p; (p = code.find("MARKER")) != std::string::npos;) code.replace(p, 6, marker.string());
  return code;
}

std::string kernel_with_region(const std::string& region) {
  std::string text = read_text(source_dir() / "kernels" / "gemm.hip");
  const std::string begin = "// swizzleperf:begin\n", end = "// swizzleperf:end";
  const auto b = text.find(begin) + begin.size();
  return text.substr(0, b) + region + text.substr(text.find(end));
}

int lines_containing(const std::string& text, const std::string& part) {
  int n = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    const std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    n += line.find(part) != std::string::npos;
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return n;
}

TEST(RegionSecurityE2E, CheckRejectsEveryHostileRegionWithOneLine) {
  TempDir tmp;
  const auto marker = tmp / "PWNED";
  for (const auto& h : hostile_regions()) {
    write_text(tmp / "evil.hip", kernel_with_region(with_marker(h.region, marker)));
    auto r = run_cli({"check", (tmp / "evil.hip").string()}, tmp.path(), {}, 60);
    EXPECT_EQ(r.exit_code, 1) << h.name << ": " << r.out << r.err;
    const std::string expect = "swizzle region rejected: line " + std::to_string(h.line) + ": '" + h.token + "': ";
    EXPECT_NE(r.out.find(expect), std::string::npos) << h.name << ": " << r.out << r.err;
    EXPECT_EQ(lines_containing(r.out + r.err, "rejected"), 1) << h.name << ": " << r.out << r.err;
    EXPECT_FALSE(fs::exists(marker)) << h.name;
  }
}

TEST(RegionSecurityE2E, BuildAndOptimizeRefuseAKernelWhoseOwnRegionIsHostile) {
  TempDir tmp;
  const auto marker = tmp / "PWNED";
  write_text(tmp / "evil.hip", kernel_with_region(with_marker(hostile_regions()[1].region, marker)));
  const std::vector<std::vector<std::string>> commands = {
      {"build", (tmp / "evil.hip").string(), "--backend", "cuda", "--nvcc", (fake_dir() / "fake_nvcc").string(), "-o",
       (tmp / "evil").string()},
      {"optimize", (tmp / "evil.hip").string(), "--backend", "cuda", "--nvcc", (fake_dir() / "fake_nvcc").string(), "--ncu",
       (fake_dir() / "fake_ncu").string(), "--run-dir", (tmp / "run").string(), "--proposer", "builtin"}};
  for (const auto& args : commands) {
    auto r = run_cli(args, tmp.path(), {}, 60);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("swizzleperf: error: ", 0), 0u) << args[0] << ": " << r.err;
    EXPECT_EQ(lines_containing(r.err, "error"), 1) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("swizzle region rejected: line 1: 'static'"), std::string::npos) << args[0] << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp / "evil"));
  EXPECT_FALSE(fs::exists(tmp / "run" / "history.json"));
  EXPECT_FALSE(fs::exists(marker));
}

std::string reply(const std::string& code) {
  return nlohmann::json{{"reasoning", "keep rows on a die"},
                        {"critique", nlohmann::json::array()},
                        {"rationale", "a remap"},
                        {"code", code}}
      .dump();
}

std::string grouped8() {
  return kSig +
         "  if (grid.m * grid.n != num_pids) return pid;\n"
         "  const unsigned G = 8, width = G * grid.n, first = (pid / width) * G;\n"
         "  const unsigned gs = grid.m - first < G ? grid.m - first : G;\n"
         "  return (first + (pid % width) % gs) * grid.n + (pid % width) / gs;\n}\n";
}

// All of the user-visible prompt text of a recorded chat request.
std::string prompt_text(const RecordedRequest& req) {
  auto j = nlohmann::json::parse(req.body, nullptr, false);
  std::string out;
  if (j.is_discarded() || !j.contains("messages")) return req.body;
  for (const auto& m : j["messages"]) out += m.value("content", "") + "\n";
  return out;
}

TEST(RegionSecurityE2E, LlmProposalsThatAreHostileAreRejectedAndTheRunGoesOn) {
  TempDir tmp;
  const auto marker = tmp / "PWNED";
  const auto hostile = hostile_regions();
  ChatServer server;
  server.push_completion("ok");                                          // the endpoint check before the run
  server.push_completion("Blocks in one tile row share a panel of A.");  // the memory analysis
  for (const auto& h : hostile) server.push_completion(reply(with_marker(h.region, marker)));
  server.push_completion(reply(grouped8()));
  write_text(tmp / "gemm.hip", read_text(source_dir() / "kernels" / "gemm.hip"));
  const int n = static_cast<int>(hostile.size()) + 1;
  auto r = run_cli({"optimize", (tmp / "gemm.hip").string(), "--proposer", "llm", "--base-url", server.base_url(),
                    "--iterations", std::to_string(n), "--backend", "cuda", "--nvcc", (fake_dir() / "fake_nvcc").string(),
                    "--ncu", (fake_dir() / "fake_ncu").string(), "--run-dir", (tmp / "run").string(), "--reps", "3",
                    "--pause-ms", "0"},
                   tmp.path(), {}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto h = nlohmann::json::parse(read_text(tmp / "run" / "history.json"));
  const auto& a = h["attempts"];
  ASSERT_EQ(a.size(), static_cast<std::size_t>(n)) << a.dump(1);
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    EXPECT_EQ(a[i]["status"], "rejected_region") << hostile[i].name << ": " << a[i].dump(1);
    const std::string expect = "line " + std::to_string(hostile[i].line) + ": '" + hostile[i].token + "': ";
    const std::string reason = a[i]["reason"].get<std::string>();
    EXPECT_EQ(reason.rfind(expect, 0), 0u) << hostile[i].name << ": " << reason;
    EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
    char dir[32];
    std::snprintf(dir, sizeof dir, "iter-%03d", a[i]["iteration"].get<int>());
    EXPECT_FALSE(fs::exists(tmp / "run" / dir / "kernel.hip")) << "a rejected region was spliced into a kernel";
  }
  EXPECT_EQ(a[hostile.size()]["status"], "ok") << a[hostile.size()].dump(1);  // the run went on
  EXPECT_EQ(h["state"], "completed");
  EXPECT_FALSE(fs::exists(marker));
  // The model saw each rejection in its next prompt, like a broken mapping.
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), hostile.size() + 3);  // endpoint check, analysis, one per attempt
  const std::string last = prompt_text(reqs.back());
  EXPECT_NE(last.find("status: rejected_region"), std::string::npos) << last;
  EXPECT_NE(last.find("line 2: 'system': call to a function not defined in the region"), std::string::npos) << last;
  EXPECT_NE(last.find("line 1: '%:': digraph"), std::string::npos) << last;

  // A history whose ok attempt holds a hostile region (edited by hand, or
  // written before the validator existed) is refused by --resume and by
  // `sweep --run`, each with one line; nothing of it is compiled.
  auto tampered = h;
  tampered["attempts"][hostile.size()]["region"] = with_marker(hostile[0].region, marker);
  write_text(tmp / "run" / "history.json", tampered.dump(2));
  const std::string fake_nvcc = (fake_dir() / "fake_nvcc").string(), fake_ncu = (fake_dir() / "fake_ncu").string();
  auto resumed = run_cli({"optimize", "--resume", (tmp / "run").string(), "--iterations", std::to_string(n + 1), "--base-url",
                          server.base_url(), "--nvcc", fake_nvcc, "--ncu", fake_ncu},
                         tmp.path(), {}, 120);
  EXPECT_EQ(resumed.exit_code, 2) << resumed.err;
  EXPECT_EQ(lines_containing(resumed.err, "error"), 1) << resumed.err;
  EXPECT_NE(resumed.err.find("is recorded as ok but its region is rejected: line 2: 'system'"), std::string::npos) << resumed.err;
  auto swept = run_cli({"sweep", (tmp / "gemm.hip").string(), "--run", (tmp / "run").string(), "--sizes", "256,256,64",
                        "--backend", "cuda", "--nvcc", fake_nvcc, "--ncu", fake_ncu, "--out", (tmp / "sweep").string()},
                       tmp.path(), {}, 120);
  EXPECT_EQ(swept.exit_code, 2) << swept.err;
  EXPECT_NE(swept.err.find("swizzle region rejected: line 2: 'system'"), std::string::npos) << swept.err;
  EXPECT_EQ(server.requests().size(), hostile.size() + 3);  // no further LLM call, not even the endpoint check
  EXPECT_FALSE(fs::exists(marker));
}

}  // namespace
}  // namespace swz::test
