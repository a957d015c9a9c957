// BuildPool: kernel builds off the optimize loop's critical path.
//
// A content-addressed cache of program builds, key = hash(spliced source, arch,
// num_dies, backend, compiler, extra flags, the tuning point's defines): two points
// with the same region are two builds. prefetch() starts a build in a
// background thread (after an optional gate, e.g. the host mapping check, returns
// true: an unchecked region is never compiled); get() waits for a queued or running
// prefetch of the same key and moves its executable into place, else builds now in
// the calling thread. At most jobs() builds run at once (default: min(cores - 1, 4,
// free memory / 2 GiB), at least 1); with jobs() == 1 prefetch does nothing and the
// loop is the serial one. Each prefetched build is handed out once: a failure is
// reported by the one get() that asks for it. The destructor waits for running
// builds and removes the cache directory.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "swizzleperf/backend/backend.h"

namespace swz {

struct BuildSpec {
  std::string source_text;  // the whole spliced kernel file
  int num_dies = 1;
  std::string arch;
  std::string extension = ".hip";  // of the source copy the backend builds (".py": a Triton program)
  std::map<std::string, std::int64_t> defines = {};  // a tuning point's (BuildRequest::defines)
};

struct PooledBuild {
  Result<BuildResult> build = make_error("not built");
  bool prefetched = false;    // the build ran ahead in the background
  double wait_seconds = 0;    // time get() waited for it (the build's own time is build->seconds)
};

class BuildPool {
 public:
  // cache_dir: where background builds write (created; removed by the destructor).
  BuildPool(Backend& backend, std::filesystem::path cache_dir, int jobs);
  ~BuildPool();
  BuildPool(const BuildPool&) = delete;
  BuildPool& operator=(const BuildPool&) = delete;

  // Queues a background build unless jobs() == 1 or the key is already queued, running or
  // finished and not yet taken. `gate` runs in the background first; false skips the build.
  void prefetch(const BuildSpec& spec, std::function<bool()> gate = {});
  // The build of spec with its executable at `output` (source written to `source_path`).
  PooledBuild get(const BuildSpec& spec, const std::filesystem::path& source_path,
                  const std::filesystem::path& output);

  int jobs() const { return jobs_; }
  std::string key(const BuildSpec& spec) const;
  // Background builds started so far (for tests and logs).
  int started() const;
  static int default_jobs();

 private:
  struct Entry {
    bool done = false;
    bool skipped = false;  // the gate said no
    Result<BuildResult> build = make_error("not built");
    std::filesystem::path exe;
  };
  void work(std::string key, BuildSpec spec, std::function<bool()> gate, std::shared_ptr<Entry> entry);

  Backend& backend_;
  std::filesystem::path cache_dir_;
  int jobs_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  int running_ = 0;
  int started_ = 0;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  std::vector<std::thread> threads_;
};

}  // namespace swz
