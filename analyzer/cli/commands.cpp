#include "commands.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "diff_cmd.hpp"
#include "faultline/classify/classify.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/core/text.hpp"
#include "faultline/correlate/compare.hpp"
#include "faultline/correlate/correlate.hpp"
#include "faultline/parse/fact_shapes.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/lock.hpp"
#include "faultline/store/store.hpp"
#include "faultline/tag/tag.hpp"

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
  out += "rules " + app::load_rules({}).digest + "\n";
  for (const auto& [name, version] : app::library_versions()) out += name + " " + version + "\n";
  out.pop_back();  // CLI11 ends the text with a newline
  return out;
}

namespace {

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

constexpr const char* kSummaryHelp =
    "Print the ticket view: at most 60 lines and 6,000 characters of markdown, verdict first "
    "(docs/report.md \"Summary\"); --format md only";

// --summary renders markdown only; the json report carries it as its `summary` field.
void check_summary(bool summary, report::Format f) {
  if (summary && f != report::Format::md)
    throw UsageError("--summary is markdown; the json report has it as its `summary` field");
}

constexpr const char* kFormatHelp =
    "Output format: md (default), json, html, jsonl, csv. md, json and html are the report; "
    "jsonl and csv the timeline, one event a line, for Timesketch or a spreadsheet "
    "(docs/timeline-export.md)";

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
enum class DbKind { missing, empty, not_sqlite, foreign, faultline, unreadable };
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

// A database file that is removed at the end unless the user asked to keep it (--db). One writer
// per kept database: store::WriterLock (an flock on the file itself; nothing left beside it).
class DbFile {
 public:
  explicit DbFile(const std::string& keep) {
    if (!keep.empty()) {
      path_ = keep;
      // the directory first (a clear message instead of "cannot create the lock file"), then
      // the lock, then what the file holds: probing before the lock reads a database another
      // run is writing and fails with SQLite's "database is locked"
      const fs::path parent = path_.parent_path();
      std::error_code ec;
      if (!parent.empty() && !fs::is_directory(parent, ec))
        throw UsageError("--db: " + keep + ": the directory " + parent.string() +
                         " does not exist");
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
  ~DbFile() {
    if (!temp_) return;
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      fs::remove(path_.string() + suffix, ec);
  }
  DbFile(const DbFile&) = delete;
  DbFile& operator=(const DbFile&) = delete;
  const fs::path& path() const { return path_; }
  bool temp() const { return temp_; }
  // a temporary file needs no durability (store::Db::Durability::scratch)
  store::Db::Durability durability() const {
    return temp_ ? store::Db::Durability::scratch : store::Db::Durability::normal;
  }

 private:
  fs::path path_;
  bool temp_ = false;
  std::unique_ptr<store::WriterLock> lock_;
};

// `analyze -`: the bundle piped into standard input (`ssh node 'tar -C /var/log -cf - npu' |
// faultline analyze -`, `kubectl exec ... tar`), spooled into a temporary file first: zip and 7z
// are read from their end, and the bundle's sha256 is of the whole stream. At most max_bytes
// (--max-total-size) are taken; the file and its directory are removed at the end.
class StdinBundle {
 public:
  explicit StdinBundle(uint64_t max_bytes) {
    if (::isatty(STDIN_FILENO) != 0)
      throw UsageError(
          "-: standard input is a terminal; pipe a bundle into it, e.g. ssh node 'tar -C "
          "/var/log -cf - npu' | faultline analyze -");
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/faultline-stdin-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr)
      throw std::runtime_error("cannot create a temporary directory in " + tmpl);
    dir_ = buf.data();
    path_ = dir_ / "stdin";
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error(path_.string() + ": " + std::strerror(errno));
    std::vector<char> block(1U << 20);
    uint64_t total = 0;
    std::string error;
    for (;;) {
      const ssize_t n = ::read(STDIN_FILENO, block.data(), block.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = std::string("read error on standard input: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      total += static_cast<uint64_t>(n);
      if (total > max_bytes) {
        error = "standard input holds more than " + std::to_string(max_bytes) +
                " bytes (--max-total-size); save the bundle to a file first";
        break;
      }
      for (ssize_t off = 0; off < n;) {
        const ssize_t w = ::write(fd, block.data() + off, static_cast<size_t>(n - off));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
          error = path_.string() + ": " + std::strerror(errno);
          break;
        }
        off += w;
      }
      if (!error.empty()) break;
    }
    ::close(fd);
    if (!error.empty()) throw InputError("-: " + error);
  }
  ~StdinBundle() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  StdinBundle(const StdinBundle&) = delete;
  StdinBundle& operator=(const StdinBundle&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path dir_, path_;
};

}  // namespace

void add_analyze_options(CLI::App& cmd, AnalyzeArgs& a, CommonOptions& c) {
  cmd.add_option("BUNDLE", a.bundle,
                 "The bundle: a directory, tar, tar.gz/xz/zst, zip, or a single (compressed) log; "
                 "- reads it from standard input (e.g. ssh node 'tar -C /var/log -cf - npu' | "
                 "faultline analyze -)")
      ->required();
  cmd.add_option("--db", a.db, "Keep the analysis in this SQLite file (default: a temporary file)");
  cmd.add_option("--format", a.format, kFormatHelp);
  cmd.add_option("-o,--output", a.output, "Write the report to this file instead of stdout");
  cmd.add_option("--fail-on", a.fail_on,
                 "Exit 1 when a finding has this severity or higher: info, warning, error, "
                 "critical; or incomplete: when the load lost part of the bundle (default: none)");
  cmd.add_flag("--summary", a.summary, kSummaryHelp);
  cmd.add_flag("--keep-raw", a.keep_raw,
               "Store the full text of every file, zstd-compressed (about halves throughput)");
  cmd.add_flag("--stats", a.stats, "Print per-stage times, bytes, rows and peak memory to stderr");
  cmd.add_flag("-q,--quiet", a.quiet, "No progress on stderr");
  cmd.add_flag("--no-report", a.no_report,
               "Only fill the --db database, render no report (`faultline report` can later)");
  cmd.add_option("--max-depth", a.max_depth, "Archives nested in archives, at most (default 4)");
  cmd.add_option("--max-members", a.max_members, "Files in the bundle, at most (default 500000)");
  cmd.add_option("--max-member-size", a.max_member_size,
                 "Uncompressed bytes of one file; the rest is cut with a warning (default 4G)");
  cmd.add_option("--max-total-size", a.max_total_size,
                 "Uncompressed bytes of the whole bundle (default 64G)");
  cmd.add_option(
      "--max-ratio", a.max_ratio,
      "Uncompressed/compressed ratio of an archive before it counts as a bomb (default 1000)");
  cmd.add_option("--max-line-length", a.max_line_length,
                 "Longer lines are cut at this length with a warning (default 1M)");
  cmd.add_option("--small-file-size", a.small_member_size,
                 "Files up to this size are stored whole in the database (default 256K)");
  add_common(cmd, c);
}

void add_fleet_options(CLI::App& cmd, FleetArgs& a, CommonOptions& c) {
  cmd.add_option("BUNDLE_OR_DIR", a.inputs,
                 "Node bundles, or directories holding them; or per-node databases of `analyze "
                 "--db` (files, a folder of *.db, a manifest listing them: docs/scale-out.md)")
      ->required();
  cmd.add_option("-j,--jobs", a.jobs, "Bundles analyzed in parallel (default: number of cores)");
  cmd.add_option("--db", a.db, "Keep the fleet analysis in this SQLite file");
  cmd.add_option("--format", a.format, kFormatHelp);
  cmd.add_option("-o,--output", a.output, "Write the report to this file instead of stdout");
  cmd.add_option("--fail-on", a.fail_on, "Exit 1 when a finding has this severity or higher");
  cmd.add_flag("--summary", a.summary, kSummaryHelp);
  cmd.add_flag("--stats", a.stats, "Print per-stage statistics to stderr");
  cmd.add_flag("-q,--quiet", a.quiet,
               "No progress on stderr (skipped bundles and errors are still printed)");
  cmd.add_flag("--diff", a.diff,
               "Add, per node, the compared facts where it differs from the job's majority "
               "(docs/compare.md)");
  add_common(cmd, c);
}

void add_report_options(CLI::App& cmd, ReportArgs& a) {
  cmd.add_option("--db", a.db, "Database written by analyze --db or fleet --db")->required();
  cmd.add_option("--format", a.format, kFormatHelp);
  cmd.add_option("-o,--output", a.output, "Write the report to this file instead of stdout");
  cmd.add_option("--bundle", a.bundle,
                 "Report only this bundle (id or sha256 prefix) of a database holding several");
  cmd.add_flag("--summary", a.summary, kSummaryHelp);
  cmd.add_option("--fail-on", a.fail_on, "incomplete: exit 1 when a load lost part of a bundle");
}

void add_rules_options(CLI::App& cmd, RulesArgs& a) {
  cmd.require_subcommand(1);
  auto add_dirs = [&](CLI::App* sub) {
    sub->add_option("--rules", a.rule_dirs, "Extra rules directory overriding the built-in rules")
        ->check(CLI::ExistingDirectory)
        ->allow_extra_args(false);  // one DIR per --rules: `--rules DIR BUNDLE` works
  };
  auto* list = cmd.add_subcommand("list", "List signatures, diagnoses and member kinds");
  add_dirs(list);
  auto* test =
      cmd.add_subcommand("test", "Run every rule's own example lines; exits 2 on any failure");
  add_dirs(test);
  auto* lint = cmd.add_subcommand(
      "lint",
      "Check ids, file names, duplicates, kinds and that each pattern matches its examples");
  add_dirs(lint);
  auto* cov = cmd.add_subcommand(
      "coverage",
      "Fault catalog coverage: fault signatures and those with cited real example lines, per "
      "fault class, signature pack and log kind; with --kb, the KB codes a native signature "
      "recognises; with --samples, the recognised share of error-level lines");
  add_dirs(cov);
  for (auto* sub : {list, test, lint, cov})
    sub->add_option("--kb", a.kb,
                    "Add this ascend-fd knowledge base (kg-config.json) as a pack (coverage: "
                    "count the KB codes native signatures recognise)")
        ->check(CLI::ExistingFile);
  cov->add_option("--samples", a.samples,
                  "Analyse each bundle under DIR and print the share of its error-level lines "
                  "that a signature recognises")
      ->check(CLI::ExistingDirectory);
  auto* sug = cmd.add_subcommand(
      "suggest",
      "Draft signatures (YAML) from the unrecognised error templates of an analysis (--db)");
  sug->add_option("ID", a.templates, "Template ids of the report's Unrecognised errors section");
  sug->add_option("--db", a.db, "Database written by analyze --db")->required();
  sug->add_option("--bundle", a.bundle, "Bundle id of a database holding several");
  sug->add_option("--top", a.top, "Without ids: the first N templates (default 5)");
  auto* imp = cmd.add_subcommand(
      "import-faultdiag",
      "Turn an ascend-fd (MindCluster FaultDiag) knowledge base into a rule directory usable as "
      "--rules DIR (every code a fault signature with the KB's cause and suggestion)");
  imp->add_option("FILE", a.import_file, "FaultDiag knowledge-base file (kg-config.json style)")
      ->required();
  imp->add_option("--family", a.family,
                  "Family (file stem) of the generated pack (default faultdiag)");
  imp->add_option("-o,--output", a.output,
                  "Rule directory to write (DIR/signatures/<family>.yaml, created), or a .yaml "
                  "file; default stdout");
  cmd.footer(
      "Examples:\n"
      "  faultline rules list\n"
      "  faultline rules test --rules my-rules/\n"
      "  faultline rules coverage --kb kg-config.json --samples samples/\n"
      "  faultline rules suggest --db case.db u3f2a9c01be\n"
      "  faultline rules import-faultdiag kg-config.json -o kb-rules/\n"
      "  faultline analyze --rules kb-rules/ node07.tar.gz");
}

int run_analyze(const AnalyzeArgs& a, const CommonOptions& c) {
  const auto fmt = format_or_throw(a.format);
  const auto fail_on = finding_severity(a.fail_on);
  check_summary(a.summary, fmt);
  if (a.no_report && a.db.empty())
    throw UsageError("--no-report needs --db (where the analysis goes)");
  check_output(a.output);
  app::Options o = app_options(c);
  o.keep_raw = a.keep_raw;
  o.stats = a.stats;
  o.progress = !a.quiet && isatty(STDERR_FILENO) != 0;
  o.limits.max_depth = a.max_depth;
  o.limits.max_members = a.max_members;
  o.limits.max_member_bytes = parse_size(a.max_member_size, "--max-member-size");
  o.limits.max_total_bytes = parse_size(a.max_total_size, "--max-total-size");
  o.limits.max_ratio = a.max_ratio;
  o.limits.max_line_bytes = static_cast<uint32_t>(
      std::min<uint64_t>(parse_size(a.max_line_length, "--max-line-length"), 1ULL << 30));
  o.small_member_bytes = parse_size(a.small_member_size, "--small-file-size");

  std::unique_ptr<StdinBundle> piped;
  if (a.bundle == "-") piped = std::make_unique<StdinBundle>(o.limits.max_total_bytes);
  DbFile dbf(a.db);
  auto db = store::Db::open(dbf.path(), dbf.durability());
  const app::Outcome out = app::analyze(*db, piped ? piped->path() : fs::path(a.bundle), o);
  if (piped && out.exit_code == 0)  // reports name the stream, not the spool file
    db->exec("UPDATE bundles SET path='-', name='stdin' WHERE id=" + std::to_string(out.bundle_id));
  if (out.exit_code != 0) {
    std::string error = out.error;
    if (piped) {  // the spool file is ours: the user gave "-"
      const std::string spool = piped->path().string();
      for (size_t at = error.find(spool); at != std::string::npos; at = error.find(spool, at + 1))
        error.replace(at, spool.size(), "-");
    }
    std::cerr << "faultline: " << error << "\n";
    return out.exit_code;
  }
  if (out.ingest.warnings > 0 && !a.quiet)
    std::cerr << "faultline: " << out.ingest.warnings
              << " ingest warning(s): see the report's warnings section\n";
  if (!a.no_report) {
    report::RenderNotes notes;
    write_output(a.output, a.summary
                               ? report::render_bundle_summary(db->handle(), out.bundle_id)
                               : report::render_bundle(db->handle(), out.bundle_id, fmt, &notes));
    if (!a.quiet) note_untimed(notes);
  }
  // nothing of it was an Ascend or host log: not a healthy node (docs/report.md "Completeness")
  if (const auto none = report::nothing_recognised(db->handle(), out.bundle_id); !none.empty()) {
    std::cerr << "faultline: " << a.bundle << ": " << none << "\n";
    return 3;
  }
  if (a.fail_on == "incomplete" && !report::incomplete_load(db->handle(), out.bundle_id).empty())
    return 1;
  if (fail_on) {
    const auto worst = max_finding_severity(db->handle(), {out.bundle_id});
    if (worst && *worst >= *fail_on) return 1;
  }
  return 0;
}

int run_fleet(const FleetArgs& a, const CommonOptions& c) {
  const auto fmt = format_or_throw(a.format);
  const auto fail_on = finding_severity(a.fail_on);
  check_summary(a.summary, fmt);
  check_output(a.output);
  app::Options o = app_options(c);
  o.progress = !a.quiet && isatty(STDERR_FILENO) != 0;
  o.stats = a.stats;
  std::vector<fs::path> inputs;
  for (const auto& i : a.inputs) {
    std::error_code ec;
    if (!fs::exists(i, ec)) {  // input unreadable: 3, as for analyze (README's exit codes)
      std::cerr << "faultline: " << i << ": no such file or directory\n";
      return 3;
    }
    inputs.emplace_back(i);
  }
  // per-node databases (docs/scale-out.md) or node bundles; the output database is no input
  app::FleetInputs split;
  try {
    split = app::split_fleet_inputs(inputs, a.db.empty() ? fs::path() : fs::path(a.db));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("manifest: ") + e.what());
  }
  if (!split.databases.empty() && !split.bundles.empty())
    throw UsageError("give node bundles or per-node databases, not both (" +
                     split.bundles.front().string() + " is a bundle, " +
                     split.databases.front().string() +
                     " a database): analyze the bundle with `faultline analyze BUNDLE --db "
                     "NODE.db` first");
  const bool merge = !split.databases.empty();
  if (merge) {
    if (const auto problem = app::check_node_databases(split.databases); !problem.empty())
      throw UsageError(problem);
  }
  const auto& bundles = merge ? split.databases : split.bundles;
  if (bundles.empty()) throw UsageError("no bundles found in the inputs");
  DbFile dbf(a.db);
  // not a scratch database even when temporary: a failed merge is rolled back and the fleet
  // goes on with the other bundles; a temporary one keeps that journal in memory (no WAL to
  // write and checkpoint: ~6% of a fleet's CPU, all of it after the workers)
  auto db = store::Db::open(
      dbf.path(), dbf.temp() ? store::Db::Durability::temporary : store::Db::Durability::normal);
  const auto out = merge ? app::fleet_merge(*db, bundles, o) : app::fleet(*db, bundles, o, a.jobs);
  for (const auto& f : out.failures)
    std::cerr << "faultline fleet: skipped " << f.bundle << ": " << f.message << "\n";
  if (out.bundle_ids.empty()) {
    std::cerr << "faultline fleet: no bundle could be read\n";
    return 3;
  }
  const bool correlated = out.correlation_error.empty();
  if (!correlated) {
    // Not one bundle's problem: the inference over all of them failed. Name the set.
    std::string which;
    const size_t analysed = bundles.size() - out.failures.size();
    for (size_t i = 0, shown = 0; i < bundles.size() && shown < 3; ++i) {
      if (std::any_of(out.failures.begin(), out.failures.end(),
                      [&](const auto& f) { return f.bundle == bundles[i].string(); }))
        continue;
      which += (shown++ ? ", " : "") + bundles[i].string();
    }
    if (analysed > 3) which += ", ...";
    std::cerr << "faultline fleet: the cross-node correlation of " << analysed
              << " analysed bundle(s) (" << which << ") failed: " << out.correlation_error
              << "; the report has the per-node results and no first failure\n";
  }
  std::string text;
  report::RenderNotes notes;
  try {
    text = a.summary ? report::render_fleet_summary(db->handle(), out.bundle_ids)
                     : report::render_fleet(db->handle(), out.bundle_ids, fmt, &notes);
    if (a.diff && !a.summary) text = with_fleet_diff(*db, out.bundle_ids, fmt, o, std::move(text));
  } catch (const std::exception& e) {
    if (correlated) throw;
    std::cerr << "faultline fleet: the report cannot be rendered either: " << e.what() << "\n";
    return 3;
  }
  write_output(a.output, text);
  if (!a.quiet) note_untimed(notes);
  if (!correlated) return 3;
  if (fail_on) {
    const auto worst = max_finding_severity(db->handle(), out.bundle_ids);
    if (worst && *worst >= *fail_on) return 1;
  }
  return 0;
}

int run_report(const ReportArgs& a) {
  const auto fmt = format_or_throw(a.format);
  check_summary(a.summary, fmt);
  if (!a.fail_on.empty() && a.fail_on != "none" && a.fail_on != "incomplete")
    throw UsageError("--fail-on: report knows only incomplete (analyze checks severities)");
  check_output(a.output);
  std::string why;
  const char* problem = nullptr;
  switch (probe_db(a.db, &why)) {
    case DbKind::missing:
      problem = "no such file";
      break;
    case DbKind::unreadable:
      problem = why.c_str();
      break;
    case DbKind::not_sqlite:
      problem = "not a SQLite database (report reads the --db file of analyze or fleet)";
      break;
    case DbKind::foreign:
      problem = "a SQLite database not written by faultline (no bundles table)";
      break;
    case DbKind::empty:
      problem = "an empty database: no complete analysis in it";
      break;
    case DbKind::faultline:
      break;
  }
  if (problem) {
    std::cerr << "faultline: " << a.db << ": " << problem << "\n";
    return 3;
  }
  std::unique_ptr<store::Db> db;
  try {
    db = store::Db::open(a.db);
  } catch (const std::exception& e) {
    std::cerr << "faultline: " << e.what() << "\n";
    return 3;
  }
  std::vector<int64_t> ids;
  const auto all = store::bundle_ids(db->handle(), true);
  const auto complete = store::bundle_ids(db->handle(), false);
  if (!a.bundle.empty()) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(
        db->handle(),
        "SELECT id, status FROM bundles WHERE CAST(id AS TEXT)=?1 OR sha256 LIKE ?1 || '%'", -1, &s,
        nullptr);
    sqlite3_bind_text(s, 1, a.bundle.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) ids.push_back(sqlite3_column_int64(s, 0));
    sqlite3_finalize(s);
    if (ids.empty()) throw UsageError("--bundle: no bundle '" + a.bundle + "' in " + a.db);
  } else {
    ids = complete;
  }
  if (complete.size() < all.size())
    std::cerr << "faultline: " << (all.size() - complete.size()) << " analysis(es) in " << a.db
              << " did not complete (interrupted or failed) and are not reported\n";
  if (ids.empty()) {
    std::cerr << "faultline: " << a.db << ": no complete analysis in this database\n";
    return 3;
  }
  report::RenderNotes notes;
  if (a.summary)
    write_output(a.output, ids.size() == 1
                               ? report::render_bundle_summary(db->handle(), ids.front())
                               : report::render_fleet_summary(db->handle(), ids));
  else if (ids.size() == 1)
    write_output(a.output, report::render_bundle(db->handle(), ids.front(), fmt, &notes));
  else
    write_output(a.output, report::render_fleet(db->handle(), ids, fmt, &notes));
  note_untimed(notes);
  if (a.fail_on == "incomplete")
    for (const auto id : ids)
      if (!report::incomplete_load(db->handle(), id).empty()) return 1;
  return 0;
}

namespace {

// `rules` output holds text of rule files (titles, example lines): shown terminal-safe.
void say(const std::string& s) {
  const std::string t = text::terminal_safe(s);
  std::fwrite(t.data(), 1, t.size(), stdout);
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

namespace {

// `rules coverage --kb FILE` (docs/faults.md): how many knowledge-base codes a native signature
// recognises on a line built from the code's own ordered substrings, scanned as the code's kinds.
std::string kb_coverage(const std::vector<fs::path>& dirs, const std::string& kb) {
  std::ifstream in(kb, std::ios::binary);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<tag::KbCode> codes;
  try {
    codes = tag::read_faultdiag(json);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(kb + ": " + without_library_tags(e.what()));
  }
  const app::Rules native = app::load_rules(dirs);
  std::string err;
  const auto engine = tag::Engine::build(native.signatures, app::default_cache_dir(), &err);
  if (!engine) throw std::runtime_error(err);
  const auto& sigs = engine->signatures();
  struct Row {
    int codes = 0, lines = 0, fault = 0, any = 0;
  };
  std::map<std::string, Row> by_source;
  Row all;
  std::map<std::string, int> counterpart;  // native fault signature -> codes it recognises
  for (const auto& c : codes) {
    Row& r = by_source[c.source.empty() ? "(none)" : c.source];
    ++r.codes;
    ++all.codes;
    if (c.lines.empty()) continue;
    ++r.lines;
    ++all.lines;
    bool fault = false, any = false;
    std::set<std::string> natives;
    std::vector<std::string> kinds = c.kinds;
    if (kinds.empty()) kinds.emplace_back();
    for (const auto& line : c.lines)
      for (const auto& k : kinds)
        engine->scan(line, k == "text" ? std::string_view() : std::string_view(k),
                     [&](const tag::Hit& h) {
                       const auto& s = sigs[h.signature];
                       if (!s.fault.kb.empty()) return;
                       any = true;
                       if (s.fault.present) {
                         fault = true;
                         natives.insert(s.id);
                       }
                     });
    for (const auto& n : natives) ++counterpart[n];
    if (fault) ++r.fault, ++all.fault;
    if (any) ++r.any, ++all.any;
  }
  auto pct = [](int n, int d) {
    char b[32];
    std::snprintf(b, sizeof b, "%5.1f%%", d > 0 ? 100.0 * n / d : 0.0);
    return std::string(b);
  };
  std::string out = "\nascend-fd knowledge base " + kb + ": " + std::to_string(all.codes) +
                    " codes, " + std::to_string(all.lines) +
                    " with a line built from their own ordered substrings\n";
  out += "  a native fault signature fires on it: " + std::to_string(all.fault) + " (" +
         pct(all.fault, all.codes) + " of the codes, " + pct(all.fault, all.lines) +
         " of those with a line)\n";
  out += "  any native signature fires on it:     " + std::to_string(all.any) + " (" +
         pct(all.any, all.codes) + ", " + pct(all.any, all.lines) + ")\n";
  out += "\n" + pad("KB SOURCE_FILE", 30) + " CODES  LINES  NATIVE_FAULT  SHARE   ANY_NATIVE\n";
  for (const auto& [src, r] : by_source)
    out += pad(src, 30) + " " + pad(std::to_string(r.codes), 6) + " " +
           pad(std::to_string(r.lines), 6) + " " + pad(std::to_string(r.fault), 13) + " " +
           pct(r.fault, r.codes) + "  " + std::to_string(r.any) + "\n";
  std::vector<std::pair<int, std::string>> top;
  for (const auto& [id, n] : counterpart) top.emplace_back(-n, id);
  std::sort(top.begin(), top.end());
  out += "\nnative fault signatures standing for the most KB codes:\n";
  for (size_t i = 0; i < top.size() && i < 10; ++i)
    out += "  " + pad(top[i].second, 40) + " " + std::to_string(-top[i].first) + "\n";
  return out;
}

// `rules coverage --samples DIR`: every bundle of DIR analysed (temporary database); the
// error-level lines (error, critical) and how many of them a signature recognises (has a hit),
// and how many a finding cites.
std::string samples_coverage(const std::string& dir, const std::vector<fs::path>& dirs,
                             const std::string& kb) {
  app::Options o;
  o.rule_dirs = dirs;
  o.cache_dir = app::default_cache_dir();
  o.kb_file = kb;
  o.no_kb = kb.empty();
  // each sub-directory is a bundle (samples/<name>/), else DIR itself
  std::vector<fs::path> bundles;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) bundles.push_back(it->path());
  std::sort(bundles.begin(), bundles.end());
  if (bundles.empty()) bundles.emplace_back(dir);
  std::string out = "\nerror-level lines of the bundles in " + dir +
                    (kb.empty() ? " (built-in signatures)" : " (with the knowledge base)") + "\n";
  out += pad("BUNDLE", 40) + " ERRORS  RECOGNISED  SHARE   IN_A_FINDING\n";
  int64_t tot = 0, rec = 0, cited = 0;
  for (const auto& b : bundles) {
    DbFile dbf("");
    auto db = store::Db::open(dbf.path(), dbf.durability());
    const app::Outcome res = app::analyze(*db, b, o);
    if (res.exit_code != 0) continue;
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(
        db->handle(),
        "SELECT COUNT(*), SUM(EXISTS(SELECT 1 FROM hits h WHERE h.event_id = e.id)), "
        "SUM(EXISTS(SELECT 1 FROM finding_evidence fe JOIN findings f ON f.id = "
        "fe.finding_id JOIN members m ON m.path = fe.member AND m.bundle_id = "
        "f.bundle_id WHERE f.bundle_id = e.bundle_id AND m.id = e.member_id AND "
        "fe.line = e.line)) FROM events e WHERE e.bundle_id = ? AND e.sev_rank >= 4",
        -1, &s, nullptr);
    sqlite3_bind_int64(s, 1, res.bundle_id);
    int64_t n = 0, r = 0, c = 0;
    if (sqlite3_step(s) == SQLITE_ROW) {
      n = sqlite3_column_int64(s, 0);
      r = sqlite3_column_int64(s, 1);
      c = sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    tot += n;
    rec += r;
    cited += c;
    char share[32];
    std::snprintf(share, sizeof share, "%5.1f%%",
                  n > 0 ? 100.0 * static_cast<double>(r) / static_cast<double>(n) : 0.0);
    out += pad(b.filename().string(), 40) + " " + pad(std::to_string(n), 7) + " " +
           pad(std::to_string(r), 11) + " " + share + "  " + std::to_string(c) + "\n";
  }
  char share[32];
  std::snprintf(share, sizeof share, "%.1f%%",
                tot > 0 ? 100.0 * static_cast<double>(rec) / static_cast<double>(tot) : 0.0);
  out += "total: " + std::to_string(tot) + " error-level lines, " + std::to_string(rec) +
         " recognised by a signature (" + share + "), " + std::to_string(cited) +
         " cited by a finding\n";
  return out;
}

}  // namespace

namespace {

// `rules suggest` (docs/faults.md): draft signatures from unrecognised error templates, as a
// pack `family: draft` on stdout, checked by the engine (its examples) with the result on stderr.
int run_suggest(const RulesArgs& a) {
  std::string why;
  if (probe_db(a.db, &why) != DbKind::faultline) {
    std::cerr << "faultline: " << a.db << ": not a database written by faultline analyze --db\n";
    return 3;
  }
  auto db = store::Db::open(a.db);
  auto ids = store::bundle_ids(db->handle(), false);
  int64_t bundle = ids.empty() ? -1 : ids.back();
  if (!a.bundle.empty()) {
    const auto n = text::to_int<int64_t>(a.bundle);
    if (!n || std::find(ids.begin(), ids.end(), *n) == ids.end())
      throw UsageError("--bundle: no complete bundle " + a.bundle + " in " + a.db);
    bundle = *n;
  }
  if (bundle < 0) {
    std::cerr << "faultline: " << a.db << ": no complete analysis in this database\n";
    return 3;
  }
  std::string name;
  {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db->handle(), "SELECT name FROM bundles WHERE id = ?", -1, &s, nullptr);
    sqlite3_bind_int64(s, 1, bundle);
    if (sqlite3_step(s) == SQLITE_ROW)
      if (const auto* t = sqlite3_column_text(s, 0)) name = reinterpret_cast<const char*>(t);
    sqlite3_finalize(s);
  }
  const auto all = report::unrecognised_errors(db->handle(), bundle, 1000);
  std::vector<const report::UnknownTemplate*> chosen;
  for (const auto& id : a.templates) {
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& t) { return t.id == id; });
    if (it == all.end())
      throw UsageError("no unrecognised error template " + id + " in bundle " +
                       std::to_string(bundle) + " of " + a.db);
    chosen.push_back(&*it);
  }
  if (a.templates.empty())
    for (size_t i = 0; i < all.size() && i < a.top; ++i) chosen.push_back(&all[i]);
  if (chosen.empty()) {
    std::cerr << "faultline: no unrecognised error in bundle " << bundle << " of " << a.db << "\n";
    return 0;
  }
  std::string yaml = "family: draft\nsignatures:\n";
  for (const auto* t : chosen) {
    // negative examples: the other templates' lines (of the same bundle)
    std::vector<std::string> others;
    for (const auto& o : all)
      if (&o != t && !o.examples.empty()) others.push_back(o.examples.front().text);
    yaml += report::suggest_signature(*t, name, others);
  }
  say(yaml);
  std::fflush(stdout);
  const auto rs = tag::load_signatures({{"signatures/draft.yaml", yaml}});
  for (const auto& e : rs.errors) std::cerr << "draft: " << text::terminal_safe(e) << "\n";
  std::string err;
  const auto engine = rs.signatures.empty() ? nullptr : tag::Engine::build(rs, {}, &err);
  if (!engine) {
    std::cerr << "faultline: the drafts do not compile: " << err << "\n";
    return rs.errors.empty() ? 0 : 2;
  }
  const auto rep = tag::run_examples(rs, *engine);
  std::cerr << "faultline: " << rs.signatures.size()
            << " draft signature(s); their examples: " << (rep.checked - rep.failures)
            << " passed, " << rep.failures << " failed\n";
  if (rep.failures) std::cerr << text::terminal_safe(rep.text);
  return 0;
}

}  // namespace

