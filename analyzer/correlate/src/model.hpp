// Parsed form of rules/diagnoses/*.yaml and rules/compat/*.yaml (docs/diagnoses.md).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/correlate/codes.hpp"

namespace faultline::correlate::detail {

enum class Op { exists, absent, eq, ne, lt, le, gt, ge, matches, not_matches, in, not_in };
enum class As { string, version, number };

// A test on one value: the fact value itself, a named capture of a hit, or a field of a JSON
// fact value (install.event).
struct Predicate {
  enum class Subject { value, capture, field } subject = Subject::value;
  std::string name;  // capture / field name
  Op op = Op::exists;
  As as = As::string;
  std::vector<std::string> values;  // one value, or several for in / not_in; may hold {bind.x}
};

// Something with a time for time_order: hits of signatures, facts, or a bound item.
struct TimeRef {
  enum class Kind { hit, fact, bound } kind = Kind::hit;
  std::vector<std::string> names;  // signature ids (hit), fact name glob (fact), bind name
  std::vector<Predicate> where;
  // `latest: true`: only the newest item counts (the last boot, not every boot some source
  // lists); items more than 120 s older are reported in a note when the sources disagree.
  bool latest = false;
};

struct Node {
  enum class Type {
    all,
    any,
    not_,
    hit,
    fact,
    compare,
    compat,
    time_order,
    series,
    range_overlap,
    path
  } type = Type::all;
  int line = 0;  // line in the rule file
  double weight = 1.0;
  bool optional = false;  // in an `all`: adds confidence, never blocks
  std::string label;      // what this looks for, in words (shown when it is missing)
  std::string bind;       // name under which the matched item is visible to later conditions
  bool cite = true;       // false: counts, but its items are not listed as evidence

  std::vector<Node> children;  // all / any / not (one child)
  bool any_sum = false;        // any: score = sum of matched children (corroboration), not best

  // hit / series: signature ids; fact / range_overlap: fact name glob (may hold {bind.x})
  std::vector<std::string> names;
  std::string name_matches;      // fact: regex on the fact name
  bool fold_names = false;       // fact: names compared ignoring case and '-' vs '_'
  std::vector<Predicate> where;  // hit: captures; fact: value and JSON fields
  int min_count = 1;
  int max_count = -1;  // -1: no upper bound

  // compare
  std::string left, right;
  Op cmp_op = Op::ne;
  As cmp_as = As::string;
  bool match_all = false;  // every pair must satisfy (default: one pair is enough)

  // compat
  std::string table;
  std::vector<std::pair<std::string, std::vector<std::string>>> columns;  // column -> fact names
  bool expect_absent = true;  // compat / path: condition holds when absent

  // time_order
  TimeRef first, then;
  double min_gap_s = 0;

  // series
  std::vector<std::string> key, same;
  double min_interval_s = 0;

  // range_overlap
  unsigned long long range_lo = 0, range_hi = 0;
  std::string exclude;  // regex on the mapping's path: owned by the driver

  // path
  std::vector<std::string> from;           // fact name globs whose values are paths
  std::string split;                       // separator inside a value (':' for PATH-like lists)
  std::string select;                      // regex choosing entries; groups `path`, `version`
  std::vector<std::string> in_facts;       // facts naming present directory roots
  std::vector<std::string> version_facts;  // facts naming present versions
};

struct Diagnosis {
  std::string id, kind, severity, title, summary, file;
  std::vector<std::string> remediation, explains, references;
  double specificity = 0.8;
  double min_confidence = 0.0;
  Node conditions;
  std::vector<Node> supporting;
  // key premises (`requires:`): facts without which the verdict is not concluded, however well
  // the conditions match; the report then says what was looked for and not found
  struct Premise {
    std::vector<std::string> facts;  // any of them known is enough
    std::string label;
  };
  std::vector<Premise> premises;
};

struct CompatTable {
  std::string name, title, source, file;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // current and history rows
  std::vector<bool> history;                   // per row: from the EOL history part
};

struct RuleBook {
  std::vector<Diagnosis> diagnoses;  // sorted by id
  std::map<std::string, CompatTable> tables;
  // rules/codes/*.yaml (docs/codes.md); shared with the rule cache's copy, never copied (the
  // tables hold ~5,000 entries: a copy was 6% of a small node's CPU)
  std::shared_ptr<const CodeBook> codes;
  std::vector<std::string> errors;  // "<file>:<line>: <id>: <problem>"
};

// Loads diagnoses/, compat/ and codes/ files (others are ignored); `codes`, when given, are the
// tables of the codes/ files already parsed (the rule cache). Never throws: problems go to errors.
RuleBook load_rules(const std::vector<RuleFile>& files,
                    std::shared_ptr<const CodeBook> codes = nullptr);

// Every signature id a diagnosis refers to (hit, series, time_order refs).
std::vector<std::string> referenced_signatures(const Diagnosis& d);

std::string to_string(Op op);

}  // namespace faultline::correlate::detail
