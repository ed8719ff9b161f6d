// The `analyze` job: ingest -> classify -> (scan + parse) -> store -> clock -> correlate.
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "composite.hpp"
#include "faultline/app/app.hpp"
#include "faultline/classify/classify.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "faultline/correlate/fleet.hpp"
#include "faultline/parse/clock.hpp"
#include "faultline/parse/fs_path.hpp"
#include "faultline/parse/parser.hpp"
#include "faultline/tag/tag.hpp"
#include "host_facts.hpp"
#include "prepared.hpp"
#include "rule_cache.hpp"
#include "stats.hpp"

namespace faultline::app {

namespace {

constexpr size_t kHeadBytes = 64 * 1024;
constexpr size_t kMaxPendingHits = 20000;
constexpr size_t kMaxAnchorsPerRoot = 8000;

// Streaming zstd compression of a member's text (for --keep-raw), bounded by the compressed size.
class Compressor {
 public:
  Compressor() : cctx_(ZSTD_createCCtx()) {
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, 1);
  }
  ~Compressor() { ZSTD_freeCCtx(cctx_); }
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  void add(std::string_view data, bool end) {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    std::array<char, 1 << 16> buf{};
    while (true) {
      ZSTD_outBuffer out{buf.data(), buf.size(), 0};
      const size_t rem = ZSTD_compressStream2(cctx_, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(rem)) throw std::runtime_error(ZSTD_getErrorName(rem));
      out_.append(buf.data(), out.pos);
      if (end ? rem == 0 : in.pos == in.size) break;
    }
  }
  std::string take() { return std::move(out_); }

 private:
  ZSTD_CCtx* cctx_;
  std::string out_;
};

// Times the reads of a member (decompression for archives).
class TimedReader final : public ingest::MemberReader {
 public:
  TimedReader(ingest::MemberReader& r, double& acc) : r_(r), acc_(acc) {}
  size_t read(char* buf, size_t n) override {
    ScopeTimer t(acc_);
    return r_.read(buf, n);
  }
  [[nodiscard]] bool truncated() const override { return r_.truncated(); }

 private:
  ingest::MemberReader& r_;
  double& acc_;
};

// Work handed from the reading thread (walk, decompression, line chunks, sha256, classification,
// Hyperscan) to the writing thread (parsers, pending hits, SQLite rows), run in order. The
// SQLite connection is used by the writing thread only while the walk runs. Bounded: at most
// kMaxInFlight bytes of chunk copies wait; small tasks go in batches so that a bundle of many
// tiny files does not pay a lock per file. Threads off: every task runs at once, on the caller.
class Handoff {
 public:
  using Task = std::function<void()>;
  static constexpr size_t kMaxInFlight = 8U << 20;
  static constexpr size_t kBatchBytes = 256U << 10;
  static constexpr size_t kBatchTasks = 64;

  Handoff(bool threaded, Stats& stats) : stats_(stats) {
    if (threaded) worker_ = std::thread([this] { run(); });
  }
  ~Handoff() { abort(); }
  Handoff(const Handoff&) = delete;
  Handoff& operator=(const Handoff&) = delete;

  [[nodiscard]] bool threaded() const { return worker_.joinable(); }

  // Reading thread. Rethrows the first error of a task on the writing thread.
  void push(Task t, size_t bytes) {
    if (!threaded()) {
      t();
      return;
    }
    batch_.push_back(std::move(t));
    batch_bytes_ += bytes;
    if (batch_bytes_ >= kBatchBytes || batch_.size() >= kBatchTasks) flush();
  }

  // Reading thread, after the walk: runs what is left and waits for it. Rethrows.
  void finish() {
    if (!threaded()) return;
    flush();
    {
      std::unique_lock<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_work_.notify_one();
    worker_.join();
    if (error_) std::rethrow_exception(error_);
  }

  // Chunk buffers are reused: no page faults for a fresh 1 MiB buffer per chunk.
  std::string buffer() {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (pool_.empty()) return {};
    std::string b = std::move(pool_.back());
    pool_.pop_back();
    return b;
  }
  void recycle(std::string b) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (pool_.size() < 16) {
      b.clear();
      pool_.push_back(std::move(b));
    }
  }

  // On an error of the reading thread: drop what waits and end the writing thread (before the
  // objects its tasks use are destroyed).
  void abort() {
    if (!threaded()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_work_.notify_one();
    worker_.join();
  }

 private:
  struct Batch {
    std::vector<Task> tasks;
    size_t bytes = 0;
  };

  void flush() {
    if (batch_.empty()) return;
    Batch b{std::move(batch_), batch_bytes_};
    batch_.clear();
    batch_bytes_ = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (in_flight_ + b.bytes > kMaxInFlight && in_flight_ > 0 && !error_) {
        const auto t0 = std::chrono::steady_clock::now();
        cv_space_.wait(lock, [&] {
          return in_flight_ + b.bytes <= kMaxInFlight || in_flight_ == 0 || error_;
        });
        stats_.reader_wait_s +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      if (error_) {
        const std::exception_ptr e = error_;
        lock.unlock();
        throw_error(e);
      }
      in_flight_ += b.bytes;
      queue_.push_back(std::move(b));
    }
    cv_work_.notify_one();
  }

  [[noreturn]] static void throw_error(const std::exception_ptr& e) { std::rethrow_exception(e); }

  void run() {
    while (true) {
      Batch b;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (queue_.empty() && !done_ && !stop_) {
          const auto t0 = std::chrono::steady_clock::now();
          cv_work_.wait(lock, [&] { return !queue_.empty() || done_ || stop_; });
          stats_.writer_wait_s +=
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        if (stop_ || (queue_.empty() && done_)) break;
        b = std::move(queue_.front());
        queue_.pop_front();
      }
      if (!error_) {
        try {
          for (auto& t : b.tasks) {
            if (stop_) break;
            t();
          }
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu_);
          error_ = std::current_exception();
        }
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        in_flight_ -= b.bytes;
      }
      cv_space_.notify_one();
    }
    stats_.writer_cpu_s = thread_cpu_seconds();
  }

  Stats& stats_;
  std::thread worker_;
  std::vector<Task> batch_;  // reading thread only
  size_t batch_bytes_ = 0;
  std::mutex mu_;
  std::condition_variable cv_work_, cv_space_;
  std::deque<Batch> queue_;
  size_t in_flight_ = 0;
  bool done_ = false;
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
  std::mutex pool_mu_;
  std::vector<std::string> pool_;
};

struct PendingHit {
  uint32_t sig;
  uint32_t line;
  uint64_t offset;
  std::string text;  // the line, for a generic event when no parser event covers it
};

// A time that can anchor a clock: a line with both a wall time and an uptime, or with an epoch
// payload. Year-less ones wait until the host's reference time is known.
struct Anchor {
  RawTime t;
  std::optional<int64_t> epoch_ns;
};

struct RootInfo {
  classify::HostHint best;            // strongest name hint
  std::vector<Anchor> anchors;        // bounded
  clock::SameLines same;              // one message in two clocks (bounded)
  int64_t reference_naive = kNoTime;  // newest fully dated host-local/UTC time seen
};

std::string captures_json(const std::vector<std::pair<std::string, std::string>>& caps) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : caps) j[k] = text::sanitize_utf8(v);
  return j.dump();
}

