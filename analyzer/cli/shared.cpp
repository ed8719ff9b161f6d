// Pieces every subcommand of the CLI shares (shared.hpp): output, formats, --fail-on, the --db
// file and its probe, the options common to analyze and fleet.
#include "shared.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "faultline/core/text.hpp"

namespace faultline::cli {

namespace fs = std::filesystem;

uint64_t parse_size(const std::string& s, const char* option) {
  std::string_view v = text::trim(s);
  uint64_t mult = 1;
  if (!v.empty()) {
    const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(v.back())));
    if (last == 'K' || last == 'M' || last == 'G' || last == 'T') {
      mult = last == 'K'   ? 1ULL << 10
             : last == 'M' ? 1ULL << 20
             : last == 'G' ? 1ULL << 30
                           : 1ULL << 40;
      v.remove_suffix(1);
    }
  }
  const auto n = text::to_int<uint64_t>(v);
  if (!n || *n == 0)
    throw UsageError(std::string(option) + ": '" + s + "' is not a size (examples: 512K, 64M, 4G)");
  return *n * mult;
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path + ": cannot be written: " + std::strerror(errno));
  out << text;
  out.flush();
  if (!out) throw std::runtime_error(path + ": cannot be written: " + std::strerror(errno));
}

std::string version_text() {
  std::string out = "faultline " + std::string(kVersion) + "\n";
  out += "rules " + app::rules_digest_of({}) + "\n";
  for (const auto& [name, version] : app::library_versions()) out += name + " " + version + "\n";
  out.pop_back();  // CLI11 ends the text with a newline
  return out;
}

std::optional<Severity> finding_severity(const std::string& s) {
  if (s == "none" || s.empty() || s == "incomplete") return std::nullopt;  // incomplete: below
  if (s == "info") return Severity::info;
  if (s == "warning") return Severity::warning;
  if (s == "error") return Severity::error;
  if (s == "critical") return Severity::critical;
  throw UsageError("--fail-on: '" + s +
                   "' is not one of none, info, warning, error, critical, incomplete");
}

report::Format format_or_throw(const std::string& f) {
  const auto fmt = report::format_from(f);
  if (!fmt) throw UsageError("--format: '" + f + "' is not one of " + report::format_names());
  return *fmt;
}

// --summary renders markdown only; the json report carries it as its `summary` field.
void check_summary(bool summary, report::Format f) {
  if (summary && f != report::Format::md)
    throw UsageError("--summary is markdown; the json report has it as its `summary` field");
}

// The jsonl export leaves out the events without a usable time (Timesketch needs one): say how
// many, and where they are.
void note_untimed(const report::RenderNotes& n) {
  if (n.untimed_skipped > 0)
    std::cerr << "faultline: " << n.untimed_skipped
              << " timeline event(s) without a usable time left out of the jsonl export (--format "
                 "csv and json keep them)\n";
}

// nlohmann's messages start with "[json.exception.parse_error.101] ": the user needs the rest.
std::string without_library_tags(std::string m) {
  for (size_t at; (at = m.find("[json.exception.")) != std::string::npos;) {
    const size_t end = m.find("] ", at);
    if (end == std::string::npos) break;
    m.erase(at, end + 2 - at);
  }
  return m;
}

// -o FILE: its directory must exist (checked before a long analysis, not after it).
void check_output(const std::string& path) {
  if (path.empty() || path == "-") return;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw UsageError("-o: " + path + " is a directory; give a file name");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw UsageError("-o: " + path + ": the directory " + parent.string() + " does not exist");
}

