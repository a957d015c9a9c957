// MemberTimer: the seam between the speed judge (loop/speed_judge) and the machine.
// The judge asks "time member m once" and "keep the GPU busy with member m for a few
// seconds"; it never learns whether the answer came from a kernel program serving
// requests, a time-mode process, or a simulated GPU in a test.
//
// Members are numbered from 0, the baseline; 1..N are the candidates.
//
// ProgramTimer is the real one. It starts every member's program in `serve` mode
// (inputs set up once, one JSON line per "time <regime>" request) when all of them
// can be started; otherwise (a program from before serve mode, or two full-size
// programs that do not fit on the device) every request is its own `time` process,
// for all members alike, so no member is timed differently from another. A failed
// request is an Error naming the member; nothing is retried.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/util/process_session.h"
#include "swizzleperf/util/result.h"

namespace swz {

// One member's answer to one timing request (-1: the platform did not say).
struct MemberSample {
  double ms = 0;            // the request's median time per pass
  double mhz = -1;          // median SM clock over its samples
  double mj = -1;           // energy per pass (sustained; -1 unknown)
  long long reasons = 0;    // OR of the clock event reasons (NVML bits) seen
  int discarded = 0;        // burst: samples re-taken below the throttle threshold
  bool reached = true;      // the regime could be held
  std::string problem;      // !reached: the program's sentence
};

class MemberTimer {
 public:
  virtual ~MemberTimer() = default;
  virtual std::size_t members() const = 0;
  // Times `member` once in the timer's regime.
  virtual Result<MemberSample> time(std::size_t member) = 0;
  // Runs `member` back to back, untimed, for about `seconds`: brings the GPU to the
  // power-capped state the sustained regime measures in.
  virtual Status warm(std::size_t member, double seconds) = 0;
  // Waits before a burst request (the GPU cools); fakes advance their own clock.
  virtual void pause(std::chrono::milliseconds ms) = 0;
  // Monotonic seconds (the judge's time budget); fakes return their simulated time.
  virtual double now_s() const = 0;
  // True when the members are serving programs (for the record).
  virtual bool served() const { return false; }
};

class ProgramTimer final : public MemberTimer {
 public:
  // exes[0] is the baseline's program; names[i] says member i in errors ("baseline",
  // "candidate 3 (grouped_m:8)"). `args` are the time-mode arguments every member gets
  // ({"time", "--reps", ..., the regime rules' options}); `regime` ("burst",
  // "sustained", or "" for a program from before regimes) is named per request.
  ProgramTimer(Backend& backend, std::vector<std::filesystem::path> exes, std::vector<std::string> names,
               std::vector<std::string> args, std::string regime, std::chrono::seconds timeout);
  // Starts the serving programs (all or none; debug log says why none). Call once.
  void start();
  // The regime of the requests from now on: one set of serving programs serves every
  // regime of a judge (a Triton program's start costs seconds).
  void set_regime(std::string regime) { regime_ = std::move(regime); }

  std::size_t members() const override { return exes_.size(); }
  Result<MemberSample> time(std::size_t member) override;
  Status warm(std::size_t member, double seconds) override;
  void pause(std::chrono::milliseconds ms) override;
  double now_s() const override;
  bool served() const override { return !sessions_.empty(); }

 private:
  Backend& backend_;
  std::vector<std::filesystem::path> exes_;
  std::vector<std::string> names_;
  std::vector<std::string> args_;
  std::string regime_;
  std::chrono::seconds timeout_;
  std::vector<std::unique_ptr<ProcessSession>> sessions_;  // empty: one time process per request
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// A time JSON line (docs/kernel-contract.md §2) as a sample: Error (one line) when it
// has no median, says ok:false, or names another regime than `regime` (a program
// built before regimes).
Result<MemberSample> sample_from_time_json(nlohmann::json j, const std::string& regime);

}  // namespace swz
