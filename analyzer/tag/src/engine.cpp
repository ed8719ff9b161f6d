// Hyperscan engine: one block-mode database for every active pattern, cached on disk; PCRE2 for
// named captures on matched lines only.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <fcntl.h>
#include <hs/hs.h>
#include <pcre2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <random>
#include <sstream>

#include "engine_internal.hpp"
#include "faultline/core/mapped_file.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/tag/tag.hpp"

namespace faultline::tag {

namespace detail {

bool may_span_lines(std::string_view p) {
  if (p.find("[^") != std::string_view::npos) return true;
  if (p.find("(?s") != std::string_view::npos) return true;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    if (p[i] != '\\') continue;
    const char c = p[i + 1];
    // \s \n \v \r(harmless, but cheap to include) \D \W \H \V \R \P{..} \p{..} \x.. \0.. \c. \e
    if (std::strchr("snvrDWHVRPpx0123456789ceN", c) != nullptr) return true;
    ++i;  // skip the escaped character
  }
  return false;
}

unsigned hs_flags(const Signature& s) {
  return HS_FLAG_MULTILINE | (s.caseless ? HS_FLAG_CASELESS : 0U);
}

}  // namespace detail

namespace {

using detail::hs_flags;

constexpr char kCacheMagic[8] = {'F', 'L', 'H', 'S', 'D', 'B', '0', '1'};

struct HsDbDeleter {
  void operator()(hs_database_t* d) const { hs_free_database(d); }
};
struct HsScratchDeleter {
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
};
using DbPtr = std::unique_ptr<hs_database_t, HsDbDeleter>;
using ScratchPtr = std::unique_ptr<hs_scratch_t, HsScratchDeleter>;

struct Pcre2CodeDeleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct Pcre2MatchCtxDeleter {
  void operator()(pcre2_match_context* c) const { pcre2_match_context_free(c); }
};

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[256];
  pcre2_get_error_message(code, buf, sizeof buf);
  return reinterpret_cast<const char*>(buf);
}

struct Capture {
  std::unique_ptr<pcre2_code, Pcre2CodeDeleter> code;
  std::vector<std::pair<std::string, uint32_t>> names;  // sorted by name -> group number
};

std::string to_hex(const std::array<uint8_t, 32>& d) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) {
    s.push_back(hex[b >> 4]);
    s.push_back(hex[b & 15]);
  }
  return s;
}

class EngineImpl;

class ScannerImpl final : public Scanner {
 public:
  ScannerImpl(const EngineImpl* e, ScratchPtr scratch) : e_(e), scratch_(std::move(scratch)) {}
  void scan(std::string_view chunk, std::string_view kind,
            const std::function<void(const Hit&)>& fn) override;

 private:
  friend class EngineImpl;
  struct Ctx {
    ScannerImpl* self;
    const char* data;
    size_t base;  // offset of data within the caller's chunk
    size_t len;
    const uint8_t* applies;  // per signature: 1 = applies to this kind
  };
  static int on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
                      void* ctx);
  static int on_verify(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
                       void* ctx);
  void scan_piece(const char* data, size_t len, size_t base, const uint8_t* applies);
  bool line_matches(uint32_t sig, const char* line, size_t len);

  const EngineImpl* e_;
  ScratchPtr scratch_;
  std::vector<Hit> hits_;
  std::vector<size_t> last_begin_, last_end_;  // per signature: last reported line
  uint32_t verify_sig_ = 0;
  bool verify_found_ = false;
};

class EngineImpl final : public Engine {
 public:
  [[nodiscard]] const std::vector<Signature>& signatures() const override { return *sigs_; }
  void scan(std::string_view chunk, std::string_view kind,
            const std::function<void(const Hit&)>& fn) const override {
    default_scanner_->scan(chunk, kind, fn);
  }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> captures(
      uint32_t sig, std::string_view line) const override;
  [[nodiscard]] std::unique_ptr<Scanner> scanner() const override {
    if (!db_) return std::make_unique<ScannerImpl>(this, nullptr);
    hs_scratch_t* s = nullptr;
    if (hs_clone_scratch(default_scanner_->scratch_.get(), &s) != HS_SUCCESS) return nullptr;
    return std::make_unique<ScannerImpl>(this, ScratchPtr(s));
  }
  [[nodiscard]] const BuildInfo& build_info() const override { return info_; }
  [[nodiscard]] int64_t find(std::string_view id) const override {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? -1 : static_cast<int64_t>(it->second);
  }

  bool init(const RuleSet& rules, bool borrow, const std::filesystem::path& cache_dir,
            std::string* error);

