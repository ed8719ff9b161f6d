#include <memory>

#include "faultline/pipeline/pipeline.hpp"
#include "handoff.hpp"
#include "resolve.hpp"
#include "stream.hpp"

namespace faultline::pipeline {

struct Load::Impl {
  Impl(store::Db& d, int64_t b, const Options& o, const classify::Classifier& members,
       SectionClassifier sections, const tag::Engine* engine, Stats& s)
      : db(d),
        bundle(b),
        opts(o),
        stats(s),
        handoff(o.threads, s),
        stream(d, b, opts, members, std::move(sections), engine, s, handoff) {}
  store::Db& db;
  int64_t bundle;
  const Options opts;
  Stats& stats;
  Handoff handoff;  // the stream pushes its tasks into it: constructed first
  Stream stream;
};

Load::Load(store::Db& db, int64_t bundle, const Options& opts, const classify::Classifier& members,
           SectionClassifier sections, const tag::Engine* engine, Stats& stats)
    : impl_(std::make_unique<Impl>(db, bundle, opts, members, std::move(sections), engine, stats)) {
}

Load::~Load() = default;

ingest::Result Load::read(const std::filesystem::path& bundle) {
  Impl& m = *impl_;
  m.stats.threads = m.handoff.threaded() ? 2 : 1;
  m.stats.sha_on_writer = m.handoff.threaded() && !m.opts.keep_raw;
  ingest::Result r;
  try {
    r = ingest::walk(bundle, m.opts.limits, m.stream);
    m.handoff.finish();
  } catch (...) {
    m.handoff.abort();
    throw;
  }
  m.stats.reader_cpu_s = thread_cpu_seconds();
  return r;
}

void Load::resolve(const std::string& bundle_name) {
  Impl& m = *impl_;
  // still inside the bulk load's transaction and before the indexes are built: the event
  // updates would otherwise maintain idx_events_bundle_time row by row
  ScopeTimer t(m.stats.clocks_s);
  apply_manifests(m.db, m.bundle);
  resolve_hosts_and_clocks(m.db, m.bundle, m.stream.roots(), bundle_name);
}

}  // namespace faultline::pipeline
