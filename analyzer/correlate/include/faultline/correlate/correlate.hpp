// correlate: diagnosis rules (rules/diagnoses/*.yaml) and compatibility tables
// (rules/compat/*.yaml) turn hits and facts of one bundle into ranked findings with evidence and a
// timeline. Reads the store, writes the findings, finding_evidence and timeline tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/core/types.hpp"

struct sqlite3;

namespace faultline::correlate {

struct Summary {
  int root_causes = 0;
  int symptoms = 0;
  int unexplained = 0;
  Severity max_severity = Severity::info;
  bool any = false;  // at least one finding
};

// rules: the diagnoses/ and compat/ files. Throws std::runtime_error naming file and rule on a bad
// rule. Replaces earlier correlator rows of the bundle.
Summary run(sqlite3* db, int64_t bundle_id, const std::vector<RuleFile>& rules);

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