  // Per kind: which signatures apply. kinds_[""] = all; unknown kinds use `other_`.
  const uint8_t* applies(std::string_view kind) const {
    if (kind.empty()) return all_.data();
    auto it = kinds_.find(kind);
    if (it != kinds_.end()) return it->second.data();
    return other_.data();
  }

  std::vector<Signature> own_sigs_;                  // a copy of the rule set's (build)
  const std::vector<Signature>* sigs_ = &own_sigs_;  // the rule set's own (build_borrowing)
  std::map<std::string, uint32_t, std::less<>> by_id_;
  std::vector<uint32_t> expr_sig_;  // expression id -> signature index
  std::vector<uint8_t> verify_;     // per signature: hits re-checked on their line
  std::map<std::string, std::vector<uint8_t>, std::less<>> kinds_;
  std::vector<uint8_t> all_, other_;
  DbPtr db_;
  std::unique_ptr<ScannerImpl> default_scanner_;
  std::vector<Capture> caps_;  // per signature (code null when none)
  std::unique_ptr<pcre2_match_context, Pcre2MatchCtxDeleter> mctx_;
  BuildInfo info_;
};

// ---------------------------------------------------------------------------------------------
// Scanning

int ScannerImpl::on_match(unsigned id, unsigned long long /*from*/, unsigned long long to,
                          unsigned /*flags*/, void* vctx) {
  auto* c = static_cast<Ctx*>(vctx);
  ScannerImpl* self = c->self;
  const uint32_t sig = self->e_->expr_sig_[id];
  if (!c->applies[sig]) return 0;
  // The last byte of the match decides the line (a match ending on '\n' belongs to its line).
  const size_t pos = to == 0 ? 0 : static_cast<size_t>(to) - 1;
  const size_t abs = c->base + pos;
  if (self->last_end_[sig] != SIZE_MAX && abs >= self->last_begin_[sig] &&
      abs <= self->last_end_[sig])
    return 0;  // already reported on this line
  const void* nl_before = pos == 0 ? nullptr : memrchr(c->data, '\n', pos);
  const size_t begin =
      nl_before ? static_cast<size_t>(static_cast<const char*>(nl_before) - c->data) + 1 : 0;
  const void* nl_after = memchr(c->data + pos, '\n', c->len - pos);
  const size_t end =
      nl_after ? static_cast<size_t>(static_cast<const char*>(nl_after) - c->data) : c->len;
  self->last_begin_[sig] = c->base + begin;
  self->last_end_[sig] = c->base + end;
  self->hits_.push_back(
      Hit{sig, c->base + static_cast<size_t>(to), c->base + begin, c->base + end});
  return 0;
}

int ScannerImpl::on_verify(unsigned id, unsigned long long, unsigned long long, unsigned,
                           void* vctx) {
  auto* self = static_cast<ScannerImpl*>(vctx);
  if (self->e_->expr_sig_[id] == self->verify_sig_) {
    self->verify_found_ = true;
    return 1;  // stop: found
  }
  return 0;
}

bool ScannerImpl::line_matches(uint32_t sig, const char* line, size_t len) {
  verify_sig_ = sig;
  verify_found_ = false;
  hs_scan(e_->db_.get(), line, static_cast<unsigned>(std::min<size_t>(len, UINT_MAX)), 0,
          scratch_.get(), &ScannerImpl::on_verify, this);
  return verify_found_;
}

void ScannerImpl::scan_piece(const char* data, size_t len, size_t base, const uint8_t* applies) {
  Ctx c{this, data, base, len, applies};
  hs_scan(e_->db_.get(), data, static_cast<unsigned>(len), 0, scratch_.get(),
          &ScannerImpl::on_match, &c);
}