// What a --db path holds, read-only (so that nothing is written into a file that is not ours).
DbKind probe_db(const fs::path& p, std::string* why) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return DbKind::missing;
  if (fs::is_directory(p, ec)) {
    *why = "is a directory";
    return DbKind::unreadable;
  }
  if (::access(p.c_str(), R_OK) != 0) {
    *why = std::strerror(errno);
    return DbKind::unreadable;
  }
  sqlite3* h = nullptr;
  // A hot rollback journal beside it (a run of a faultline before issue 36, killed while loading
  // a new file) is rolled back by the first read, which a read-only connection cannot do
  // ("attempt to write a readonly database"): then the probe opens it for writing, as SQLite's
  // own recovery needs. Nothing else is written.
  const bool hot = fs::exists(p.string() + "-journal", ec) && ::access(p.c_str(), W_OK) == 0;
  if (sqlite3_open_v2(p.c_str(), &h, hot ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK) {
    *why = h ? sqlite3_errmsg(h) : "cannot be opened";
    sqlite3_close(h);
    return DbKind::unreadable;
  }
  sqlite3_stmt* st = nullptr;
  DbKind kind = DbKind::empty;
  const int rc =
      sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE type='table'", -1, &st, nullptr);
  if (rc == SQLITE_NOTADB) {
    kind = DbKind::not_sqlite;
  } else if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
    // another run is writing it right now (this probe runs before the lock is taken): the
    // lock decides, and names that run
    kind = DbKind::faultline;
  } else if (rc != SQLITE_OK) {
    *why = sqlite3_errmsg(h);
    kind = DbKind::unreadable;
  } else {
    int step = SQLITE_OK;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
      const auto* t = sqlite3_column_text(st, 0);
      const std::string name = t ? reinterpret_cast<const char*>(t) : "";
      if (name == "bundles") {
        kind = DbKind::faultline;
        break;
      }
      kind = DbKind::foreign;
    }
    if (step == SQLITE_NOTADB) kind = DbKind::not_sqlite;
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return kind;
}

// --db of analyze/fleet: a new file in an existing directory, or a faultline database.
void check_output_db(const std::string& path) {
  if (path.empty()) return;
  std::string why;
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  switch (probe_db(path, &why)) {
    case DbKind::missing:
      if (!parent.empty() && !fs::is_directory(parent, ec))
        throw UsageError("--db: " + path + ": the directory " + parent.string() +
                         " does not exist");
      return;
    case DbKind::unreadable:
      throw UsageError("--db: " + path + ": " + why);
    case DbKind::not_sqlite:
      throw UsageError("--db: " + path +
                       ": not a SQLite database; give a new file or one written by faultline");
    case DbKind::foreign:
      throw UsageError("--db: " + path +
                       ": a SQLite database not written by faultline (no bundles table); give a "
                       "new file");
    case DbKind::empty:
    case DbKind::faultline:
      return;
  }
}

void add_report_output(CLI::App& cmd, ReportOutput& r, const char* fail_on_help) {
  cmd.add_option("--format", r.format, kFormatHelp);
  cmd.add_option("-o,--output", r.output, "Write the report to this file instead of stdout");
  cmd.add_option("--fail-on", r.fail_on, fail_on_help);
  cmd.add_flag("--summary", r.summary, kSummaryHelp);
  add_filter_options(cmd, r.suppress, r.min_severity);
}

CheckedOutput check_report_output(const ReportOutput& r) {
  CheckedOutput c;
  c.fmt = format_or_throw(r.format);
  c.fail_on = finding_severity(r.fail_on);
  check_summary(r.summary, c.fmt);
  c.filter = make_filter(r.suppress, r.min_severity);
  check_output(r.output);
  return c;
}

void add_verbosity_options(CLI::App& cmd, Verbosity& v, const char* quiet_help) {
  auto* quiet = cmd.add_flag("-q,--quiet", v.quiet, quiet_help);
  auto* on = cmd.add_flag("--progress", v.progress,
                          "Show the progress on stderr even when it is not a terminal, a line per "
                          "update (default: on a terminal only)");
  auto* off = cmd.add_flag("--no-progress", v.no_progress, "No progress on stderr");
  on->excludes(quiet)->excludes(off);
}

progress::Mode progress_mode(const Verbosity& v) {
  if (v.quiet || v.no_progress) return progress::Mode::off;
  if (isatty(STDERR_FILENO) != 0) return progress::Mode::terminal;
  return v.progress ? progress::Mode::lines : progress::Mode::off;
}

void add_common(CLI::App& cmd, CommonOptions& c) {
  cmd.add_option("--rules", c.rule_dirs,
                 "Extra rules directory (signatures/, diagnoses/, compat/, classify/); its files "
                 "override the built-in ones with the same path. Repeatable.")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);  // one DIR per --rules: `--rules DIR BUNDLE` works
  cmd.add_option(
      "--cache-dir", c.cache_dir,
      "Where compiled signature databases are cached (default: $XDG_CACHE_HOME/faultline "
      "or ~/.cache/faultline)");
  cmd.add_flag("--no-cache", c.no_cache, "Compile the signature database every time");
  cmd.add_option("--kb", c.kb,
                 "ascend-fd knowledge base (kg-config.json) to use as a fault pack (default: the "
                 "one of an installed ascend_fd Python package, if any; FAULTLINE_KB=FILE|none)");
  cmd.add_flag("--no-kb", c.no_kb, "Use no ascend-fd knowledge base, even an installed one");
}

