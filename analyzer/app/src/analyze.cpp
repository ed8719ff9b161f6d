// The `analyze` job: prepare the rules, load the bundle (pipeline/), correlate it, and for a
// job's bundle also correlate its nodes as a fleet.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "faultline/app/app.hpp"
#include "faultline/correlate/fleet.hpp"
#include "faultline/pipeline/pipeline.hpp"
#include "faultline/pipeline/stats.hpp"
#include "prepared.hpp"

namespace faultline::app {

using pipeline::cpu_seconds;
using pipeline::ScopeTimer;
using pipeline::SpanTimer;

namespace {

std::string options_json(const Options& o, const Rules& rules) {
  const std::optional<KbInfo>& kb = rules.kb;
  nlohmann::json j;
  j["rules_digest"] = rules.digest;  // the report prints it next to the faultline version
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
  pipeline::Stats stats;
  const auto t_start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds();

  std::error_code ec;
  if (auto problem = bundle_path_problem(bundle); !problem.empty()) {
    out.exit_code = 3;
    out.error = std::move(problem);
    return out;
  }
  stats.rules = prepared.span;  // counted once, by the first analysis that uses it
  prepared.span = pipeline::Span{};
  const classify::Classifier& cls = *prepared.cls;
  const tag::Engine* engine = prepared.engine.get();

  store::BundleInfo info;
  info.path = bundle.string();
  info.name = bundle.filename().string();
  if (info.name.empty()) info.name = bundle.parent_path().filename().string();
  info.options_json = options_json(opts, prepared.rules);
  const int64_t bundle_id = db.begin_bundle(info);
  out.bundle_id = bundle_id;

  const bool threaded = opts.pipeline_threads;
  auto section_cls = [&prepared, &cls, threaded]() -> const classify::Classifier& {
    if (!threaded) return cls;
    if (!prepared.section_cls)
      prepared.section_cls = std::make_unique<classify::Classifier>(cls);  // shares the patterns
    return *prepared.section_cls;
  };
  pipeline::Options popts;
  popts.limits = opts.limits;
  popts.keep_raw = opts.keep_raw;
  popts.small_member_bytes = opts.small_member_bytes;
  popts.progress = opts.progress;
  popts.threads = threaded;
  pipeline::Load load(db, bundle_id, popts, cls, section_cls, engine, stats);
  SpanTimer t_ingest(stats.ingest);
  out.ingest = load.read(bundle);
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
  load.resolve(info.name);
  {
    ScopeTimer t(stats.commit_index_s);
    db.finish_load(bundle_id, out.ingest.sha256, out.ingest.size, out.ingest.members,
                   out.ingest.bytes);
  }
  record_meta(db, prepared.rules.digest);
  t_store.stop();

  SpanTimer t_corr(stats.correlate);
  // a job's nodes without time sync: into the synced nodes' clock before anything is ordered
  if (opts.job_fleet && correlate::job_bundle(db.handle(), bundle_id))
    correlate::align_unsynced_clocks(db.handle(), bundle_id);
  out.summary = correlate::run(db.handle(), bundle_id, *prepared.rules.book, prepared.fault_defs,
                               prepared.restart_defs);
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
  if (opts.stats) pipeline::print_stats(stats, out.ingest);
  return out;
}

}  // namespace faultline::app
