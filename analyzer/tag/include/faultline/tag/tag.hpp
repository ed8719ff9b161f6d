// tag: signature rules (rules/signatures/*.yaml) compiled into one Hyperscan database, scanned
// over whole-line chunks; values are captured by re-running a PCRE2 pattern on the matched line.
// rules/README.md documents the rule file schema; this header documents the C++ side.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/core/types.hpp"

namespace faultline::tag {

// Member kinds a signature may name in `kinds:` (the shared vocabulary of classify/parse/tag, as
// of rules/classify/kinds.yaml plus "text" and "binary"). A kind outside this list loads (with a
// warning); lint() reports it as an error unless the caller passes the classifier's kind ids.
const std::vector<std::string_view>& known_kinds();

struct Example {
  std::string line;
  std::vector<std::pair<std::string, std::string>> captures;  // name -> expected value
  // True when the example states `captures:` (even `{}`): run_examples then requires the
  // engine's captures to equal `captures` exactly. False: captures are not checked.
  bool check_captures = false;
  int file_line = 0;  // 1-based line of the example in its file
  std::string seen;   // `seen:` where the line was seen (issue URL, seed, corpus file); optional
};

// `fault:` block of a signature (docs/faults.md): a hit of the signature is a fault event, one
// `fault.<signature id>` finding per host. Absent block = `present` false.
struct Fault {
  bool present = false;
  std::string cls;             // hardware | os | network | driver | cann | framework | user_config
  std::string component;       // free word: hbm, aicore, filesystem, roce, hccl, ...
  std::string role = "cause";  // cause (can be a root cause) | symptom (a consequence)
  std::string cause, suggestion;  // our own words; `{capture}` placeholders allowed
  std::string code;               // external code (ACL/CANN code, event id, ERRxxxxx), optional
  std::string code_capture;       // name of a capture holding the code, optional
  bool has_severity = false;      // severity overrides the signature's (and the line's) level
  bool generic = false;           // a catch-all of a code family: a line that is also a hit of a
                                  // non-generic fault signature is not evidence of this one
  bool generic_last = false;      // `generic: last`: a line that is a hit of any other fault
                                  // signature (generic ones too) is not evidence of this one
  bool generic_code = false;      // `generic: code`: a code found by a generic wording: a line
                                  // that is a hit of a specific or generic fault is not its
                                  // evidence (it still beats `last`)
  // `lookup: [families]`: the code of a hit (code_capture) is looked up in these code tables
  // (rules/codes/, docs/codes.md); the finding takes the entry's title, class, texts
  std::vector<std::string> lookup;
  Severity severity = Severity::error;
  std::vector<std::string> caused_by;  // ids of signatures whose fault causes this one
  // `kb:` the knowledge-base pack the fault was imported from ("ascend-fd"), empty for native
  // signatures; a KB fault whose lines are all lines of a native fault is shown inside that
  // native fault's finding (docs/faults.md).
  std::string kb;
  // A hit is cleared (recovered) by a later hit, on the same host, of one of these signatures
  // whose `clear_key` capture is equal (any hit when clear_key is empty); a host whose every hit
  // is cleared gets no finding.
  std::vector<std::string> cleared_by;
  std::string clear_key;
};

// `restart:` block (docs/faults.md "Restarts"): a hit of the signature marks a new run of the
// job: the CANN process-log lines before it belong to the earlier run and are no fault events
// (nor fleet errors) of this one.
struct Restart {
  bool present = false;
  std::string scope = "host";  // host: every process of the host; process: the line's process
  int from = 1;                // the n-th and later hit of one process mark a restart (1 = every)
  int margin_s = 0;            // lines less than this many seconds before the mark stay
  std::vector<std::string> kinds = {"plog", "device_app_log"};  // member kinds it voids
};

struct Signature {
  std::string id;      // <family>.<name>, stable and unique
  std::string family;  // file stem
  std::string title;
  std::vector<std::string> kinds;  // member kinds it applies to; empty = all text kinds
  Severity severity = Severity::error;
  std::vector<std::string> patterns;  // Hyperscan syntax; any may match
  std::string capture;                // PCRE2 pattern with named groups (optional)
  std::string status = "stable";      // experimental | stable | deprecated
  std::vector<std::string> references;
  std::vector<Example> match;         // lines that must match (with expected captures)
  std::vector<std::string> no_match;  // lines that must not match
  std::string file;                   // where it was defined (for error messages)
  int file_line = 0;
  // Additions (documented in rules/README.md):
  bool caseless = false;            // `flags: [caseless]`: Hyperscan and PCRE2 ignore case
  std::vector<std::string> causes;  // ids of signatures this fault is known to cause
  std::vector<int> pattern_lines;   // file line of each entry of `patterns`
  int capture_line = 0;             // file line of `capture`
  std::vector<int> no_match_lines;  // file line of each entry of `no_match`
  Fault fault;                      // `fault:` block (docs/faults.md)
  Restart restart;                  // `restart:` block (docs/faults.md "Restarts")
  [[nodiscard]] bool active() const { return status != "deprecated"; }
};

struct RuleSet {
  std::vector<Signature> signatures;
  std::vector<std::string> errors;    // "<file>:<line>: <rule id>: <problem>"
  std::vector<std::string> warnings;  // same form; loading went on (unknown keys, overrides ...)
};

// Parses the signature packs of ONE rules root (files as returned by read_rule_dir or
// merged_rules, paths like "signatures/svm.yaml"). An id defined twice, in one file or in two
// files, is an error; the first definition is kept. A signature with an error is left out of
// `signatures` and its problem is listed in `errors` (the other signatures still load).
RuleSet load_signatures(const std::vector<RuleFile>& files);

// Parses several rules roots, lowest priority first (e.g. the embedded packs, then each
// --rules DIR). Within one root ids must be unique (as load_signatures); a signature of a later
// root replaces the one with the same id from an earlier root, in place, and the override is
// listed in `warnings`.
RuleSet load_signature_roots(const std::vector<std::vector<RuleFile>>& roots);

struct Hit {
  uint32_t signature = 0;  // index into Engine::signatures()
  size_t end = 0;          // offset in the scanned chunk just past the (first) match on the line
  size_t line_begin = 0;   // offset of the first byte of the line holding the match
  size_t line_end = 0;     // offset of the line's '\n' (or the chunk's end): line excludes it
};

// Named captures, sorted by name; unset groups are left out.
using Captures = std::vector<std::pair<std::string, std::string>>;

// Limits applied to every PCRE2 capture run.
inline constexpr uint32_t kCaptureMatchLimit = 20000;   // pcre2_set_match_limit
inline constexpr uint32_t kCaptureDepthLimit = 2000;    // pcre2_set_depth_limit
inline constexpr uint32_t kCaptureHeapLimitKiB = 4096;  // pcre2_set_heap_limit
inline constexpr size_t kCaptureMaxLine = 64 * 1024;    // longer lines: first 64 KiB only

// A scanning context with its own Hyperscan scratch space. Hyperscan scratch must not be used by
// two threads at once: give each scanning thread its own Scanner (Engine::scanner()). A Scanner
// must not outlive the Engine that made it.
class Scanner {
 public:
  virtual ~Scanner() = default;
  // Scans a chunk of complete lines of a member of `kind` (an empty kind applies every
  // signature). Hits of signatures that do not apply to the kind are dropped; a signature is
  // reported at most once per line. Calls fn for each hit, in order of end offset (ties by
  // signature index).
  virtual void scan(std::string_view chunk, std::string_view kind,
                    const std::function<void(const Hit&)>& fn) = 0;
};

// Bounds of the compiled-database cache (see Engine::build).
inline constexpr size_t kCacheKeep = 8;  // databases of other keys kept, most recently used first
inline constexpr std::chrono::hours kCacheMaxAge{24 * 30};  // unused this long: removed

struct BuildInfo {
  bool from_cache = false;           // the database was deserialized from cache_file
  std::filesystem::path cache_file;  // empty when caching is disabled
  std::string cache_warning;         // why the cache could not be read or written (not fatal)
  size_t patterns = 0;               // expressions in the database
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Compiles (or loads from cache_dir, keyed by the rule texts and the library version) the
  // database. Empty cache_dir disables caching. On error returns nullptr and sets *error to a
  // message naming the rule id, its file and line.
  // Every signature of `rules` is kept (signatures() has the same order and indices as
  // rules.signatures); deprecated ones are not compiled and never hit. rules.errors is not
  // consulted: callers decide whether a rule set with errors may be used.
  // The cache file is cache_dir/<sha256 of hs_version, platform, ids, flags, patterns>.hsdb,
  // written atomically (temp file + rename) and checked (magic + sha256 of the payload) before
  // use; a corrupt or unreadable cache falls back to compiling (BuildInfo::cache_warning).
  // Loading a cache file updates its mtime; writing one prunes the directory: databases of other
  // keys unused for kCacheMaxAge go, then all but the kCacheKeep most recently used (and
  // temporary files older than an hour). A process that already loaded a file is unaffected.
  static std::unique_ptr<Engine> build(const RuleSet& rules, const std::filesystem::path& cache_dir,
                                       std::string* error);
  // As build(), without copying the signatures: the engine reads rules.signatures, which must
  // outlive it unchanged (app::Prepared holds both; copying ~800 signatures with their strings
  // was a tenth of a small run's CPU).
  static std::unique_ptr<Engine> build_borrowing(const RuleSet& rules,
                                                 const std::filesystem::path& cache_dir,
                                                 std::string* error);

