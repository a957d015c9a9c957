// A program built once for every test process that needs it (see shared_build.h).
#include "support/shared_build.h"

#include <unistd.h>

#include <algorithm>
#include <system_error>
#include <vector>

#include "support/fixtures.h"
#include "swizzleperf/util/hash.h"

namespace swz::test {

SharedBuild shared_build(const std::string& name, const std::string& inputs,
                         const std::function<ProcessResult(const fs::path& out)>& build) {
  const std::string hash = content_hash(inputs);
  const fs::path dir = test_build_dir() / "shared-builds";
  const fs::path kept = dir / (name + "-" + hash.substr(hash.find(':') + 1));
  SharedBuild r;
  std::error_code ec;
  if (fs::is_regular_file(kept, ec)) {
    r.ok = true;
    r.path = kept;
    return r;
  }
  fs::create_directories(dir, ec);
  const fs::path tmp = kept.string() + ".tmp-" + std::to_string(::getpid());
  const ProcessResult b = build(tmp);
  if (!b.success() || !fs::is_regular_file(tmp, ec)) {
    r.log = b.describe() + "\n" + b.out + b.err;
    fs::remove(tmp, ec);
    return r;
  }
  fs::rename(tmp, kept, ec);
  if (ec) {
    r.log = "cannot keep " + kept.string() + ": " + ec.message();
    fs::remove(tmp, ec);
    return r;
  }
  r.ok = true;
  r.path = kept;
  return r;
}

std::string tree_text(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& f : files) {
    const std::string bytes = read_text(f);
    text += fs::relative(f, dir).string() + "\n" + std::to_string(bytes.size()) + "\n" + bytes;
  }
  return text;
}

std::string tool_identity(const fs::path& tool) {
  std::error_code ec;
  const auto size = fs::file_size(tool, ec);
  const auto when = fs::last_write_time(tool, ec).time_since_epoch().count();
  return tool.string() + " " + std::to_string(size) + " " + std::to_string(when);
}

}  // namespace swz::test
