// ingest: streams the members of a bundle (directory, tar, tar.gz/xz/zst/bz2, zip, single
// .gz/.zst/.xz files, archives nested in archives) without extracting anything to disk.
//
// Untrusted input is the normal case. Every limit below has a default and a CLI flag; whatever is
// skipped or cut becomes a Warning naming the member, never a crash and never a silent loss.
// Member paths are never used to open or write files: a path with "..", a symlink, a hard link or
// a device file is reported and skipped; an absolute path is reported and read under its relative
// name ("/etc/passwd" -> "etc/passwd"). Warning messages start with a stable code in brackets,
// e.g. "[ratio] ..."; docs/ingest.md lists the codes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "faultline/core/types.hpp"

namespace faultline::ingest {

// Allocates without value-initialising: a std::vector<char> of read buffers zero-filled ~3 MB at
// the start of every run (the chunker's 2 MB, the archive block, the skip scratch), each page
// faulted in by the memset although a small bundle writes a few KB of them (~950 of a small
// run's ~5,200 page faults).
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  explicit NoInitAllocator(const NoInitAllocator<U>& /*other*/) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: left as the allocation found it
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
// Bytes read from a bundle: only the part a read filled is ever looked at.
using Bytes = std::vector<char, NoInitAllocator<char>>;

// docs/ingest.md says what each limit counts and what happens when it is reached.
struct Limits {
  uint32_t max_depth = 4;                  // archives nested in archives (bundle file = 0)
  uint64_t max_members = 500'000;          // members in the whole bundle
  uint64_t max_member_bytes = 4ULL << 30;  // uncompressed bytes of one member (then cut)
  uint64_t max_total_bytes = 64ULL << 30;  // uncompressed bytes of the whole bundle
  uint64_t max_ratio = 1000;               // uncompressed/compressed bytes of one archive (0: off)
  uint64_t ratio_grace_bytes = 64ULL << 20;  // ratio is enforced only past this many bytes
  // A member cut by the ratio does not end its archive: its rest is skipped and the next member
  // read. Skipping decompresses (except a zip's seek); the bytes of cut members, read and
  // skipped, count against this bound over the whole bundle; past it the archive stops.
  uint64_t max_skip_bytes = 4ULL << 30;
  uint32_t max_line_bytes = 1U << 20;  // longer lines are cut (LineChunker)
  // Added: warnings handed to the visitor; later ones are only counted (Result::warnings) and
  // one "[warnings]" warning says how many were suppressed.
  uint64_t max_warnings = 10'000;
};

struct MemberInfo {
  // Path inside the bundle. Members of nested archives are joined with "!/", e.g.
  // "fleet/node07.tar.gz!/var/log/syslog". Always '/'-separated, never starting with '/'.
  std::string path;
  // Base name of the file the member came from when it was a compressed single file
  // ("syslog.2.gz" -> path "…/syslog.2", compressed_name "syslog.2.gz"); empty otherwise.
  std::string compressed_name;
  // Names of the archives this member was nested in, outermost first ("" for the top level).
  // Each entry is the archive's path inside the bundle; "" is the bundle file itself. Members of
  // a directory bundle have none; a single compressed file (syslog.2.gz) is not listed (see
  // compressed_name). E.g. bundle.tar -> fleet/node07.tar.gz!/var/log/syslog has
  // {"", "fleet/node07.tar.gz"}.
  std::vector<std::string> archives;
  int64_t size_hint = -1;  // declared uncompressed size, -1 when unknown
  int64_t mtime = 0;       // seconds since epoch as stored, 0 when unknown
};

// Reads the current member's bytes. Valid only inside Visitor::member.
class MemberReader {
 public:
  virtual ~MemberReader() = default;
  // Up to n bytes into buf; 0 at the end of the member (or when a limit cut it: see truncated()).
  virtual size_t read(char* buf, size_t n) = 0;
  // True when the member was cut (size limit, total limit, ratio limit, archive damage).
  [[nodiscard]] virtual bool truncated() const = 0;
};

// How far a walk is (Visitor::progress). Counts the bundle's own bytes as read from disk, the
// compressed stream before libarchive decompresses it: what a progress bar can measure against
// the size of the file.
struct Progress {
  uint64_t read = 0;     // bytes read from the bundle file (a directory: from its files)
  uint64_t total = 0;    // its size (a directory: the files' sizes at listing); 0: unknown (a pipe)
  uint64_t members = 0;  // regular members handed to the visitor so far
  bool done = false;     // the walk's last call: read == total (when the total is known)
};

class Visitor {
 public:
  virtual ~Visitor() = default;
  // One regular member. The visitor may read all, part or nothing of it.
  virtual void member(const MemberInfo& info, MemberReader& reader) = 0;
  virtual void warning(const Warning& w) = 0;
  // A symbolic link member (tar/zip entry or a link in a directory bundle), never followed: its
  // path (as for member()) and its target as stored, bounded to 4 KiB. Called after the
  // "[symlink]" warning. `info.archives` is set as for regular members. Default: ignored.
  virtual void symlink(const MemberInfo& /*info*/, std::string_view /*target*/) {}
  // Progress, when wants_progress() is true (asked once, when the walk starts; a directory is
  // then listed with its files' sizes): called after every read from the bundle's file(s), so
  // also from inside member() while the visitor reads a member (same thread), and once at the
  // end of the walk with `done` set. The visitor decides how often it shows anything.
  [[nodiscard]] virtual bool wants_progress() const { return false; }
  virtual void progress(const Progress& /*p*/) {}
};

enum class Status {
  ok = 0,          // read (possibly with warnings)
  unreadable = 3,  // not a directory, not an archive, not text: exit code 3
};

struct Result {
  Status status = Status::ok;
  std::string message;   // for unreadable: names the file and the problem
  std::string sha256;    // of the bundle file; of the sorted member list for a directory
  uint64_t size = 0;     // bytes of the bundle file (sum of file sizes for a directory)
  uint64_t members = 0;  // regular members handed to the visitor
  uint64_t bytes = 0;    // uncompressed bytes handed to the visitor
  uint64_t warnings = 0;
};

// Walks a bundle given as a path (file or directory). Several walks may run at the same time on
// different threads (each with its own visitor); visitor calls happen on the calling thread.
Result walk(const std::filesystem::path& bundle, const Limits& limits, Visitor& visitor);

// Walks a bundle held in memory (used by fuzzing and by tests); `name` is its file name.
Result walk_memory(std::string_view data, std::string_view name, const Limits& limits,
                   Visitor& visitor);

// Splits a member into chunks of complete lines, so that a scanner can work on whole-line chunks
// and parsers on single lines. Lines longer than max_line_bytes are cut at that length (the rest
// of the line is dropped and counted).
class LineChunker {
 public:
  struct Stats {
    uint64_t bytes = 0;
    uint32_t lines = 0;
    uint32_t long_lines = 0;  // lines cut at max_line_bytes
    bool binary = false;      // a NUL byte was seen in the first 64 KiB
  };
  // chunk: text of one or more complete lines, each ending in '\n' (the last line of the member may
  // lack it, and so does a line cut at max_line_bytes, which always ends its chunk); first_line:
  // 1-based number of the chunk's first line; offset: byte offset of the chunk's first byte in the
  // member. The callback may return false to stop reading.
  using ChunkFn = std::function<bool(std::string_view chunk, uint32_t first_line, uint64_t offset)>;
  explicit LineChunker(uint32_t max_line_bytes, size_t chunk_bytes = 1U << 20);
  Stats run(MemberReader& reader, const ChunkFn& fn);

 private:
  uint32_t max_line_;
  size_t chunk_bytes_;
  Bytes buf_;  // reused across run() calls: no allocation per member
};

}  // namespace faultline::ingest
