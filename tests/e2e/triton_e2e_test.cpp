// End-to-end: Triton programs through the real binary on a machine with neither a GPU nor
// torch/triton. The fake Triton program (tests/fakes/fake_triton/fake_matmul.py: the real
// harness kernels/support/swz_triton.py over an emulated device, a triton stub with Triton's
// int32 rules) runs the whole loop on the triton backend: the Python region validated and
// translated for the host check, each candidate "built" (syntax, launcher, info), evaluated,
// profiled by fake_ncu over the Python process (the warm-up run's launch skipped) and
// re-checked. A small shell wrapper stands in for the Python the user names with --python:
// it answers the device query (torch's, which this machine lacks) and the torch/triton
// import probe, and runs python3 for everything else. Then what must be refused without
// running anything: hostile regions, a non-bijective one, a Triton program on another
// backend. Skipped without python3.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/chat_server.h"
#include "support/fixtures.h"

namespace swz::test {
namespace {

fs::path fake_triton_dir() { return source_dir() / "tests" / "fakes" / "fake_triton"; }

class TritonE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_tool("python3")) GTEST_SKIP() << "no python3";
    python_ = tmp_ / "python";
    write_text(python_,
               "#!/bin/sh\n"
               "case \"$1\" in\n"
               "  *swz_device_query.py) echo '{\"name\":\"Fake H100\",\"arch\":\"sm_90\",\"vendor\":\"nvidia\","
               "\"compute_units\":132,\"l2_bytes\":52428800,\"total_mem_bytes\":85899345920,\"clock_khz\":1980000,"
               "\"warp_size\":32,\"max_threads_per_block\":1024,\"num_xcc\":-1,\"driver_version\":0,"
               "\"runtime_version\":13000,\"pci_bus_id\":\"\"}'; exit 0;;\n"
               "  -c) case \"$2\" in 'import torch'|'import triton') exit 0;; esac;;\n"
               "esac\n"
               "exec python3 \"$@\"\n");
    fs::permissions(python_, fs::perms::owner_all);
    program_ = tmp_ / "fake_matmul.py";
    fs::copy_file(fake_triton_dir() / "fake_matmul.py", program_);
  }
  std::vector<std::string> env() const { return {"PYTHONPATH=" + fake_triton_dir().string()}; }
  // The fake program with its region replaced.
  fs::path with_region(const std::string& name, const std::string& region) const {
    std::string text = read_text(program_);
    const auto b = text.find("# swizzleperf:begin\n");
    const auto e = text.find("# swizzleperf:end");
    EXPECT_TRUE(b != std::string::npos && e != std::string::npos);
    text = text.substr(0, b + 20) + region + text.substr(e);
    const fs::path p = tmp_ / name;
    write_text(p, text);
    return p;
  }
  TempDir tmp_;
  fs::path python_, program_;
};

TEST_F(TritonE2E, TheLoopRunsAFakeTritonProgramOnTheTritonBackend) {
  const fs::path ncu_log = tmp_ / "ncu.log";
  auto r = run_cli({"optimize", program_.string(), "--python", python_.string(), "--ncu", (fake_dir() / "fake_ncu").string(),
                    "--proposer", "builtin", "--iterations", "3", "--reps", "3", "--pause-ms", "0", "--run-dir",
                    (tmp_ / "run").string()},
                   tmp_.path(), {"PYTHONPATH=" + fake_triton_dir().string(), "SWZ_FAKE_NCU_LOG=" + ncu_log.string()}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "best: iteration")) << r.out;
  EXPECT_TRUE(has(r.out, (tmp_ / "run" / "best.py").string())) << r.out;
  const std::string best = read_text(tmp_ / "run" / "best.py");
  EXPECT_TRUE(has(best, "proposed by swizzleperf's built-in proposer.\n@triton.jit\ndef swizzle_pid(")) << best;
  EXPECT_TRUE(fs::exists(tmp_ / "run" / "baseline" / "kernel.py"));
  const auto history = nlohmann::json::parse(read_text(tmp_ / "run" / "history.json"));
  EXPECT_EQ(history["config"].value("backend", ""), "triton");
  ASSERT_EQ(history["attempts"].size(), 3u);
  for (const auto& a : history["attempts"]) {
    EXPECT_EQ(a.value("status", ""), "ok") << a.dump();
    EXPECT_TRUE(has(a.value("region", ""), "def swizzle_pid(pid, num_pids, grid_m, grid_n):"));
  }
  // ncu ran over the launcher, skipping the warm-up run's launch.
  const std::string calls = read_text(ncu_log);
  EXPECT_TRUE(has(calls, "--launch-skip 1 --launch-count 1")) << calls;
}

