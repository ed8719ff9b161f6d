// app: wires the stages into the jobs users run (analyze one bundle, a fleet, render a report).
// The CLI and `serve` call these; no stage logic lives here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "faultline/core/progress.hpp"
#include "faultline/correlate/correlate.hpp"
#include "faultline/ingest/ingest.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/store.hpp"
#include "faultline/tag/tag.hpp"

namespace faultline::app {

struct Options {
  ingest::Limits limits;
  bool keep_raw = false;                          // store every member's text, zstd-compressed
  uint64_t small_member_bytes = 256 * 1024;       // members up to this size are stored whole
  std::vector<std::filesystem::path> rule_dirs;   // --rules DIR (override embedded packs)
  std::filesystem::path cache_dir;                // compiled rule database cache ("" = none)
  progress::Mode progress = progress::Mode::off;  // the progress line on stderr
  bool stats = false;                             // per-stage statistics on stderr
  // Streaming pass on two threads: walk + decompression + sha256 + classify + Hyperscan on the
  // caller, parsers + SQLite rows on a second thread. fleet turns it off in its workers (one
  // thread per bundle: -j N is the parallelism there).
  bool pipeline_threads = true;
  // A bundle that holds several nodes (a job's tarball or folder: one sub-folder or archive per
  // node) also gets the fleet correlation over its hosts (docs/fleet.md). fleet turns it off in
  // its workers: the fleet correlates all bundles at the end.
  bool job_fleet = true;
  // The ascend-fd knowledge base (docs/faults.md): --kb FILE, else FAULTLINE_KB, else the
  // kg-config.json of an installed ascend_fd Python package (find_kb); no_kb = --no-kb.
  std::filesystem::path kb_file;
  bool no_kb = false;
};

// Which knowledge-base pack a run used (the report names it).
struct KbInfo {
  std::string name = "ascend-fd";
  std::string file;    // kg-config.json read, or the --rules pack file holding an imported pack
  std::string how;     // "--kb", "FAULTLINE_KB", "found" (installed package), "--rules"
  std::string sha256;  // of the kg-config.json ("" for a --rules pack)
  int codes = 0;       // fault signatures of the pack
  int skipped = 0;     // codes of the file not imported
};

// Directories searched for <dir>/ascend_fd/configuration/kg-config.json: FAULTLINE_KB_PATH
// (':'-separated) when set, else PYTHONPATH, VIRTUAL_ENV and CONDA_PREFIX site-packages, then
// the usual site-packages / dist-packages of /usr, /usr/local, /opt, ~/.local, pyenv, conda.
std::vector<std::filesystem::path> kb_search_dirs();
// The first kg-config.json of an installed ascend_fd package, or "".
std::filesystem::path find_kb();
// The KB a run uses given the options ("" = none); *how says why ("--kb", "FAULTLINE_KB",
// "found"). FAULTLINE_KB=none (or an empty --kb) turns discovery off.
std::filesystem::path choose_kb(const Options& o, std::string* how);
// Imports a kg-config.json with the aliases of rules/kb/ascend-fd.yaml against the embedded
// native signatures (tag::import_faultdiag). Throws std::invalid_argument on a malformed file.
std::string import_kb(std::string_view json_text, const std::string& family,
                      tag::ImportStats* stats);

struct Outcome {
  int64_t bundle_id = -1;
  int exit_code = 0;  // 0 ok, 3 unreadable input
  std::string error;  // for exit 3: names the file and the problem
  ingest::Result ingest;
  correlate::Summary summary;
  size_t hosts = 0;       // hosts the bundle was split into
  bool job = false;       // a job of its own (correlate::job_bundle): the fleet correlation ran
  std::string job_error;  // that correlation failed (the per-host results stand)
};

// The rules of a run: the embedded rules/ tree overridden by each --rules DIR. Files of the same
// relative path replace each other; signatures are also overridden per id (a later root replaces
// an id in place, with a warning). Throws std::runtime_error naming the file on unreadable dirs.
struct Rules {
  std::vector<RuleFile> files;  // merged by path (classify/, diagnoses/, compat/, signatures/)
  tag::RuleSet signatures;      // loaded per root, errors in signatures.errors
  [[nodiscard]] std::vector<RuleFile> correlate_files() const;  // diagnoses/ + compat/
  // the `fault:` blocks of the active signatures (docs/faults.md), for correlate::run
  [[nodiscard]] std::vector<correlate::FaultDef> fault_defs() const;
  // the `restart:` blocks of the active signatures (docs/faults.md "Restarts")
  [[nodiscard]] std::vector<correlate::RestartDef> restart_defs() const;
  std::optional<KbInfo> kb;  // the knowledge-base pack in `signatures`, if any
  // the code tables of the codes/ files (from the rule cache when there is one; prepare() fills
  // it, null otherwise: correlate::run then parses them)
  std::shared_ptr<const correlate::CodeBook> codes;
  // the diagnoses, compat and code tables parsed, as correlate::run reads them (from the rule cache
  // when there is one; prepare() fills it, load_rules() does not)
  std::shared_ptr<const correlate::Book> book;
  // rules_digest of what the run uses: the signature roots (built-in, KB pack, each --rules DIR)
  // and then the merged classify/, diagnoses/ and compat/ files as one more root
  std::string digest;
};

// The rules digest (docs/report.md "Versions"): sha256 over the roots in order, each file's path
// inside its root, size and text; the rule cache keys its parsed packs by it (rule_cache.cpp).
std::string rules_digest(const std::vector<std::vector<RuleFile>>& roots);

// The runtime versions of the libraries in use (name, version): Hyperscan/Vectorscan,
// libarchive, SQLite, zstd, for `faultline --version`.
std::vector<std::pair<std::string, std::string>> library_versions();
// The digest load_rules(dirs).digest would give (no knowledge base), without parsing the rules:
// `faultline --version` (issue 38: a warm start in milliseconds).
std::string rules_digest_of(const std::vector<std::filesystem::path>& dirs);
// kb: the kg-config.json to add as a pack ("" = none), how: as KbInfo::how.
Rules load_rules(const std::vector<std::filesystem::path>& dirs,
                 const std::filesystem::path& kb = {}, const std::string& how = {});

// `rules coverage` for the code tables (rules/codes/, docs/codes.md): per table, its codes, how
// many are recognised in every wording, the generated lines and those the signature engine turns
// into that code's fault (the fault signatures of the lowest precedence level hitting the line
// name the code), and up to 20 missed lines.
struct CodeCoverage {
  std::string family;
  int codes = 0, codes_all = 0, lines = 0, recognised = 0;
  std::vector<std::string> missed;
};
std::vector<CodeCoverage> code_coverage(const std::vector<RuleFile>& files,
                                        const tag::Engine& engine);
std::string code_coverage_text(const std::vector<RuleFile>& files, const tag::Engine& engine);

// Reads the bundle into db and correlates it.
Outcome analyze(store::Db& db, const std::filesystem::path& bundle, const Options& opts);

struct FleetOutcome {
  std::vector<int64_t> bundle_ids;  // analysed bundles, in input order
  struct Failure {
    std::string bundle;
    std::string message;
  };
  std::vector<Failure> failures;  // bundles that could not be read (the fleet goes on)
  std::string correlation_error;  // fleet correlation failed (the per-bundle rows stand)
};

// The bundles named by the inputs: files as they are; a directory is itself a bundle when it holds
// regular files or a single sub-directory, otherwise each of its entries is a bundle (a folder of
// node bundles). Sorted by path.
std::vector<std::filesystem::path> expand_fleet_inputs(
    const std::vector<std::filesystem::path>& in);

// Analyses the bundles in parallel (jobs workers, each streaming into its own temporary database,
// merged into db one at a time). A broken bundle becomes a warning row and a failure entry; an
// input with the same content (sha256) as an earlier one is analysed once (failure entry). Then
// runs the fleet correlation (correlate/fleet.hpp) and stores it in the fleet_* tables.
FleetOutcome fleet(store::Db& db, const std::vector<std::filesystem::path>& bundles,
                   const Options& opts, unsigned jobs);

// Copies every row of the analysis database at `src` into db (ids renumbered), replacing a bundle
// with the same sha256. Returns the new bundle ids. `own_scratch`: src is a scratch database this
// process has just written (fleet workers), whose references hold by construction: its rows are
// copied without per-row foreign-key checks. A database from elsewhere (`fleet --db job.db
// node*.db`) is always checked.
std::vector<int64_t> merge_database(store::Db& db, const std::filesystem::path& src,
                                    bool own_scratch = false);

// --- scale-out (docs/scale-out.md): per-node databases merged by `fleet` ---

// meta keys of a database: the faultline version and the rules digest (rule_cache.hpp
// rules_digest) its analyses were made with; "mixed" when its bundles disagree.
inline constexpr const char* kMetaVersion = "faultline_version";
inline constexpr const char* kMetaRulesDigest = "rules_digest";
inline constexpr const char* kMetaMixed = "mixed";

// Records this build's version and rules_digest in db's meta table after a bundle's rows are
// loaded (a value another bundle of the database disagrees with becomes "mixed").
void record_meta(store::Db& db, const std::string& rules_digest);

// True when the file starts with the SQLite header.
bool is_sqlite_file(const std::filesystem::path& p);

// fleet's inputs split into node bundles and per-node databases: a SQLite file is a database, a
// folder whose entries are all *.db files is those databases, a text file whose first entry
// names a SQLite file is a manifest (one path a line, relative to the manifest's folder, '#'
// comments). exclude (the output database) is left out. Throws std::invalid_argument for a
// manifest line that names no file.
struct FleetInputs {
  std::vector<std::filesystem::path> bundles;    // expand_fleet_inputs of the others
  std::vector<std::filesystem::path> databases;  // in input order, duplicates removed
};
FleetInputs split_fleet_inputs(const std::vector<std::filesystem::path>& in,
                               const std::filesystem::path& exclude = {});

// "" when the databases can be merged; else why not, naming the files: a file faultline did not
// write, one without a recorded version/rules digest, a schema newer than this build, or
// databases of different faultline versions or rule sets. Opens one file at a time.
std::string check_node_databases(const std::vector<std::filesystem::path>& dbs);

// `fleet` over per-node databases: merges them into db one at a time (merge_database, in input
// order) and runs the fleet correlation, as fleet() does after its workers. A database without a
// complete analysis, or with the content of an earlier one, becomes a failure entry.
FleetOutcome fleet_merge(store::Db& db, const std::vector<std::filesystem::path>& dbs,
                         const Options& opts);

// Default cache directory for compiled rule databases ($XDG_CACHE_HOME/faultline or
// ~/.cache/faultline; empty when neither can be used).
std::filesystem::path default_cache_dir();

}  // namespace faultline::app
