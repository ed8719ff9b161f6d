// walk / walk_memory: stream the members of a bundle through libarchive without touching the disk
// beyond reading the bundle itself. docs/ingest.md describes the rules implemented here.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "decode.hpp"
#include "detail.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/core/text.hpp"
#include "faultline/ingest/ingest.hpp"
#include "limits.hpp"

namespace faultline::ingest {

namespace fs = std::filesystem;
using detail::Kind;
using detail::Source;
using detail::Utf16Source;

namespace {

constexpr size_t kBlock = 1U << 20;  // libarchive callback blocks and drain reads
constexpr size_t kPeek = 64U << 10;  // bytes sniffed at the start of every stream
constexpr unsigned kMaxDirLevels = 256;
// Nested archives up to this size are read into memory first and recognised by digest: an
// identical copy under the same file name (a bomb of sixteen copies per level) is read once.
constexpr size_t kDedupBytes = 8U << 20;

std::string errno_text(int e) {
  return std::error_code(e, std::generic_category()).message();
}

// Member names and messages are shown as valid UTF-8 without control characters.
// Text for messages: valid UTF-8, control characters replaced, at most ~kMaxNameBytes (a name
// of gigabytes in a hostile header must not be copied whole into a warning).
std::string printable(std::string_view s) {
  const bool cut = s.size() > detail::kMaxNameBytes + 4;
  if (cut) s = s.substr(0, detail::kMaxNameBytes + 4);
  std::string out;
  for (const char ch : text::sanitize_utf8(s)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f)
      out += "\xEF\xBF\xBD";
    else
      out += ch;
  }
  if (cut) out += "...";
  return out;
}

// Built in place: GCC 12 at -O3 reports a false -Wrestrict on `"'" + std::string&&` (GCC bug
// 105329, libstdc++'s char_traits::copy), an error in the Release build of scripts/package.sh.
std::string quote(std::string_view s) {
  std::string out = printable(s);
  out.insert(out.begin(), '\'');
  out.push_back('\'');
  return out;
}

// Closes a file descriptor on every way out (a visitor may throw).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

// ---------------------------------------------------------------------------------------------
// Locale: libarchive converts member names to the current locale's multibyte charset. In the "C"
// locale, UTF-8 names of zip files come back as NULL, so the walk runs with a UTF-8 LC_CTYPE for
// the calling thread only, and restores the caller's locale around every visitor call.

class ThreadUtf8Locale {
 public:
  ThreadUtf8Locale() {
    loc_ = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (loc_ != static_cast<locale_t>(nullptr)) old_ = uselocale(loc_);
  }
  ~ThreadUtf8Locale() {
    if (loc_ != static_cast<locale_t>(nullptr)) {
      uselocale(old_);
      freelocale(loc_);
    }
  }
  ThreadUtf8Locale(const ThreadUtf8Locale&) = delete;
  ThreadUtf8Locale& operator=(const ThreadUtf8Locale&) = delete;
  [[nodiscard]] locale_t ours() const { return loc_; }
  [[nodiscard]] locale_t old() const { return old_; }

 private:
  locale_t loc_ = static_cast<locale_t>(nullptr);
  locale_t old_ = static_cast<locale_t>(nullptr);
};

class CallerLocale {  // scope of a visitor call
 public:
  explicit CallerLocale(const ThreadUtf8Locale& l) : l_(l) {
    if (l_.ours() != static_cast<locale_t>(nullptr)) uselocale(l_.old());
  }
  ~CallerLocale() {
    if (l_.ours() != static_cast<locale_t>(nullptr)) uselocale(l_.ours());
  }
  CallerLocale(const CallerLocale&) = delete;
  CallerLocale& operator=(const CallerLocale&) = delete;

