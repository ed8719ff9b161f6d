// store/lock: one writer per database file (issue 18), leaving nothing beside it (issue 36).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace faultline::store {

// A second writer of the same database: what() says "DB: database in use by another faultline run
// (pid N)".
class LockBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An exclusive flock(2) on the database file itself, held for the whole run: no lock file, so a
// run that ends, fails or is killed (SIGKILL, the OOM killer) leaves nothing behind; the kernel
// drops the lock with the process. A database file that does not exist yet is created empty
// (SQLite takes a 0-byte file as a new database) and removed again when the run wrote nothing
// into it. flock and SQLite's POSIX locks are independent on local Linux file systems; the
// descriptor is closed only after the run's SQLite connection (closing any descriptor of a file
// drops the process's POSIX locks on it). A `DB.lock` file left by an older faultline that was
// killed is removed when no run holds it.
class WriterLock {
 public:
  // Throws LockBusy when another run holds the lock, std::runtime_error when the file cannot be
  // opened or locked.
  explicit WriterLock(const std::filesystem::path& db);
  ~WriterLock();
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
  bool created_ = false;
};

// The pid holding an flock on the file (from /proc/locks), or 0 when none is found.
long flock_holder(const std::filesystem::path& file);

}  // namespace faultline::store