TEST_F(TritonE2E, ResumeReadsTheRecordedPythonRegions) {
  auto first = run_cli({"optimize", program_.string(), "--python", python_.string(), "--ncu", (fake_dir() / "fake_ncu").string(),
                        "--proposer", "builtin", "--iterations", "1", "--reps", "3", "--rounds", "0", "--run-dir",
                        (tmp_ / "run").string()},
                       tmp_.path(), env(), 300);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  auto again = run_cli({"optimize", "--resume", (tmp_ / "run").string(), "--iterations", "2", "--python", python_.string(),
                        "--ncu", (fake_dir() / "fake_ncu").string()},
                       tmp_.path(), env(), 300);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  const auto history = nlohmann::json::parse(read_text(tmp_ / "run" / "history.json"));
  EXPECT_EQ(history["attempts"].size(), 2u);
}

TEST_F(TritonE2E, GateAndSuiteTakeTritonPrograms) {
  // A committed grouped order: gate runs it against the Python identity region it writes.
  const fs::path grouped = with_region("grouped.py",
                                       "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
                                       "    t = pid\n"
                                       "    if grid_m * grid_n == num_pids:\n"
                                       "        width = 4 * grid_n\n"
                                       "        first_m = (pid // width) * 4\n"
                                       "        gs = tl.minimum(grid_m - first_m, 4)\n"
                                       "        t = (first_m + (pid % width) % gs) * grid_n + (pid % width) // gs\n"
                                       "    return t\n");
  const std::string ncu = (fake_dir() / "fake_ncu").string();
  auto g = run_cli({"gate", grouped.string(), "--python", python_.string(), "--ncu", ncu, "--reps", "3", "--pause-ms", "0", "--json"}, tmp_.path(),
                   env(), 300);
  EXPECT_EQ(g.exit_code, 0) << g.out << g.err;
  EXPECT_TRUE(has(g.out, "\"verdict\": \"pays\"")) << g.out;
  auto su = run_cli({"suite", program_.string(), grouped.string(), "--python", python_.string(), "--ncu", ncu, "--iterations", "1",
                     "--reps", "3", "--rounds", "0", "--out", (tmp_ / "suite").string()},
                    tmp_.path(), env(), 300);
  EXPECT_EQ(su.exit_code, 0) << su.out << su.err;
  EXPECT_TRUE(fs::exists(tmp_ / "suite" / "suite-summary.json")) << su.out << su.err;
  // One backend per suite: a C++ program beside a Triton one is refused up front.
  auto mixed = run_cli({"suite", program_.string(), (source_dir() / "kernels/gemm.hip").string(), "--out", (tmp_ / "mixed").string()},
                       tmp_.path(), env());
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_TRUE(has(mixed.err, "run Triton and C++ programs as two suites")) << mixed.err;
}

// The LLM proposer on a Triton program: the prompt shows Python, the replies are Python
// regions, each validated in the Python subset and checked through the translation.
TEST_F(TritonE2E, TheLlmProposerWritesPythonRegionsCheckedLikeAnyOther) {
  auto reply = [](const std::string& code) {
    return nlohmann::json{{"reasoning", "row panels are shared"}, {"critique", nlohmann::json::array()},
                          {"rationale", "group rows"}, {"code", code}}
        .dump();
  };
  const std::string head = "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n";
  ChatServer server;
  server.push_completion("ok");                                   // the endpoint check
  server.push_completion("Tiles of one row share a panel of A.");  // the memory analysis
  server.push_completion(reply(head + "    t = pid\n    if grid_m * grid_n == num_pids:\n"
                                      "        t = (pid % grid_m) * grid_n + pid // grid_m\n    return t\n"));
  server.push_completion(reply(head + "    return __import__('os').getpid() + pid\n"));
  server.push_completion(reply(head + "    return pid // 2\n"));
  auto r = run_cli({"optimize", program_.string(), "--proposer", "llm", "--base-url", server.base_url(), "--iterations", "3",
                    "--python", python_.string(), "--ncu", (fake_dir() / "fake_ncu").string(), "--reps", "3", "--rounds", "0",
                    "--run-dir", (tmp_ / "run").string()},
                   tmp_.path(), env(), 300);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto h = nlohmann::json::parse(read_text(tmp_ / "run" / "history.json"));
  ASSERT_EQ(h["attempts"].size(), 3u) << h["attempts"].dump(1);
  EXPECT_EQ(h["attempts"][0]["status"], "ok") << h["attempts"][0].dump(1);
  EXPECT_EQ(h["attempts"][1]["status"], "rejected_region");
  EXPECT_EQ(h["attempts"][1]["reason"], "line 3: '__import__': call to a function not defined in the region");
  EXPECT_EQ(h["attempts"][2]["status"], "rejected_mapping");
  EXPECT_TRUE(has(h["attempts"][2]["reason"].get<std::string>(), "NOT a bijection")) << h["attempts"][2].dump(1);
  const auto reqs = server.requests();
  ASSERT_GE(reqs.size(), 3u);
  EXPECT_TRUE(has(reqs[1].body, "```python")) << reqs[1].body;
  EXPECT_TRUE(has(reqs[2].body, "def swizzle_pid(pid, num_pids, grid_m, grid_n):")) << reqs[2].body;
}