// Maximum severity of the findings of a bundle (for --fail-on).
std::optional<Severity> max_finding_severity(sqlite3* db, const std::vector<int64_t>& bundles) {
  std::optional<Severity> best;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT severity FROM findings WHERE bundle_id=?", -1, &s, nullptr) !=
      SQLITE_OK)
    return best;
  for (auto b : bundles) {
    sqlite3_bind_int64(s, 1, b);
    while (sqlite3_step(s) == SQLITE_ROW) {
      const auto* t = sqlite3_column_text(s, 0);
      if (!t) continue;
      if (auto sev = severity_from(reinterpret_cast<const char*>(t)))
        if (!best || *sev > *best) best = sev;
    }
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  return best;
}

void add_filter_options(CLI::App& cmd, std::string& suppress, std::string& min_severity) {
  cmd.add_option(
      "--suppress", suppress,
      "Suppression file (YAML): signatures, findings, hosts, time ranges and messages "
      "to drop or demote, each with a reason; the report says how much (docs/suppress.md)");
  cmd.add_option("--min-severity", min_severity,
                 "Leave evidence lines and fault events below this level out of the lists: debug, "
                 "info, notice, warning, error, critical");
}

std::optional<report::Filter> make_filter(const std::string& suppress,
                                          const std::string& min_severity) {
  if (suppress.empty() && min_severity.empty()) return std::nullopt;
  report::Filter f;
  if (!suppress.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(suppress, ec))
      throw UsageError("--suppress: " + suppress + ": no such file");
    try {
      f = report::load_suppress_file(suppress);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--suppress: ") + e.what());
    }
  }
  if (!min_severity.empty()) {
    f.min_sev_rank = report::severity_rank(min_severity);
    if (!f.min_sev_rank)
      throw UsageError("--min-severity: '" + min_severity +
                       "' is not one of debug, info, notice, warning, error, critical");
  }
  return f;
}

bool fails(sqlite3* db, const std::vector<int64_t>& bundles, Severity at,
           const std::optional<report::Filter>& filter) {
  if (!filter) {
    const auto worst = max_finding_severity(db, bundles);
    return worst && *worst >= at;
  }
  const auto worst = report::worst_severity(db, bundles, &*filter);
  if (!worst) return false;
  const auto sev = severity_from(*worst);
  return sev && *sev >= at;
}

app::Options app_options(const CommonOptions& c) {
  app::Options o;
  for (const auto& d : c.rule_dirs) o.rule_dirs.emplace_back(d);
  if (!c.no_cache)
    o.cache_dir = c.cache_dir.empty() ? app::default_cache_dir() : fs::path(c.cache_dir);
  if (c.no_kb && !c.kb.empty()) throw UsageError("--kb and --no-kb exclude each other");
  if (!c.kb.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(c.kb, ec)) throw UsageError("--kb: " + c.kb + ": no such file");
  }
  o.kb_file = c.kb;
  o.no_kb = c.no_kb;
  return o;
}

DbFile::DbFile(const std::string& keep) {
  if (!keep.empty()) {
    path_ = keep;
    // the directory first (a clear message instead of "cannot create the lock file"), then
    // the lock, then what the file holds: probing before the lock reads a database another
    // run is writing and fails with SQLite's "database is locked"
    const fs::path parent = path_.parent_path();
    std::error_code ec;
    if (!parent.empty() && !fs::is_directory(parent, ec))
      throw UsageError("--db: " + keep + ": the directory " + parent.string() + " does not exist");
    lock_ = std::make_unique<store::WriterLock>(path_);
    check_output_db(keep);
    return;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/faultline-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0) throw std::runtime_error("cannot create a temporary database in " + tmpl);
  close(fd);
  path_ = buf.data();
  fs::remove(path_);
  temp_ = true;
}

DbFile::~DbFile() {
  if (!temp_) return;
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    fs::remove(path_.string() + suffix, ec);
}

}  // namespace faultline::cli
