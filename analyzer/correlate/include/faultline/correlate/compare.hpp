// compare: what changed between two analysed bundles (`faultline diff GOOD BAD`) and where one
// node of a job differs from the others (`faultline fleet --diff`). Which facts are compared, what
// is noise and which install events explain a change is data: rules/compare/*.yaml
// (docs/compare.md). Reads the store only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "faultline/core/rules.hpp"

struct sqlite3;

namespace faultline::correlate {

// rules/compare/compare.yaml, parsed.
struct CompareRules {
  struct Normalize {
    std::string match, replace;  // regex on the fact name, replacement
  };
  struct Group {
    std::string id, title;
    std::vector<std::string> facts;     // globs
    std::vector<std::string> tolerant;  // globs of time-valued facts compared with tolerance_s
    int64_t tolerance_s = 0;
    std::vector<std::string> packages;  // install.event packages that explain a change here
    std::vector<std::string> explains;  // globs of the facts they explain (empty: every fact)
  };
  struct Headline {
    std::string fact, label;
  };
  std::vector<Normalize> normalize;
  // One fact stated under several names (env.X from the shell and process.*.env.X from
  // /proc/PID/environ): changes whose names rewrite to one name, with the same values on both
  // sides, are one change under the rewritten name, citing every source.
  std::vector<Normalize> same_fact;
  std::vector<std::string> noise;
  std::vector<std::string> fleet_noise;  // also noise between the nodes of one job (host names)
  std::vector<Group> groups;
  std::vector<Headline> verdict;
  double rate_factor = 4;
  int64_t rate_min_delta = 10;
};

// Parses the compare/ rule files (later files add to earlier ones). Throws std::runtime_error
// naming the file on a malformed one.
CompareRules load_compare_rules(const std::vector<RuleFile>& files);
// Problems of the compare/ rule files ("<file>: <problem>"), for `rules lint`.
std::vector<std::string> lint_compare(const std::vector<RuleFile>& files);

// How a (normalised) fact name is treated: its group id, "noise", or "other".
std::string fact_group(const CompareRules& r, const std::string& normalised_name);
std::string normalise_fact(const CompareRules& r, const std::string& name);
// The name a fact is listed under when several names state it (`same_fact`); `name` otherwise.
std::string same_fact_name(const CompareRules& r, const std::string& normalised_name);
// True when a glob ('*' = any run of characters) matches the whole name.
bool glob_match(const std::string& glob, const std::string& name);

// One side of a comparison: a complete bundle of an analysis database.
struct DiffInput {
  sqlite3* db = nullptr;
  int64_t bundle_id = -1;
  std::string label;  // what the user named: the bundle or the database file
};

struct DiffSide {
  std::string label, path, name, sha256, collected_at;
  std::vector<std::string> hosts;
};

struct DiffValue {
  std::string value;
  std::string source;  // "member:line" of the first statement ("" when derived)
};

struct FactChange {
  std::string group, group_title, host, name;  // name normalised (process.*.env.X)
  std::string change;                          // changed | appeared | disappeared
  std::vector<DiffValue> good, bad;            // sorted by value
  std::string explained_by;  // the install/operation event between the collections, as text
};

struct InstallChange {  // an install/operation event of BAD that GOOD does not have
  std::string host, package, action, from, to, time, result, source;
  bool reboot_required = false;
  std::string reboot;  // "no reboot since" | "rebooted since" | "" (boot time unknown)
};

struct EventChange {  // an error template or a fault event
  std::string host, key, text;
  std::string change;  // new | gone | rate
  int64_t good_count = 0, bad_count = 0;
  std::optional<int64_t> good_first_ns, bad_first_ns;
  std::string example;  // "member:line" of the first line in the bundle that has it
};

struct FindingChange {
  std::string host, id, kind, title;
  std::string change;  // new | gone
};

struct Diff {
  DiffSide good, bad;
  std::string verdict;
  bool meaningful = false;  // any fact change, new/gone fault event, template or finding
  std::vector<std::pair<std::string, std::string>> host_pairs;  // (good host, bad host)
  std::vector<FactChange> facts;                                // group order, host, name
  std::vector<InstallChange> installs;
  std::vector<EventChange> templates, faults;
  std::vector<FindingChange> findings;
  std::vector<std::string> not_compared;  // one line each: what and why
  size_t noise_differences = 0;           // noise facts whose values differ (not changes)
  size_t compared_facts = 0;              // facts compared on both sides
};

// Compares two complete bundles (same or different databases). Throws std::runtime_error when a
// bundle is not in its database.
Diff compare_bundles(const DiffInput& good, const DiffInput& bad, const CompareRules& rules);

// --- fleet --diff: per node, the compared facts where it differs from the job's majority ---
struct NodeDifference {
  std::string group, group_title, name;  // normalised fact name
  std::string value;                     // the node's values, joined by "; " ("(not stated)")
  std::string majority;                  // the majority's values
  size_t majority_hosts = 0, hosts = 0;  // hosts with the majority value / hosts compared
};
struct OddNode {
  std::string host;
  std::vector<NodeDifference> differences;  // group order, name
};
struct FleetDiff {
  size_t hosts = 0;
  std::vector<OddNode> nodes;  // hosts with at least one difference; most differences first
  std::vector<std::string> notes;
};
FleetDiff fleet_differences(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                            const CompareRules& rules);

}  // namespace faultline::correlate

namespace faultline::correlate {

// --- seen before (`faultline similar`): the fingerprint of an analysis and how alike two are ---
// Features: the findings (root causes weigh 3, fault events 2, symptoms 1), the masked error
// templates (1 each) and the headline version facts of rules/compare `verdict:` (0.5 each, as
// "name=value"). Similarity: weighted Jaccard of the two feature sets (0..1).
struct Fingerprint {
  std::map<std::string, double> features;  // "finding:<id>", "template:<text>", "fact:<n>=<v>"
  std::vector<std::string> root_causes;    // "<id>: <title>", how it was diagnosed
  std::string label, name, sha256;
};
Fingerprint fingerprint(const DiffInput& in, const CompareRules& rules);
struct Similarity {
  double score = 0;
  std::vector<std::string> shared_findings, shared_facts;
  size_t shared_templates = 0;
};
Similarity similarity(const Fingerprint& a, const Fingerprint& b);
struct SimilarMatch {
  std::string database;  // the analysis database it is in
  int64_t bundle_id = -1;
  Fingerprint fingerprint;
  Similarity similarity;
  bool same_content = false;  // the same bundle (sha256) as the one compared
};

}  // namespace faultline::correlate