int run_rules(CLI::App& cmd, const RulesArgs& a) {
  std::vector<fs::path> dirs(a.rule_dirs.begin(), a.rule_dirs.end());
  if (cmd.got_subcommand("import-faultdiag")) {
    // -o: a .yaml/.yml file (the pack alone), else a rule directory
    std::string out_file = a.output;
    const std::string ext = fs::path(a.output).extension().string();
    const bool to_dir = !a.output.empty() && a.output != "-" && ext != ".yaml" && ext != ".yml";
    const std::string family = a.family.empty() ? "faultdiag" : a.family;
    if (to_dir) {
      std::error_code ec;
      if (fs::exists(a.output, ec) && !fs::is_directory(a.output, ec))
        throw UsageError("-o: " + a.output + " exists and is not a directory");
      const fs::path parent = fs::path(a.output).lexically_normal().parent_path();
      if (!parent.empty() && !fs::is_directory(parent, ec))
        throw UsageError("-o: " + a.output + ": the directory " + parent.string() +
                         " does not exist");
      out_file = (fs::path(a.output) / "signatures" / (family + ".yaml")).string();
    } else {
      check_output(a.output);
    }
    std::error_code ec;
    if (!fs::exists(a.import_file, ec)) {
      std::cerr << "faultline: " << a.import_file << ": no such file\n";
      return 3;
    }
    if (fs::is_directory(a.import_file, ec)) {
      std::cerr << "faultline: " << a.import_file
                << ": is a directory, not a FaultDiag JSON file\n";
      return 3;
    }
    std::ifstream in(a.import_file, std::ios::binary);
    if (!in) {
      std::cerr << "faultline: " << a.import_file << ": cannot be read: " << std::strerror(errno)
                << "\n";
      return 3;
    }
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    tag::ImportStats st;
    std::string yaml;
    try {
      yaml = app::import_kb(json, family, &st);
    } catch (const std::invalid_argument& e) {
      std::cerr << "faultline: " << a.import_file << ": " << without_library_tags(e.what()) << "\n";
      return 3;
    }
    if (to_dir) {
      fs::create_directories(fs::path(out_file).parent_path(), ec);
      if (ec)
        throw std::runtime_error(fs::path(out_file).parent_path().string() +
                                 ": cannot be created: " + ec.message());
    }
    write_output(out_file, yaml);
    std::cerr << "faultline: " << a.import_file << ": " << st.codes << " code(s): imported "
              << st.imported << " as fault signatures (" << st.aliased
              << " through a native counterpart, " << st.full_regex << " full regex, "
              << st.captures << " with captures), skipped " << st.skipped << "\n";
    for (const auto& n : st.skipped_codes)
      std::cerr << "  skipped " << text::terminal_safe(n) << "\n";
    for (const auto& n : st.notes) std::cerr << "  note: " << text::terminal_safe(n) << "\n";
    if (to_dir)
      std::cerr << "faultline: wrote " << out_file << "; use it with --rules " << a.output << "\n";
    return 0;
  }
  if (cmd.got_subcommand("suggest")) return run_suggest(a);
  const app::Rules rules = app::load_rules(dirs, a.kb, a.kb.empty() ? "" : "--kb");
  for (const auto& w : rules.signatures.warnings) std::cerr << "warning: " << w << "\n";
  if (!rules.signatures.errors.empty()) {
    for (const auto& e : rules.signatures.errors) std::cerr << "error: " << e << "\n";
    return 2;
  }
  // kinds known to the classifier (rules/classify)
  std::vector<std::string> kinds;
  {
    const classify::Classifier cls(rules_under(rules.files, "classify/"));
    for (const auto& [k, d] : cls.kinds()) kinds.push_back(k);
    kinds.emplace_back("text");
    kinds.emplace_back("binary");
  }
  std::vector<std::string> sig_ids;
  for (const auto& s : rules.signatures.signatures) sig_ids.push_back(s.id);

  if (cmd.got_subcommand("list")) {
    say(tag::list_text(rules.signatures));
    say("\n" + pad("DIAGNOSIS", 40) + " " + pad("KIND", 11) + " " + pad("SEVERITY", 9) +
        " TITLE\n");
    for (const auto& d : correlate::list(rules.correlate_files()))
      say(pad(d.id, 40) + " " + pad(d.kind, 11) + " " + pad(d.severity, 9) + " " + d.title + "\n");
    say("\n" + pad("KIND", 22) + " DESCRIPTION\n");
    const classify::Classifier cls(rules_under(rules.files, "classify/"));
    for (const auto& [k, d] : cls.kinds()) say(pad(k, 22) + " " + d + "\n");
    return 0;
  }
  if (cmd.got_subcommand("coverage")) {
    std::fputs(tag::coverage_text(rules.signatures).c_str(), stdout);
    {
      std::string err;
      const auto engine = tag::Engine::build(rules.signatures, app::default_cache_dir(), &err);
      if (!engine) throw std::runtime_error(err);
      say(app::code_coverage_text(rules.files, *engine));
    }
    if (!a.kb.empty()) say(kb_coverage(dirs, a.kb));
    if (!a.samples.empty()) say(samples_coverage(a.samples, dirs, a.kb));
    return 0;
  }
  if (cmd.got_subcommand("test")) {
    std::string err;
    const auto engine = tag::Engine::build(rules.signatures, {}, &err);
    if (!engine) {
      std::cerr << "error: " << err << "\n";
      return 2;
    }
    const auto rep = tag::run_examples(rules.signatures, *engine);
    say(rep.text);
    // diagnoses: their own checks (known signatures, templates, compat tables)
    auto dprob = correlate::lint(rules.correlate_files(), sig_ids);
    // fact shapes (rules/facts): each shape's examples through that shape alone
    for (auto& p : parse::check_fact_shapes(rules.files)) dprob.push_back(std::move(p));
    for (const auto& p : dprob) say(p + "\n");
    say(std::to_string(rep.checked - rep.failures) + " passed, " +
        std::to_string(rep.failures + static_cast<int>(dprob.size())) + " failed\n");
    return rep.failures == 0 && dprob.empty() ? 0 : 2;
  }
  if (cmd.got_subcommand("lint")) {
    int errors = 0;
    for (const auto& p : tag::lint(rules.signatures, kinds)) {
      say(p.to_string() + "\n");
      if (p.level == tag::Problem::Level::error) ++errors;
    }
    for (const auto& p : correlate::lint(rules.correlate_files(), sig_ids)) {
      say("error: " + p + "\n");
      ++errors;
    }
    for (const auto& p : correlate::lint_compare(rules_under(rules.files, "compare/"))) {
      say("error: " + p + "\n");  // rules/compare (docs/compare.md)
      ++errors;
    }
    for (const auto& p : parse::check_fact_shapes(rules.files)) {
      say("error: " + p + "\n");  // rules/facts (docs/facts.md "Fact shapes")
      ++errors;
    }
    say(std::to_string(rules.signatures.signatures.size()) + " signatures, " +
        std::to_string(errors) + " error(s)\n");
    return errors == 0 ? 0 : 2;
  }
  return 2;
}

}  // namespace faultline::cli
