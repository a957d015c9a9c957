// Process execution: vfork + execvpe from an argv vector, the child in its own
// process group so a timeout or Ctrl-C kills everything it started.
#include "swizzleperf/util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <sstream>

namespace swz {

namespace {

std::atomic<bool> g_interrupted{false};

void on_sigint(int) { g_interrupted.store(true); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void kill_group(pid_t pid) {
  // The child called setpgid(0,0): its pgid is its pid.
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

bool needs_quoting(const std::string& s) {
  if (s.empty()) return true;
  for (char c : s)
    if (!(isalnum(static_cast<unsigned char>(c)) || strchr("-_./=:,+@%", c))) return true;
  return false;
}

}  // namespace

ChildEnv::ChildEnv(const ProcessSpec& spec) {
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    bool overridden = false;
    for (const auto& [k, v] : spec.env) overridden = overridden || k == key;
    if (!overridden) strings_.push_back(kv);
  }
  for (const auto& [k, v] : spec.env) strings_.push_back(k + "=" + v);
  for (auto& kv : strings_) ptrs_.push_back(kv.data());
  ptrs_.push_back(nullptr);
}

void exec_child(const ProcessSpec& spec, char* const* argv, char* const* envp, int in_fd, int out_fd, int err_fd,
                int exec_fd) {
  setpgid(0, 0);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  if (in_fd >= 0) dup2(in_fd, 0);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
    int e = errno;
    (void)!write(exec_fd, &e, sizeof e);
    _exit(127);
  }
  execvpe(argv[0], argv, envp);
  int e = errno;
  (void)!write(exec_fd, &e, sizeof e);
  _exit(127);
}

std::string ProcessResult::describe() const {
  if (!started) return "could not start: " + tail_lines(err, 1);
  if (interrupted) return "interrupted (Ctrl-C)";
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(seconds)) + " s (process group killed)";
  if (term_signal != 0) {
    const char* name = strsignal(term_signal);
    return "killed by signal " + std::to_string(term_signal) + " (" + (name ? name : "?") + ")";
  }
  return "exit code " + std::to_string(exit_code);
}

std::string format_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    if (needs_quoting(a)) {
      out += '\'';
      for (char c : a) {
        if (c == '\'') out += "'\\''";
        else out += c;
      }
      out += '\'';
    } else {
      out += a;
    }
  }
  return out;
}

std::filesystem::path find_executable(const std::string& name) {
  if (name.empty()) return {};
  auto executable = [](const std::filesystem::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return executable(name) ? std::filesystem::path(name) : std::filesystem::path();
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    auto candidate = std::filesystem::path(dir) / name;
    if (executable(candidate)) return candidate;
  }
  return {};
}

void install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() must wake up
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() { return g_interrupted.load(); }
void clear_interrupt_for_tests() { g_interrupted.store(false); }

std::string tail_lines(const std::string& text, int max_lines) {
  if (max_lines <= 0) return {};
  std::size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  std::size_t pos = end;
  int lines = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++lines == max_lines) break;
    --pos;
  }
  return text.substr(pos, end - pos);
}

ProcessResult RealProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  const auto t0 = std::chrono::steady_clock::now();
  if (spec.argv.empty()) {
    result.err = "empty command";
    return result;
  }
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 || pipe2(exec_pipe, O_CLOEXEC) != 0) {
    result.err = std::string("pipe: ") + strerror(errno);
    return result;
  }
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const ChildEnv env(spec);
  const int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  // vfork, not fork: the child execs at once, and fork would first copy the page tables of
  // a parent that may hold hundreds of MB (a locality prediction), which cost check --predict
  // about a tenth of its time. exec_child allocates nothing and touches no shared state.
  pid_t pid = vfork();
  if (pid < 0) {
    if (null_in >= 0) close(null_in);
    result.err = std::string("vfork: ") + strerror(errno);
    return result;
  }
  if (pid == 0) exec_child(spec, argv.data(), env.envp(), null_in, out_pipe[1], err_pipe[1], exec_pipe[1]);
  if (null_in >= 0) close(null_in);
  setpgid(pid, pid);  // also from the parent, to win the race with kill_group
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);

  int exec_errno = 0;
  if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
    close(exec_pipe[0]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    waitpid(pid, nullptr, 0);
    result.err = spec.argv[0] + ": " + strerror(exec_errno);
    result.seconds = seconds_since(t0);
    return result;
  }
  close(exec_pipe[0]);
  result.started = true;

  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  bool open_fd[2] = {true, true};
  std::string* sinks[2] = {&result.out, &result.err};
  bool truncated = false;
  char buf[65536];
  const auto deadline = t0 + spec.timeout;
  while (open_fd[0] || open_fd[1]) {
    if (interrupt_requested()) {
      result.interrupted = true;
      kill_group(pid);
      break;
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      result.timed_out = true;
      kill_group(pid);
      break;
    }
    int wait_ms = static_cast<int>(std::min<long long>(
        200, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    for (int i = 0; i < 2; ++i) fds[i].fd = open_fd[i] ? (i == 0 ? out_pipe[0] : err_pipe[0]) : -1;
    int n = poll(fds, 2, wait_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (!open_fd[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        open_fd[i] = false;
        continue;
      }
      if (sinks[i]->size() + static_cast<std::size_t>(got) <= spec.max_capture_bytes) sinks[i]->append(buf, got);
      else truncated = true;
    }
  }
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Grandchildren that kept no pipe open may still live: the group goes too.
  if (result.timed_out || result.interrupted) kill_group(pid);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  result.truncated = truncated;
  if (truncated) result.err += "\n[swizzleperf: output beyond " + std::to_string(spec.max_capture_bytes) + " bytes dropped]\n";
  result.seconds = seconds_since(t0);
  return result;
}

}  // namespace swz
