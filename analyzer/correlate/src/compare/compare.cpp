// `faultline diff GOOD BAD`: facts changed, appeared or disappeared per host (grouped, noise left
// out, explained by the install events between the two collections), error templates and fault
// events new, gone or changed in rate, findings new or gone, what could not be compared, and a
// verdict line first (docs/compare.md).
#include "faultline/correlate/compare.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "faultline/parse/install_replay.hpp"
#include "side.hpp"

namespace faultline::correlate {

using compare::HostData;
using compare::Side;
using compare::Tally;

namespace {

std::vector<DiffValue> values_of(const std::map<std::string, std::string>& m) {
  std::vector<DiffValue> out;
  for (const auto& [v, src] : m) out.push_back({v, src});
  return out;
}

std::string joined(const std::vector<DiffValue>& v) {
  if (v.empty()) return "(not stated)";
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x.value;
  return out;
}

// "2026-05-27 14:03:11" -> "05-27 14:03"
std::string short_time(const std::string& t) {
  if (t.size() >= 16 && t[4] == '-' && t[10] == ' ') return t.substr(5, 11);
  return t;
}

std::string past_tense(const std::string& action) {
  if (action == "rollback") return "rolled back";
  if (action == "uninstall") return "uninstalled";
  if (action.empty()) return "installed";
  if (action.back() == 'e') return action + "d";
  return action + "ed";
}

std::string install_text(const InstallChange& i) {
  std::string s = i.action + " " + i.package;
  if (!i.from.empty() || !i.to.empty())
    s += " " + (i.from.empty() ? std::string("?") : i.from) + " -> " +
         (i.to.empty() ? std::string("?") : i.to);
  if (!i.time.empty()) s += " at " + i.time;
  if (!i.result.empty()) s += " (" + i.result + ")";
  if (!i.reboot.empty()) s += ", " + i.reboot;
  if (!i.source.empty()) s += " [" + i.source + "]";
  return s;
}

bool any_glob(const std::vector<std::string>& globs, const std::string& s) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& g) { return glob_match(g, s); });
}

// The install change that explains a fact change of group g (nullptr when none): a package of
// the group, preferring the one that installed one of the new values, then a successful one,
// then the latest.
const InstallChange* explain(const CompareRules::Group* g, const FactChange& fc,
                             const std::vector<InstallChange>& installs) {
  if (g == nullptr || g->packages.empty()) return nullptr;
  if (!g->explains.empty() && !any_glob(g->explains, fc.name)) return nullptr;
  const InstallChange* best = nullptr;
  int best_score = -1;
  for (const auto& i : installs) {
    if (i.host != fc.host || !any_glob(g->packages, i.package)) continue;
    int score = 0;
    if (std::any_of(fc.bad.begin(), fc.bad.end(),
                    [&](const DiffValue& v) { return !i.to.empty() && v.value == i.to; }))
      score += 4;
    if (i.result == "success") score += 2;
    if (!i.from.empty()) score += 1;  // the installer's own log says from which version
    if (best == nullptr || score > best_score || (score == best_score && i.time >= best->time)) {
      best = &i;
      best_score = score;
    }
  }
  return best;
}

void diff_tallies(const std::string& host, const std::map<std::string, Tally>& g,
                  const std::map<std::string, Tally>& b, const CompareRules& r,
                  std::vector<EventChange>& out) {
  auto make = [&](const std::string& key, const Tally* x, const Tally* y, const char* change) {
    EventChange e;
    e.host = host;
    e.key = key;
    e.text = (y != nullptr ? y : x)->text;
    e.change = change;
    if (x != nullptr) {
      e.good_count = x->count;
      e.good_first_ns = x->first_ns;
    }
    if (y != nullptr) {
      e.bad_count = y->count;
      e.bad_first_ns = y->first_ns;
    }
    e.example = (y != nullptr ? y : x)->example;
    out.push_back(std::move(e));
  };
  for (const auto& [k, y] : b) {
    const auto it = g.find(k);
    if (it == g.end()) {
      make(k, nullptr, &y, "new");
      continue;
    }
    const int64_t lo = std::min(it->second.count, y.count);
    const int64_t hi = std::max(it->second.count, y.count);
    if (hi - lo >= r.rate_min_delta &&
        static_cast<double>(hi) >= r.rate_factor * std::max<int64_t>(lo, 1))
      make(k, &it->second, &y, "rate");
  }
  for (const auto& [k, x] : g)
    if (b.count(k) == 0) make(k, &x, nullptr, "gone");
}

