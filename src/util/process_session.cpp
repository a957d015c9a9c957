// A child process spoken to line by line over pipes (see the header's contract).
#include "swizzleperf/util/process_session.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

namespace swz {

namespace {

constexpr std::size_t kErrKeep = 16u << 10;  // stderr tail kept for messages

class RealProcessSession final : public ProcessSession {
 public:
  RealProcessSession(pid_t pid, int in, int out, int err, std::size_t max_line)
      : pid_(pid), in_(in), out_(out), err_(err), max_line_(max_line) {}
  ~RealProcessSession() override { finish(std::chrono::seconds(3)); }

  bool alive() const override { return !dead_; }

  Result<std::string> request(const std::string& line, std::chrono::milliseconds timeout) override {
    if (dead_) return make_error("the program is no longer running (" + why_dead_ + ")");
    if (!line.empty() && !write_all(line + "\n")) return die("it closed its input (" + exit_text() + ")");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string got = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        if (!got.empty() && got.back() == '\r') got.pop_back();
        return got;
      }
      if (buf_.size() > max_line_) return die("its answer exceeded " + std::to_string(max_line_) + " bytes without a newline");
      if (interrupt_requested()) return die("interrupted (Ctrl-C)");
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline)
        return die("timed out after " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) +
                   " s waiting for an answer (process group killed)");
      const int wait_ms = static_cast<int>(
          std::min<long long>(200, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
      pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
      if (err_ < 0) fds[1].fd = -1;
      const int n = poll(fds, 2, wait_ms);
      if (n < 0) {
        if (errno == EINTR) continue;
        return die(std::string("poll: ") + std::strerror(errno));
      }
      char chunk[65536];
      if (err_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t got = ::read(err_, chunk, sizeof chunk);
        if (got <= 0) {
          ::close(err_);
          err_ = -1;
        } else {
          err_text_.append(chunk, static_cast<std::size_t>(got));
          if (err_text_.size() > 2 * kErrKeep) err_text_.erase(0, err_text_.size() - kErrKeep);
        }
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t got = ::read(out_, chunk, sizeof chunk);
        if (got <= 0) return die("it exited without answering (" + exit_text() + ")");
        buf_.append(chunk, static_cast<std::size_t>(got));
      }
    }
  }

 private:
  // Writes with SIGPIPE blocked for this thread, so a child that has gone away makes
  // write() fail with EPIPE instead of killing swizzleperf; a pending SIGPIPE is consumed.
  bool write_all(const std::string& s) {
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    std::size_t done = 0;
    bool ok = true;
    while (done < s.size()) {
      const ssize_t w = ::write(in_, s.data() + done, s.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ok = false;
        break;
      }
      done += static_cast<std::size_t>(w);
    }
    if (!ok) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ok;
  }

  // How the child ended, once it has (reaped here); "still running" otherwise.
  std::string exit_text() {
    if (!reaped_) {
      int status = 0;
      pid_t r = 0;
      for (int i = 0; i < 20 && (r = waitpid(pid_, &status, WNOHANG)) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (r == pid_) {
        reaped_ = true;
        status_ = status;
      }
    }
    std::string how = !reaped_ ? "still running"
                      : WIFEXITED(status_) ? "exit code " + std::to_string(WEXITSTATUS(status_))
                      : WIFSIGNALED(status_) ? "killed by signal " + std::to_string(WTERMSIG(status_))
                                             : "ended";
    const std::string last = tail_lines(err_text_, 1);
    return last.empty() ? how : how + ": " + last;
  }

  Error die(const std::string& why) {
    why_dead_ = why;
    finish(std::chrono::milliseconds(0));
    return make_error(why);
  }

  // Closes stdin (a serving program exits on EOF), waits up to `grace`, then kills
  // the process group; always reaps the child.
  void finish(std::chrono::milliseconds grace) {
    if (in_ >= 0) ::close(in_), in_ = -1;
    if (!reaped_) {
      const auto until = std::chrono::steady_clock::now() + grace;
      int status = 0;
      while (true) {
        const pid_t r = waitpid(pid_, &status, WNOHANG);
        if (r == pid_ || (r < 0 && errno != EINTR)) {
          reaped_ = r == pid_;
          if (reaped_) status_ = status;
          break;
        }
        if (std::chrono::steady_clock::now() >= until) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      // Always the group: a grandchild may outlive the program.
      ::kill(-pid_, SIGKILL);
      if (!reaped_) {
        ::kill(pid_, SIGKILL);
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        reaped_ = true;
        status_ = status;
      }
    } else {
      ::kill(-pid_, SIGKILL);
    }
    if (out_ >= 0) ::close(out_), out_ = -1;
    if (err_ >= 0) ::close(err_), err_ = -1;
    dead_ = true;
    if (why_dead_.empty()) why_dead_ = "session ended";
  }

  pid_t pid_;
  int in_, out_, err_;
  std::size_t max_line_;
  std::string buf_, err_text_, why_dead_;
  bool dead_ = false, reaped_ = false;
  int status_ = 0;
};

}  // namespace

Result<std::unique_ptr<ProcessSession>> ProcessRunner::start(const ProcessSpec&) {
  return make_error("this process runner holds no sessions");
}

Result<std::unique_ptr<ProcessSession>> RealProcessRunner::start(const ProcessSpec& spec) { return start_session(spec); }

Result<std::unique_ptr<ProcessSession>> start_session(const ProcessSpec& spec) {
  if (spec.argv.empty()) return make_error("empty command");
  int in_pipe[2], out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(exec_pipe, O_CLOEXEC) != 0)
    return make_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const ChildEnv env(spec);
  const pid_t pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) exec_child(spec, argv.data(), env.envp(), in_pipe[0], out_pipe[1], err_pipe[1], exec_pipe[1]);
  setpgid(pid, pid);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  int exec_errno = 0;
  if (::read(exec_pipe[0], &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
    ::close(exec_pipe[0]);
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    waitpid(pid, nullptr, 0);
    return make_error(spec.argv[0] + ": " + std::strerror(exec_errno));
  }
  ::close(exec_pipe[0]);
  return std::unique_ptr<ProcessSession>(
      std::make_unique<RealProcessSession>(pid, in_pipe[1], out_pipe[0], err_pipe[0], spec.max_capture_bytes));
}

}  // namespace swz
