#include "stream.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "faultline/core/sha256.hpp"
#include "faultline/core/text.hpp"
#include "faultline/parse/clock.hpp"
#include "faultline/parse/composite.hpp"
#include "faultline/parse/parser.hpp"
#include "member_io.hpp"

namespace faultline::pipeline {

namespace {

constexpr size_t kHeadBytes = 64 * 1024;
constexpr size_t kMaxPendingHits = 20000;
constexpr size_t kMaxAnchorsPerRoot = 8000;

struct PendingHit {
  uint32_t sig;
  uint32_t line;
  uint64_t offset;
  std::string text;  // the line, for a generic event when no parser event covers it
};

std::string captures_json(const std::vector<std::pair<std::string, std::string>>& caps) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : caps) j[k] = text::sanitize_utf8(v);
  return j.dump();
}
}  // namespace

// Receives the parser's events and facts for one member and writes the rows worth keeping.
class Stream::Sink final : public parse::Sink {
 public:
  Sink(Stream& p, int64_t member, std::string root, std::string_view kind)
      : p_(p), member_(member), root_(std::move(root)), kind_(kind) {}

  void event(const Event& e) override {
    if (e.derived) {
      derived(e);
      return;
    }
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

  // A record the parser derived from several lines: its own row, tagged here (the reading
  // thread's scan saw only the file's lines). The signatures of the member's kind apply; all of
  // them for text and composite members, as on the reading thread.
  void derived(const Event& e) {
    std::vector<PendingHit> hits;
    if (p_.engine_ != nullptr) {
      const std::string line = std::string(e.text) + "\n";
      const std::string_view scan_kind =
          kind_ == "text" || kind_ == "composite" ? std::string_view() : kind_;
      if (!p_.derived_scanner_) p_.derived_scanner_ = p_.engine_->scanner();
      p_.derived_scanner_->scan(line, scan_kind, [&](const tag::Hit& h) {
        for (const auto& x : hits)
          if (x.sig == h.signature) return;
        hits.push_back(PendingHit{h.signature, e.line, e.offset, std::string(e.text)});
      });
    }
    if (hits.empty() && !e.keep && e.severity < Severity::warning) return;
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
    if (e.time.has_uptime() || ep) root.anchors.push_back(Anchor{e.time, ep, member_, e.line});
  }

  // the member's root in p_.roots_, looked up once (std::map nodes do not move)
  RootInfo& root_info() {
    if (root_info_ == nullptr) root_info_ = &p_.roots_[root_];
    return *root_info_;
  }

  Stream& p_;
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

struct Stream::Member {
  store::MemberRow row;
  int64_t id = 0;
  std::string root;
  std::unique_ptr<parse::Parser> parser;
  std::unique_ptr<Sink> sink;
  std::string whole;  // small members kept whole
  bool whole_ok = true;
  std::unique_ptr<Compressor> comp;
  Sha256 sha;  // updated by one thread: the reading one, or the writing one (sha_on_writer)
  bool sha_on_writer = false;
};

void Stream::write_chunk(Member& m, std::string_view chunk, uint32_t first_line, uint64_t offset,
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
  if (m.sha_on_writer) {
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

void Stream::member(const ingest::MemberInfo& info, ingest::MemberReader& reader) {
  // reading thread: decompression, line chunks, sha256, classification, Hyperscan
  const classify::HostHint path_hint = classify::host_from_path(info.path);
  auto m = std::make_shared<Member>();
  m->row.path = info.path;
  m->row.host = path_hint.root;
  m->root = path_hint.root;
  if (opts_.keep_raw) m->comp = std::make_unique<Compressor>();
  m->sha_on_writer = sha_on_writer_ && !handoff_.writer_behind();
  handoff_.push(
      [this, m, path_hint] {
        auto& root = roots_[path_hint.root];
        if (path_hint.strength > root.best.strength) root.best = path_hint;
        if (path_hint.source == "folder-candidate") {
          root.candidate = true;
          root.parent_root = path_hint.parent_root;
        }
        ScopeTimer t(stats_.rows_s);
        m->id = db_.add_member(bundle_, m->row);
      },
      info.path.size());

  std::string kind;
  bool classified = false;
  TimedReader timed(reader, stats_.read_s);
  const auto st = chunker_.run(timed, [&](std::string_view chunk, uint32_t first_line,
                                          uint64_t offset) {
    if (!m->sha_on_writer) {
      ScopeTimer t(stats_.sha_reader_s);
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
            if (host_level_kind(c.kind)) root.host_level = true;
            if (m->row.kind == "composite")
              m->parser =
                  std::make_unique<parse::CompositeParser>(section_cls_(), path, &env_pairs_);
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
}

}  // namespace faultline::pipeline
