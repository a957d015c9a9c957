// FakeBackend: a Backend whose kernel programs are answered in-process, so the
// optimize loop's state machine is unit-tested without a compiler or a GPU.
//
// A "program" is whatever build() was given: its source is read and its
// behaviour taken from one comment line in it (in the swizzle region, where a
// scripted proposal puts it):
//   // fake: ms=0.80 l2=71 out=same verify=ok map=reverse build=ok profile=ok
// ms      the median time in time/evaluate mode (default 1.0); in a burst when a regime is asked
// sms     the median time of a sustained request (default: ms)
// clk     the burst SM clock in MHz (default 1980); sclk: the sustained one (default 1600)
// breasons the burst runs' clock event reasons (NVML bits, default 0; sustained runs say 4)
// mj      energy per run of a sustained request (default 100)
// discard burst samples re-taken below the threshold (default 0)
// reach   burst | sustained: that regime is reported as not reached (default: both are)
// l2      the profile's L2 hit rate (default 50)
// out     same | diff: the output's digest equals the identity's or not
// verify  ok | bad: verify mode passes or reports wrong results
// map     identity | reverse | rotate[:K] | swap | collide: what the host check's
//         evaluator returns (tests/support/fake_backend's host_compiler_rules)
// build   ok | fail: the compiler's verdict
// profile ok | fail: the profiler's verdict
// The built "executable" is a copy of the source, so a prefetched build moved by
// the build pool is still recognised. A build's defines (a tuning point's) are written
// into that copy: GRID_M / GRID_N are its info line's grid, FAKE_US its median time in
// microseconds, FAKE_CRASH makes every run fail (a launch the device refuses), and a
// value <= 0 fails the build (a value the program cannot take). Every run is recorded for assertions.
// run_program answers info, verify, time, hash, dump and evaluate with the kernel contract's
// JSON lines (keys in the contract's order; tests/conformance checks them): the output is 256
// bytes ('a' for out=same, 'b' for out=diff) and its digest the tool's own host digest of them,
// in 256-byte chunks. By design (tests/conformance/cases.json's exceptions) it parses no
// options, has no profile (Backend::profile), compare or serve mode, and answers time without
// --regime as a program from before power regimes.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "support/scripted_runner.h"
#include "swizzleperf/backend/backend.h"
#include "swizzleperf/core/kernel_source.h"

namespace swz::test {

// A kernel file for the loop with its region's behaviour as above ("" : defaults).
std::string fake_kernel_source(const std::string& behaviour = "");
// A complete region (swizzle_pid returning a mapping the host check accepts) with
// this behaviour line; `body` is the function's return statement.
std::string fake_region(const std::string& behaviour, const std::string& body = "return pid;");

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(ProcessRunner& runner, TileGrid grid = {8, 8});

  std::string name() const override { return "fake"; }
  Status preflight(bool) override { return preflight_; }
  Result<HardwareProfile> query_device(const std::filesystem::path& work_dir) override;
  Result<BuildResult> build(const BuildRequest& request) override;
  Result<Metrics> profile(const ProfileRequest& request) override;
  ProgramRun run_program(const std::filesystem::path& exe, const std::vector<std::string>& args,
                         std::chrono::seconds timeout) override;

  Status preflight_ = ok_status();  // set to an Error to play a missing tool
  int builds() const;
  // The modes run so far ("info", "verify", "hash", "evaluate", "time", ...), in order.
  std::vector<std::string> modes() const;
  // Every run_program's arguments, in order (the mode first).
  std::vector<std::vector<std::string>> runs() const;
  int profiles() const;  // profile calls so far

 private:
  TileGrid grid_;
  mutable std::mutex mu_;
  int builds_ = 0;
  std::vector<std::string> modes_;
  std::vector<std::vector<std::string>> runs_;
};

// Rules for a ScriptedRunner that play the host compiler and the mapping check's
// evaluator: "c++" copies the evaluator source to its -o output; running that
// output prints the pid -> tile table the region's `map=` asks for.
void add_host_compiler_rules(ScriptedRunner& runner);

}  // namespace swz::test