// Changes of facts[from..] whose names are one fact (`same_fact`): a change under another name
// that its fact's own change already holds (every value with the same source: a process's
// environ states env.X and process.*.env.X) is not listed again; changes under other names with
// the same values on both sides become one change under the fact's name, each value citing every
// source that stated it.
void merge_same_facts(const CompareRules& rules, std::vector<FactChange>& facts, size_t from) {
  if (rules.same_fact.empty()) return;
  auto holds = [](const std::vector<DiffValue>& all, const std::vector<DiffValue>& part) {
    return std::all_of(part.begin(), part.end(), [&](const DiffValue& p) {
      return std::any_of(all.begin(), all.end(), [&](const DiffValue& a) {
        return a.value == p.value && a.source == p.source;
      });
    });
  };
  auto values = [](const std::vector<DiffValue>& v) {
    std::vector<std::string> out;
    out.reserve(v.size());
    for (const auto& x : v) out.push_back(x.value);
    return out;
  };
  std::map<std::string, size_t> by_name;  // the changes listed under their fact's own name
  for (size_t i = from; i < facts.size(); ++i) by_name.emplace(facts[i].name, i);
  using Key = std::tuple<std::string, std::string, std::string, std::vector<std::string>,
                         std::vector<std::string>>;
  std::map<Key, std::vector<size_t>> same;
  std::vector<Key> order;
  for (size_t i = from; i < facts.size(); ++i) {
    const auto& f = facts[i];
    const std::string as = same_fact_name(rules, f.name);
    if (as != f.name) {
      const auto own = by_name.find(as);
      if (own != by_name.end()) {
        const FactChange& o = facts[own->second];
        if (o.group == f.group && o.change == f.change && holds(o.good, f.good) &&
            holds(o.bad, f.bad))
          continue;  // already listed under its fact's name, with this source
      }
    }
    Key k{f.group, as, f.change, values(f.good), values(f.bad)};
    auto& v = same[k];
    if (v.empty()) order.push_back(k);
    v.push_back(i);
  }
  auto add_source = [](std::vector<DiffValue>& into, const std::vector<DiffValue>& from_v) {
    for (size_t j = 0; j < into.size() && j < from_v.size(); ++j) {
      const std::string& src = from_v[j].source;
      if (src.empty() || into[j].source.find(src) != std::string::npos) continue;
      into[j].source += (into[j].source.empty() ? "" : ", ") + src;
    }
  };
  std::vector<FactChange> out(std::make_move_iterator(facts.begin()),
                              std::make_move_iterator(facts.begin() + static_cast<long>(from)));
  for (const auto& k : order) {
    const auto& idx = same[k];
    FactChange merged = std::move(facts[idx.front()]);
    if (idx.size() > 1) {
      merged.name = std::get<1>(k);
      for (size_t n = 1; n < idx.size(); ++n) {
        const FactChange& other = facts[idx[n]];
        add_source(merged.good, other.good);
        add_source(merged.bad, other.bad);
        if (merged.explained_by.empty()) merged.explained_by = other.explained_by;
      }
    }
    out.push_back(std::move(merged));
  }
  facts = std::move(out);
}

std::string count_text(size_t n, const char* what) {
  return std::to_string(n) + " " + what;
}

}  // namespace