void ScannerImpl::scan(std::string_view chunk, std::string_view kind,
                       const std::function<void(const Hit&)>& fn) {
  if (!e_->db_ || chunk.empty()) return;
  const uint8_t* applies = e_->applies(kind);
  const size_t n = e_->sigs_->size();
  hits_.clear();
  last_begin_.assign(n, 0);
  last_end_.assign(n, SIZE_MAX);
  // hs_scan takes an unsigned length: split larger chunks at line ends.
  constexpr size_t kMaxPiece = size_t{1} << 30;
  size_t off = 0;
  while (off < chunk.size()) {
    size_t len = chunk.size() - off;
    if (len > kMaxPiece) {
      const void* nl = memrchr(chunk.data() + off, '\n', kMaxPiece);
      len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - (chunk.data() + off)) + 1
               : kMaxPiece;
    }
    scan_piece(chunk.data() + off, len, off, applies);
    off += len;
  }
  if (hits_.empty()) return;
  // Hyperscan reports in end order per pattern, not strictly across all of them: make the
  // once-per-line rule exact and the order deterministic.
  std::sort(hits_.begin(), hits_.end(), [](const Hit& a, const Hit& b) {
    if (a.line_begin != b.line_begin) return a.line_begin < b.line_begin;
    if (a.signature != b.signature) return a.signature < b.signature;
    return a.end < b.end;
  });
  hits_.erase(std::unique(hits_.begin(), hits_.end(),
                          [](const Hit& a, const Hit& b) {
                            return a.line_begin == b.line_begin && a.signature == b.signature;
                          }),
              hits_.end());
  std::sort(hits_.begin(), hits_.end(), [](const Hit& a, const Hit& b) {
    return a.end != b.end ? a.end < b.end : a.signature < b.signature;
  });
  // Take the buffer: fn may scan again with this scanner.
  std::vector<Hit> hits;
  hits.swap(hits_);
  for (const Hit& h : hits) {
    if (e_->verify_[h.signature] &&
        !line_matches(h.signature, chunk.data() + h.line_begin, h.line_end - h.line_begin))
      continue;
    fn(h);
  }
  if (hits_.empty()) {
    hits.clear();
    hits_.swap(hits);  // keep the capacity for the next chunk
  }
}

// ---------------------------------------------------------------------------------------------
// Captures

std::vector<std::pair<std::string, std::string>> EngineImpl::captures(uint32_t sig,
                                                                      std::string_view line) const {
  std::vector<std::pair<std::string, std::string>> out;
  if (sig >= caps_.size() || !caps_[sig].code) return out;
  const Capture& cap = caps_[sig];
  if (line.size() > kCaptureMaxLine) line = line.substr(0, kCaptureMaxLine);
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(cap.code.get(), nullptr);
  if (!md) return out;
  const int rc = pcre2_match(cap.code.get(), reinterpret_cast<PCRE2_SPTR>(line.data()), line.size(),
                             0, 0, md, mctx_.get());
  if (rc > 0) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const uint32_t pairs = pcre2_get_ovector_count(md);
    for (const auto& [name, group] : cap.names) {
      if (group >= pairs) continue;
      const PCRE2_SIZE b = ov[2 * group], e = ov[2 * group + 1];
      if (b == PCRE2_UNSET || e < b) continue;
      out.emplace_back(name, std::string(line.substr(b, e - b)));
    }
  }
  pcre2_match_data_free(md);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Build

std::string where(const Signature& s, size_t pattern) {
  const int line = pattern < s.pattern_lines.size() ? s.pattern_lines[pattern] : s.file_line;
  return s.file + ":" + std::to_string(line) + ": " + s.id;
}

DbPtr load_cache(const std::filesystem::path& file, std::string* warning) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return nullptr;
  const auto mapped = MappedFile::open(file);  // core/mapped_file.hpp: no copy of the file
  if (!mapped) {
    *warning = file.string() + ": cannot be read";
    return nullptr;
  }
  const std::string_view bytes = mapped->bytes();
  if (bytes.size() < sizeof kCacheMagic + 32 ||
      std::memcmp(bytes.data(), kCacheMagic, sizeof kCacheMagic) != 0) {
    *warning = file.string() + ": not a faultline cache file, recompiled";
    return nullptr;
  }
  const std::string_view payload = bytes.substr(sizeof kCacheMagic + 32);
  // The sha256 after the magic is written but not verified here (issue 38: hashing the ~2 MB
  // database was 5% of a small node's CPU): hs_deserialize_database checks the header (magic,
  // version, platform, length) and the CRC32C of the whole bytecode itself and refuses a database
  // with any of them wrong; tests/tag/test_engine.cpp damages one byte of the bytecode to hold it
  // to that.
  hs_database_t* db = nullptr;
  if (hs_deserialize_database(payload.data(), payload.size(), &db) != HS_SUCCESS) {
    *warning = file.string() + ": corrupt cache or another Hyperscan version, recompiled";
    return nullptr;
  }
  // the mtime says when it was last used: pruning (prune_cache) removes the least recently used
  ::utimensat(AT_FDCWD, file.c_str(), nullptr, 0);
  return DbPtr(db);
}

