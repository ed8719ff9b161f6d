// correlate: diagnosis rules (rules/diagnoses/*.yaml) and compatibility tables
// (rules/compat/*.yaml) turn hits and facts of one bundle into ranked findings with evidence and a
// timeline. Reads the store, writes the findings, finding_evidence and timeline tables.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/core/types.hpp"
#include "faultline/correlate/codes.hpp"

struct sqlite3;

namespace faultline::correlate {

struct Summary {
  int root_causes = 0;
  int symptoms = 0;
  int unexplained = 0;
  int faults = 0;  // fault-event findings (kind "fault", docs/faults.md)
  Severity max_severity = Severity::info;
  bool any = false;  // at least one finding
};

// What a signature's `fault:` block declares (docs/faults.md); the app copies it from the loaded
// signature packs (tag::Signature::fault), so the correlator does not read signature files.
struct FaultDef {
  std::string signature;                       // signature id; the finding is "fault.<signature>"
  std::string title;                           // the signature's title
  std::string cls, component, role;            // role: cause | symptom
  std::string cause, suggestion;               // `{capture}` placeholders filled from the first hit
  std::string code, code_capture;              // fixed external code, or the capture holding it
  std::string severity;                        // critical | error | warning | info
  std::vector<std::string> causes, caused_by;  // signature ids
  std::vector<std::string> cleared_by;         // signatures whose later hit clears a hit
  std::string clear_key;                       // capture that must be equal to clear
  bool generic = false;  // catch-all of a code family: lines also hit by a non-generic fault
                         // signature are not its evidence (one line, one fault event)
  bool last = false;     // `generic: last`: lines also hit by any other fault are not its evidence
  bool code_matcher = false;  // `generic: code`: lines also hit by a specific or generic fault are
                              // not its evidence (docs/codes.md "Precedence")
  // code tables (rules/codes/) the hit's code is looked up in: the finding of a code takes the
  // table entry's title, class, component, role, severity, cause and suggestion
  std::vector<std::string> lookup;
  // knowledge-base pack ("ascend-fd") of an imported code, "" for native signatures: a KB fault
  // on the same lines as a native fault is named inside the native finding (docs/faults.md)
  std::string kb;
};

// What a signature's `restart:` block declares (docs/faults.md "Restarts"): its hits mark a new
// run of the job; the CANN process-log lines of `kinds` before the mark (less `margin_ns`) are of
// the earlier run and no fault events. The app copies it from tag::Signature::restart.
struct RestartDef {
  std::string signature;
  bool process_scope = false;  // the mark voids its own process's lines only (else the host's)
  int from = 1;                // the from-th and later hit of one process mark a restart
  int64_t margin_ns = 0;
  std::vector<std::string> kinds;
};

namespace detail {
struct RuleBook;
}

// The diagnoses/, compat/ and codes/ rules parsed, as run() reads them (docs/diagnoses.md). The
// app keeps its binary form in the rule cache (issue 38): reading it back costs a small fraction
// of parsing the YAML.
class Book {
 public:
  // Parses the diagnoses/ and compat/ files of `rules`; codes: the code tables of its codes/
  // files when already parsed, else parsed here. Never throws: problems go to errors().
  static Book parse(const std::vector<RuleFile>& rules,
                    std::shared_ptr<const CodeBook> codes = nullptr);
  [[nodiscard]] const std::vector<std::string>& errors() const;
  // The diagnoses and compat tables (not the code tables: the rule cache keeps those apart) and
  // back; nullopt on any input serialize() did not write (short, foreign, another layout).
  [[nodiscard]] std::string serialize() const;
  static std::optional<Book> deserialize(std::string_view data,
                                         std::shared_ptr<const CodeBook> codes);
  [[nodiscard]] const std::shared_ptr<const detail::RuleBook>& impl() const { return impl_; }

 private:
  std::shared_ptr<const detail::RuleBook> impl_;
};

// As below, with the rules already parsed (app::prepare reads them from the rule cache).
Summary run(sqlite3* db, int64_t bundle_id, const Book& book,
            const std::vector<FaultDef>& faults = {}, const std::vector<RestartDef>& restarts = {});

// rules: the diagnoses/ and compat/ files. Throws std::runtime_error naming file and rule on a bad
// rule. Replaces earlier correlator rows of the bundle. faults: one entry per active signature with
// a `fault:` block; every host with hits of one gets a `fault.<id>` finding (kind "fault").
// restarts: one entry per active signature with a `restart:` block; its marks are recorded as
// facts `run.restart` and the lines before them yield no fault finding. codes: the code tables of
// the codes/ files of `rules` when already parsed (app's rule cache); parsed here when null.
Summary run(sqlite3* db, int64_t bundle_id, const std::vector<RuleFile>& rules,
            const std::vector<FaultDef>& faults = {}, const std::vector<RestartDef>& restarts = {},
            std::shared_ptr<const CodeBook> codes = nullptr);

// Problems in diagnoses/compat rules ("<file>: <id>: <problem>"), given the known signature ids
// (a diagnosis that names an unknown signature is an error).
std::vector<std::string> lint(const std::vector<RuleFile>& rules,
                              const std::vector<std::string>& signature_ids);

// Diagnosis ids with kind and title, for `faultline rules list`.
struct DiagnosisInfo {
  std::string id, kind, severity, title, file;
};
std::vector<DiagnosisInfo> list(const std::vector<RuleFile>& rules);

}  // namespace faultline::correlate