// Runs on two threads when Options::pipeline_threads is set (see Handoff): member() and
// warning() are called by the walk on the reading thread; everything that touches the database,
// the parsers and roots_ runs in tasks on the writing thread. `cls` classifies members (reading
// thread); `section_cls` gives the classifier of composite files' sections (writing thread; on
// two threads a second one, built at the first composite file: a Classifier keeps PCRE2 match
// data and must not be shared by two threads).
class Pipeline final : public ingest::Visitor {
 public:
  Pipeline(store::Db& db, int64_t bundle, const Options& opts, const classify::Classifier& cls,
           std::function<const classify::Classifier&()> section_cls, const tag::Engine* engine,
           Stats& stats, Handoff& handoff)
      : db_(db),
        bundle_(bundle),
        opts_(opts),
        cls_(cls),
        section_cls_(std::move(section_cls)),
        engine_(engine),
        stats_(stats),
        handoff_(handoff),
        // The reading thread (decompression, Hyperscan) is the busier one by default: the
        // digests go to the writing thread, unless --keep-raw's zstd already loads that one.
        sha_on_writer_(handoff.threaded() && !opts.keep_raw),
        chunker_(opts.limits.max_line_bytes) {}

  void warning(const Warning& w) override {
    handoff_.push([this, w] { write_warning(w); }, w.message.size());
  }

  void member(const ingest::MemberInfo& info, ingest::MemberReader& reader) override;

  // A symlink member is a file-system fact of its host, never followed (docs/facts.md "Symlink
  // members"): a member row of kind "symlink" and `fs.<path on the host> = symlink:<target>`.
  void symlink(const ingest::MemberInfo& info, std::string_view target) override {
    const classify::HostHint hint = classify::host_from_path(info.path);
    handoff_.push(
        [this, path = info.path, hint, target = std::string(target)] {
          const std::string& root = hint.root;
          auto& ri = roots_[root];
          if (hint.strength > ri.best.strength) ri.best = hint;
          store::MemberRow row;
          row.path = path;
          row.host = root;
          row.kind = "symlink";
          row.kind_reason = "archive";
          ScopeTimer t(stats_.rows_s);
          const int64_t id = db_.add_member(bundle_, row);
          db_.add_fact(bundle_, root,
                       Fact{"fs." + parse::host_path_of_member(path), "symlink:" + target, 0}, id);
          ++stats_.facts;
        },
        info.path.size() + target.size());
  }

  // After Handoff::finish().
  std::map<std::string, RootInfo>& roots() { return roots_; }

 private:
  class Sink;
  struct Member;  // state of one member on the writing thread
  struct HitLine {
    uint32_t sig, line;
    uint64_t offset;
    std::string text;
  };
  void write_warning(const Warning& w) { db_.add_warning(bundle_, w); }
  void write_chunk(Member& m, std::string_view chunk, uint32_t first_line, uint64_t offset,
                   const std::vector<HitLine>& hits);

  store::Db& db_;
  int64_t bundle_;
  const Options& opts_;
  const classify::Classifier& cls_;
  std::function<const classify::Classifier&()> section_cls_;
  const tag::Engine* engine_;
  Stats& stats_;
  Handoff& handoff_;
  const bool sha_on_writer_;
  // one for all members: its ~2 MiB buffer is allocated (and zeroed) once, not per member
  ingest::LineChunker chunker_;            // reading thread
  std::map<std::string, RootInfo> roots_;  // writing thread
  uint64_t members_done_ = 0;              // reading thread
  uint64_t bytes_done_ = 0;
  std::chrono::steady_clock::time_point last_progress_{};
};

// Receives the parser's events and facts for one member and writes the rows worth keeping.
class Pipeline::Sink final : public parse::Sink {
 public:
  Sink(Pipeline& p, int64_t member, std::string root, std::string_view kind)
      : p_(p), member_(member), root_(std::move(root)), kind_(kind) {}

  void event(const Event& e) override {
    ++parsed_;
    if (e.time.has_civil())
      note_time(e);
    else if (e.time.has_uptime())
      root_info().same.add(e);  // plain dmesg: the uptime of a line host_kernel.log dates
    const uint32_t first = e.line;
    const uint32_t last = e.line + (e.line_count == 0 ? 0 : e.line_count - 1);
    // hits on the event's lines
    auto lo = pending_.lower_bound(first);
    const bool hit = lo != pending_.end() && lo->first <= last;
    if (!(hit || e.keep || e.severity >= Severity::warning)) return;
    int64_t id;
    {
      ScopeTimer t(p_.stats_.rows_s);
      id = p_.db_.add_event(p_.bundle_, member_, root_, e);
    }
    ++p_.stats_.events;
    while (lo != pending_.end() && lo->first <= last) {
      for (const auto& h : lo->second) attach(id, h);
      lo = pending_.erase(lo);
    }
  }

  void fact(const Fact& f) override {
    ScopeTimer t(p_.stats_.rows_s);
    p_.db_.add_fact(p_.bundle_, root_, f, member_);
    ++p_.stats_.facts;
  }

  void malformed(const parse::LineCtx& /*ctx*/, std::string_view /*why*/) override { ++malformed_; }

  void hit(uint32_t sig, uint32_t line, uint64_t offset, std::string_view text) {
    auto& v = pending_[line];
    for (const auto& h : v)
      if (h.sig == sig) return;
    v.push_back(PendingHit{sig, line, offset, std::string(text)});
    ++npending_;
  }

  // Hits on lines no parser event covered become generic events (one per line).
  void flush(uint32_t before_line) {
    for (auto it = pending_.begin(); it != pending_.end() && (it->first < before_line);) {
      flush_line(it->second);
      it = pending_.erase(it);
    }
  }
  void flush_all() { flush(UINT32_MAX); }
  void flush_if_large() {
    if (npending_ < kMaxPendingHits) return;
    // keep the newest half: blocks still open in the parser may claim them
    const uint32_t cut = std::next(pending_.begin(), static_cast<long>(pending_.size() / 2))->first;
    flush(cut);
    npending_ = 0;
    for (const auto& [l, v] : pending_) npending_ += v.size();
  }

  uint32_t parsed() const { return parsed_; }
  uint32_t malformed() const { return malformed_; }

 private:
  void flush_line(const std::vector<PendingHit>& hits) {
    const PendingHit& first = hits.front();
    Event e;
    e.line = first.line;
    e.offset = first.offset;
    e.text = first.text;
    e.message = first.text;
    Severity sev = Severity::info;
    for (const auto& h : hits) sev = std::max(sev, p_.engine_->signatures()[h.sig].severity);
    e.severity = sev;
    int64_t id;
    {
      ScopeTimer t(p_.stats_.rows_s);
      id = p_.db_.add_event(p_.bundle_, member_, root_, e);
    }
    ++p_.stats_.events;
    for (const auto& h : hits) attach(id, h);
  }

  void attach(int64_t event_id, const PendingHit& h) {
    const auto& sig = p_.engine_->signatures()[h.sig];
    const std::string caps = captures_json(p_.engine_->captures(h.sig, h.text));
    ScopeTimer t(p_.stats_.rows_s);
    p_.db_.add_hit(p_.bundle_, event_id, sig.id, caps);
    ++p_.stats_.hits;
  }

  void note_time(const Event& e) {
    RootInfo& root = root_info();
    if (e.time.year >= 2000 && (e.time.clock == Clock::host_local || e.time.clock == Clock::utc)) {
      const int64_t n = clock::naive_ns(e.time);
      if (root.reference_naive == kNoTime || n > root.reference_naive) root.reference_naive = n;
    }
    root.same.add(e);
    if (root.anchors.size() >= kMaxAnchorsPerRoot) return;
    auto ep = clock::epoch_payload_ns(e.message);
    if (e.time.has_uptime() || ep) root.anchors.push_back(Anchor{e.time, ep});
  }