  [[nodiscard]] virtual const std::vector<Signature>& signatures() const = 0;

  // Scans a chunk of complete lines of a member of `kind`; hits of signatures that do not apply
  // to the kind are dropped. Calls fn for each hit, in order of end offset.
  // Uses the engine's own scratch: call it from one thread at a time; other threads use
  // scanner(). An empty kind applies every signature; kind "binary" applies only signatures that
  // name it; any other kind applies the signatures naming it plus those with no kinds.
  // A signature is reported once per line; a pattern that could match across a newline (\s,
  // [^...], \n ...) is re-checked on the line alone, so a hit never spans lines.
  virtual void scan(std::string_view chunk, std::string_view kind,
                    const std::function<void(const Hit&)>& fn) const = 0;

  // Named captures of signature `sig` on one line (empty when it has no capture pattern or it
  // does not match). Bounded by PCRE2 match and depth limits (kCapture*). Thread-safe.
  [[nodiscard]] virtual std::vector<std::pair<std::string, std::string>> captures(
      uint32_t sig, std::string_view line) const = 0;

  // A new scanner with its own scratch (hs_clone_scratch), for use by one other thread.
  [[nodiscard]] virtual std::unique_ptr<Scanner> scanner() const = 0;

  [[nodiscard]] virtual const BuildInfo& build_info() const = 0;

