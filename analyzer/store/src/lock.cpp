#include "faultline/store/lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace faultline::store {

long flock_holder(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return 0;
  // "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF" (proc(5)); "->" marks a waiter
  std::ifstream in("/proc/locks");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string num, kind, mode, rw, id;
    long pid = 0;
    if (!(ls >> num >> kind)) continue;
    if (kind == "->") continue;
    if (!(ls >> mode >> rw >> pid >> id) || kind != "FLOCK") continue;
    unsigned maj = 0, min = 0;
    unsigned long long ino = 0;
    if (std::sscanf(id.c_str(), "%x:%x:%llu", &maj, &min, &ino) != 3) continue;
    if (ino == st.st_ino && maj == major(st.st_dev) && min == minor(st.st_dev)) return pid;
  }
  return 0;
}

WriterLock::WriterLock(const std::filesystem::path& db) : path_(db.string()) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ >= 0) {
    created_ = true;
  } else if (errno == EEXIST) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);  // a symlinked database, as SQLite follows it
  }
  if (fd_ < 0)
    throw std::runtime_error(path_ + ": cannot open the database: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    if (e != EWOULDBLOCK)
      throw std::runtime_error(path_ + ": cannot lock the database: " + std::strerror(e));
    const long pid = flock_holder(path_);
    throw LockBusy(path_ + ": database in use by another faultline run" +
                   (pid > 0 ? " (pid " + std::to_string(pid) + ")" : std::string()));
  }
  // the lock file of an older faultline (DB.lock), left by a run that was killed: removed when
  // no run holds it any more
  const std::string old = path_ + ".lock";
  const int ofd = ::open(old.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (ofd >= 0) {
    if (::flock(ofd, LOCK_EX | LOCK_NB) == 0) ::unlink(old.c_str());
    ::close(ofd);
  }
}

WriterLock::~WriterLock() {
  if (fd_ < 0) return;
  // a file this run created and nothing was written into (the run failed before the database
  // was made): removed, as if never created
  struct stat st {};
  if (created_ && ::fstat(fd_, &st) == 0 && st.st_size == 0) ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace faultline::store