// Keeps the cache directory bounded. Every rule edit, --rules DIR and Hyperscan/CPU change makes
// a new key, so old databases pile up: those of other keys unused (mtime: written or last loaded)
// for kCacheMaxAge are removed, then all but the kCacheKeep most recently used. Temporary files
// of writers that died are removed after an hour. Removing is safe for a process using an old
// file: it has mapped or read the whole file (an unlinked file stays mapped), and writers only ever
// rename complete files into place, so a reader sees a whole file or none. Errors are ignored (best
// effort).
void prune_cache(const std::filesystem::path& dir, const std::filesystem::path& current) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  std::vector<std::pair<fs::file_time_type, fs::path>> dbs;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::error_code fec;
    if (!e.is_regular_file(fec)) continue;
    const fs::path& p = e.path();
    const std::string name = p.filename().string();
    const auto mtime = e.last_write_time(fec);
    if (fec) continue;
    if (name.find(".hsdb.tmp.") != std::string::npos) {
      if (now - mtime > std::chrono::hours(1)) fs::remove(p, fec);
      continue;
    }
    if (p.extension() != ".hsdb" || p.filename() == current.filename()) continue;
    if (now - mtime > kCacheMaxAge)
      fs::remove(p, fec);
    else
      dbs.emplace_back(mtime, p);
  }
  if (dbs.size() <= kCacheKeep) return;
  std::sort(dbs.begin(), dbs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = kCacheKeep; i < dbs.size(); ++i) fs::remove(dbs[i].second, ec);
}

void store_cache(const hs_database_t* db, const std::filesystem::path& file, std::string* warning) {
  char* bytes = nullptr;
  size_t len = 0;
  if (hs_serialize_database(db, &bytes, &len) != HS_SUCCESS) {
    *warning = "cannot serialize the Hyperscan database";
    return;
  }
  std::string payload(bytes, len);
  std::free(bytes);
  Sha256 h;
  h.update(payload);
  const auto d = h.digest();
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::random_device rd;
  const auto tmp = file.string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(kCacheMagic, sizeof kCacheMagic);
    out.write(reinterpret_cast<const char*>(d.data()), 32);
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      *warning = file.parent_path().string() + ": cache not writable";
      return;
    }
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    *warning = file.string() + ": cache not writable";
    return;
  }
  prune_cache(file.parent_path(), file);
}