  // Index of the signature with this id, or -1.
  [[nodiscard]] virtual int64_t find(std::string_view id) const = 0;
};

// ---- Library functions behind `faultline rules list|test|lint|import-faultdiag` ----

// `rules list`: one line per signature: id, severity, status, kinds, title, file:line.
std::string list_text(const RuleSet& rules);

// `rules coverage` (docs/faults.md): how many active signatures carry a `fault:` block and how
// many of those carry real example lines (a match example citing where it was `seen:`, or
// references none of which says the examples were synthesized), per fault class, per signature
// pack and per log kind (a signature without kinds counts under "(any)").
std::string coverage_text(const RuleSet& rules);

struct ExampleReport {
  std::string text;  // one line per failure, then a summary line
  int checked = 0;   // examples run
  int failures = 0;  // examples that failed
};

// `rules test`: every match example of every active signature must hit that signature through
// the Hyperscan engine (scanned as a one-line chunk of the signature's first kind) and, when it
// states captures, Engine::captures must equal them; every no_match example must not hit it.
ExampleReport run_examples(const RuleSet& rules, const Engine& engine);

struct Problem {
  enum class Level { warning, error };
  Level level = Level::error;
  std::string file;
  int line = 0;
  std::string id;  // rule id, empty for file-level problems
  std::string message;
  [[nodiscard]] std::string to_string() const;  // "error: <file>:<line>: <id>: <message>"
};

// `rules lint`: load errors and warnings, unknown kinds, patterns Hyperscan rejects or that can
// match the empty string, patterns that match none of their signature's match examples, capture
// patterns PCRE2 rejects or without named groups, expected capture names the pattern lacks,
// redundant leading/trailing `.*`, causes naming unknown ids. `kinds`: the kind ids that exist
// (e.g. the ids of rules/classify/kinds.yaml from the classifier); empty = known_kinds().
std::vector<Problem> lint(const RuleSet& rules, const std::vector<std::string>& kinds = {});

struct ImportStats {
  int codes = 0;       // entries of the knowledge base
  int imported = 0;    // signatures written (every one a fault signature)
  int skipped = 0;     // entries not imported (each in skipped_codes with its reason)
  int aliased = 0;     // imported with a native signature's patterns (no line pattern in the KB)
  int full_regex = 0;  // entries whose regex.regex (a full regular expression) was imported
  int captures = 0;    // attr_regex captures imported
  std::vector<std::string> skipped_codes;  // "CODE: reason"
  std::vector<std::string> notes;          // approximations, dropped parts, unmapped sources
};

// First line of what import_faultdiag writes (how a --rules DIR holding an imported pack is
// recognised).
inline constexpr std::string_view kFaultdiagHeader =
    "# Imported from a MindCluster FaultDiag knowledge base";

struct ImportOptions {
  std::string family = "faultdiag";
  // KB code -> native signature id (rules/kb/ascend-fd.yaml `aliases:`): a code the KB gives no
  // line pattern (ascend-fd derives it from command outputs) is imported with the patterns,
  // kinds, capture and examples of that native signature, looked up in `native`.
  std::map<std::string, std::string> aliases;
  const RuleSet* native = nullptr;
};

// `rules import-faultdiag` and the run-time knowledge base (docs/faults.md): converts a
// MindCluster FaultDiag (ascend-fd) knowledge base (kg-config.json: {"knowledge-repository":
// {CODE: {attribute, rule, source_file, regex: {"in" | "regex" | "opt"}, attr_regex}}}) into the
// YAML text of a signature pack of `family` (ids `<family>.<code lowercased>`). Every code is a
// fault signature (`fault:` with kb: ascend-fd, class/component from the KB's, code = the KB
// code, cause = description_en, suggestion = suggestion_en, causes = its `rule` edges). Each
// substring list becomes one pattern (escaped literals joined by `.*`); regex.regex is imported
// as it is (checked by PCRE2 and Hyperscan, an example built from it); regex.opt by its most
// specific line; source_file maps to kinds (faultdiag_kinds); attr_regex becomes `capture`;
// examples are synthesized so that the pack passes run_examples. Throws std::invalid_argument
// on malformed JSON / layout or a bad family.
std::string import_faultdiag(std::string_view json_text, const ImportOptions& opt,
                             ImportStats* stats = nullptr);
std::string import_faultdiag(std::string_view json_text, std::string_view family,
                             ImportStats* stats = nullptr);

// source_file of a KB entry ("CANN_Plog", "NodeDLog | BMCLogDumpLog") -> member kinds; *known
// is false when a part has no mapping.
std::vector<std::string> faultdiag_kinds(const std::string& source_file, bool* known = nullptr);
const std::vector<std::pair<std::string, std::vector<std::string>>>& faultdiag_source_map();

// `aliases:` of rules/kb/ascend-fd.yaml (KB code -> native signature id).
std::map<std::string, std::string> parse_kb_aliases(std::string_view yaml_text);

// The codes of a knowledge base with their kinds and the lines built from their own ordered
// substrings (one per list; a line built from regex.regex; each list of regex.opt), for
// `rules coverage --kb`. Throws std::invalid_argument as import_faultdiag.
struct KbCode {
  std::string code, source;
  std::vector<std::string> kinds, lines;
};
std::vector<KbCode> read_faultdiag(std::string_view json_text);

// Escapes a literal for Hyperscan/PCRE syntax (metacharacters backslash-escaped, control bytes
// as \xHH; UTF-8 bytes kept).
std::string escape_literal(std::string_view s);

}  // namespace faultline::tag