TEST_F(TritonE2E, CheckPassesTheShippedProgramsWithoutAGpuOrTritonAndFailsAHalvedPid) {
  auto ok = run_cli({"check", (source_dir() / "kernels/triton/matmul.py").string(),
                     (source_dir() / "kernels/triton/attention.py").string(), "--arch", "sm_90"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_TRUE(has(ok.out, "2 kernel(s): 2 passed, 0 failed")) << ok.out;
  // --predict names why a Triton program has no prediction, rather than asking it for a C++ section.
  auto predict = run_cli({"check", (source_dir() / "kernels/triton/matmul.py").string(), "--arch", "sm_90", "--no-build", "--predict"});
  EXPECT_EQ(predict.exit_code, 0) << predict.out << predict.err;
  EXPECT_TRUE(has(predict.out, "not predicted: footprints are C++ sections of CUDA/HIP programs; a Triton program cannot be predicted yet"))
      << predict.out;
  std::string text = read_text(source_dir() / "kernels/triton/matmul.py");
  const auto at = text.find("    return pid\n# swizzleperf:end");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 14, "    return pid // 2");
  write_text(tmp_ / "half.py", text);
  auto bad = run_cli({"check", (tmp_ / "half.py").string(), "--arch", "sm_90", "--no-build"});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_TRUE(has(bad.out, "FAIL " + (tmp_ / "half.py").string() + ": NOT a bijection on grid 32x128 (4096 pids): 2048 collisions, "
                                                                    "colliding pids 0,1,")) << bad.out;
}

TEST_F(TritonE2E, CheckBuildsAProgramForInfoWhereItsPythonImportsTorchAndTriton) {
  auto r = run_cli({"check", program_.string(), "--arch", "sm_90", "--python", python_.string()}, tmp_.path(), env());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "built for info with python")) << r.out;
}

TEST_F(TritonE2E, HostileRegionsAreRefusedBeforeAnythingRuns) {
  const std::string head = "@triton.jit\ndef swizzle_pid(pid, num_pids, grid_m, grid_n):\n";
  const std::string huge = head + std::string(70000, '#') + "\n    return pid\n";
  const struct {
    const char* name;
    std::string region;
    const char* expect;
  } cases[] = {
      {"import", head + "    return __import__('os').system('touch PWNED') + pid\n", "'__import__'"},
      {"attribute", head + "    return pid.real\n", "attribute access is not in the subset"},
      {"string", head + "    x = 'touch PWNED'\n    return pid\n", "string"},
      {"loop", head + "    while True:\n        pid = pid\n    return pid\n", "loops are not in the subset"},
      {"recursion", head + "    return swizzle_pid(pid, num_pids, grid_m, grid_n)\n", "recursion"},
      {"huge", huge, "the limit is 65,536"},
  };
  for (const auto& c : cases) {
    const fs::path p = with_region(std::string(c.name) + ".py", c.region);
    auto chk = run_cli({"check", p.string(), "--grid", "4x4", "--python", python_.string()}, tmp_.path(), env());
    EXPECT_NE(chk.exit_code, 0) << c.name << chk.out;
    EXPECT_TRUE(has(chk.out + chk.err, c.expect)) << c.name << ": " << chk.out << chk.err;
    auto opt = run_cli({"optimize", p.string(), "--python", python_.string(), "--run-dir", (tmp_ / c.name).string()}, tmp_.path(),
                       env());
    EXPECT_EQ(opt.exit_code, 2) << c.name << opt.out << opt.err;
    EXPECT_TRUE(has(opt.err, c.expect)) << c.name << ": " << opt.err;
    EXPECT_FALSE(fs::exists(tmp_ / c.name / "history.json")) << c.name;
  }
  EXPECT_FALSE(fs::exists(tmp_ / "PWNED"));
}

TEST_F(TritonE2E, ATritonProgramOnAnotherBackendAndACppProgramOnTritonAreRefused) {
  auto r = run_cli({"optimize", program_.string(), "--backend", "cuda"}, tmp_.path(), env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "is a Triton program: it runs on --backend triton (or auto), not cuda")) << r.err;
  auto c = run_cli({"build", (source_dir() / "kernels/gemm.hip").string(), "--backend", "triton", "-o", (tmp_ / "g").string()});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_TRUE(has(c.err, "is a C++ program: the triton backend runs Triton programs (.py)")) << c.err;
  auto nopy = run_cli({"optimize", program_.string(), "--python", (tmp_ / "no-such-python").string()}, tmp_.path(), env());
  EXPECT_EQ(nopy.exit_code, 2);
  EXPECT_TRUE(has(nopy.err, "no-such-python is not an executable: pass the Python that has torch and triton")) << nopy.err;
}

}  // namespace
}  // namespace swz::test
