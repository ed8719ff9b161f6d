// One analysed bundle as the comparison sees it: per host its compared facts (normalised names,
// value sets with their first source), member kinds, install events, error templates, fault
// events and findings.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "faultline/correlate/compare.hpp"

namespace faultline::correlate::compare {

struct FactVals {
  std::map<std::string, std::string> values;  // value -> first source ("member:line")
  std::set<std::string> kinds;                // member kinds that state it ("" = derived)
};

struct Tally {  // an error template or a fault event on one host
  std::string text;
  int64_t count = 0;
  std::optional<int64_t> first_ns;
  std::string example;
};

struct HostData {
  std::map<std::string, FactVals> facts;        // normalised name -> values
  std::set<std::string> kinds;                  // member kinds of the host
  std::map<std::string, std::string> installs;  // install.event JSON -> source
  std::map<std::string, Tally> templates;       // template -> tally
  std::map<std::string, Tally> faults;          // fault.<signature> -> tally
  std::map<std::string, std::pair<std::string, std::string>> findings;  // id -> (kind, title)
  std::string boot_local;  // latest host.boot_time_local ("" = unknown)
};

struct Side {
  DiffSide info;
  std::map<std::string, HostData> hosts;
  std::vector<std::string> notes;  // bounds reached while loading
};

constexpr int64_t kMaxFacts = 2'000'000;     // fact rows read per bundle
constexpr int64_t kMaxErrorLines = 200'000;  // error-level lines read per bundle

// Loads a complete bundle. Throws std::runtime_error when it is not there or not complete.
Side load_side(const DiffInput& in, const CompareRules& rules, bool with_events);

// Value sets equal (with the group's tolerance for time-valued facts).
bool same_values(const std::map<std::string, std::string>& a,
                 const std::map<std::string, std::string>& b, int64_t tolerance_s);

const CompareRules::Group* group_of(const CompareRules& r, const std::string& id);
bool tolerant(const CompareRules::Group* g, const std::string& name);

}  // namespace faultline::correlate::compare