bool EngineImpl::init(const RuleSet& rules, bool borrow, const std::filesystem::path& cache_dir,
                      std::string* error) {
  if (borrow) {
    sigs_ = &rules.signatures;
  } else {
    own_sigs_ = rules.signatures;
    sigs_ = &own_sigs_;
  }
  const size_t n = sigs_->size();
  verify_.assign(n, 0);
  all_.assign(n, 1);
  other_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const Signature& s = (*sigs_)[i];
    by_id_.emplace(s.id, i);
    if (s.kinds.empty()) {
      other_[i] = 1;
    }
    for (const auto& k : s.kinds) {
      auto& v = kinds_[k];
      if (v.empty()) v.assign(n, 0);
      v[i] = 1;
    }
  }
  // Kinds mentioned anywhere also get the kind-less signatures (except "binary": text only).
  for (auto& [k, v] : kinds_) {
    if (k == "binary") continue;
    for (size_t i = 0; i < n; ++i)
      if ((*sigs_)[i].kinds.empty()) v[i] = 1;
  }
  if (!kinds_.count("binary")) kinds_["binary"].assign(n, 0);

  // Expressions of the active signatures.
  std::vector<const char*> exprs;
  std::vector<unsigned> flags, ids;
  std::vector<std::pair<uint32_t, size_t>> origin;  // expression -> (signature, pattern index)
  Sha256 key;
  key.update(std::string_view("faultline-tag-cache-v1"));
  key.update(std::string_view(hs_version()));
  hs_platform_info_t plat{};
  if (hs_populate_platform(&plat) == HS_SUCCESS) {
    key.update(std::to_string(plat.tune) + "/" + std::to_string(plat.cpu_features));
  }
  for (uint32_t i = 0; i < n; ++i) {
    const Signature& s = (*sigs_)[i];
    if (!s.active()) continue;
    for (size_t p = 0; p < s.patterns.size(); ++p) {
      const auto id = static_cast<unsigned>(exprs.size());
      exprs.push_back(s.patterns[p].c_str());
      flags.push_back(hs_flags(s));
      ids.push_back(id);
      expr_sig_.push_back(i);
      origin.emplace_back(i, p);
      if (detail::may_span_lines(s.patterns[p])) verify_[i] = 1;
      std::string k;
      k.push_back('\0');
      k += s.id;
      k.push_back('\0');
      k += std::to_string(flags.back());
      k.push_back('\0');
      k += s.patterns[p];
      key.update(k);
    }
  }
  info_.patterns = exprs.size();

  // Capture patterns (PCRE2), compiled once.
  mctx_.reset(pcre2_match_context_create(nullptr));
  if (!mctx_) throw std::bad_alloc();  // out of memory (ulimit -v): no null dereference below
  pcre2_set_match_limit(mctx_.get(), kCaptureMatchLimit);
  pcre2_set_depth_limit(mctx_.get(), kCaptureDepthLimit);
  pcre2_set_heap_limit(mctx_.get(), kCaptureHeapLimitKiB);
  caps_.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const Signature& s = (*sigs_)[i];
    if (s.capture.empty() || !s.active()) continue;
    int err = 0;
    PCRE2_SIZE erroff = 0;
    pcre2_code* code =
        pcre2_compile(reinterpret_cast<PCRE2_SPTR>(s.capture.data()), s.capture.size(),
                      s.caseless ? PCRE2_CASELESS : 0U, &err, &erroff, nullptr);
    if (!code) {
      if (error)
        *error = s.file + ":" + std::to_string(s.capture_line ? s.capture_line : s.file_line) +
                 ": " + s.id + ": capture pattern: " + pcre2_message(err) + " at offset " +
                 std::to_string(erroff);
      return false;
    }
    caps_[i].code.reset(code);
    uint32_t count = 0, entry = 0;
    PCRE2_SPTR table = nullptr;
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    for (uint32_t j = 0; j < count; ++j) {
      const PCRE2_SPTR e = table + static_cast<size_t>(j) * entry;
      const uint32_t group = (static_cast<uint32_t>(e[0]) << 8) | e[1];
      caps_[i].names.emplace_back(reinterpret_cast<const char*>(e + 2), group);
    }
    std::sort(caps_[i].names.begin(), caps_[i].names.end());
  }

  if (exprs.empty()) {
    // Nothing to scan for: an engine that never hits.
    default_scanner_ = std::make_unique<ScannerImpl>(this, nullptr);
    return true;
  }

  if (!cache_dir.empty()) {
    info_.cache_file = cache_dir / (to_hex(key.digest()) + ".hsdb");
    db_ = load_cache(info_.cache_file, &info_.cache_warning);
    info_.from_cache = static_cast<bool>(db_);
  }
  if (!db_) {
    hs_database_t* db = nullptr;
    hs_compile_error_t* cerr = nullptr;
    if (hs_compile_multi(exprs.data(), flags.data(), ids.data(),
                         static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db,
                         &cerr) != HS_SUCCESS) {
      if (error) {
        std::string msg = cerr && cerr->message ? cerr->message : "unknown Hyperscan error";
        if (cerr && cerr->expression >= 0 &&
            static_cast<size_t>(cerr->expression) < origin.size()) {
          const auto [si, pi] = origin[static_cast<size_t>(cerr->expression)];
          *error =
              where((*sigs_)[si], pi) + ": pattern `" + (*sigs_)[si].patterns[pi] + "`: " + msg;
        } else {
          *error = "Hyperscan: " + msg;
        }
      }
      if (cerr) hs_free_compile_error(cerr);
      return false;
    }
    db_.reset(db);
    if (!info_.cache_file.empty()) store_cache(db_.get(), info_.cache_file, &info_.cache_warning);
  }
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(db_.get(), &scratch) != HS_SUCCESS) {
    if (error) *error = "Hyperscan: cannot allocate scratch space";
    return false;
  }
  default_scanner_ = std::make_unique<ScannerImpl>(this, ScratchPtr(scratch));
  return true;
}

}  // namespace

namespace {
std::unique_ptr<Engine> build_engine(const RuleSet& rules, bool borrow,
                                     const std::filesystem::path& cache_dir, std::string* error) {
  auto e = std::make_unique<EngineImpl>();
  std::string err;
  if (!e->init(rules, borrow, cache_dir, &err)) {
    if (error) *error = err;
    return nullptr;
  }
  return e;
}
}  // namespace

std::unique_ptr<Engine> Engine::build(const RuleSet& rules, const std::filesystem::path& cache_dir,
                                      std::string* error) {
  return build_engine(rules, false, cache_dir, error);
}

std::unique_ptr<Engine> Engine::build_borrowing(const RuleSet& rules,
                                                const std::filesystem::path& cache_dir,
                                                std::string* error) {
  return build_engine(rules, true, cache_dir, error);
}

}  // namespace faultline::tag