 private:
  const ThreadUtf8Locale& l_;
};

// ---------------------------------------------------------------------------------------------
// Byte sources

// The bundle's bytes read, for Visitor::progress (when it wants them): the bytes read from its
// file(s) less those handed to the outermost archive's decompressor and not yet used by it
// (libarchive reads ahead a block of 1 MiB: a small bundle would show 100% at its first read).
// Reported by Walker::tick, never backwards.
struct ReadMeter {
  Visitor* vis = nullptr;  // null: no progress wanted
  const uint64_t* members = nullptr;
  uint64_t fd_read = 0;  // bytes read from the file(s) (FdSource)
  Progress p;
  void report(uint64_t lag) {
    uint64_t r = fd_read - std::min(lag, fd_read);
    // a zip's central directory is read twice, a file may grow after the listing
    if (p.total > 0) r = std::min(r, p.total);
    p.read = std::max(p.read, r);
    p.members = *members;
    vis->progress(p);
  }
  void done() {
    if (vis == nullptr) return;
    if (p.total > 0) p.read = p.total;  // what was not read was skipped on purpose (a seek)
    p.members = *members;
    p.done = true;
    vis->progress(p);
  }
};

// A file: sequential reads are hashed while hash != nullptr.
class FdSource final : public Source {
 public:
  FdSource(int fd, bool positional, Sha256* hash, ReadMeter* meter = nullptr)
      : fd_(fd), positional_(positional), hash_(hash), meter_(meter) {}
  size_t read(char* buf, size_t n) override {
    if (failed_ || n == 0) return 0;
    for (;;) {
      const ssize_t r =
          positional_ ? ::pread(fd_, buf, n, static_cast<off_t>(pos_)) : ::read(fd_, buf, n);
      if (r < 0) {
        if (errno == EINTR) continue;
        failed_ = true;
        error_ = errno_text(errno);
        return 0;
      }
      const auto got = static_cast<size_t>(r);
      pos_ += got;
      bytes_ += got;
      if (hash_ != nullptr) hash_->update(buf, got);
      if (meter_ != nullptr) meter_->fd_read += got;
      return got;
    }
  }
  [[nodiscard]] bool failed() const override { return failed_; }
  int64_t seek(int64_t offset, int whence) override {
    if (!positional_) return -1;
    int64_t base = 0;
    if (whence == SEEK_CUR) {
      base = static_cast<int64_t>(pos_);
    } else if (whence == SEEK_END) {
      struct stat st {};
      if (::fstat(fd_, &st) != 0) return -1;
      base = st.st_size;
    }
    const int64_t to = base + offset;
    if (to < 0) return -1;
    pos_ = static_cast<uint64_t>(to);
    return to;
  }
  // Switches to random access for a seeking reader (zip, 7z): the hash is complete by then.
  void rewind_unhashed() {
    hash_ = nullptr;
    pos_ = 0;
  }
  [[nodiscard]] uint64_t bytes() const { return bytes_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  int fd_;
  bool positional_;
  Sha256* hash_;
  ReadMeter* meter_;
  uint64_t pos_ = 0;
  uint64_t bytes_ = 0;
  bool failed_ = false;
  std::string error_;
};

class MemSource final : public Source {
 public:
  explicit MemSource(std::string_view d) : d_(d) {}
  size_t read(char* buf, size_t n) override {
    const size_t k = std::min(n, d_.size() - pos_);
    if (k > 0) std::memcpy(buf, d_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  int64_t seek(int64_t offset, int whence) override {
    int64_t base = 0;
    if (whence == SEEK_CUR) base = static_cast<int64_t>(pos_);
    if (whence == SEEK_END) base = static_cast<int64_t>(d_.size());
    const int64_t to = base + offset;
    if (to < 0) return -1;
    pos_ = std::min<size_t>(static_cast<size_t>(to), d_.size());
    return to;
  }
  void rewind_unhashed() { pos_ = 0; }

 private:
  std::string_view d_;
  size_t pos_ = 0;
};

// The first bytes of a stream, kept for sniffing and then served before the rest.
class PeekSource final : public Source {
 public:
  PeekSource(Source& next, Bytes& buf) : next_(next), buf_(buf) {
    if (buf_.size() < kPeek) buf_.resize(kPeek);
    while (len_ < kPeek) {
      const size_t r = next_.read(buf_.data() + len_, kPeek - len_);
      if (r == 0) break;
      len_ += r;
    }
  }
  [[nodiscard]] std::string_view head() const { return {buf_.data(), len_}; }
  size_t read(char* buf, size_t n) override {
    if (off_ < len_) {
      const size_t k = std::min(n, len_ - off_);
      std::memcpy(buf, buf_.data() + off_, k);
      off_ += k;
      return k;
    }
    return next_.read(buf, n);
  }
  size_t skip_some(Bytes& scratch) override {
    if (off_ < len_) {
      const size_t k = len_ - off_;
      off_ = len_;
      return k;
    }
    return next_.skip_some(scratch);
  }
  [[nodiscard]] bool failed() const override { return next_.failed(); }
  [[nodiscard]] bool cut() const override { return next_.cut(); }

 private:
  Source& next_;
  Bytes& buf_;
  size_t len_ = 0;
  size_t off_ = 0;
};

// Bytes already read (a buffer), then the rest of the stream.
class PrefixSource final : public Source {
 public:
  PrefixSource(std::string_view head, Source& next) : head_(head), next_(next) {}
  size_t read(char* buf, size_t n) override {
    if (off_ < head_.size()) {
      const size_t k = std::min(n, head_.size() - off_);
      std::memcpy(buf, head_.data() + off_, k);
      off_ += k;
      return k;
    }
    return next_.read(buf, n);
  }
  size_t skip_some(Bytes& scratch) override {
    if (off_ < head_.size()) {
      const size_t k = head_.size() - off_;
      off_ = head_.size();
      return k;
    }
    return next_.skip_some(scratch);
  }
  [[nodiscard]] bool failed() const override { return next_.failed(); }
  [[nodiscard]] bool cut() const override { return next_.cut(); }

 private:
  std::string_view head_;
  Source& next_;
  size_t off_ = 0;
};

// ---------------------------------------------------------------------------------------------
// libarchive

struct ArchiveFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;

// Explicit readers instead of support_*_all: the mtree format reads files named in the stream
// from the local disk, and filters without a linked library (lrzip, grzip, lzop) would run an
// external program. Only filters backed by a linked library are kept (probed once).
void enable_readers(archive* a) {
  using Fn = int (*)(archive*);
  static const std::vector<Fn> filters = [] {
    const Fn all[] = {archive_read_support_filter_gzip, archive_read_support_filter_bzip2,
                      archive_read_support_filter_xz,   archive_read_support_filter_lzma,
                      archive_read_support_filter_lzip, archive_read_support_filter_zstd,
                      archive_read_support_filter_lz4,  archive_read_support_filter_compress,
                      archive_read_support_filter_uu};
    std::vector<Fn> ok;
    for (const Fn f : all) {
      ArchivePtr probe(archive_read_new());
      if (f(probe.get()) == ARCHIVE_OK) ok.push_back(f);
    }
    return ok;
  }();
  for (const Fn f : filters) f(a);
  archive_read_support_format_tar(a);
  archive_read_support_format_cpio(a);
  archive_read_support_format_zip(a);
  archive_read_support_format_7zip(a);
  archive_read_support_format_rar(a);
  archive_read_support_format_rar5(a);
  archive_read_support_format_raw(a);
}

std::string archive_err(archive* a) {
  const char* e = archive_error_string(a);
  return e != nullptr ? printable(e) : std::string("unknown error");
}

class Walker;
class EntrySource;

// One open archive (the bundle file, or a member that is an archive).
struct Level {
  Source* src = nullptr;
  archive* a = nullptr;
  std::string path;   // path inside the bundle; "" for the bundle file
  std::string label;  // name used in messages
  uint32_t depth = 0;
  std::vector<std::string> enclosing;  // archives around this one, outermost first
  Bytes* buf = nullptr;
  uint64_t consumed = 0;  // compressed bytes handed to libarchive
  uint64_t produced = 0;  // uncompressed member bytes read out of it
  uint64_t entries = 0;
  bool dead = false;        // damaged or stopped by the ratio limit: read no further
  bool input_cut = false;   // the enclosing archive stopped feeding it (a limit there)
  bool compressed = false;  // starts with the magic of a compression filter (gzip, zstd, ...)
  // An outer archive: its bytes come from a file on disk (the bundle file, or an archive file of
  // a directory bundle). Every other level is nested and counts against the bundle's ratio.
  bool outer = false;
  uint64_t* outer_read = nullptr;  // the walk's count of bytes read from outer files
  std::chrono::steady_clock::time_point opened{};
  uint64_t expanded_at_open = 0;  // Walker::bundle_expanded when this level was opened
  bool seekable = false;          // read with a seek callback (a zip's skips are seeks)
  // The ratio is measured from here (expanded(), consumed()): 0, or where the walk went on after
  // a member cut by the ratio (its rest skipped), so that the members after it are not cut too.
  uint64_t base_expanded = 0, base_consumed = 0;
  // A member was cut by the ratio and the walk goes on: libarchive skips its rest when the next
  // header is read. While skipping, read_cb bounds what the skip decompresses (Limits::
  // max_skip_bytes) and fails the read past it (skip_over: the archive stops there).
  bool skipping = false, skip_over = false;
  uint64_t skip_budget = 0;  // bytes the current skip may still cost
  uint64_t skip_from_stream = 0, skip_from_raw = 0, skip_ratio = 0;
  std::string cut_member;  // the member cut by the ratio whose rest is skipped
};

uint64_t expanded(const Level& L);
uint64_t skip_cost(const Level& L, uint64_t max_ratio) {
  const bool filtered = L.a != nullptr && archive_filter_code(L.a, 0) != ARCHIVE_FILTER_NONE;
  return detail::skip_cost(filtered, expanded(L) - std::min(expanded(L), L.skip_from_stream),
                           L.consumed - std::min(L.consumed, L.skip_from_raw), max_ratio);
}

la_ssize_t read_cb(archive* a, void* ctx, const void** out) {
  auto* L = static_cast<Level*>(ctx);
  const size_t n = L->src->read(L->buf->data(), L->buf->size());
  if (n == 0) {
    if (L->src->failed()) {
      archive_set_error(a, EIO, "read error");
      return -1;
    }
    if (L->src->cut()) L->input_cut = true;
  }
  L->consumed += n;
  if (L->outer && L->outer_read != nullptr) *L->outer_read += n;
  if (L->skipping && skip_cost(*L, L->skip_ratio) > L->skip_budget) {
    L->skip_over = true;
    archive_set_error(a, EFBIG, "skip budget exhausted");
    return -1;
  }
  *out = L->buf->data();
  return static_cast<la_ssize_t>(n);
}

la_int64_t seek_cb(archive*, void* ctx, la_int64_t offset, int whence) {
  auto* L = static_cast<Level*>(ctx);
  return L->src->seek(offset, whence);
}

// ---------------------------------------------------------------------------------------------

class Walker {
 public:
  Walker(const Limits& lim, Visitor& v, Result& r, const ThreadUtf8Locale& loc)
      : lim_(lim), vis_(v), res_(r), loc_(loc), scratch_(kBlock) {
    meter.members = &res_.members;
    if (v.wants_progress()) meter.vis = &v;
  }

  void walk_file(Source& src, std::string_view name, const std::string& shown, bool seekable,
                 FdSource* fd, MemSource* mem);
  void walk_dir(const fs::path& root);
  void finish();

  // --- used by the sources and readers
  void warn(const std::string& member, const std::string& msg);
  // a symlink member, handed to Visitor::symlink (L: the archive level, nullptr in a directory)
  void link(const std::string& path, std::string_view target, const Level* L);
  [[nodiscard]] const Limits& limits() const { return lim_; }
  bool stop = false;  // a bundle-wide limit was reached: read nothing more
  // the bundle's bytes read from disk (Visitor::progress; its LC_CTYPE is whichever the read
  // happens under: progress texts are ASCII)
  ReadMeter meter;
  // hands the meter's state to the visitor (at a member's start and after each read of it)
  void tick();
  uint64_t total = 0;  // uncompressed member bytes read (handed + skipped)
  void total_reached(const std::string& member);
  void data_error(Level& L, const std::string& member, la_ssize_t code);
  void ratio_exceeded(Level& L, const std::string& member);
  // A member of L cut by the ratio: the walk goes on with the next member when the skip of its
  // rest fits what is left of Limits::max_skip_bytes, else L stops (ratio_exceeded).
  void member_ratio_cut(Level& L, const std::string& member, uint64_t produced, int64_t remaining);
  // Bundle-wide expansion (docs/ingest.md "Nested archives"): uncompressed bytes out of every
  // archive at every depth against the bytes read from the outer file(s).
  uint64_t bundle_expanded = 0;
  uint64_t outer_read = 0;
  [[nodiscard]] bool over_bundle_ratio() const;
  void bundle_ratio_exceeded(Level& L, const std::string& member);

 private:
  bool walk_archive(Source& src, bool seekable, Level& L, std::string& err);
  void entry(Level& L, archive_entry* e, const std::string& header_warning);
  bool entry_body(Level& L, archive_entry* e, const std::string& header_warning, EntrySource& es,
                  std::string& member);
  bool raw_info(const Level& L, bool filtered, MemberInfo& info, std::string& member);
  void nested_or_leaf(Source& s, MemberInfo info, uint32_t depth);
  void leaf(Source& s, const MemberInfo& info);
  void text_leaf(PeekSource& ps, const MemberInfo& info);  // UTF-16 decoded
  void note_not_archive(const PeekSource& ps, const std::string& member);
  uint64_t drain(Source& s, bool count_total, const std::string& member);
  std::string unique(const std::string& path);
  std::string clean(std::string_view raw, const std::string& prefix, const std::string& shown_in);
  Bytes& peek_buf(uint32_t depth);
  Bytes& level_buf(uint32_t depth);
  std::string& member_buf(uint32_t depth);
  bool count_member(const std::string& member);
  void open_nested(Source& s, const MemberInfo& info, uint32_t depth, bool compressed);
  bool refuse_nested(const std::string& path);

  const Limits& lim_;
  Visitor& vis_;
  Result& res_;
  const ThreadUtf8Locale& loc_;
  Bytes scratch_;
  // deques: growing them keeps references to the buffers of the levels already open
  std::deque<Bytes> peek_bufs_, level_bufs_;
  std::deque<std::string> member_bufs_;
  std::vector<Level*> open_;  // archives being read, outermost first
  // sha256 + '\0' + base name of a nested archive -> the path it was read under
  std::unordered_map<std::string, std::string> archive_digests_;
  std::unordered_set<std::string> seen_;
  std::unordered_map<std::string, uint64_t> dup_next_;
  std::string bundle_name_;
  uint64_t entries_ = 0;
  uint64_t delivered_warnings_ = 0, suppressed_warnings_ = 0;
  bool members_warned_ = false, total_warned_ = false;
  uint64_t skip_spent_ = 0;  // bytes of members cut by the ratio: delivered, then skipped
};

// Reads one member for the visitor, enforcing the member and total byte limits.
class LeafReader final : public MemberReader {
 public:
  LeafReader(Walker& w, Source& s, const std::string& path, Result& res)
      : w_(w), s_(s), path_(path), res_(res) {}
  size_t read(char* buf, size_t n) override {
    if (done_ || n == 0) return 0;
    if (w_.stop) {
      truncated_ = true;
      done_ = true;
      return 0;
    }
    const Limits& lim = w_.limits();
    const uint64_t room = lim.max_member_bytes - std::min(handed_, lim.max_member_bytes);
    const uint64_t troom = lim.max_total_bytes - std::min(w_.total, lim.max_total_bytes);
    if (room == 0 || troom == 0) {
      // is there more? one byte tells, and counts as skipped
      char c = 0;
      const size_t r = s_.read(&c, 1);
      done_ = true;
      if (r == 0) {
        if (s_.failed() || s_.cut()) truncated_ = true;
        return 0;
      }
      ++w_.total;
      truncated_ = true;
      if (room == 0) {
        w_.warn(path_, "[member-size] member " + quote(path_) + " cut at " +
                           std::to_string(lim.max_member_bytes) + " bytes (max_member_bytes)");
      } else {
        w_.total_reached(path_);
      }
      return 0;
    }
    const size_t want = static_cast<size_t>(std::min<uint64_t>({n, room, troom}));
    const size_t r = s_.read(buf, want);
    if (s_.failed() || s_.cut()) truncated_ = true;
    if (r == 0) {
      done_ = true;
      return 0;
    }
    handed_ += r;
    w_.total += r;
    res_.bytes += r;
    w_.tick();
    return r;
  }
  [[nodiscard]] bool truncated() const override { return truncated_; }

 private:
  Walker& w_;
  Source& s_;
  const std::string& path_;
  Result& res_;
  uint64_t handed_ = 0;
  bool truncated_ = false;
  bool done_ = false;
};

// Uncompressed bytes out of an archive: member data read, or the position in the decompressed
// stream when that is larger (headers: a tar.zst of millions of empty entries expands too).
uint64_t expanded(const Level& L) {
  const la_int64_t stream = L.a != nullptr ? archive_filter_bytes(L.a, 0) : 0;
  return std::max<uint64_t>(L.produced, stream > 0 ? static_cast<uint64_t>(stream) : 0);
}

// Compressed bytes of an archive the decompressor has used: the bytes handed to libarchive, or
// its position in them when lower (libarchive reads ahead a block, and a zip or 7z is read at
// its end first; counting those bytes let a deflated member of 2 GiB of zeros, ~1,030 times
// smaller, pass a limit of 1000).
uint64_t consumed(const Level& L) {
  const la_int64_t pos = L.a != nullptr ? archive_filter_bytes(L.a, -1) : 0;
  return pos > 0 ? std::min<uint64_t>(L.consumed, static_cast<uint64_t>(pos)) : L.consumed;
}

void Walker::tick() {
  if (meter.vis == nullptr) return;
  const Level* o = open_.empty() ? nullptr : open_.front();
  // a seekable archive (zip, 7z) is read where libarchive seeks: its reads are the count
  meter.report(o != nullptr && o->outer && !o->seekable ? o->consumed - consumed(*o) : 0);
}

bool over_ratio(const Level& L, const Limits& lim) {
  const uint64_t e = expanded(L), c = consumed(L);
  return detail::over_ratio(e - std::min(e, L.base_expanded), c - std::min(c, L.base_consumed),
                            lim);
}

// The data of the current entry of an open archive, block by block (archive_read_data_block):
// holes of sparse entries are read as zeros but skipped without producing anything, so that
// a sparse file (lastlog) costs nothing to skip and does not count towards the ratio.
class EntrySource final : public Source {
 public:
  EntrySource(Walker& w, Level& L, archive_entry* e, const std::string& member)
      : w_(w), L_(L), e_(e), member_(member) {
    if (archive_entry_sparse_count(e) > 0 && archive_entry_size_is_set(e))
      sparse_size_ = archive_entry_size(e);
  }
  size_t read(char* buf, size_t n) override {
    size_t got = 0;
    while (got < n) {
      if (pos_ < blk_off_) {  // hole before the current block
        const size_t k =
            static_cast<size_t>(std::min<int64_t>(blk_off_ - pos_, static_cast<int64_t>(n - got)));
        std::memset(buf + got, 0, k);
        got += k;
        pos_ += k;
        continue;
      }
      const int64_t in_blk = blk_off_ + static_cast<int64_t>(blk_len_) - pos_;
      if (in_blk > 0) {
        const size_t k =
            static_cast<size_t>(std::min<int64_t>(in_blk, static_cast<int64_t>(n - got)));
        std::memcpy(buf + got, blk_ + (pos_ - blk_off_), k);
        got += k;
        pos_ += k;
        continue;
      }
      if (!next_block()) break;
    }
    return got;
  }
  // Skips the rest of the current block (or hole) and returns the data bytes skipped.
  size_t skip_some(Bytes& /*scratch*/) override {
    const int64_t in_blk = blk_off_ + static_cast<int64_t>(blk_len_) - pos_;
    if (in_blk > 0 && pos_ >= blk_off_) {
      pos_ += in_blk;
      return static_cast<size_t>(in_blk);
    }
    if (!next_block()) return 0;
    pos_ = blk_off_ + static_cast<int64_t>(blk_len_);
    return blk_len_ > 0 ? blk_len_ : 1;  // an empty block at a hole's end is progress too
  }
  [[nodiscard]] bool failed() const override { return failed_; }
  [[nodiscard]] bool cut() const override { return cut_; }

 private:
  bool next_block() {
    if (done_) return false;
    if (L_.dead || w_.stop) {
      cut_ = true;
      done_ = true;
      return false;
    }
    const void* b = nullptr;
    size_t len = 0;
    la_int64_t off = pos_;
    const int r = archive_read_data_block(L_.a, &b, &len, &off);
    if (r == ARCHIVE_EOF) {
      done_ = true;
      if (L_.input_cut) cut_ = true;
      if (sparse_size_ > pos_) {  // trailing hole of a sparse entry
        blk_ = nullptr;
        blk_len_ = 0;
        blk_off_ = sparse_size_;
        return true;
      }
      return false;
    }
    if (r < ARCHIVE_OK) {
      done_ = true;
      failed_ = true;
      w_.data_error(L_, member_, r);
      return false;
    }
    if (off < pos_) off = pos_;  // never step back (a malformed sparse map)
    blk_ = static_cast<const char*>(b);
    blk_len_ = b != nullptr ? len : 0;
    blk_off_ = off;
    L_.produced += blk_len_;
    w_.bundle_expanded += blk_len_;
    produced_ += blk_len_;
    if (over_ratio(L_, w_.limits())) {
      cut_ = true;
      done_ = true;  // this block is delivered, nothing after it
      w_.member_ratio_cut(L_, member_, produced_, remaining());
    } else if (!L_.outer && w_.over_bundle_ratio()) {
      cut_ = true;
      done_ = true;
      w_.bundle_ratio_exceeded(L_, member_);
    }
    return true;
  }

  // Declared bytes of the entry not read yet (-1: unknown).
  [[nodiscard]] int64_t remaining() const {
    const int64_t size = archive_entry_size_is_set(e_) ? archive_entry_size(e_) : -1;
    return size < 0 ? -1 : std::max<int64_t>(size - pos_, 0);
  }

  Walker& w_;
  Level& L_;
  archive_entry* e_;
  const std::string& member_;
  uint64_t produced_ = 0;
  const char* blk_ = nullptr;
  size_t blk_len_ = 0;
  int64_t blk_off_ = 0;  // member offset of blk_[0]
  int64_t pos_ = 0;      // member offset of the next byte to hand out
  int64_t sparse_size_ = -1;
  bool done_ = false, failed_ = false, cut_ = false;
};

// ---------------------------------------------------------------------------------------------

void Walker::warn(const std::string& member, const std::string& msg) {
  ++res_.warnings;
  if (delivered_warnings_ < lim_.max_warnings) {
    ++delivered_warnings_;
    const CallerLocale scope(loc_);
    vis_.warning(Warning{member, msg});
  } else {
    ++suppressed_warnings_;
  }
}

void Walker::finish() {
  if (suppressed_warnings_ > 0) {
    ++res_.warnings;
    const CallerLocale scope(loc_);
    vis_.warning(Warning{"", "[warnings] " + std::to_string(suppressed_warnings_) +
                                 " more warnings were not shown (max_warnings " +
                                 std::to_string(lim_.max_warnings) + ")"});
  }
}

void Walker::total_reached(const std::string& member) {
  stop = true;
  if (total_warned_) return;
  total_warned_ = true;
  warn(member, "[total-size] " + std::to_string(lim_.max_total_bytes) +
                   " uncompressed bytes read (max_total_bytes): " + quote(member) +
                   " is cut and the rest of the bundle is not read");
}

bool Walker::count_member(const std::string& member) {
  if (++entries_ <= lim_.max_members) return true;
  stop = true;
  if (!members_warned_) {
    members_warned_ = true;
    warn(member, "[members] " + std::to_string(lim_.max_members) + " members read (max_members): " +
                     quote(member) + " and the rest of the bundle are not read");
  }
  return false;
}

void Walker::data_error(Level& L, const std::string& member, la_ssize_t code) {
  if (code == ARCHIVE_FATAL) {
    L.dead = true;
    if (L.input_cut) return;  // the enclosing archive stopped feeding it; already reported
    warn(L.path, "[damaged] archive " + quote(L.label) + " is damaged or truncated while reading " +
                     quote(member) + ": " + archive_err(L.a) +
                     "; the member is incomplete and the rest of the archive is lost");
  } else {
    warn(member, "[member-unreadable] " + quote(member) + " cannot be read: " + archive_err(L.a));
  }
}

void Walker::ratio_exceeded(Level& L, const std::string& member) {
  L.dead = true;
  warn(L.path, "[ratio] archive " + quote(L.label) + " expands more than " +
                   std::to_string(lim_.max_ratio) + " times (max_ratio; " +
                   std::to_string(expanded(L)) + " bytes out of " + std::to_string(consumed(L)) +
                   "): " + quote(member) + " is cut and the rest of the archive is not read");
}

void Walker::member_ratio_cut(Level& L, const std::string& member, uint64_t produced,
                              int64_t remaining) {
  skip_spent_ += produced;
  // a zip read with seeks skips a member by seeking; anything else decompresses the rest
  const bool seek_skip =
      L.seekable && (archive_format(L.a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP;
  const uint64_t left = detail::skip_left(skip_spent_, lim_);
  if (!detail::may_skip(left, remaining, seek_skip)) {
    ratio_exceeded(L, member);
    return;
  }
  // its bytes are counted in skip_spent_ now, not in the bundle's ratio: the members after it
  // in a nested archive are not cut for the bomb before them
  bundle_expanded -= std::min(bundle_expanded, produced);
  L.cut_member = member;
  L.skip_budget = left;
  L.skip_ratio = lim_.max_ratio;
  warn(L.path, "[ratio] archive " + quote(L.label) + " expands more than " +
                   std::to_string(lim_.max_ratio) + " times in " + quote(member) + " (max_ratio; " +
                   std::to_string(expanded(L) - L.base_expanded) + " bytes out of " +
                   std::to_string(consumed(L) - L.base_consumed) + "): " + quote(member) +
                   " is cut after " + std::to_string(produced) +
                   " bytes, its rest is skipped, and reading goes on with the next member");
}

bool Walker::over_bundle_ratio() const {
  return detail::over_ratio(bundle_expanded, outer_read, lim_);
}

std::string seconds_text(std::chrono::steady_clock::duration d) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s", std::chrono::duration<double>(d).count());
  return b;
}

void Walker::bundle_ratio_exceeded(Level& L, const std::string& member) {
  // the outermost nested archive around L: it and everything in it stop
  Level* top = &L;
  for (Level* o : open_) {
    if (o->outer) continue;
    top = o;
    break;
  }
  for (Level* o : open_)
    if (!o->outer) o->dead = true;
  L.dead = true;
  warn(top->path,
       "[ratio] nested archive " + quote(top->label) + " makes the bundle expand more than " +
           std::to_string(lim_.max_ratio) + " times (max_ratio over every nesting level; " +
           std::to_string(bundle_expanded) + " bytes out of archives from " +
           std::to_string(outer_read) + " bytes read from the bundle file; " +
           std::to_string(bundle_expanded - top->expanded_at_open) + " bytes and " +
           seconds_text(std::chrono::steady_clock::now() - top->opened) +
           " spent in it): " + quote(member) + " is cut and the rest of that archive is not read");
}

std::string& Walker::member_buf(uint32_t depth) {
  if (member_bufs_.size() <= depth) member_bufs_.resize(depth + 1);
  return member_bufs_[depth];
}

Bytes& Walker::peek_buf(uint32_t depth) {
  if (peek_bufs_.size() <= depth) peek_bufs_.resize(depth + 1);
  return peek_bufs_[depth];
}

Bytes& Walker::level_buf(uint32_t depth) {
  if (level_bufs_.size() <= depth) level_bufs_.resize(depth + 1);
  auto& b = level_bufs_[depth];
  if (b.size() < kBlock) b.resize(kBlock);
  return b;
}

std::string Walker::unique(const std::string& path) {
  if (seen_.insert(path).second) return path;
  uint64_t& k = dup_next_[path];
  if (k < 2) k = 2;
  std::string cand;
  do {
    cand = path + " (" + std::to_string(k++) + ")";
  } while (!seen_.insert(cand).second);
  warn(cand, "[duplicate] another member is already named " + quote(path) +
                 ": this one is read as " + quote(cand));
  return cand;
}

// Cleans a raw member name and reports what was changed; "" when the member must be skipped.
std::string Walker::clean(std::string_view raw, const std::string& prefix,
                          const std::string& shown_in) {
  const detail::CleanName cn = detail::clean_name(raw);
  std::string path = cn.path.empty() ? std::string("\xEF\xBF\xBD") : cn.path;
  path = prefix + path;
  if (cn.skip) {
    warn(path, "[path-dotdot] member " + quote(raw) + shown_in +
                   " has a '..' component (it could point outside the bundle): skipped");
    return {};
  }
  if (cn.bad_utf8)
    warn(path, "[name] member name " + quote(raw) + shown_in +
                   " is not valid UTF-8: invalid bytes shown as U+FFFD");
  if (cn.control)
    warn(path, "[name] member name " + quote(raw) + shown_in +
                   " has control characters: shown as U+FFFD");
  if (cn.too_long)
    warn(path, "[name] member name" + shown_in + " is longer than " +
                   std::to_string(detail::kMaxNameBytes) + " bytes: cut");
  if (cn.absolute)
    warn(path, "[path-absolute] member " + quote(raw) + shown_in +
                   " has an absolute path: read as " + quote(path));
  if (cn.path.empty()) warn(path, "[name] member" + shown_in + " has an empty name");
  return path;
}

uint64_t Walker::drain(Source& s, bool count_total, const std::string& member) {
  uint64_t n = 0;
  for (;;) {
    if (count_total && stop) break;
    const size_t r = s.skip_some(scratch_);
    if (r == 0) break;
    n += r;
    if (count_total) {
      total += r;
      if (total > lim_.max_total_bytes) total_reached(member);
    }
  }
  return n;
}

void Walker::link(const std::string& path, std::string_view target, const Level* L) {
  MemberInfo info;
  info.path = path;
  if (L != nullptr) {
    info.archives = L->enclosing;
    info.archives.push_back(L->path);
  }
  const std::string to = printable(target.substr(0, 4096));
  const CallerLocale scope(loc_);
  vis_.symlink(info, to);
}

// A member named like an archive or compressed file whose bytes are neither: read as it is, and
// said so (a truncated download, a renamed log, a collector that failed to pack).
void Walker::note_not_archive(const PeekSource& ps, const std::string& member) {
  if (ps.head().empty() || !detail::archive_like_name(detail::base_name(member))) return;
  const bool text = detail::looks_like_text(ps.head());
  warn(member, "[not-archive] " + quote(member) +
                   " is named like an archive or compressed file but has no archive or "
                   "compression header: " +
                   (text ? "read as text" : "kept as binary data, not read"));
}

void Walker::text_leaf(PeekSource& ps, const MemberInfo& info) {
  const auto enc = detail::utf16_text(ps.head());
  if (enc == detail::Utf16::none) {
    leaf(ps, info);
    return;
  }
  // UTF-16 text would reach the classifier and the parsers as binary: decoded to UTF-8
  warn(info.path, "[utf-16] " + quote(info.path) + " is UTF-16" +
                      (enc == detail::Utf16::le ? "LE" : "BE") +
                      " text: read decoded to UTF-8 (the member's size, lines and sha256 are "
                      "those of the decoded text)");
  Utf16Source u(ps, enc == detail::Utf16::be);
  leaf(u, info);
}

void Walker::leaf(Source& s, const MemberInfo& info) {
  ++res_.members;
  tick();
  {
    LeafReader reader(*this, s, info.path, res_);
    const CallerLocale scope(loc_);
    vis_.member(info, reader);
  }
  drain(s, true, info.path);
}

void Walker::nested_or_leaf(Source& s, MemberInfo info, uint32_t depth) {
  PeekSource ps(s, peek_buf(depth));
  const Kind k = detail::sniff(ps.head(), detail::base_name(info.path));
  if (k != Kind::archive && k != Kind::seek_archive) {
    note_not_archive(ps, info.path);
    text_leaf(ps, info);
    return;
  }
  if (depth > lim_.max_depth) {
    warn(info.path, "[depth] " + quote(info.path) + " is an archive nested " +
                        std::to_string(depth) + " deep (max_depth " +
                        std::to_string(lim_.max_depth) + "): not opened");
    return;
  }
  const bool compressed = detail::compression_magic(ps.head()) || detail::uuencode_magic(ps.head());
  // small enough to hold: read it whole, and open it only when no identical archive was
  std::string& buf = member_buf(depth);
  buf.clear();
  Bytes& block = level_buf(depth);
  while (buf.size() <= kDedupBytes) {
    const size_t r = ps.read(block.data(), std::min(block.size(), kDedupBytes + 1 - buf.size()));
    if (r == 0) break;
    buf.append(block.data(), r);
  }
  if (buf.size() > kDedupBytes) {  // too large: streamed, as it is
    if (refuse_nested(info.path)) return;
    PrefixSource rest(buf, ps);
    open_nested(rest, info, depth, compressed);
    return;
  }
  if (!ps.cut() && !ps.failed()) {  // complete: its digest (and base name) names it
    // the same bytes under another file name are read again: a name can say which node a
    // bundle is (fleet/node01.tar.gz, fleet/node02.tar.gz), and the ratio bounds the cost
    const std::string digest = sha256_hex(buf);
    const auto [it, fresh] = archive_digests_.emplace(
        digest + std::string(1, '\0') + std::string(detail::base_name(info.path)), info.path);
    if (!fresh) {
      warn(info.path, "[duplicate-archive] nested archive " + quote(info.path) +
                          " is identical to " + quote(it->second) + " (sha256 " +
                          digest.substr(0, 16) + "..., " + std::to_string(buf.size()) +
                          " bytes): read once, its members are those of " + quote(it->second));
      return;
    }
  }
  if (refuse_nested(info.path)) return;
  MemSource mem(buf);
  open_nested(mem, info, depth, compressed);
}

// A nested archive is not opened while the bundle is over its ratio (it would expand it more).
bool Walker::refuse_nested(const std::string& path) {
  if (!over_bundle_ratio()) return false;
  warn(path, "[ratio] nested archive " + quote(path) +
                 " is not opened: the bundle already expands more than " +
                 std::to_string(lim_.max_ratio) + " times (max_ratio over every nesting level; " +
                 std::to_string(bundle_expanded) + " bytes out of archives from " +
                 std::to_string(outer_read) + " bytes read from the bundle file)");
  return true;
}

void Walker::open_nested(Source& s, const MemberInfo& info, uint32_t depth, bool compressed) {
  Level child;
  child.path = info.path;
  child.label = info.path;
  child.depth = depth;
  child.enclosing = info.archives;
  child.compressed = compressed;
  std::string err;
  if (!walk_archive(s, false, child, err))
    warn(info.path, "[open-failed] " + quote(info.path) +
                        " looks like an archive but cannot be read: " + err + ": skipped");
}

bool Walker::walk_archive(Source& src, bool seekable, Level& L, std::string& err) {
  ArchivePtr a(archive_read_new());
  if (!a) {
    err = "out of memory";
    return false;
  }
  enable_readers(a.get());
  L.src = &src;
  L.seekable = seekable;
  L.buf = &level_buf(L.depth);
  L.a = a.get();
  L.outer_read = &outer_read;
  L.opened = std::chrono::steady_clock::now();
  L.expanded_at_open = bundle_expanded;
  open_.push_back(&L);
  struct Pop {
    std::vector<Level*>& v;
    ~Pop() { v.pop_back(); }
  } pop{open_};
  archive_read_set_callback_data(a.get(), &L);
  archive_read_set_read_callback(a.get(), read_cb);
  if (seekable) archive_read_set_seek_callback(a.get(), seek_cb);
  if (archive_read_open1(a.get()) < ARCHIVE_WARN) {
    // libarchive's ARCHIVE_ERRNO_FILE_FORMAT ("Unrecognized archive format") is EILSEQ on Linux
    if (L.compressed && archive_errno(a.get()) == EILSEQ) {
      // compression magic, and not even the raw reader took the output: it is empty
      MemberInfo info;
      std::string member;
      if (raw_info(L, true, info, member)) {
        MemSource empty({});
        leaf(empty, info);
      }
      return true;
    }
    err = archive_err(a.get());
    return false;
  }
  // Consecutive damaged headers (libarchive's ARCHIVE_RETRY: it moves on block by block until a
  // valid header) are reported once, when reading resumes or the archive ends.
  uint64_t skipped_blocks = 0;
  int64_t last_pos = -1;
  std::string first_damage;
  auto report_skipped = [&](const std::string& until) {
    if (skipped_blocks == 0) return;
    warn(L.path, "[damaged] archive " + quote(L.label) + " has damaged data (" +
                     std::to_string(skipped_blocks) + " unreadable headers: " + first_damage +
                     ") skipped " + until);
    skipped_blocks = 0;
  };
  for (;;) {
    if (stop || L.dead) break;
    archive_entry* e = nullptr;
    const bool skip = !L.cut_member.empty();
    if (skip) {  // the rest of a member cut by the ratio: read_cb bounds what skipping it costs
      L.skipping = true;
      L.skip_from_stream = expanded(L);
      L.skip_from_raw = L.consumed;
    }
    const int r = archive_read_next_header(a.get(), &e);
    if (skip) {
      L.skipping = false;
      skip_spent_ += skip_cost(L, lim_.max_ratio);
      if (L.skip_over) {
        L.dead = true;
        warn(L.path, "[ratio] skipping the rest of " + quote(L.cut_member) + " in " +
                         quote(L.label) + " would decompress more than " +
                         std::to_string(lim_.max_skip_bytes) +
                         " bytes (max_skip_bytes over the bundle): the rest of the archive is "
                         "not read");
        break;
      }
      L.cut_member.clear();
      L.base_expanded = expanded(L);  // the ratio of the members after it starts here
      L.base_consumed = consumed(L);
    }
    if (r == ARCHIVE_EOF) break;
    if (r == ARCHIVE_RETRY) {
      const int64_t pos = archive_filter_bytes(a.get(), 0);
      if (skipped_blocks == 0) first_damage = archive_err(a.get());
      if (skipped_blocks > 0 && pos <= last_pos) {  // no progress: give up
        L.dead = true;
        report_skipped("up to where reading stopped");
        break;
      }
      last_pos = pos;
      ++skipped_blocks;
      continue;
    }
    if (r == ARCHIVE_FATAL) {
      L.dead = true;
      if (L.entries == 0 && skipped_blocks == 0 && !L.input_cut) {
        err = archive_err(a.get());
        return false;
      }
      report_skipped("up to where reading stopped");
      if (!L.input_cut)
        warn(L.path, "[damaged] archive " + quote(L.label) + " is damaged or truncated after " +
                         std::to_string(L.entries) + " members: " + archive_err(a.get()) +
                         "; the rest of the archive is lost");
      break;
    }
    const char* nm = archive_entry_pathname(e);
    report_skipped("before " + quote(nm != nullptr ? nm : ""));
    if (over_ratio(L, lim_)) {  // expanded by headers alone
      ratio_exceeded(
          L, (L.path.empty() ? std::string() : L.path + "!/") + printable(nm != nullptr ? nm : ""));
      break;
    }
    ++L.entries;
    std::string header_warning;
    if (r == ARCHIVE_WARN || r == ARCHIVE_FAILED) header_warning = archive_err(a.get());
    entry(L, e, header_warning);
  }
  report_skipped("up to the end of the archive");
  if (L.entries == 0 && !L.dead && !stop)
    warn(L.path, "[empty] archive " + quote(L.label) + " has no members");
  L.a = nullptr;
  return true;
}

// A single compressed file: the member is the container without its suffix. False when the
// member limit stops the walk.
bool Walker::raw_info(const Level& L, bool filtered, MemberInfo& info, std::string& member) {
  const std::string container = L.path.empty() ? bundle_name_ : L.path;
  member = L.path.empty() ? printable(container) : container;
  if (!count_member(member)) return false;
  std::string path;
  if (filtered) {
    info.compressed_name = printable(detail::base_name(container));
    path = detail::strip_compression_suffix(container);
  } else {
    path = container;  // sniffed as an archive but no reader took it: read it as it is
  }
  if (L.path.empty()) {
    path = clean(path, "", "");
    if (path.empty()) path = "\xEF\xBF\xBD";
  }
  if (path != L.path) path = unique(path);
  info.path = path;
  info.archives = L.enclosing;
  return true;
}

void Walker::entry(Level& L, archive_entry* e, const std::string& header_warning) {
  // Every entry's data goes through an EntrySource and is drained here, so that skipped entries
  // are also bounded by the ratio limit (libarchive's own skip would decompress unchecked).
  std::string member;
  EntrySource es(*this, L, e, member);
  if (entry_body(L, e, header_warning, es, member)) drain(es, false, member);
}

// Returns false when the entry's data must be left to libarchive (encrypted: unreadable for us).
bool Walker::entry_body(Level& L, archive_entry* e, const std::string& header_warning,
                        EntrySource& es, std::string& member) {
  const std::string prefix = L.path.empty() ? std::string() : L.path + "!/";
  const std::string in = L.path.empty() ? std::string() : " in " + quote(L.label);
  MemberInfo info;
  info.size_hint = archive_entry_size_is_set(e) ? archive_entry_size(e) : -1;
  info.mtime = archive_entry_mtime_is_set(e) ? archive_entry_mtime(e) : 0;
  const bool raw = archive_format(L.a) == ARCHIVE_FORMAT_RAW;
  const bool filtered = archive_filter_code(L.a, 0) != ARCHIVE_FILTER_NONE;
  bool name_reported = false;
  std::string path;

  if (raw) {
    if (!raw_info(L, filtered, info, member)) return true;
    path = info.path;
  } else {
    const char* nm = archive_entry_pathname(e);
    if (nm == nullptr) nm = archive_entry_pathname_utf8(e);
    member = prefix + (nm != nullptr ? printable(nm) : std::string("\xEF\xBF\xBD"));
    const auto type = archive_entry_filetype(e);
    if (type == AE_IFDIR) return true;  // directories are implied by member paths
    if (!count_member(member)) return true;
    if (nm == nullptr) {
      path = prefix + "\xEF\xBF\xBD-" + std::to_string(L.entries);
      warn(path, "[name] member " + std::to_string(L.entries) + in +
                     " has a name that cannot be decoded: read as " + quote(path));
      name_reported = true;
    } else {
      const std::string_view raw_name(nm);
      name_reported = !text::valid_utf8(raw_name);
      path = clean(raw_name, prefix, in);
      if (path.empty()) return true;  // '..': skipped
    }
    member = path;
    const char* hard = archive_entry_hardlink(e);
    if (hard != nullptr) {
      warn(path, "[hardlink] " + quote(path) + " is a hard link to " + quote(hard) +
                     ": skipped (the target is read under its own name)");
      return true;
    }
    if (type == AE_IFLNK) {
      const char* to = archive_entry_symlink(e);
      warn(path, "[symlink] " + quote(path) + " is a symbolic link to " +
                     quote(to != nullptr ? to : "") + ": not followed");
      link(path, to != nullptr ? std::string_view(to) : std::string_view(), &L);
      return true;
    }
    if (type != AE_IFREG && type != 0) {
      const char* what = type == AE_IFCHR    ? "character device"
                         : type == AE_IFBLK  ? "block device"
                         : type == AE_IFIFO  ? "fifo"
                         : type == AE_IFSOCK ? "socket"
                                             : "special file";
      warn(path, "[special] " + quote(path) + " is a " + what + ": skipped");
      return true;
    }
    if (archive_entry_is_data_encrypted(e) != 0) {
      warn(path, "[member-unreadable] " + quote(path) + in + " is encrypted: skipped");
      return false;
    }
    path = unique(path);
    info.archives = L.enclosing;
    info.archives.push_back(L.path);
  }
  if (!header_warning.empty() && !name_reported)
    warn(path, "[archive-warning] " + quote(path) + in + ": " + header_warning);
  info.path = path;
  member = path;
  if (raw)
    leaf(es, info);
  else
    nested_or_leaf(es, std::move(info), L.depth + 1);
  return true;
}

// ---------------------------------------------------------------------------------------------

void Walker::walk_file(Source& src, std::string_view name, const std::string& shown, bool seekable,
                       FdSource* fd, MemSource* mem) {
  bundle_name_ = std::string(name);
  PeekSource ps(src, peek_buf(0));
  const Kind k = detail::sniff(ps.head(), name);
  if (k == Kind::other && !detail::looks_like_text(ps.head()) &&
      detail::utf16_text(ps.head()) == detail::Utf16::none) {
    std::string hex;
    const std::string_view h = ps.head();
    for (size_t i = 0; i < std::min<size_t>(h.size(), 8); ++i) {
      char b[4];
      std::snprintf(b, sizeof b, "%02x ", static_cast<unsigned char>(h[i]));
      hex += b;
    }
    if (!hex.empty()) hex.pop_back();
    res_.status = Status::unreadable;
    res_.message = shown +
                   ": not a bundle: neither an archive (tar, zip, gzip, zstd, xz, bzip2, ...) "
                   "nor text, but binary data (first bytes " +
                   hex + ")";
    drain(ps, false, "");
    return;
  }
  if (k == Kind::other) {
    MemberInfo info;
    info.path = clean(detail::base_name(name), "", "");
    if (info.path.empty()) info.path = "\xEF\xBF\xBD";
    info.path = unique(info.path);
    if (ps.head().empty()) warn(info.path, "[empty] the bundle file " + quote(name) + " is empty");
    note_not_archive(ps, info.path);
    if (count_member(info.path)) text_leaf(ps, info);
    drain(ps, false, "");
    if (fd != nullptr && fd->failed()) {
      warn(info.path, "[io] read error on " + quote(name) + ": " + fd->error());
    }
    return;
  }
  Level L;
  L.label = std::string(name);
  L.depth = 0;
  L.outer = true;
  L.compressed = detail::compression_magic(ps.head()) || detail::uuencode_magic(ps.head());
  std::string err;
  bool ok = false;
  if (k == Kind::seek_archive && seekable) {
    drain(ps, false, "");  // completes the bundle hash before random access starts
    if (fd != nullptr) fd->rewind_unhashed();
    if (mem != nullptr) mem->rewind_unhashed();
    ok = walk_archive(src, true, L, err);
  } else {
    ok = walk_archive(ps, false, L, err);
    drain(ps, false, "");
  }
  if (fd != nullptr && fd->failed()) {
    warn("", "[io] read error on " + quote(name) + ": " + fd->error());
  }
  if (!ok) {
    res_.status = Status::unreadable;
    res_.message = shown + ": cannot read the archive: " + err;
  }
}

struct DirItem {
  enum Type { regular, symlink, special, error };
  std::string rel;  // raw bytes, '/'-separated
  Type type = regular;
  std::string note;
  uint64_t size = 0;  // regular files, when sizes are asked for (progress)
};

// sizes: stat every regular file (one more stat per file, only for a progress display)
void collect(const fs::path& root, const std::string& rel, unsigned level, uint64_t max_items,
             bool sizes, std::vector<DirItem>& out) {
  std::error_code ec;
  const fs::path dir = rel.empty() ? root : root / rel;
  if (level > kMaxDirLevels) {
    out.push_back({rel, DirItem::error, "directories nested too deep: not read"});
    return;
  }
  fs::directory_iterator it(dir, ec);
  if (ec) {
    out.push_back({rel, DirItem::error, "cannot list directory: " + ec.message()});
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (out.size() > max_items) return;
    const std::string name = it->path().filename().string();
    const std::string r = rel.empty() ? name : rel + "/" + name;
    std::error_code sec;
    const fs::file_status st = it->symlink_status(sec);
    if (sec) {
      out.push_back({r, DirItem::error, "cannot stat: " + sec.message()});
      continue;
    }
    switch (st.type()) {
      case fs::file_type::directory:
        collect(root, r, level + 1, max_items, sizes, out);
        break;
      case fs::file_type::regular: {
        std::error_code zec;
        const uintmax_t size = sizes ? it->file_size(zec) : 0;
        out.push_back({r, DirItem::regular, {}, zec ? 0 : static_cast<uint64_t>(size)});
        break;
      }
      case fs::file_type::symlink: {
        std::error_code lec;
        const fs::path to = fs::read_symlink(it->path(), lec);
        out.push_back({r, DirItem::symlink, lec ? std::string() : to.string()});
        break;
      }
      default:
        out.push_back({r, DirItem::special, {}});
        break;
    }
  }
  if (ec) out.push_back({rel, DirItem::error, "cannot list directory: " + ec.message()});
}

void Walker::walk_dir(const fs::path& root) {
  std::vector<DirItem> items;
  collect(root, "", 0, lim_.max_members, meter.vis != nullptr, items);
  std::sort(items.begin(), items.end(),
            [](const DirItem& a, const DirItem& b) { return a.rel < b.rel; });
  for (const DirItem& it : items) meter.p.total += it.size;
  Sha256 dir_hash;
  for (const DirItem& it : items) {
    if (stop) break;
    const std::string shown = printable(it.rel);
    if (it.type != DirItem::error && it.type != DirItem::regular && !count_member(shown)) break;
    switch (it.type) {
      case DirItem::error:
        warn(shown, "[io] " + quote(it.rel.empty() ? root.string() : it.rel) + ": " + it.note);
        continue;
      case DirItem::symlink:
        warn(shown, "[symlink] " + quote(it.rel) + " is a symbolic link to " + quote(it.note) +
                        ": not followed");
        link(shown, it.note, nullptr);
        continue;
      case DirItem::special:
        warn(shown, "[special] " + quote(it.rel) + " is not a regular file: skipped");
        continue;
      case DirItem::regular:
        break;
    }
    // O_NOFOLLOW and O_NONBLOCK: a file swapped for a link or a fifo since the listing is not
    // followed and cannot block the walk.
    const fs::path full = root / it.rel;
    const Fd fd(::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (fd.get() < 0) {
      const int e = errno;
      warn(shown, "[io] cannot open " + quote(it.rel) + ": " + errno_text(e));
      continue;
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      warn(shown, "[special] " + quote(it.rel) + " is not a regular file: skipped");
      continue;
    }
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
    const std::string path = clean(it.rel, "", "");
    if (path.empty() || !count_member(path)) continue;
    const std::string upath = unique(path);
    res_.size += static_cast<uint64_t>(st.st_size);
    Sha256 file_hash;
    FdSource fsrc(fd.get(), true, &file_hash, &meter);
    {
      PeekSource ps(fsrc, peek_buf(1));
      const Kind k = detail::sniff(ps.head(), detail::base_name(it.rel));
      MemberInfo info;
      info.path = upath;
      info.size_hint = st.st_size;
      info.mtime = st.st_mtime;
      if (k == Kind::other) {
        note_not_archive(ps, upath);
        text_leaf(ps, info);
        drain(ps, false, upath);
      } else if (lim_.max_depth < 1) {
        warn(upath, "[depth] " + quote(upath) + " is an archive (max_depth " +
                        std::to_string(lim_.max_depth) + "): not opened");
        drain(ps, false, upath);
      } else {
        Level L;
        L.path = upath;
        L.label = upath;
        L.depth = 1;
        L.outer = true;
        L.compressed = detail::compression_magic(ps.head()) || detail::uuencode_magic(ps.head());
        std::string err;
        bool ok = false;
        if (k == Kind::seek_archive) {
          drain(ps, false, upath);
          fsrc.rewind_unhashed();
          ok = walk_archive(fsrc, true, L, err);
        } else {
          ok = walk_archive(ps, false, L, err);
          drain(ps, false, upath);
        }
        if (!ok)
          warn(upath, "[open-failed] " + quote(upath) +
                          " looks like an archive but cannot be read: " + err + ": skipped");
      }
    }
    if (fsrc.failed()) warn(upath, "[io] read error on " + quote(upath) + ": " + fsrc.error());
    dir_hash.update(upath);
    dir_hash.update(std::string_view("\0", 1));
    dir_hash.update(file_hash.hex());
    dir_hash.update("\n");
  }
  res_.sha256 = dir_hash.hex();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Result walk(const fs::path& bundle, const Limits& limits, Visitor& visitor) {
  Result res;
  const ThreadUtf8Locale loc;
  Walker w(limits, visitor, res, loc);
  const std::string shown = printable(bundle.string());
  struct stat st {};
  if (::stat(bundle.c_str(), &st) != 0) {
    const int e = errno;
    res.status = Status::unreadable;
    res.message = shown + ": cannot open: " + errno_text(e);
    return res;
  }
  if (S_ISDIR(st.st_mode)) {
    w.walk_dir(bundle);
    w.finish();
    w.meter.done();
    return res;
  }
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
    res.status = Status::unreadable;
    res.message = shown + ": not a file or a directory";
    return res;
  }
  const Fd fd(::open(bundle.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int e = errno;
    res.status = Status::unreadable;
    res.message = shown + ": cannot open: " + errno_text(e);
    return res;
  }
  Sha256 hash;
  const bool regular = S_ISREG(st.st_mode);
  if (regular) w.meter.p.total = static_cast<uint64_t>(st.st_size);
  FdSource src(fd.get(), regular, &hash, &w.meter);
  std::string name = bundle.filename().string();
  if (name.empty()) name = bundle.string();
  w.walk_file(src, name, shown, regular, &src, nullptr);
  res.sha256 = hash.hex();
  res.size = regular ? static_cast<uint64_t>(st.st_size) : src.bytes();
  w.finish();
  w.meter.done();
  return res;
}

Result walk_memory(std::string_view data, std::string_view name, const Limits& limits,
                   Visitor& visitor) {
  Result res;
  const ThreadUtf8Locale loc;
  Walker w(limits, visitor, res, loc);
  res.sha256 = sha256_hex(data);
  res.size = data.size();
  MemSource src(data);
  w.walk_file(src, name, printable(name), true, nullptr, &src);
  w.finish();
  return res;
}

}  // namespace faultline::ingest