  // the member's root in p_.roots_, looked up once (std::map nodes do not move)
  RootInfo& root_info() {
    if (root_info_ == nullptr) root_info_ = &p_.roots_[root_];
    return *root_info_;
  }

  Pipeline& p_;
  RootInfo* root_info_ = nullptr;
  int64_t member_;
  std::string root_;
  std::string_view kind_;
  std::map<uint32_t, std::vector<PendingHit>> pending_;
  size_t npending_ = 0;
  uint32_t parsed_ = 0;
  uint32_t malformed_ = 0;
};

// A text log written up to an unclean shutdown has a run of NULs where its unflushed tail was,
// and the next boot's first line right after it: that line is what follows the last NUL.
std::string_view after_nul_run(std::string_view line) {
  const size_t nul = line.rfind('\0');
  return nul == std::string_view::npos ? line : line.substr(nul + 1);
}

struct Pipeline::Member {
  store::MemberRow row;
  int64_t id = 0;
  std::string root;
  std::unique_ptr<parse::Parser> parser;
  std::unique_ptr<Sink> sink;
  std::string whole;  // small members kept whole
  bool whole_ok = true;
  std::unique_ptr<Compressor> comp;
  Sha256 sha;  // updated by one thread: the reading one, or the writing one (sha_on_writer_)
};

void Pipeline::write_chunk(Member& m, std::string_view chunk, uint32_t first_line, uint64_t offset,
                           const std::vector<HitLine>& hits) {
  if (m.whole_ok) {
    if (m.whole.size() + chunk.size() <= opts_.small_member_bytes) {
      m.whole.append(chunk);
    } else {
      m.whole_ok = false;
      m.whole.clear();
      m.whole.shrink_to_fit();
    }
  }
  if (m.comp) {
    ScopeTimer t(stats_.raw_s);
    m.comp->add(chunk, false);
  }
  if (sha_on_writer_) {
    ScopeTimer t(stats_.sha_s);
    m.sha.update(chunk);
  }
  const auto tp = std::chrono::steady_clock::now();
  const double rows0 = stats_.rows_s;
  for (const auto& h : hits) m.sink->hit(h.sig, h.line, h.offset, h.text);
  if (m.parser) {
    // environ and cmdline are NUL-separated by design; other lines are cut after a NUL run only
    // in a chunk that has one (one memchr per chunk instead of a reverse scan per line)
    const bool nul_separated = m.row.kind == "environ" || m.row.kind == "proc_cmdline";
    const bool cut_nuls =
        !nul_separated && std::memchr(chunk.data(), '\0', chunk.size()) != nullptr;
    size_t pos = 0;
    uint32_t line_no = first_line;
    while (pos < chunk.size()) {
      const size_t nl = chunk.find('\n', pos);
      const size_t end = nl == std::string_view::npos ? chunk.size() : nl;
      std::string_view line = chunk.substr(pos, end - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      // a UTF-8 byte order mark (files saved by Windows editors) is not part of the first line
      if (offset + pos == 0 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
      if (cut_nuls) line = after_nul_run(line);
      m.parser->line(line, parse::LineCtx{line_no, offset + pos}, *m.sink);
      pos = end + 1;
      ++line_no;
    }
    m.sink->flush_if_large();
  } else {
    m.sink->flush_all();  // no parser will claim these lines
  }
  stats_.parse_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tp).count() -
                    (stats_.rows_s - rows0);
}

void Pipeline::member(const ingest::MemberInfo& info, ingest::MemberReader& reader) {
  // reading thread: decompression, line chunks, sha256, classification, Hyperscan
  const classify::HostHint path_hint = classify::host_from_path(info.path);
  auto m = std::make_shared<Member>();
  m->row.path = info.path;
  m->row.host = path_hint.root;
  m->root = path_hint.root;
  if (opts_.keep_raw) m->comp = std::make_unique<Compressor>();
  handoff_.push(
      [this, m, path_hint] {
        auto& root = roots_[path_hint.root];
        if (path_hint.strength > root.best.strength) root.best = path_hint;
        ScopeTimer t(stats_.rows_s);
        m->id = db_.add_member(bundle_, m->row);
      },
      info.path.size());

  std::string kind;
  bool classified = false;
  TimedReader timed(reader, stats_.read_s);
  const auto st = chunker_.run(timed, [&](std::string_view chunk, uint32_t first_line,
                                          uint64_t offset) {
    if (!sha_on_writer_) {
      ScopeTimer t(stats_.sha_s);
      m->sha.update(chunk);
    }
    if (!classified) {
      classified = true;
      const std::string_view head = chunk.substr(0, kHeadBytes);
      const auto c = cls_.classify(info.path, head);
      kind = c.kind;
      ++stats_.kinds[kind];
      // the name of a compressed single file (syslog.2.gz) is classified by its inner name
      const classify::HostHint hint = classify::host_from_content(kind, info.path, head);
      handoff_.push(
          [this, m, c, hint, path = info.path] {
            m->row.kind = c.kind;
            m->row.kind_reason = c.reason;
            auto& root = roots_[m->root];
            if (hint.strength > root.best.strength) root.best = hint;
            if (m->row.kind == "composite")
              m->parser = std::make_unique<CompositeParser>(section_cls_(), path);
            else
              m->parser = parse::make_parser(m->row.kind, path);
            m->sink = std::make_unique<Sink>(*this, m->id, m->root, m->row.kind);
          },
          0);
    }
    std::vector<HitLine> hits;
    {
      ScopeTimer t(stats_.tag_s);
      if (engine_ != nullptr && kind != "binary") {
        // map hit end offsets to lines: walk the chunk's line starts once, in order
        std::vector<tag::Hit> raw;
        // unknown text gets every signature: a renamed or ad-hoc file must still be tagged; so
        // does a composite file (a pasted shell session, OS_info.log): its sections are of any kind
        const std::string_view scan_kind =
            kind == "text" || kind == "composite" ? std::string_view() : std::string_view(kind);
        engine_->scan(chunk, scan_kind, [&](const tag::Hit& h) { raw.push_back(h); });
        if (!raw.empty()) {
          std::sort(raw.begin(), raw.end(),
                    [](const tag::Hit& a, const tag::Hit& b) { return a.end < b.end; });
          size_t line_start = 0;
          uint32_t line_no = first_line;
          size_t hi = 0;
          while (hi < raw.size() && line_start < chunk.size()) {
            const size_t nl = chunk.find('\n', line_start);
            const size_t line_end = nl == std::string_view::npos ? chunk.size() : nl;
            while (hi < raw.size() && raw[hi].end <= line_end + 1) {
              std::string_view line = chunk.substr(line_start, line_end - line_start);
              if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
              if (kind != "environ" && kind != "proc_cmdline") line = after_nul_run(line);
              hits.push_back(
                  HitLine{raw[hi].signature, line_no, offset + line_start, std::string(line)});
              ++hi;
            }
            line_start = line_end + 1;
            ++line_no;
          }
        }
      }
    }
    if (!handoff_.threaded()) {
      write_chunk(*m, chunk, first_line, offset, hits);
      return true;
    }
    std::string copy = handoff_.buffer();
    copy.assign(chunk.data(), chunk.size());
    const size_t n = copy.size();
    handoff_.push(
        [this, m, copy = std::move(copy), first_line, offset, hits = std::move(hits)]() mutable {
          write_chunk(*m, copy, first_line, offset, hits);
          handoff_.recycle(std::move(copy));
        },
        n);
    return true;
  });

  std::optional<classify::Classification> empty;
  if (!classified) {
    empty = cls_.classify(info.path, {});  // empty member
    ++stats_.kinds[empty->kind];
  }
  const bool truncated = reader.truncated();
  handoff_.push(
      [this, m, st, truncated, empty, path = info.path] {
        store::MemberRow& row = m->row;
        if (empty) {
          row.kind = empty->kind;
          row.kind_reason = empty->reason;
        }
        {
          const auto tf = std::chrono::steady_clock::now();
          const double rows0 = stats_.rows_s;
          if (m->parser && m->sink) m->parser->finish(*m->sink);
          if (m->sink) m->sink->flush_all();
          stats_.parse_s +=
              std::chrono::duration<double>(std::chrono::steady_clock::now() - tf).count() -
              (stats_.rows_s - rows0);
        }
        row.size = st.bytes;
        row.sha256 = m->sha.hex();
        row.lines = st.lines;
        row.long_lines = st.long_lines;
        row.truncated = truncated;
        // NULs the classifier did not see; a kind it gave despite NULs (NUL-separated environ,
        // a syslog with the NUL block of an unclean shutdown) stands
        if (st.binary && row.kind == "text") row.kind = "binary";
        if (m->sink) {
          row.parsed_lines = m->sink->parsed();
          row.malformed_lines = m->sink->malformed();
        }
        if (m->whole_ok && row.kind != "binary" && st.bytes > 0) {
          ScopeTimer t(stats_.rows_s);
          db_.add_member_text(m->id, m->whole,
                              "plain");  // small members: whole, even with --keep-raw
          row.text_stored = "whole";
        } else if (m->comp) {
          std::string z;
          {
            ScopeTimer t(stats_.raw_s);
            m->comp->add({}, true);
            z = m->comp->take();
          }
          stats_.raw_bytes += z.size();
          ScopeTimer t(stats_.rows_s);
          db_.add_member_text(m->id, z, "zstd");
          row.text_stored = "zstd";
        }
        if (st.long_lines > 0)
          write_warning(Warning{path, std::to_string(st.long_lines) + " line(s) longer than " +
                                          std::to_string(opts_.limits.max_line_bytes) +
                                          " bytes were cut at that length"});
        {
          ScopeTimer t(stats_.rows_s);
          db_.update_member(m->id, row);
        }
        ++stats_.members;
        stats_.bytes += st.bytes;
        stats_.lines += st.lines;
        // the member's state (parser, text) is released with the last task that holds it
      },
      64);
  ++members_done_;
  bytes_done_ += st.bytes;
  if (opts_.progress) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_progress_ > std::chrono::milliseconds(250)) {
      last_progress_ = now;
      std::fprintf(stderr, "\rfaultline: %llu files, %.1f MB read",
                   static_cast<unsigned long long>(members_done_),
                   static_cast<double>(bytes_done_) / 1e6);
      std::fflush(stderr);
    }
  }
}

