// pipeline: reads one bundle into the store. The streaming pass (ingest -> classify -> parse +
// tag -> rows) on a reading and a writing thread with bounded hand-off (src/handoff.hpp,
// src/stream.cpp), then the per-host pass over what was loaded (src/resolve.cpp: collector
// manifests, host names, derived host facts, clock models and every event's UTC time). app/
// composes jobs (analyze, fleet) from it; correlation runs afterwards on the database.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "faultline/classify/classify.hpp"
#include "faultline/core/progress.hpp"
#include "faultline/ingest/ingest.hpp"
#include "faultline/pipeline/stats.hpp"
#include "faultline/store/store.hpp"
#include "faultline/tag/tag.hpp"

namespace faultline::pipeline {

struct Options {
  ingest::Limits limits;
  bool keep_raw = false;                          // store every member's text, zstd-compressed
  uint64_t small_member_bytes = 256 * 1024;       // members up to this size are stored whole
  progress::Mode progress = progress::Mode::off;  // bytes read of the bundle, on stderr
  // two threads: walk + decompression + sha256 + classify + Hyperscan on the caller, parsers +
  // SQLite rows on a second one; off: everything on the caller
  bool threads = true;
};

// The classifier of composite files' sections: on two threads a second Classifier (one keeps
// PCRE2 match data and must not be shared), built when the first composite file needs it.
using SectionClassifier = std::function<const classify::Classifier&()>;

// One bundle's load into `db` (bundle: the id of store::Db::begin_bundle, whose bulk-load
// transaction is open until store::Db::finish_load).
class Load {
 public:
  Load(store::Db& db, int64_t bundle, const Options& opts, const classify::Classifier& members,
       SectionClassifier sections, const tag::Engine* engine, Stats& stats);
  ~Load();
  Load(const Load&) = delete;
  Load& operator=(const Load&) = delete;

  // Streams every member of the bundle into rows (members, events, hits, facts, text,
  // warnings). Rethrows the first error of either thread.
  ingest::Result read(const std::filesystem::path& bundle);
  // After read(): applies collector manifests, names the hosts, derives per-host facts, fits
  // every host's clocks and gives every event its host and UTC time. bundle_name names a host
  // when nothing in the bundle does.
  void resolve(const std::string& bundle_name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace faultline::pipeline