Diff compare_bundles(const DiffInput& good_in, const DiffInput& bad_in, const CompareRules& rules) {
  const Side good = compare::load_side(good_in, rules, true);
  const Side bad = compare::load_side(bad_in, rules, true);
  Diff d;
  d.good = good.info;
  d.bad = bad.info;
  d.not_compared = good.notes;
  d.not_compared.insert(d.not_compared.end(), bad.notes.begin(), bad.notes.end());

  // hosts: one each -> the same node (renamed or not); otherwise by name
  if (good.info.hosts.size() == 1 && bad.info.hosts.size() == 1) {
    d.host_pairs.emplace_back(good.info.hosts[0], bad.info.hosts[0]);
  } else {
    for (const auto& h : good.info.hosts) {
      if (std::find(bad.info.hosts.begin(), bad.info.hosts.end(), h) != bad.info.hosts.end())
        d.host_pairs.emplace_back(h, h);
      else
        d.not_compared.push_back("host " + h + ": only in GOOD");
    }
    for (const auto& h : bad.info.hosts)
      if (std::find(good.info.hosts.begin(), good.info.hosts.end(), h) == good.info.hosts.end())
        d.not_compared.push_back("host " + h + ": only in BAD");
  }

  std::map<std::string, size_t> group_order;
  for (size_t i = 0; i < rules.groups.size(); ++i) group_order[rules.groups[i].id] = i;
  group_order["other"] = rules.groups.size();

  static const HostData kEmpty;
  for (const auto& [gh, bh] : d.host_pairs) {
    const auto git = good.hosts.find(gh);
    const auto bit = bad.hosts.find(bh);
    const HostData& g = git == good.hosts.end() ? kEmpty : git->second;
    const HostData& b = bit == bad.hosts.end() ? kEmpty : bit->second;
    const std::string host = gh == bh ? bh : gh + " -> " + bh;

    // install/operation events of BAD that GOOD does not have: between the two collections
    std::vector<InstallChange> installs;
    for (const auto& [json, src] : b.installs) {
      if (g.installs.count(json) != 0) continue;
      const auto rec = parse::install_record(json);
      if (!rec) continue;
      InstallChange i;
      i.host = host;
      i.package = rec->package;
      i.action = rec->action;
      i.from = rec->from;
      i.to = rec->to;
      i.time = rec->time;
      i.result = rec->result;
      i.source = src;
      i.reboot_required = json.find("\"reboot_required\":true") != std::string::npos;
      if (!b.boot_local.empty() && !i.time.empty())
        i.reboot = b.boot_local < i.time ? "no reboot since" : "rebooted since";
      installs.push_back(std::move(i));
    }
    std::sort(installs.begin(), installs.end(), [](const InstallChange& x, const InstallChange& y) {
      return std::tie(x.time, x.package, x.source) < std::tie(y.time, y.package, y.source);
    });

    // facts
    const size_t first_fact = d.facts.size();
    std::map<std::string, std::pair<size_t, size_t>> unmatched;  // "side kind" -> (facts, -)
    std::set<std::string> names;
    for (const auto& [n, v] : g.facts) names.insert(n);
    for (const auto& [n, v] : b.facts) names.insert(n);
    for (const auto& name : names) {
      const std::string gid = fact_group(rules, name);
      const auto gf = g.facts.find(name);
      const auto bf = b.facts.find(name);
      const bool in_g = gf != g.facts.end();
      const bool in_b = bf != b.facts.end();
      const CompareRules::Group* grp = compare::group_of(rules, gid);
      if (gid == "noise") {
        if (in_g && in_b && !compare::same_values(gf->second.values, bf->second.values, 0))
          ++d.noise_differences;
        continue;
      }
      FactChange fc;
      fc.group = gid;
      fc.group_title = grp != nullptr ? grp->title : gid;
      fc.host = host;
      fc.name = name;
      if (in_g && in_b) {
        ++d.compared_facts;
        const int64_t tol = compare::tolerant(grp, name) ? grp->tolerance_s : 0;
        if (compare::same_values(gf->second.values, bf->second.values, tol)) continue;
        fc.change = "changed";
      } else {
        // present on one side only: a change when the other side has the members that state it
        const auto& one = in_g ? gf->second : bf->second;
        const HostData& other = in_g ? b : g;
        const bool other_has_source = std::any_of(
            one.kinds.begin(), one.kinds.end(),
            [&](const std::string& k) { return k.empty() || other.kinds.count(k) != 0; });
        if (!other_has_source) {
          for (const auto& k : one.kinds)
            ++unmatched[std::string(in_g ? "GOOD" : "BAD") + " " + k].first;
          continue;
        }
        fc.change = in_g ? "disappeared" : "appeared";
      }
      if (in_g) fc.good = values_of(gf->second.values);
      if (in_b) fc.bad = values_of(bf->second.values);
      if (const InstallChange* i = explain(grp, fc, installs)) fc.explained_by = install_text(*i);
      d.facts.push_back(std::move(fc));
    }
    merge_same_facts(rules, d.facts, first_fact);
    for (const auto& [what, n] : unmatched) {
      const size_t sp = what.find(' ');
      d.not_compared.push_back(what.substr(sp + 1) + " (" + host + "): only in " +
                               what.substr(0, sp) + ", " + std::to_string(n.first) +
                               " fact(s) not compared");
    }
    d.installs.insert(d.installs.end(), installs.begin(), installs.end());

    diff_tallies(host, g.templates, b.templates, rules, d.templates);
    diff_tallies(host, g.faults, b.faults, rules, d.faults);
    for (const auto& [id, kt] : b.findings)
      if (g.findings.count(id) == 0) d.findings.push_back({host, id, kt.first, kt.second, "new"});
    for (const auto& [id, kt] : g.findings)
      if (b.findings.count(id) == 0) d.findings.push_back({host, id, kt.first, kt.second, "gone"});
  }
  std::stable_sort(d.facts.begin(), d.facts.end(), [&](const FactChange& x, const FactChange& y) {
    return std::tie(group_order[x.group], x.host, x.name) <
           std::tie(group_order[y.group], y.host, y.name);
  });
  auto ev_order = [](const EventChange& x, const EventChange& y) {
    static const std::map<std::string, int> rank = {{"new", 0}, {"rate", 1}, {"gone", 2}};
    const auto tx = x.bad_first_ns ? x.bad_first_ns : x.good_first_ns;
    const auto ty = y.bad_first_ns ? y.bad_first_ns : y.good_first_ns;
    return std::make_tuple(rank.at(x.change), x.host, !tx.has_value(), tx.value_or(0), x.key) <
           std::make_tuple(rank.at(y.change), y.host, !ty.has_value(), ty.value_or(0), y.key);
  };
  std::sort(d.templates.begin(), d.templates.end(), ev_order);
  std::sort(d.faults.begin(), d.faults.end(), ev_order);

  // verdict
  auto count_change = [](const std::vector<EventChange>& v, const char* c) {
    return static_cast<size_t>(
        std::count_if(v.begin(), v.end(), [&](const EventChange& e) { return e.change == c; }));
  };
  const size_t new_faults = count_change(d.faults, "new");
  const size_t new_templates = count_change(d.templates, "new");
  const size_t gone_faults = count_change(d.faults, "gone");
  const size_t new_findings =
      static_cast<size_t>(std::count_if(d.findings.begin(), d.findings.end(),
                                        [](const FindingChange& f) { return f.change == "new"; }));
  d.meaningful = !d.facts.empty() || new_faults + gone_faults + new_templates > 0 ||
                 !d.findings.empty() || count_change(d.templates, "gone") > 0;

  std::vector<std::string> clauses;
  std::set<std::string> headline_groups;
  auto add_clause = [&](const std::string& c) {
    if (std::find(clauses.begin(), clauses.end(), c) == clauses.end()) clauses.push_back(c);
  };
  for (const auto& h : rules.verdict) {
    for (const auto& fc : d.facts) {
      if (fc.name != h.fact) continue;
      std::string c = h.label + " " + joined(fc.good) + " -> " + joined(fc.bad);
      const CompareRules::Group* grp = compare::group_of(rules, fc.group);
      const auto* i = explain(grp, fc, d.installs);
      if (i != nullptr) {
        c += " " + past_tense(i->action) + " " + short_time(i->time);
        if (!i->reboot.empty()) c += ", " + i->reboot;
      }
      if (d.host_pairs.size() > 1) c += " on " + fc.host;
      add_clause(c);
      headline_groups.insert(fc.group);
    }
  }
  {
    std::map<std::string, std::vector<std::string>> rest;  // group title -> names
    std::vector<std::string> order;
    for (const auto& fc : d.facts) {
      if (headline_groups.count(fc.group) != 0) continue;
      auto& v = rest[fc.group_title];
      if (v.empty()) order.push_back(fc.group_title);
      if (std::find(v.begin(), v.end(), fc.name) == v.end()) v.push_back(fc.name);
    }
    for (const auto& t : order) {
      const auto& v = rest[t];
      std::string c = t + " changed: ";
      for (size_t i = 0; i < v.size() && i < 3; ++i) c += (i ? ", " : "") + v[i];
      if (v.size() > 3) c += " and " + std::to_string(v.size() - 3) + " more";
      add_clause(c);
    }
  }
  std::ostringstream o;
  if (!d.meaningful) {
    o << "no meaningful change";
    if (d.noise_differences > 0)
      o << " (" << d.noise_differences << " noise fact(s) differ: times, uptime, utilisation)";
  } else {
    for (size_t i = 0; i < clauses.size(); ++i) o << (i ? "; " : "") << clauses[i];
    if (clauses.empty()) o << "no fact changed";
    o << "; " << count_text(new_faults, new_faults == 1 ? "new fault event" : "new fault events")
      << ", "
      << count_text(new_templates,
                    new_templates == 1 ? "new error template" : "new error templates");
    if (new_findings > 0)
      o << ", " << count_text(new_findings, new_findings == 1 ? "new finding" : "new findings");
  }
  d.verdict = o.str();
  return d;
}

}  // namespace faultline::correlate