// Reads one column of text from a statement (NULL -> "").
std::string col_text(sqlite3_stmt* s, int i) {
  const auto* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
}

Clock clock_from(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(Clock::epoch); ++i)
    if (to_string(static_cast<Clock>(i)) == s) return static_cast<Clock>(i);
  return Clock::none;
}

// faultline-collect writes each command's output to its own file and the command into
// manifest.json. A single-directory `ls -l DIR` output names its entries relative to DIR: give
// those fs.* facts their absolute path from the command.
void apply_manifests(store::Db& db, int64_t bundle) {
  sqlite3* h = db.handle();
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h,
                     "SELECT m.path, t.data FROM members m JOIN member_text t ON t.member_id=m.id "
                     "WHERE m.bundle_id=? AND m.kind='manifest' AND t.encoding='plain'",
                     -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, bundle);
  std::vector<std::pair<std::string, std::string>> fixes;  // member path, directory
  while (sqlite3_step(s) == SQLITE_ROW) {
    const std::string mpath = col_text(s, 0);
    const auto* data = static_cast<const char*>(sqlite3_column_blob(s, 1));
    const std::string json(data ? data : "", static_cast<size_t>(sqlite3_column_bytes(s, 1)));
    const size_t slash = mpath.rfind('/');
    const std::string prefix = slash == std::string::npos ? "" : mpath.substr(0, slash + 1);
    const auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("commands") || !j["commands"].is_array())
      continue;
    for (const auto& c : j["commands"]) {
      if (!c.is_object() || !c.contains("cmd") || !c.contains("file")) continue;
      if (!c["cmd"].is_string() || !c["file"].is_string()) continue;
      const std::string cmd = c["cmd"].get<std::string>();
      const auto words = text::split_ws(cmd);
      if (words.size() < 2 || words[0] != "ls") continue;
      std::vector<std::string_view> args;
      for (size_t i = 1; i < words.size(); ++i)
        if (words[i].empty() || words[i][0] != '-') args.push_back(words[i]);
      if (args.size() != 1 || args[0].empty() || args[0][0] != '/') continue;
      std::string dir(args[0]);
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      fixes.emplace_back(prefix + c["file"].get<std::string>(), dir);
    }
  }
  sqlite3_finalize(s);
  if (fixes.empty()) return;
  const bool own_tx = sqlite3_get_autocommit(h) != 0;  // else: inside the bulk load's transaction
  if (own_tx) db.begin();
  sqlite3_prepare_v2(h,
                     "UPDATE facts SET name = 'fs.' || ?1 || '/' || substr(name, 4) "
                     "WHERE bundle_id=?2 AND name LIKE 'fs.%' AND substr(name, 4, 1) <> '/' AND "
                     "member_id = (SELECT id FROM members WHERE bundle_id=?2 AND path=?3)",
                     -1, &s, nullptr);
  for (const auto& [member, dir] : fixes) {
    sqlite3_bind_text(s, 1, dir.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, bundle);
    sqlite3_bind_text(s, 3, member.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(s);
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  if (own_tx) db.commit();
}

// The SQL functions of the event-time pass: fl_host(host) -> the host's name;
// fl_time(id, host, clock, raw_civil_ns, raw_has_year, uptime_ns, time_ns) -> UTC ns or NULL;
// fl_quality(id, ..., time_quality) -> quality. Rows of an unknown root keep their old value.
// Both time functions resolve a row once (cached by id), whatever order SQLite calls them in.
struct EventTimes {
  std::map<std::string, std::pair<std::string, clock::ClockModel>, std::less<>>
      roots;  // root -> (name, model)
  int64_t id = 0;
  bool have = false;
  bool known = false;
  clock::Resolved r;

  const std::pair<std::string, clock::ClockModel>* root_of(sqlite3_value* v) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
    const std::string_view host =
        p ? std::string_view(p, static_cast<size_t>(sqlite3_value_bytes(v))) : std::string_view();
    const auto it = roots.find(host);
    return it == roots.end() ? nullptr : &it->second;
  }
  // resolves row argv (id, host, clock, raw_civil_ns, raw_has_year, uptime_ns, old)
  void resolve_row(sqlite3_value** argv) {
    const int64_t row = sqlite3_value_int64(argv[0]);
    if (have && row == id) return;
    have = true;
    id = row;
    const auto* rt = root_of(argv[1]);
    known = rt != nullptr;
    if (!known) return;
    RawTime t;
    const auto* c = reinterpret_cast<const char*>(sqlite3_value_text(argv[2]));
    t.clock = clock_from(c ? std::string_view(c, static_cast<size_t>(sqlite3_value_bytes(argv[2])))
                           : std::string_view());
    if (sqlite3_value_type(argv[3]) != SQLITE_NULL) {
      const Civil cv = ns_to_civil(sqlite3_value_int64(argv[3]));
      t.year = sqlite3_value_int(argv[4]) != 0 ? cv.year : 0;
      t.month = cv.month;
      t.day = cv.day;
      t.hour = cv.hour;
      t.minute = cv.minute;
      t.second = cv.second;
      t.nanos = cv.nanos;
    }
    if (sqlite3_value_type(argv[5]) != SQLITE_NULL) t.uptime_ns = sqlite3_value_int64(argv[5]);
    r = clock::resolve(rt->second, t);
  }
  static EventTimes& of(sqlite3_context* c) {
    return *static_cast<EventTimes*>(sqlite3_user_data(c));
  }
  static void sql_host(sqlite3_context* c, int, sqlite3_value** argv) {
    const auto* rt = of(c).root_of(argv[0]);
    if (rt == nullptr) {
      sqlite3_result_value(c, argv[0]);
      return;
    }
    sqlite3_result_text(c, rt->first.data(), static_cast<int>(rt->first.size()), SQLITE_STATIC);
  }
  static void sql_time(sqlite3_context* c, int, sqlite3_value** argv) {
    EventTimes& e = of(c);
    e.resolve_row(argv);
    if (!e.known)
      sqlite3_result_value(c, argv[6]);
    else if (e.r.ns == kNoTime)
      sqlite3_result_null(c);
    else
      sqlite3_result_int64(c, e.r.ns);
  }
  static void sql_quality(sqlite3_context* c, int, sqlite3_value** argv) {
    EventTimes& e = of(c);
    e.resolve_row(argv);
    if (!e.known) {
      sqlite3_result_value(c, argv[6]);
      return;
    }
    const auto q = to_string(e.r.quality);
    sqlite3_result_text(c, q.data(), static_cast<int>(q.size()), SQLITE_STATIC);
  }
};

