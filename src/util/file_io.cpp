// Whole-file reads and atomic writes (see core/file_io.h).
#include "swizzleperf/util/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace swz {

namespace fs = std::filesystem;

Result<std::string> read_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return make_error("cannot read " + path.string() + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot read " + path.string() + ": " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return make_error("cannot read " + path.string() + ": read error");
  return ss.str();
}

namespace {

// Writes all of text to fd, retrying EINTR; false with errno set on a failure.
bool write_fd_fully(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// A new or renamed directory entry must survive a power loss too: sync the directory
// that holds `path`.
void sync_parent_dir(const fs::path& path) {
  const auto dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

Error cannot_write(const fs::path& path, int e) { return make_error("cannot write " + path.string() + ": " + std::strerror(e)); }

}  // namespace

Status write_file_atomic(const fs::path& path, const std::string& text) {
  const auto tmp = path.string() + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return cannot_write(tmp, errno);
  if (!write_fd_fully(fd, text)) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return cannot_write(tmp, e);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return cannot_write(tmp, e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return cannot_write(path, e);
  }
  sync_parent_dir(path);
  return ok_status();
}

Status check_can_write(const fs::path& path) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string probe = (dir / ".swz-probe-XXXXXX").string();
  const int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0) return cannot_write(path, errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return ok_status();
}

Status make_directories(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec && fs::is_directory(dir, ec)) return ok_status();
  if (!ec) ec = std::make_error_code(std::errc::not_a_directory);  // a file of that name is there
  return make_error("cannot create " + dir.string() + ": " + ec.message());
}

Result<bool> write_file_if_absent(const fs::path& path, const std::string& text) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string tmpl = (dir / ".swz-new-XXXXXX").string();
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) return cannot_write(path, errno);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (!write_fd_fully(fd, text) || ::fchmod(fd, 0666 & ~mask) != 0 || ::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    return cannot_write(path, e);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmpl.c_str());
    return cannot_write(path, e);
  }
  if (::link(tmpl.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmpl.c_str());
    if (e == EEXIST) return false;
    if (e != EPERM && e != EOPNOTSUPP && e != ENOSYS && e != EMLINK) return cannot_write(path, e);
    // No hard links here: create the name exclusively and write it in place.
    const int out_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (out_fd < 0) {
      if (errno == EEXIST) return false;
      return cannot_write(path, errno);
    }
    if (!write_fd_fully(out_fd, text) || ::fsync(out_fd) != 0) {
      const int e2 = errno;
      ::close(out_fd);
      ::unlink(path.c_str());
      return cannot_write(path, e2);
    }
    if (::close(out_fd) != 0) {
      const int e2 = errno;
      ::unlink(path.c_str());
      return cannot_write(path, e2);
    }
    return true;
  }
  ::unlink(tmpl.c_str());
  sync_parent_dir(path);
  return true;
}

std::filesystem::path make_temp_dir(const std::string& prefix) {
  std::error_code ec;
  const auto base = std::filesystem::temp_directory_path(ec);
  if (ec) return {};
  std::string pattern = (base / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

}  // namespace swz
