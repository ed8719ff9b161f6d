// The streaming pass of one bundle: an ingest::Visitor that classifies, scans and parses every
// member and writes its rows, on two threads when the hand-off has a worker.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/classify/classify.hpp"
#include "faultline/core/progress.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/ingest/ingest.hpp"
#include "faultline/parse/env_check.hpp"
#include "faultline/parse/fs_path.hpp"
#include "faultline/pipeline/pipeline.hpp"
#include "faultline/pipeline/stats.hpp"
#include "faultline/store/store.hpp"
#include "faultline/tag/tag.hpp"
#include "handoff.hpp"
#include "roots.hpp"

namespace faultline::pipeline {

// Runs on two threads when Options::pipeline_threads is set (see Handoff): member() and
// warning() are called by the walk on the reading thread; everything that touches the database,
// the parsers and roots_ runs in tasks on the writing thread. `cls` classifies members (reading
// thread); `section_cls` gives the classifier of composite files' sections (writing thread; on
// two threads a second one, built at the first composite file: a Classifier keeps PCRE2 match
// data and must not be shared by two threads).
class Stream final : public ingest::Visitor {
 public:
  Stream(store::Db& db, int64_t bundle, const Options& opts, const classify::Classifier& cls,
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
        // The reading thread (decompression, Hyperscan) is the busier one on the mix of host,
        // device and firmware logs: the digests go to the writing thread, unless --keep-raw's
        // zstd already loads that one. On plog- and training-log-heavy data the parsers make
        // the writing thread the busier one: a member's digest then stays on the reading thread
        // (decided per member, Handoff::writer_behind).
        sha_on_writer_(handoff.threaded() && !opts.keep_raw),
        chunker_(opts.limits.max_line_bytes) {}

  void warning(const Warning& w) override {
    handoff_.push([this, w] { write_warning(w); }, w.message.size());
  }

  void member(const ingest::MemberInfo& info, ingest::MemberReader& reader) override;

  // Options::progress: the line of bytes read (the walk's Visitor::progress), from the first
  // member on, ended by the walk's last call (erased on a terminal, the final state as the last
  // line otherwise).
  [[nodiscard]] bool wants_progress() const override { return line_.on(); }
  void progress(const ingest::Progress& p) override {
    if (p.done) {
      line_.finish(progress::bytes_text(p.read, p.total, p.members, line_.seconds()));
    } else if (p.members > 0 && line_.due()) {
      line_.draw(progress::bytes_text(p.read, p.total, p.members, line_.seconds()));
    }
  }

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
  parse::EnvCheckPairs env_pairs_;  // environment-check files of the bundle (before/after)
  const tag::Engine* engine_;
  Stats& stats_;
  Handoff& handoff_;
  const bool sha_on_writer_;
  // one for all members: its ~2 MiB buffer is allocated (and zeroed) once, not per member
  ingest::LineChunker chunker_;            // reading thread
  std::map<std::string, RootInfo> roots_;  // writing thread
  // the writing thread's scratch for the parsers' derived records (the engine's own scratch is
  // the reading thread's); made at the first one
  std::unique_ptr<tag::Scanner> derived_scanner_;
  progress::Line line_{opts_.progress, "faultline: "};  // reading thread
};

}  // namespace faultline::pipeline
