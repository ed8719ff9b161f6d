#include "child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace faultline::serve::detail {

namespace {

constexpr size_t kTailBytes = 64 * 1024;

using Clock = std::chrono::steady_clock;

// The child's side between fork and exec: async-signal-safe calls only (no allocation, no locks).
[[noreturn]] void exec_child(char* const* argv, int devnull, int err_w, pid_t parent,
                             const rlimit* mem, int max_fd) {
  ::setpgid(0, 0);  // its own group: a terminal's Ctrl-C does not reach it, a timeout kills all
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(126);  // the server died before prctl took effect
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the server blocks SIGINT/SIGTERM in every thread
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) ::signal(s, SIG_DFL);
  if (::dup2(devnull, 0) < 0 || ::dup2(devnull, 1) < 0 || ::dup2(err_w, 2) < 0) ::_exit(126);
  // No descriptor of the server (listening socket, connections, databases) reaches the child.
  if (::close_range(3, ~0U, 0) != 0)
    for (int fd = 3; fd < max_fd; ++fd) ::close(fd);
  if (mem && ::setrlimit(RLIMIT_AS, mem) != 0) ::_exit(126);
  ::execv(argv[0], argv);
  static const char msg[] = "faultline: the analysis program could not be started\n";
  [[maybe_unused]] const ssize_t w = ::write(2, msg, sizeof msg - 1);
  ::_exit(127);
}

}  // namespace

std::string signal_name(int sig) {
  if (const char* abbrev = ::sigabbrev_np(sig)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

std::string child_message(const std::string& tail, bool* own) {
  std::string last, last_prefixed;
  size_t pos = 0;
  while (pos < tail.size()) {
    size_t end = tail.find('\n', pos);
    if (end == std::string::npos) end = tail.size();
    std::string line = tail.substr(pos, end - pos);
    pos = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    last = line;
    constexpr std::string_view kPrefix = "faultline: ";
    if (line.compare(0, kPrefix.size(), kPrefix) == 0) last_prefixed = line.substr(kPrefix.size());
  }
  if (own) *own = !last_prefixed.empty();
  return last_prefixed.empty() ? last : last_prefixed;
}

ChildResult run_child(const std::vector<std::string>& args, const ChildLimits& limits) {
  ChildResult r;
  if (args.empty()) {
    r.spawn_error = "no program to run";
    return r;
  }
  // Everything the child needs is prepared before fork.
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  rlimit mem{};
  mem.rlim_cur = mem.rlim_max = static_cast<rlim_t>(limits.memory_bytes);
  rlimit nofile{};
  int max_fd = 65536;
  if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY)
    max_fd = static_cast<int>(std::min<rlim_t>(nofile.rlim_cur, 1 << 20));

  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) {
    r.spawn_error = std::string("cannot open /dev/null: ") + std::strerror(errno);
    return r;
  }
  int err[2];
  if (::pipe2(err, O_CLOEXEC) != 0) {
    r.spawn_error = std::string("cannot create a pipe: ") + std::strerror(errno);
    ::close(devnull);
    return r;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0)
    exec_child(argv.data(), devnull, err[1], parent, limits.memory_bytes ? &mem : nullptr, max_fd);
  ::close(devnull);
  ::close(err[1]);
  if (pid < 0) {
    r.spawn_error = std::string("cannot start the analysis process: ") + std::strerror(errno);
    ::close(err[0]);
    return r;
  }
  ::setpgid(pid, pid);  // also here: no window in which a kill of the group misses it

  const auto deadline = Clock::now() + std::chrono::seconds(limits.timeout_s);
  auto left_ms = [&]() -> int {
    if (limits.timeout_s == 0) return -1;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 60'000));
  };
  auto kill_group = [&] {
    r.timed_out = true;
    if (::kill(-pid, SIGKILL) != 0) ::kill(pid, SIGKILL);
  };

  // stderr until the child closes it (it ends), or the time limit
  char buf[8192];
  for (;;) {
    pollfd p{err[0], POLLIN, 0};
    const int timeout = left_ms();
    if (limits.timeout_s != 0 && timeout == 0) {
      kill_group();
      break;
    }
    const int n = ::poll(&p, 1, timeout);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;      // cannot wait on the pipe: reap below (still within the limit)
    if (n == 0) continue;  // timeout: checked at the top
    const ssize_t got = ::read(err[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    r.stderr_tail.append(buf, static_cast<size_t>(got));
    if (r.stderr_tail.size() > 2 * kTailBytes)
      r.stderr_tail.erase(0, r.stderr_tail.size() - kTailBytes);
  }
  ::close(err[0]);
  if (r.stderr_tail.size() > kTailBytes) r.stderr_tail.erase(0, r.stderr_tail.size() - kTailBytes);

  // the child closed stderr: it is ending (or it was killed); reap it, within the limit
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, r.timed_out ? 0 : WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (w == 0) {
      if (limits.timeout_s != 0 && left_ms() == 0) {
        kill_group();
        continue;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (WIFEXITED(status)) {
    r.exited = true;
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  return r;
}

}  // namespace faultline::serve::detail