// Gives every host its name and every event its UTC time.
void resolve_hosts_and_clocks(store::Db& db, int64_t bundle, std::map<std::string, RootInfo>& roots,
                              const std::string& bundle_name) {
  sqlite3* h = db.handle();
  // host names. Roots that name no host (extra folders next to one node's collection, e.g.
  // case/ beside faultline_<host>_<ts>/) belong to that node when the bundle names exactly one.
  std::map<std::string, std::string> names;
  std::set<std::string> hinted;
  for (const auto& [root, info] : roots)
    if (!info.best.host.empty()) hinted.insert(info.best.host);
  const std::string only_host = hinted.size() == 1 ? *hinted.begin() : std::string();
  std::map<std::string, std::string> source_of;
  for (auto& [root, info] : roots) {
    std::string name = info.best.host;
    std::string source = info.best.source;
    if (name.empty() && !only_host.empty()) {
      name = only_host;
      source = "joined";
    } else if (name.empty()) {
      // fall back to the bundle's name without extensions, then "host"
      std::string n = root.empty() ? bundle_name
                                   : root.substr(root.find_last_of("/!") == std::string::npos
                                                     ? 0
                                                     : root.find_last_of("/!") + 1);
      for (const char* ext :
           {".tar.gz", ".tar.zst", ".tar.xz", ".tgz", ".tar", ".zip", ".gz", ".zst"})
        if (n.size() > std::strlen(ext) && n.substr(n.size() - std::strlen(ext)) == ext) {
          n = n.substr(0, n.size() - std::strlen(ext));
          break;
        }
      name = n.empty() ? "host" : n;
      source = "default";
    }
    names[root] = name;  // several roots may share a host (one node's collection split in parts)
    if (!source_of.count(name) || source != "joined") source_of[name] = source;
  }
  for (const auto& [name, source] : source_of) db.add_host(bundle, name, source);
  const bool own_tx = sqlite3_get_autocommit(h) != 0;  // else: inside the bulk load's transaction
  if (own_tx) db.begin();
  {
    sqlite3_stmt* s = nullptr;
    // events get their host below, with their time, in one pass
    for (const char* table : {"members", "facts"}) {
      const std::string sql =
          std::string("UPDATE ") + table + " SET host=?1 WHERE bundle_id=?2 AND host=?3";
      sqlite3_prepare_v2(h, sql.c_str(), -1, &s, nullptr);
      for (const auto& [root, name] : names) {
        sqlite3_bind_text(s, 1, name.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, bundle);
        sqlite3_bind_text(s, 3, root.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_step(s);
        sqlite3_reset(s);
      }
      sqlite3_finalize(s);
    }
  }
  // clocks, per host (combining the roots of one host)
  std::map<std::string, clock::ClockModel> models;  // by root
  std::map<std::string, std::vector<std::string>> roots_of;
  for (const auto& [root, name] : names) roots_of[name].push_back(root);
  for (const auto& host_entry : roots_of) derive_host_facts(db, bundle, host_entry.first);
  for (const auto& host_entry : roots_of) {
    // not a structured binding: the lambda below uses the name (clang before 16 cannot capture one)
    const std::string& name = host_entry.first;
    const std::vector<std::string>& host_roots = host_entry.second;
    clock::HostInputs in;
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(
        h,
        // boot: btime and uptime -s first (to the second, the current boot by definition), then
        // the other sources (who -b, last -F, journalctl --list-boots, dmesg -T); not the
        // driver-load time of host_kernel.log, seconds to a minute after the kernel started
        "SELECT f.name, f.value FROM facts f LEFT JOIN members m ON m.id = f.member_id "
        "WHERE f.bundle_id=? AND f.host=? AND f.name IN "
        "('host.boot_time','host.boot_time_local','host.timezone','host.collected_at') "
        "AND COALESCE(m.kind, '') <> 'host_kernel_log' "
        "ORDER BY CASE COALESCE(m.kind, '') WHEN 'proc_stat' THEN 0 WHEN 'uptime' THEN 0 "
        "ELSE 1 END, f.id",
        -1, &s, nullptr);
    sqlite3_bind_int64(s, 1, bundle);
    sqlite3_bind_text(s, 2, name.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) {
      const std::string n = col_text(s, 0), v = col_text(s, 1);
      if (n == "host.boot_time" && !in.boot_time_ns) {
        if (auto secs = text::to_int<int64_t>(text::trim(v));
            secs && *secs >= 0 && *secs < 9'000'000'000LL)
          in.boot_time_ns = *secs * 1'000'000'000;  // (range: no overflow on hostile values)
      } else if (n == "host.timezone" && !in.zone_offset_s) {
        // "+0800", "CST", "Asia/Shanghai (CST, +0800)"
        for (auto part : text::split_ws(v)) {
          std::string p(part);
          p.erase(std::remove_if(p.begin(), p.end(),
                                 [](char c) { return c == '(' || c == ')' || c == ','; }),
                  p.end());
          if (auto z = parse_zone(p)) {
            in.zone_offset_s = *z;
            if (p[0] == '+' || p[0] == '-') break;
          }
        }
      } else if (n == "host.boot_time_local" && !in.boot_local_naive_ns) {
        int y, mo, d, hh, mi, ss;
        if (std::sscanf(v.c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &hh, &mi, &ss) == 6)
          in.boot_local_naive_ns = civil_to_ns(y, mo, d, hh, mi, ss, 0);
      }
    }
    sqlite3_finalize(s);
    for (const auto& root : host_roots)
      if (roots[root].reference_naive != kNoTime &&
          (!in.reference_ns || roots[root].reference_naive > *in.reference_ns))
        in.reference_ns = roots[root].reference_naive;
    // anchors: (wall, uptime) pairs and epoch payloads; year-less ones dated from the reference
    for (const auto& root : host_roots)
      for (const Anchor& an : roots[root].anchors) {
        if (an.t.year != 0 && an.t.year < 2000) continue;  // device clock not yet set
        int year = an.t.year;
        if (year == 0) {
          if (!in.reference_ns) continue;
          year = clock::infer_year(an.t, *in.reference_ns);
        }
        const int64_t wall = clock::naive_ns(an.t, year);
        if (an.t.has_uptime()) in.pairs.push_back(clock::Pair{an.t.clock, wall, an.t.uptime_ns});
        if (an.epoch_ns) in.epoch_pairs.push_back(clock::EpochPair{an.t.clock, *an.epoch_ns, wall});
      }
    {
      clock::SameLines same;
      for (const auto& root : host_roots) same.merge(roots[root].same);
      same.match(in);
    }
    const clock::ClockModel model = clock::fit(in);

    sqlite3_stmt* ins = nullptr;
    sqlite3_prepare_v2(
        h, "INSERT INTO clocks(bundle_id,host,clock,offset_ns,method,detail) VALUES(?,?,?,?,?,?)",
        -1, &ins, nullptr);
    auto add_clock = [&](const char* c, std::optional<int64_t> off, const std::string& method,
                         const std::string& detail) {
      sqlite3_bind_int64(ins, 1, bundle);
      sqlite3_bind_text(ins, 2, name.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 3, c, -1, SQLITE_STATIC);
      if (off)
        sqlite3_bind_int64(ins, 4, *off);
      else
        sqlite3_bind_null(ins, 4);
      sqlite3_bind_text(ins, 5, method.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 6, detail.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_step(ins);
      sqlite3_reset(ins);
    };
    add_clock("host_local", model.host_local_offset_ns, model.host_local_method,
              std::string(to_string(model.host_local_quality)));
    add_clock("uptime", model.boot_ns, model.boot_method.empty() ? "unknown" : model.boot_method,
              "boot time (UTC ns)");
    add_clock("device_local", model.device_local_offset_ns, model.device_local_method, "");
    add_clock("device_syslog", model.device_syslog_offset_ns, model.device_syslog_method, "");
    sqlite3_finalize(ins);
    for (const auto& root : host_roots) models.emplace(root, model);
  }
  // Every event: its host's name (events were written with their root) and its UTC time, in one
  // UPDATE statement over the bundle's events: the new values come from SQL functions
  // (fl_host, fl_time, fl_quality) backed by the names and clock models above, so that no row
  // is looked up twice. Events of a root not in this load are left as they are.
  {
    EventTimes ctx;
    for (const auto& [root, name] : names) {
      const auto m = models.find(root);
      if (m != models.end()) ctx.roots.emplace(root, std::make_pair(name, m->second));
    }
    const int flags = SQLITE_UTF8;
    sqlite3_create_function_v2(h, "fl_host", 1, flags, &ctx, &EventTimes::sql_host, nullptr,
                               nullptr, nullptr);
    sqlite3_create_function_v2(h, "fl_time", 7, flags, &ctx, &EventTimes::sql_time, nullptr,
                               nullptr, nullptr);
    sqlite3_create_function_v2(h, "fl_quality", 7, flags, &ctx, &EventTimes::sql_quality, nullptr,
                               nullptr, nullptr);
    sqlite3_stmt* upd = nullptr;
    const int rc = sqlite3_prepare_v2(
        h,
        "UPDATE events SET host=fl_host(host), "
        "time_ns=fl_time(id, host, clock, raw_civil_ns, raw_has_year, uptime_ns, time_ns), "
        "time_quality=fl_quality(id, host, clock, raw_civil_ns, raw_has_year, uptime_ns, "
        "time_quality) "
        "WHERE bundle_id=?",
        -1, &upd, nullptr);
    std::string err;
    if (rc == SQLITE_OK) {
      sqlite3_bind_int64(upd, 1, bundle);
      if (sqlite3_step(upd) != SQLITE_DONE) err = sqlite3_errmsg(h);
    } else {
      err = sqlite3_errmsg(h);
    }
    sqlite3_finalize(upd);
    for (const char* f : {"fl_host", "fl_time", "fl_quality"})
      sqlite3_create_function_v2(h, f, f[3] == 'h' ? 1 : 7, flags, nullptr, nullptr, nullptr,
                                 nullptr, nullptr);
    if (!err.empty()) throw store::StoreError("setting event times: " + err);
  }
  if (own_tx) db.commit();
}

std::string options_json(const Options& o, const std::optional<KbInfo>& kb) {
  nlohmann::json j;
  if (kb)  // which knowledge-base pack was used (the report names it); absent: none
    j["kb"] = {{"name", kb->name},     {"file", kb->file},   {"how", kb->how},
               {"sha256", kb->sha256}, {"codes", kb->codes}, {"skipped", kb->skipped}};
  j["keep_raw"] = o.keep_raw;
  j["small_member_bytes"] = o.small_member_bytes;
  j["limits"] = {{"max_depth", o.limits.max_depth},
                 {"max_members", o.limits.max_members},
                 {"max_member_bytes", o.limits.max_member_bytes},
                 {"max_total_bytes", o.limits.max_total_bytes},
                 {"max_ratio", o.limits.max_ratio},
                 {"max_line_bytes", o.limits.max_line_bytes}};
  return j.dump();
}

}  // namespace

std::vector<correlate::FaultDef> Rules::fault_defs() const {
  std::vector<correlate::FaultDef> out;
  for (const auto& sig : signatures.signatures) {
    if (!sig.active() || !sig.fault.present) continue;
    correlate::FaultDef d;
    d.signature = sig.id;
    d.title = sig.title;
    d.cls = sig.fault.cls;
    d.component = sig.fault.component;
    d.role = sig.fault.role;
    d.cause = sig.fault.cause;
    d.suggestion = sig.fault.suggestion;
    d.code = sig.fault.code;
    d.code_capture = sig.fault.code_capture;
    d.severity = std::string(to_string(sig.fault.has_severity ? sig.fault.severity : sig.severity));
    d.causes = sig.causes;
    d.caused_by = sig.fault.caused_by;
    d.cleared_by = sig.fault.cleared_by;
    d.clear_key = sig.fault.clear_key;
    d.generic = sig.fault.generic;
    d.kb = sig.fault.kb;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<RuleFile> Rules::correlate_files() const {
  auto d = rules_under(files, "diagnoses/");
  auto c = rules_under(files, "compat/");
  d.insert(d.end(), c.begin(), c.end());
  return d;
}

namespace {

// Rule messages start with the file's path inside its rules root ("signatures/svm.yaml:5: ...").
// With --rules DIR that is ambiguous: name the directory the file is in (the last --rules DIR
// holding it, as that one wins), or say it is built in.
void locate_rule_messages(std::vector<std::string>& msgs,
                          const std::vector<std::filesystem::path>& dirs) {
  if (dirs.empty()) return;
  for (auto& m : msgs) {
    const size_t colon = m.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    const std::string rel = m.substr(0, colon);
    std::string where = "(built-in) ";
    for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(*d / rel, ec)) {
        where = (*d / "").string();
        break;
      }
    }
    m.insert(0, where);
  }
}

}  // namespace

namespace {

constexpr uintmax_t kMaxKbBytes = 64ULL << 20;  // a kg-config.json is about 1.3 MB

// The signature root of the knowledge base of a run (empty when none), and what the report says
// about it. A --rules DIR that already holds an imported pack wins (no second copy of the
// codes). An explicit --kb / FAULTLINE_KB file that cannot be read or imported is an error; a
// found one is a warning only (a broken installed package must not stop an analysis).
// The import of a knowledge base, cached in the rule cache directory as <key>.kb.yaml, key =
// sha256 of the file's sha256 and the executable's identity (the import depends on both: the
// aliases and native signatures are embedded). Saves the import (~0.1 s) on every run.
std::string cached_import(const std::string& json, const std::string& sha,
                          const std::filesystem::path& cache, tag::ImportStats* st) {
  namespace fs = std::filesystem;
  std::string key;
  if (!cache.empty()) {
    key = rule_cache_key({{RuleFile{"kb/kg-config.json", sha}}});
    std::ifstream in(cache / (key + ".kb.yaml"), std::ios::binary);
    if (in) {
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      // the header says "<n> signatures, <m> entries skipped"
      const size_t at = text.find(" signatures, ");
      const size_t nl = text.find('\n', std::string(tag::kFaultdiagHeader).size() + 1);
      if (text.rfind(tag::kFaultdiagHeader, 0) == 0 && at != std::string::npos && at < nl + 200) {
        st->skipped = std::atoi(text.c_str() + at + 13);
        std::error_code ec;
        fs::last_write_time(cache / (key + ".kb.yaml"), fs::file_time_type::clock::now(), ec);
        return text;
      }
    }
  }
  std::string yaml = import_kb(json, "faultdiag", st);
  if (!key.empty()) {
    const fs::path file = cache / (key + ".kb.yaml");
    const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
    std::error_code ec;
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << yaml;
      if (!out) {
        out.close();
        fs::remove(tmp, ec);
        return yaml;
      }
    }
    fs::rename(tmp, file, ec);
    if (ec) fs::remove(tmp, ec);
    // keep the 3 most recently used imports
    std::vector<std::pair<fs::file_time_type, fs::path>> old;
    for (const auto& e : fs::directory_iterator(cache, ec)) {
      const std::string n = e.path().filename().string();
      if (n.size() < 8 || n.compare(n.size() - 8, 8, ".kb.yaml") != 0 || e.path() == file) continue;
      old.emplace_back(e.last_write_time(ec), e.path());
    }
    std::sort(old.begin(), old.end());
    for (size_t i = 0; i + 3 < old.size(); ++i) fs::remove(old[i].second, ec);
  }
  return yaml;
}

std::vector<RuleFile> kb_root(const std::filesystem::path& kb, const std::string& how,
                              const std::vector<std::vector<RuleFile>>& roots,
                              const std::vector<std::filesystem::path>& dirs,
                              std::optional<KbInfo>* info,
                              const std::filesystem::path& cache = {}) {
  for (size_t r = 1; r < roots.size(); ++r)
    for (const auto& f : roots[r])
      if (f.text.rfind(tag::kFaultdiagHeader, 0) == 0) {
        KbInfo k;
        k.how = "--rules";
        k.file = (r - 1 < dirs.size() ? (dirs[r - 1] / f.path).string() : f.path);
        *info = k;
        return {};
      }
  if (kb.empty()) return {};
  const bool required = how != "found";
  auto fail = [&](const std::string& why) -> std::vector<RuleFile> {
    const std::string msg = kb.string() + ": " + why;
    if (required) throw std::runtime_error("knowledge base " + msg);
    std::fprintf(stderr, "faultline: warning: ascend-fd knowledge base %s; analysing without it\n",
                 msg.c_str());
    return {};
  };
  std::error_code ec;
  const auto size = std::filesystem::file_size(kb, ec);
  if (ec) return fail("cannot be read: " + ec.message());
  if (size > kMaxKbBytes) return fail("larger than 64 MiB: not a kg-config.json");
  std::ifstream in(kb, std::ios::binary);
  if (!in) return fail("cannot be read");
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tag::ImportStats st;
  std::string yaml;
  const std::string sha = sha256_hex(json);
  try {
    yaml = cached_import(json, sha, cache, &st);
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  KbInfo k;
  k.file = kb.string();
  k.how = how;
  k.sha256 = sha;
  k.skipped = st.skipped;
  *info = k;
  return {RuleFile{"signatures/faultdiag.yaml", std::move(yaml)}};
}

void count_kb(Rules& r) {
  if (!r.kb) return;
  r.kb->codes = 0;
  for (const auto& s : r.signatures.signatures)
    if (s.active() && s.fault.present && !s.fault.kb.empty()) ++r.kb->codes;
}

}  // namespace

Rules load_rules(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& kb,
                 const std::string& how) {
  Rules r;
  r.files = merged_rules(dirs);
  std::vector<std::vector<RuleFile>> roots;
  roots.push_back(rules_under(embedded_rules(), "signatures/"));
  for (const auto& d : dirs) roots.push_back(rules_under(read_rule_dir(d), "signatures/"));
  if (auto k = kb_root(kb, how, roots, dirs, &r.kb); !k.empty())
    roots.insert(roots.begin() + 1, std::move(k));
  r.signatures = tag::load_signature_roots(roots);
  locate_rule_messages(r.signatures.errors, dirs);
  locate_rule_messages(r.signatures.warnings, dirs);
  count_kb(r);
  return r;
}

std::filesystem::path default_cache_dir() {
  if (const char* x = std::getenv("FAULTLINE_CACHE_DIR"); x && *x) return x;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "faultline";
  if (const char* hm = std::getenv("HOME"); hm && *hm)
    return std::filesystem::path(hm) / ".cache" / "faultline";
  return {};
}

std::unique_ptr<Prepared> prepare(const Options& opts) {
  auto p = std::make_unique<Prepared>();
  SpanTimer t(p->span);
  std::error_code ec;
  std::filesystem::path cache = opts.cache_dir;
  if (!cache.empty()) std::filesystem::create_directories(cache, ec);
  if (ec) cache.clear();
  // as load_rules(), with the classifier (PCRE2 compile + JIT) built on a second thread while
  // the signature packs are parsed (YAML: the largest fixed cost of a run)
  p->rules.files = merged_rules(opts.rule_dirs);
  p->classify_rules = rules_under(p->rules.files, "classify/");
  std::exception_ptr cls_error;
  std::thread cls_thread([&] {
    try {
      p->cls = std::make_unique<classify::Classifier>(p->classify_rules);
    } catch (...) {
      cls_error = std::current_exception();
    }
  });
  try {
    std::vector<std::vector<RuleFile>> roots;
    roots.push_back(rules_under(embedded_rules(), "signatures/"));
    for (const auto& d : opts.rule_dirs)
      roots.push_back(rules_under(read_rule_dir(d), "signatures/"));
    // the knowledge base after the built-in packs, before --rules DIRs (they may override it)
    std::string how;
    const std::filesystem::path kb = choose_kb(opts, &how);
    if (auto k = kb_root(kb, how, roots, opts.rule_dirs, &p->rules.kb, cache); !k.empty())
      roots.insert(roots.begin() + 1, std::move(k));
    // what the rows depend on, for the meta table: every root and the other rule files
    {
      std::vector<std::vector<RuleFile>> all = roots;
      std::vector<RuleFile> rest;
      for (const auto& f : p->rules.files)
        if (f.path.rfind("signatures/", 0) != 0) rest.push_back(f);
      all.push_back(std::move(rest));
      p->rules_digest = rules_digest(all);
    }
    // the parsed packs are cached next to the compiled database (rule_cache.hpp)
    const std::string key = cache.empty() ? std::string() : rule_cache_key(roots);
    if (auto cached = load_cached_rules(cache, key)) {
      p->rules.signatures = std::move(*cached);
    } else {
      p->rules.signatures = tag::load_signature_roots(roots);
      if (p->rules.signatures.errors.empty()) store_cached_rules(cache, key, p->rules.signatures);
    }
  } catch (...) {
    cls_thread.join();
    throw;
  }
  cls_thread.join();
  if (cls_error) std::rethrow_exception(cls_error);
  count_kb(p->rules);
  const tag::RuleSet& ruleset = p->rules.signatures;
  if (!ruleset.errors.empty()) {
    std::vector<std::string> errors = ruleset.errors;
    locate_rule_messages(errors, opts.rule_dirs);
    std::string msg = "rule errors:";
    for (const auto& e : errors) msg += "\n  " + e;
    throw std::runtime_error(msg);
  }
  if (!ruleset.signatures.empty()) {
    std::string err;
    p->engine = tag::Engine::build(ruleset, cache, &err);
    if (!p->engine) throw std::runtime_error(err);
  }
  t.stop();
  return p;
}

namespace {

// "" when the bundle path can be read as a bundle; else why not (names the path).
std::string bundle_path_problem(const std::filesystem::path& bundle) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto st = fs::status(bundle, ec);
  if (!fs::exists(st)) return bundle.string() + ": no such file or directory";
  if (fs::is_regular_file(st) || fs::is_directory(st)) return {};
  // a FIFO blocks until a writer comes, a device may never end: not something a bundle is
  const char* what = fs::is_fifo(st)                                      ? "a named pipe"
                     : fs::is_character_file(st) || fs::is_block_file(st) ? "a device"
                     : fs::is_socket(st)                                  ? "a socket"
                                                                          : "a special file";
  return bundle.string() + ": " + what + ", not a bundle file or directory";
}

}  // namespace

Outcome analyze(store::Db& db, const std::filesystem::path& bundle, const Options& opts) {
  if (auto problem = bundle_path_problem(bundle); !problem.empty()) {
    Outcome out;
    out.exit_code = 3;
    out.error = std::move(problem);
    return out;
  }
  const auto prepared = prepare(opts);
  return analyze_prepared(db, bundle, opts, *prepared);
}

Outcome analyze_prepared(store::Db& db, const std::filesystem::path& bundle, const Options& opts,
                         Prepared& prepared) {
  Outcome out;
  Stats stats;
  const auto t_start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds();

  std::error_code ec;
  if (auto problem = bundle_path_problem(bundle); !problem.empty()) {
    out.exit_code = 3;
    out.error = std::move(problem);
    return out;
  }
  stats.rules = prepared.span;  // counted once, by the first analysis that uses it
  prepared.span = Span{};
  const classify::Classifier& cls = *prepared.cls;
  const tag::Engine* engine = prepared.engine.get();

  store::BundleInfo info;
  info.path = bundle.string();
  info.name = bundle.filename().string();
  if (info.name.empty()) info.name = bundle.parent_path().filename().string();
  info.options_json = options_json(opts, prepared.rules.kb);
  const int64_t bundle_id = db.begin_bundle(info);
  out.bundle_id = bundle_id;

  const bool threaded = opts.pipeline_threads;
  Handoff handoff(threaded, stats);
  auto section_cls = [&prepared, &cls, threaded]() -> const classify::Classifier& {
    if (!threaded) return cls;
    if (!prepared.section_cls)
      prepared.section_cls = std::make_unique<classify::Classifier>(prepared.classify_rules);
    return *prepared.section_cls;
  };
  Pipeline pipe(db, bundle_id, opts, cls, section_cls, engine, stats, handoff);
  SpanTimer t_ingest(stats.ingest);
  stats.threads = handoff.threaded() ? 2 : 1;
  stats.sha_on_writer = handoff.threaded() && !opts.keep_raw;
  try {
    out.ingest = ingest::walk(bundle, opts.limits, pipe);
    handoff.finish();
  } catch (...) {
    handoff.abort();
    throw;
  }
  stats.reader_cpu_s = thread_cpu_seconds();
  if (opts.progress) std::fputs("\n", stderr);
  t_ingest.stop();
  if (out.ingest.status == ingest::Status::ok && out.ingest.members > 0 && out.ingest.bytes == 0) {
    // Only empty files (a collection that failed, a truncated copy): a "no findings" report
    // would read as a healthy node.
    out.ingest.status = ingest::Status::unreadable;
    out.ingest.message =
        bundle.string() + (std::filesystem::is_directory(bundle, ec)
                               ? ": every file is empty (0 bytes): nothing to analyse"
                               : ": the file is empty (0 bytes): nothing to analyse");
  }
  if (out.ingest.status == ingest::Status::ok && out.ingest.members == 0) {
    // Nothing was read: an empty directory (e.g. a folder of node bundles given to `analyze`
    // that holds only empty sub-directories) or an archive without files. A "no findings" report
    // would read as a healthy node.
    out.ingest.status = ingest::Status::unreadable;
    const bool dir = std::filesystem::is_directory(bundle, ec);
    out.ingest.message = bundle.string() + ": no file to analyse (" +
                         (dir ? "a directory without files" : "an archive without files") + ")";
    if (out.ingest.warnings > 0)
      out.ingest.message +=
          "; " + std::to_string(out.ingest.warnings) + " warning(s) while reading";
  }
  if (out.ingest.status == ingest::Status::unreadable) {
    db.mark_failed(bundle_id, out.ingest.message);
    out.exit_code = 3;
    out.error = out.ingest.message;
    return out;
  }
  SpanTimer t_store(stats.store);
  {
    // still inside the bulk load's transaction and before the indexes are built: the event
    // updates below would otherwise maintain idx_events_bundle_time row by row
    ScopeTimer t(stats.clocks_s);
    apply_manifests(db, bundle_id);
    resolve_hosts_and_clocks(db, bundle_id, pipe.roots(), info.name);
  }
  {
    ScopeTimer t(stats.commit_index_s);
    db.finish_load(bundle_id, out.ingest.sha256, out.ingest.size, out.ingest.members,
                   out.ingest.bytes);
  }
  record_meta(db, prepared.rules_digest);
  t_store.stop();

  SpanTimer t_corr(stats.correlate);
  out.summary = correlate::run(db.handle(), bundle_id, prepared.rules.correlate_files(),
                               prepared.rules.fault_defs());
  {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db.handle(), "SELECT count(*) FROM hosts WHERE bundle_id = ?", -1, &s,
                       nullptr);
    sqlite3_bind_int64(s, 1, bundle_id);
    if (sqlite3_step(s) == SQLITE_ROW) out.hosts = static_cast<size_t>(sqlite3_column_int64(s, 0));
    sqlite3_finalize(s);
  }
  if (opts.job_fleet && correlate::job_bundle(db.handle(), bundle_id)) {
    // a job's tarball or folder: who failed first across its nodes (docs/fleet.md)
    try {
      correlate::run_fleet(db.handle(), {bundle_id}, {});
      out.job = true;
    } catch (const std::exception& e) {
      out.job_error = e.what();
      db.add_warning(bundle_id,
                     Warning{"", std::string("the cross-node correlation of the ") +
                                     std::to_string(out.hosts) + " hosts failed: " + e.what()});
    }
  }
  t_corr.stop();
  db.mark_complete(bundle_id);
  stats.wall_s = stats.rules.wall +
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  stats.cpu_s = stats.rules.cpu + cpu_seconds() - cpu_start;
  if (opts.stats) print_stats(stats, out.ingest);
  return out;
}

}  // namespace faultline::app
