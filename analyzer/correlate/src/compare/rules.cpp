// rules/compare/*.yaml: which facts `diff` and `fleet --diff` compare, in which group, what is
// noise, which install events explain a change, and the verdict's headline facts.
#include <yaml-cpp/yaml.h>

#include <map>
#include <regex>
#include <set>
#include <stdexcept>

#include "faultline/correlate/compare.hpp"

namespace faultline::correlate {

namespace {

std::vector<std::string> string_list(const YAML::Node& n, const std::string& file,
                                     const std::string& what, std::vector<std::string>& errors) {
  std::vector<std::string> out;
  if (!n) return out;
  if (n.IsScalar()) {
    out.push_back(n.as<std::string>());
  } else if (n.IsSequence()) {
    for (const auto& e : n) {
      if (e.IsScalar())
        out.push_back(e.as<std::string>());
      else
        errors.push_back(file + ": " + what + ": expected a list of strings");
    }
  } else {
    errors.push_back(file + ": " + what + ": expected a string or a list of strings");
  }
  return out;
}

void check_keys(const YAML::Node& n, const std::set<std::string>& allowed, const std::string& file,
                const std::string& where, std::vector<std::string>& errors) {
  if (!n.IsMap()) return;
  for (const auto& kv : n) {
    const auto k = kv.first.as<std::string>();
    if (allowed.count(k) == 0) errors.push_back(file + ": unknown field '" + k + "' in " + where);
  }
}

void check_glob(const std::string& g, const std::string& file, std::vector<std::string>& errors) {
  if (g.empty() || g.find_first_of(" \t") != std::string::npos)
    errors.push_back(file + ": bad fact glob '" + g + "'");
}

// `key:` a list of {match: regex on the fact name, replace: its replacement}.
void read_rewrites(const YAML::Node& doc, const char* key, const std::string& file,
                   std::vector<CompareRules::Normalize>& out, std::vector<std::string>& errors) {
  const auto n = doc[key];
  if (!n) return;
  if (!n.IsSequence()) {
    errors.push_back(file + ": " + key + ": expected a list of {match, replace}");
    return;
  }
  for (const auto& e : n) {
    check_keys(e, {"match", "replace"}, file, key, errors);
    if (!e.IsMap() || !e["match"] || !e["replace"]) {
      errors.push_back(file + ": " + key + ": each entry needs match and replace");
      continue;
    }
    CompareRules::Normalize x;
    x.match = e["match"].as<std::string>();
    x.replace = e["replace"].as<std::string>();
    try {
      (void)std::regex(x.match);
    } catch (const std::regex_error& ex) {
      errors.push_back(file + ": " + key + ": bad regex '" + x.match + "': " + ex.what());
      continue;
    }
    out.push_back(std::move(x));
  }
}

CompareRules parse(const std::vector<RuleFile>& files, std::vector<std::string>& errors) {
  CompareRules r;
  std::set<std::string> group_ids;
  for (const auto& f : files) {
    YAML::Node doc;
    try {
      doc = YAML::Load(std::string(f.text));
    } catch (const YAML::Exception& e) {
      errors.push_back(f.path + ": " + e.what());
      continue;
    }
    if (!doc || doc.IsNull()) continue;
    if (!doc.IsMap()) {
      errors.push_back(f.path + ": expected a map");
      continue;
    }
    check_keys(doc,
               {"normalize", "same_fact", "noise", "fleet_noise", "groups", "verdict", "rates"},
               f.path, "the file", errors);
    read_rewrites(doc, "normalize", f.path, r.normalize, errors);
    read_rewrites(doc, "same_fact", f.path, r.same_fact, errors);
    for (auto& g : string_list(doc["noise"], f.path, "noise", errors)) {
      check_glob(g, f.path, errors);
      r.noise.push_back(std::move(g));
    }
    for (auto& g : string_list(doc["fleet_noise"], f.path, "fleet_noise", errors)) {
      check_glob(g, f.path, errors);
      r.fleet_noise.push_back(std::move(g));
    }
    if (const auto n = doc["groups"]; n && n.IsSequence()) {
      for (const auto& e : n) {
        check_keys(e, {"id", "title", "facts", "tolerant", "tolerance_s", "packages", "explains"},
                   f.path, "a group", errors);
        CompareRules::Group g;
        g.id = e["id"] ? e["id"].as<std::string>() : "";
        g.title = e["title"] ? e["title"].as<std::string>() : g.id;
        if (g.id.empty()) {
          errors.push_back(f.path + ": a group has no id");
          continue;
        }
        if (!group_ids.insert(g.id).second || g.id == "noise" || g.id == "other")
          errors.push_back(f.path + ": group '" + g.id + "' defined twice or reserved");
        g.facts = string_list(e["facts"], f.path, "groups." + g.id + ".facts", errors);
        g.tolerant = string_list(e["tolerant"], f.path, "groups." + g.id + ".tolerant", errors);
        g.packages = string_list(e["packages"], f.path, "groups." + g.id + ".packages", errors);
        g.explains = string_list(e["explains"], f.path, "groups." + g.id + ".explains", errors);
        for (const auto& x : g.facts) check_glob(x, f.path, errors);
        if (e["tolerance_s"]) {
          try {
            g.tolerance_s = e["tolerance_s"].as<int64_t>();
          } catch (const YAML::Exception&) {
            errors.push_back(f.path + ": groups." + g.id + ".tolerance_s: expected seconds");
          }
        }
        if (g.facts.empty()) errors.push_back(f.path + ": group '" + g.id + "' names no facts");
        r.groups.push_back(std::move(g));
      }
    }
    if (const auto n = doc["verdict"]; n && n.IsSequence()) {
      for (const auto& e : n) {
        check_keys(e, {"fact", "label"}, f.path, "verdict", errors);
        if (!e.IsMap() || !e["fact"] || !e["label"]) {
          errors.push_back(f.path + ": verdict: each entry needs fact and label");
          continue;
        }
        r.verdict.push_back({e["fact"].as<std::string>(), e["label"].as<std::string>()});
      }
    }
    if (const auto n = doc["rates"]; n && n.IsMap()) {
      check_keys(n, {"factor", "min_delta"}, f.path, "rates", errors);
      try {
        if (n["factor"]) r.rate_factor = n["factor"].as<double>();
        if (n["min_delta"]) r.rate_min_delta = n["min_delta"].as<int64_t>();
      } catch (const YAML::Exception&) {
        errors.push_back(f.path + ": rates: expected numbers");
      }
      if (r.rate_factor <= 1) errors.push_back(f.path + ": rates.factor must be above 1");
    }
  }
  return r;
}

}  // namespace

CompareRules load_compare_rules(const std::vector<RuleFile>& files) {
  std::vector<std::string> errors;
  CompareRules r = parse(files, errors);
  if (!errors.empty()) throw std::runtime_error(errors.front());
  return r;
}

std::vector<std::string> lint_compare(const std::vector<RuleFile>& files) {
  std::vector<std::string> errors;
  const CompareRules r = parse(files, errors);
  if (!files.empty() && r.groups.empty()) errors.push_back("compare/: no groups defined");
  for (const auto& h : r.verdict)
    if (fact_group(r, normalise_fact(r, h.fact)) == "noise")
      errors.push_back("compare/: verdict fact '" + h.fact + "' is noise");
  return errors;
}

bool glob_match(const std::string& glob, const std::string& name) {
  // iterative wildcard match with backtracking to the last '*'
  size_t g = 0, n = 0, star = std::string::npos, mark = 0;
  while (n < name.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star = g++;
      mark = n;
    } else if (g < glob.size() && glob[g] == name[n]) {
      ++g;
      ++n;
    } else if (star != std::string::npos) {
      g = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

namespace {

std::string rewrite(const std::vector<CompareRules::Normalize>& rules, const std::string& name) {
  std::string out = name;
  for (const auto& n : rules) {
    // compiled once per pattern and thread; names are short and rules few
    thread_local std::map<std::string, std::regex> cache;
    auto it = cache.find(n.match);
    if (it == cache.end()) it = cache.emplace(n.match, std::regex(n.match)).first;
    out = std::regex_replace(out, it->second, n.replace, std::regex_constants::format_first_only);
  }
  return out;
}

}  // namespace

std::string normalise_fact(const CompareRules& r, const std::string& name) {
  return rewrite(r.normalize, name);
}

std::string same_fact_name(const CompareRules& r, const std::string& name) {
  return rewrite(r.same_fact, name);
}

std::string fact_group(const CompareRules& r, const std::string& name) {
  for (const auto& g : r.noise)
    if (glob_match(g, name)) return "noise";
  for (const auto& gr : r.groups)
    for (const auto& g : gr.facts)
      if (glob_match(g, name)) return gr.id;
  return "other";
}

}  // namespace faultline::correlate
