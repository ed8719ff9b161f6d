// One analysis in a child process (fork + exec of `faultline analyze`), so that a crash, a stage
// that exhausts memory or a run that never ends takes down that analysis only, not the server.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace faultline::serve::detail {

struct ChildLimits {
  uint64_t memory_bytes = 0;  // RLIMIT_AS of the child (address space); 0: none
  unsigned timeout_s = 0;     // wall time; the child's process group is killed after it; 0: none
};

struct ChildResult {
  bool exited = false;  // ended by exit(): exit_code is set
  int exit_code = -1;
  int signal = 0;           // ended by this signal (when !exited)
  bool timed_out = false;   // killed because it ran past ChildLimits::timeout_s
  std::string stderr_tail;  // the last 64 KiB the child wrote to stderr
  std::string spawn_error;  // the child could not be started (fork/pipe failed)
};

// Runs argv[0] with argv (argv[0] is an executable path, not searched in PATH) in a new process
// group, stdin/stdout on /dev/null, stderr captured, no other descriptor inherited, signals back to
// their defaults, the memory limit applied before exec, and killed (SIGKILL) when the server
// process dies. Blocks until the child ends or is killed at the time limit. Thread-safe: the
// child runs only async-signal-safe calls between fork and exec.
ChildResult run_child(const std::vector<std::string>& argv, const ChildLimits& limits);

// "SIGKILL", "SIGSEGV", ... ("signal N" when unnamed).
std::string signal_name(int sig);

// What a failed child said, for the user: its last "faultline: ..." stderr line without the
// prefix, else its last non-empty line; "" when it wrote nothing. *own: the line was faultline's
// own message (not the dynamic loader's, a shell's, ...).
std::string child_message(const std::string& stderr_tail, bool* own = nullptr);

}  // namespace faultline::serve::detail
