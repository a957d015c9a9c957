// BuildPool: see the header. One std::thread per prefetch, each waiting for one of
// jobs() - 1 background slots (the foreground build in get() is the last one), so at
// most jobs() compilers run at once.
#include "swizzleperf/loop/build_pool.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "swizzleperf/util/hash.h"
#include "swizzleperf/util/file_io.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

// MemAvailable from /proc/meminfo in bytes; 0 when unknown.
unsigned long long mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string name;
  unsigned long long kb = 0;
  std::string unit;
  while (in >> name >> kb >> unit)
    if (name == "MemAvailable:") return kb * 1024;
  return 0;
}

// The backend's request for spec's program: its source copy, output, dies, arch and defines.
BuildRequest request_of(const BuildSpec& spec, const fs::path& source, const fs::path& output) {
  BuildRequest r{source, output, spec.num_dies, spec.arch};
  r.defines = spec.defines;
  return r;
}

}  // namespace

int BuildPool::default_jobs() {
  const unsigned cores = std::thread::hardware_concurrency();
  long jobs = cores > 1 ? static_cast<long>(cores) - 1 : 1;
  jobs = std::min(jobs, 4L);
  // A device compile takes about 1-2 GiB: keep 2 GiB free per build.
  if (const auto mem = mem_available_bytes(); mem > 0)
    jobs = std::min<long>(jobs, std::max<long>(1, static_cast<long>(mem / (2ull << 30))));
  return static_cast<int>(std::max(jobs, 1L));
}

BuildPool::BuildPool(Backend& backend, fs::path cache_dir, int jobs)
    : backend_(backend), cache_dir_(std::move(cache_dir)), jobs_(std::max(jobs, 1)) {}

BuildPool::~BuildPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  std::error_code ec;
  fs::remove_all(cache_dir_, ec);
}

int BuildPool::started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return started_;
}

std::string BuildPool::key(const BuildSpec& spec) const {
  const auto& t = backend_.tools();
  std::string k = spec.source_text;
  for (const std::string& part : {backend_.name(), spec.arch.empty() ? t.arch : spec.arch,
                                  std::to_string(spec.num_dies), t.compiler})
    k += std::string(1, '\0') + part;
  for (const auto& f : t.extra_flags) k += std::string(1, '\0') + f;
  k += std::string(1, '\0') + "defines";  // after every flag: no flag can spell a define
  for (const auto& [name, value] : spec.defines) k += std::string(1, '\0') + name + "=" + std::to_string(value);
  const std::string h = content_hash(k);
  return h.substr(h.find(':') + 1);
}

void BuildPool::prefetch(const BuildSpec& spec, std::function<bool()> gate) {
  if (jobs_ <= 1) return;
  const std::string k = key(spec);
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_ || entries_.count(k)) return;
  auto entry = std::make_shared<Entry>();
  entries_[k] = entry;
  threads_.emplace_back(&BuildPool::work, this, k, spec, std::move(gate), entry);
}

void BuildPool::work(std::string k, BuildSpec spec, std::function<bool()> gate, std::shared_ptr<Entry> entry) {
  auto finish = [&](bool skipped) {
    std::lock_guard<std::mutex> lock(mu_);
    entry->skipped = skipped;
    entry->done = true;
    cv_.notify_all();
  };
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stopping_ || running_ < jobs_ - 1; });
    if (stopping_ || interrupt_requested()) {
      entry->skipped = true;
      entry->done = true;
      cv_.notify_all();
      return;
    }
    ++running_;
    ++started_;
  }
  auto release = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
    cv_.notify_all();
  };
  if (gate && !gate()) {
    release();
    return finish(true);
  }
  const fs::path dir = cache_dir_ / k;
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path source = dir / ("kernel" + spec.extension);
  Result<BuildResult> built = make_error("cannot write " + source.string());
  if (write_file_atomic(source, spec.source_text))
    built = backend_.build(request_of(spec, source, dir / "kernel"));
  release();
  {
    std::lock_guard<std::mutex> lock(mu_);
    entry->build = std::move(built);
    entry->exe = dir / "kernel";
  }
  finish(false);
}

PooledBuild BuildPool::get(const BuildSpec& spec, const fs::path& source_path, const fs::path& output) {
  PooledBuild out;
  const std::string k = key(spec);
  std::shared_ptr<Entry> entry;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (auto it = entries_.find(k); it != entries_.end()) {
      entry = it->second;
      entries_.erase(it);  // handed out once
      const auto t0 = std::chrono::steady_clock::now();
      cv_.wait(lock, [&] { return entry->done; });
      out.wait_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  }
  if (entry && !entry->skipped) {
    out.prefetched = true;
    out.build = std::move(entry->build);
    if (out.build && out.build->ok) {
      std::error_code ec;
      fs::rename(entry->exe, output, ec);
      if (ec) {
        ec.clear();
        fs::copy_file(entry->exe, output, fs::copy_options::overwrite_existing, ec);
        if (ec) out.build = make_error("cannot move the prefetched build " + entry->exe.string() + " to " +
                                       output.string() + ": " + ec.message());
      }
    }
    return out;
  }
  out.build = backend_.build(request_of(spec, source_path, output));
  return out;
}

}  // namespace swz
