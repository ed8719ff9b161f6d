#include "commands.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "faultline/classify/classify.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/core/text.hpp"
#include "faultline/correlate/correlate.hpp"
#include "faultline/report/report.hpp"
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

namespace {

std::optional<Severity> finding_severity(const std::string& s) {
  if (s == "none" || s.empty()) return std::nullopt;
  if (s == "info") return Severity::info;
  if (s == "warning") return Severity::warning;
  if (s == "error") return Severity::error;
  if (s == "critical") return Severity::critical;
  throw UsageError("--fail-on: '" + s + "' is not one of none, info, warning, error, critical");
}

report::Format format_or_throw(const std::string& f) {
  const auto fmt = report::format_from(f);
  if (!fmt) throw UsageError("--format: '" + f + "' is not one of md, json, html");
  return *fmt;
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
  if (sqlite3_open_v2(p.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
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
  return o;
}

// A database file that is removed at the end unless the user asked to keep it (--db).
class DbFile {
 public:
  explicit DbFile(const std::string& keep) {
    if (!keep.empty()) {
      path_ = keep;
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
  // a temporary file needs no durability (store::Db::Durability::scratch)
  store::Db::Durability durability() const {
    return temp_ ? store::Db::Durability::scratch : store::Db::Durability::normal;
  }

 private:
  fs::path path_;
  bool temp_ = false;
};

}  // namespace

void add_analyze_options(CLI::App& cmd, AnalyzeArgs& a, CommonOptions& c) {
  cmd.add_option("BUNDLE", a.bundle,
                 "The bundle: a directory, tar, tar.gz/xz/zst, zip, or a single (compressed) log")
      ->required();
  cmd.add_option("--db", a.db, "Keep the analysis in this SQLite file (default: a temporary file)");
  cmd.add_option("--format", a.format, "Report format: md (default), json, html");
  cmd.add_option("-o,--output", a.output, "Write the report to this file instead of stdout");
  cmd.add_option("--fail-on", a.fail_on,
                 "Exit 1 when a finding has this severity or higher: info, warning, error, "
                 "critical (default: none)");
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
  cmd.add_option("BUNDLE_OR_DIR", a.inputs, "Node bundles, or directories holding them")
      ->required();
  cmd.add_option("-j,--jobs", a.jobs, "Bundles analyzed in parallel (default: number of cores)");
  cmd.add_option("--db", a.db, "Keep the fleet analysis in this SQLite file");
  cmd.add_option("--format", a.format, "Report format: md (default), json, html");
  cmd.add_option("-o,--output", a.output, "Write the report to this file instead of stdout");
  cmd.add_option("--fail-on", a.fail_on, "Exit 1 when a finding has this severity or higher");
  cmd.add_flag("--stats", a.stats, "Print per-stage statistics to stderr");
  cmd.add_flag("-q,--quiet", a.quiet,
               "No progress on stderr (skipped bundles and errors are still printed)");
  add_common(cmd, c);
}

void add_report_options(CLI::App& cmd, ReportArgs& a) {
  cmd.add_option("--db", a.db, "Database written by analyze --db or fleet --db")->required();
  cmd.add_option("--format", a.format, "Report format: md (default), json, html");
  cmd.add_option("-o,--output", a.output, "Write the report to this file instead of stdout");
  cmd.add_option("--bundle", a.bundle,
                 "Report only this bundle (id or sha256 prefix) of a database holding several");
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
  auto* imp = cmd.add_subcommand(
      "import-faultdiag",
      "Turn a MindCluster FaultDiag knowledge-base JSON file into a signature rule pack (YAML)");
  imp->add_option("FILE", a.import_file, "FaultDiag knowledge-base file (kg-config.json style)")
      ->required();
  imp->add_option("--family", a.family,
                  "Family (file stem) of the generated pack (default faultdiag)");
  imp->add_option("-o,--output", a.output, "Write the pack here (default stdout)");
  cmd.footer(
      "Examples:\n"
      "  faultline rules list\n"
      "  faultline rules test --rules my-rules/\n"
      "  faultline rules import-faultdiag kg-config.json -o my-rules/signatures/faultdiag.yaml");
}

int run_analyze(const AnalyzeArgs& a, const CommonOptions& c) {
  const auto fmt = format_or_throw(a.format);
  const auto fail_on = finding_severity(a.fail_on);
  if (a.no_report && a.db.empty())
    throw UsageError("--no-report needs --db (where the analysis goes)");
  check_output(a.output);
  check_output_db(a.db);
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

  DbFile dbf(a.db);
  auto db = store::Db::open(dbf.path(), dbf.durability());
  const app::Outcome out = app::analyze(*db, a.bundle, o);
  if (out.exit_code != 0) {
    std::cerr << "faultline: " << out.error << "\n";
    return out.exit_code;
  }
  if (out.ingest.warnings > 0 && !a.quiet)
    std::cerr << "faultline: " << out.ingest.warnings
              << " ingest warning(s): see the report's warnings section\n";
  if (!a.no_report) write_output(a.output, report::render_bundle(db->handle(), out.bundle_id, fmt));
  if (fail_on) {
    const auto worst = max_finding_severity(db->handle(), {out.bundle_id});
    if (worst && *worst >= *fail_on) return 1;
  }
  return 0;
}

int run_fleet(const FleetArgs& a, const CommonOptions& c) {
  const auto fmt = format_or_throw(a.format);
  const auto fail_on = finding_severity(a.fail_on);
  check_output(a.output);
  check_output_db(a.db);
  app::Options o = app_options(c);
  o.progress = !a.quiet && isatty(STDERR_FILENO) != 0;
  o.stats = a.stats;
  std::vector<fs::path> inputs;
  for (const auto& i : a.inputs) {
    std::error_code ec;
    if (!fs::exists(i, ec)) throw UsageError(i + ": no such file or directory");
    inputs.emplace_back(i);
  }
  const auto bundles = app::expand_fleet_inputs(inputs);
  if (bundles.empty()) throw UsageError("no bundles found in the inputs");
  DbFile dbf(a.db);
  // not a scratch database even when temporary: a failed merge is rolled back and the fleet
  // goes on with the other bundles
  auto db = store::Db::open(dbf.path());
  const auto out = app::fleet(*db, bundles, o, a.jobs);
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
  try {
    text = report::render_fleet(db->handle(), out.bundle_ids, fmt);
  } catch (const std::exception& e) {
    if (correlated) throw;
    std::cerr << "faultline fleet: the report cannot be rendered either: " << e.what() << "\n";
    return 3;
  }
  write_output(a.output, text);
  if (!correlated) return 3;
  if (fail_on) {
    const auto worst = max_finding_severity(db->handle(), out.bundle_ids);
    if (worst && *worst >= *fail_on) return 1;
  }
  return 0;
}

int run_report(const ReportArgs& a) {
  const auto fmt = format_or_throw(a.format);
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
      problem = "an empty database: no analysis in it";
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
  if (ids.size() == 1)
    write_output(a.output, report::render_bundle(db->handle(), ids.front(), fmt));
  else
    write_output(a.output, report::render_fleet(db->handle(), ids, fmt));
  return 0;
}

int run_rules(CLI::App& cmd, const RulesArgs& a) {
  std::vector<fs::path> dirs(a.rule_dirs.begin(), a.rule_dirs.end());
  if (cmd.got_subcommand("import-faultdiag")) {
    check_output(a.output);
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
      yaml = tag::import_faultdiag(json, a.family.empty() ? "faultdiag" : a.family, &st);
    } catch (const std::invalid_argument& e) {
      std::cerr << "faultline: " << a.import_file << ": " << without_library_tags(e.what()) << "\n";
      return 3;
    }
    write_output(a.output, yaml);
    std::cerr << "faultline: imported " << st.imported << " signature(s), skipped " << st.skipped
              << "\n";
    for (const auto& n : st.notes) std::cerr << "  " << n << "\n";
    return 0;
  }
  const app::Rules rules = app::load_rules(dirs);
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
    std::fputs(tag::list_text(rules.signatures).c_str(), stdout);
    std::printf("\n%-40s %-11s %-9s %s\n", "DIAGNOSIS", "KIND", "SEVERITY", "TITLE");
    for (const auto& d : correlate::list(rules.correlate_files()))
      std::printf("%-40s %-11s %-9s %s\n", d.id.c_str(), d.kind.c_str(), d.severity.c_str(),
                  d.title.c_str());
    std::printf("\n%-22s %s\n", "KIND", "DESCRIPTION");
    const classify::Classifier cls(rules_under(rules.files, "classify/"));
    for (const auto& [k, d] : cls.kinds()) std::printf("%-22s %s\n", k.c_str(), d.c_str());
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
    std::fputs(rep.text.c_str(), stdout);
    // diagnoses: their own checks (known signatures, templates, compat tables)
    const auto dprob = correlate::lint(rules.correlate_files(), sig_ids);
    for (const auto& p : dprob) std::printf("%s\n", p.c_str());
    std::printf("%d passed, %d failed\n", rep.checked - rep.failures,
                rep.failures + static_cast<int>(dprob.size()));
    return rep.failures == 0 && dprob.empty() ? 0 : 2;
  }
  if (cmd.got_subcommand("lint")) {
    int errors = 0;
    for (const auto& p : tag::lint(rules.signatures, kinds)) {
      std::printf("%s\n", p.to_string().c_str());
      if (p.level == tag::Problem::Level::error) ++errors;
    }
    for (const auto& p : correlate::lint(rules.correlate_files(), sig_ids)) {
      std::printf("error: %s\n", p.c_str());
      ++errors;
    }
    std::printf("%zu signatures, %d error(s)\n", rules.signatures.signatures.size(), errors);
    return errors == 0 ? 0 : 2;
  }
  return 2;
}

}  // namespace faultline::cli
