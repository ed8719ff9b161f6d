#include "eval.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "faultline/correlate/version.hpp"
#include "regex.hpp"
#include "template.hpp"

namespace faultline::correlate::detail {
namespace {

constexpr size_t kMaxEnvs = 64;         // environments kept while joining bound items
constexpr size_t kMaxLeafEvidence = 8;  // evidence rows one leaf adds (without bind)
constexpr double kUncertain = 0.5;      // share of a leaf's weight when its match is uncertain

std::string fold(std::string_view s) {
  std::string o = text::to_lower(s);
  std::replace(o.begin(), o.end(), '-', '_');
  return o;
}

// Glob with '*' (any run of characters). On a match, *star gets the text of the first '*'.
bool glob_match(std::string_view pat, std::string_view s, std::string* star) {
  const size_t p = pat.find('*');
  if (p == std::string_view::npos) return pat == s;
  const std::string_view head = pat.substr(0, p);
  const std::string_view rest = pat.substr(p + 1);
  if (s.substr(0, head.size()) != head) return false;
  const std::string_view tail = s.substr(head.size());
  // Shortest first-star run that lets the rest match.
  for (size_t n = 0; n <= tail.size(); ++n) {
    std::string dummy;
    if (glob_match(rest, tail.substr(n), &dummy)) {
      if (star != nullptr) *star = std::string(tail.substr(0, n));
      return true;
    }
  }
  return false;
}

std::string trim_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

int cmp_typed(const std::string& a, const std::string& b, As as, bool* ok) {
  *ok = true;
  if (as == As::version) return compare_versions(a, b);
  if (as == As::number) {
    auto x = parse_number(a), y = parse_number(b);
    if (!x || !y) {
      *ok = false;
      return 0;
    }
    return *x < *y ? -1 : (*x > *y ? 1 : 0);
  }
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool apply_cmp(Op op, int c) {
  switch (op) {
    case Op::eq:
      return c == 0;
    case Op::ne:
      return c != 0;
    case Op::lt:
      return c < 0;
    case Op::le:
      return c <= 0;
    case Op::gt:
      return c > 0;
    case Op::ge:
      return c >= 0;
    default:
      return false;
  }
}

// Compat cell / fact value as compared: "CANN 8.5.0" -> 8.5.0, "2.1.0+cpu" -> 2.1.0,
// "2.5.1.post1.dev20250619" -> 2.5.1.post1, "/usr/local/Ascend/ascend-toolkit/8.5.0" -> 8.5.0,
// "/usr/local/Ascend/cann-9.1.0" -> 9.1.0. Empty when the value names no version ("latest").
std::string compat_norm(std::string_view v) {
  std::string s(text::trim(v));
  if (s.find('/') != std::string::npos) {  // a path: its last component that is a version
    std::string found;
    for (auto part : text::split(s, '/')) {
      std::string_view p = part;
      if (text::istarts_with(p, "cann-")) p.remove_prefix(5);
      if (!p.empty() && p.front() >= '0' && p.front() <= '9') found = std::string(p);
    }
    s = found;
  }
  if (s.find_first_of("0123456789") == std::string::npos) return {};
  if (text::istarts_with(s, "cann ")) s = std::string(text::trim(std::string_view(s).substr(5)));
  const size_t plus = s.find('+');
  if (plus != std::string::npos) s.resize(plus);
  const std::string l = text::to_lower(s);
  const size_t dev = l.find(".dev");
  if (dev != std::string::npos) s.resize(dev);
  return s;
}

}  // namespace

std::optional<int64_t> parse_local_civil(std::string_view s) {
  s = text::trim(s);
  // YYYY-MM-DD HH:MM:SS (also with 'T' or '-' between date and time)
  if (s.size() < 19) return std::nullopt;
  auto num = [&](size_t pos, size_t len) { return text::to_int<int>(s.substr(pos, len)); };
  auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
       se = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !se || s[4] != '-' || s[7] != '-' || s[13] != ':' ||
      s[16] != ':')
    return std::nullopt;
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *se > 60)
    return std::nullopt;
  return civil_to_ns(*y, *mo, *d, *h, *mi, *se, 0);
}

// ---------------------------------------------------------------------------------------------
// Evidence and bindings

size_t Evaluator::ev_hit(const HitRow& h) {
  const std::string key = "h" + std::to_string(h.hit_id);
  auto it = pool_index_.find(key);
  if (it != pool_index_.end()) return it->second;
  Evidence e;
  e.host = h.host;
  e.member = h.member;
  e.kind = h.kind;
  e.member_id = h.member_id;
  e.line = h.line;
  e.event_id = h.event_id;
  e.text = h.text.size() > 4000 ? h.text.substr(0, 4000) : h.text;
  e.signature = h.signature;
  e.time_ns = h.time_ns;
  e.time_quality = h.time_ns ? h.time_quality : "unknown";
  pool_.push_back(std::move(e));
  pool_index_[key] = pool_.size() - 1;
  return pool_.size() - 1;
}

size_t Evaluator::ev_fact(const FactRow& f) {
  const std::string key = "f" + std::to_string(f.id);
  auto it = pool_index_.find(key);
  if (it != pool_index_.end()) return it->second;
  Evidence e;
  e.host = f.host;
  e.member = f.member;
  e.kind = f.kind;
  e.member_id = f.member_id;
  e.line = f.line;
  e.fact = f.name;
  e.value = f.value;
  e.text = lines_.line(f.member_id, f.line);
  if (e.text.empty()) e.text = f.name + " = " + f.value;
  e.time_quality = "unknown";
  if (auto w = fact_time(f)) {
    if (w->local) {
      const auto z = host_.zone_at(w->ns, f.kind);  // the zone in force when it was written
      e.time_ns = w->ns + z.offset_ns.value_or(0);
      e.time_quality = z.offset_ns ? "local" : "assumed_utc";
    } else {
      e.time_ns = w->ns;
      e.time_quality = w->quality;
    }
  }
  pool_.push_back(std::move(e));
  pool_index_[key] = pool_.size() - 1;
  return pool_.size() - 1;
}

Binding Evaluator::bind_hit(const HitRow& h) {
  Binding b;
  for (const auto& [k, v] : h.captures) b.fields[k] = v;
  b.fields["value"] = h.text.substr(0, h.text.find('\n'));
  b.fields["signature"] = h.signature;
  b.fields["member"] = h.member;
  b.fields["line"] = std::to_string(h.line);
  if (h.time_ns) {
    b.fields["_time_ns"] = std::to_string(*h.time_ns);
    b.fields["time"] = format_utc(*h.time_ns);
  }
  return b;
}

Binding Evaluator::bind_fact(const FactRow& f, const std::string& star) {
  Binding b;
  const auto& j = json_of(f);
  if (j.is_object())
    for (const auto& [k, v] : j.items())
      b.fields[k] = v.is_string() ? v.get<std::string>() : v.dump();
  b.fields["value"] = f.value;
  b.fields["name"] = f.name;
  b.fields["star"] = star;
  b.fields["key"] = star.substr(std::min(star.find_first_not_of('-'), star.size()));
  if (f.name.rfind("fs.", 0) == 0) b.fields["path"] = f.name.substr(3);
  if (f.name.rfind("mount.", 0) == 0) b.fields["mountpoint"] = f.name.substr(6);
  if (f.value.rfind("symlink:", 0) == 0) b.fields["target"] = f.value.substr(8);
  if (const size_t slash = f.value.find_last_of('/');
      slash != std::string::npos && slash + 1 < f.value.size())
    b.fields["basename"] = f.value.substr(slash + 1);
  b.fields["member"] = f.member;
  b.fields["line"] = std::to_string(f.line);
  if (auto w = fact_time(f)) {
    b.fields["_time_ns"] = std::to_string(w->ns);
    b.fields["_time_local"] = w->local ? "1" : "0";
  }
  return b;
}

const nlohmann::json& Evaluator::json_of(const FactRow& f) {
  auto it = json_cache_.find(f.id);
  if (it != json_cache_.end()) return it->second;
  nlohmann::json j;
  if (!f.value.empty() && f.value.front() == '{')
    j = nlohmann::json::parse(f.value, nullptr, false);
  if (j.is_discarded()) j = nlohmann::json();
  return json_cache_.emplace(f.id, std::move(j)).first->second;
}

// ---------------------------------------------------------------------------------------------
// Placeholders and predicates

std::optional<std::string> Evaluator::lookup(const Env& env, const std::string& name) {
  if (name == "host") return host_.name;
  const size_t dot = name.find('.');
  const std::string root = name.substr(0, dot);
  auto v = env.vars.find(root);
  if (v != env.vars.end()) {
    const std::string field = dot == std::string::npos ? "value" : name.substr(dot + 1);
    auto f = v->second.fields.find(field);
    if (f != v->second.fields.end()) return f->second;
    return std::nullopt;
  }
  auto f = host_.facts.find(name);
  if (f != host_.facts.end()) {
    std::vector<std::string> vals;
    for (const auto* r : f->second)
      if (std::find(vals.begin(), vals.end(), r->value) == vals.end()) vals.push_back(r->value);
    std::string out;
    for (const auto& s : vals) out += (out.empty() ? "" : ", ") + s;
    return out;
  }
  const size_t last = name.rfind('.');
  if (last != std::string::npos) {
    auto h = host_.hits.find(name.substr(0, last));
    if (h != host_.hits.end()) {
      // Prefer a hit already cited as evidence of this environment.
      for (size_t idx : env.evidence) {
        const auto& e = pool_[idx];
        if (e.signature != h->first) continue;
        for (const auto* r : h->second)
          if (r->member_id == e.member_id && r->line == e.line) {
            auto c = r->captures.find(name.substr(last + 1));
            if (c != r->captures.end()) return c->second;
          }
      }
      for (const auto* r : h->second) {
        auto c = r->captures.find(name.substr(last + 1));
        if (c != r->captures.end()) return c->second;
      }
    }
  }
  return std::nullopt;
}

std::string Evaluator::subst(const std::string& s, const Env& env, bool escape) {
  if (s.find('{') == std::string::npos) return s;
  return substitute(
      s, [&](const std::string& n) { return lookup(env, n); }, escape, "\x01unresolved\x01");
}

std::string Evaluator::fill(const std::string& tmpl, const Env& env) {
  return substitute(
      tmpl, [&](const std::string& n) { return lookup(env, n); }, false, "?");
}

bool Evaluator::test(const Predicate& p, const std::optional<std::string>& subject,
                     const Env& env) {
  if (p.op == Op::exists) return subject.has_value();
  if (p.op == Op::absent) return !subject.has_value();
  if (!subject) return false;
  std::vector<std::string> vals;
  const bool regex = p.op == Op::matches || p.op == Op::not_matches;
  for (const auto& v : p.values) vals.push_back(subst(v, env, regex));
  if (regex) {
    bool any = false;
    for (const auto& v : vals) {
      if (v.find("\x01unresolved\x01") != std::string::npos) return false;
      try {
        if (regex_cached(v)->search(*subject)) any = true;
      } catch (const std::exception&) {
        return false;
      }
    }
    return p.op == Op::matches ? any : !any;
  }
  if (p.op == Op::in || p.op == Op::not_in) {
    bool any = false;
    for (const auto& v : vals) {
      bool ok = false;
      const int c = cmp_typed(*subject, v, p.as, &ok);
      if (ok && c == 0) any = true;
    }
    return p.op == Op::in ? any : !any;
  }
  if (vals.empty()) return false;
  bool ok = false;
  const int c = cmp_typed(*subject, vals.front(), p.as, &ok);
  return ok && apply_cmp(p.op, c);
}

bool Evaluator::pred_ok(const std::vector<Predicate>& ps, const HitRow& h, const Env& env) {
  for (const auto& p : ps) {
    std::optional<std::string> subj;
    auto it = h.captures.find(p.name);
    if (it != h.captures.end())
      subj = it->second;
    else if (p.name == "_kind")  // the member kind the line was read in (device_os_log, ...)
      subj = h.kind;
    else if (p.name == "_member")
      subj = h.member;
    if (!test(p, subj, env)) return false;
  }
  return true;
}

bool Evaluator::pred_ok(const std::vector<Predicate>& ps, const FactRow& f, const Env& env) {
  for (const auto& p : ps) {
    std::optional<std::string> subj;
    if (p.subject == Predicate::Subject::value) {
      subj = f.value;
    } else {
      const auto& j = json_of(f);
      if (j.is_object() && j.contains(p.name)) {
        const auto& v = j[p.name];
        subj = v.is_string() ? v.get<std::string>() : v.dump();
      }
    }
    if (!test(p, subj, env)) return false;
  }
  return true;
}

std::vector<const FactRow*> Evaluator::facts_named(const std::string& glob, bool fold_names,
                                                   std::vector<std::string>* stars) {
  std::vector<const FactRow*> out;
  if (glob.find("\x01unresolved\x01") != std::string::npos) return out;
  if (glob.find('*') == std::string::npos && !fold_names) {
    auto it = host_.facts.find(glob);
    if (it != host_.facts.end()) {
      out = it->second;
      if (stars != nullptr) stars->assign(out.size(), "");
    }
    return out;
  }
  const std::string g = fold_names ? fold(glob) : glob;
  for (const auto& [name, rows] : host_.facts) {
    std::string star;
    if (!glob_match(g, fold_names ? fold(name) : name, &star)) continue;
    for (const auto* r : rows) {
      out.push_back(r);
      if (stars != nullptr) stars->push_back(star);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Leaves

std::vector<Evaluator::Match> Evaluator::m_hit(const Node& n, const Env& env) {
  std::vector<Match> out;
  for (const auto& sig : n.names) {
    auto it = host_.hits.find(sig);
    if (it == host_.hits.end()) continue;
    for (const auto* h : it->second) {
      if (!pred_ok(n.where, *h, env)) continue;
      out.push_back({bind_hit(*h), {ev_hit(*h)}});
    }
  }
  return out;
}

std::vector<Evaluator::Match> Evaluator::m_fact(const Node& n, const Env& env) {
  std::vector<Match> out;
  std::vector<std::string> stars;
  const auto rows = facts_named(subst(n.names.front(), env), n.fold_names, &stars);
  std::shared_ptr<const Regex> name_re;
  if (!n.name_matches.empty()) {
    const std::string pat = subst(n.name_matches, env, true);
    if (pat.find("\x01unresolved\x01") != std::string::npos) return out;
    try {
      name_re = regex_cached(pat);
    } catch (const std::exception&) {
      return out;
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const FactRow& f = *rows[i];
    if (name_re && !name_re->search(f.name)) continue;
    if (!pred_ok(n.where, f, env)) continue;
    out.push_back({bind_fact(f, stars[i]), {ev_fact(f)}});
  }
  return out;
}

std::vector<Evaluator::Match> Evaluator::m_compare(const Node& n, const Env& env,
                                                   std::vector<std::string>& notes) {
  std::vector<Match> out;
  const auto left = facts_named(subst(n.left, env), false);
  const auto right = facts_named(subst(n.right, env), false);
  if (left.empty() || right.empty()) return out;
  const bool same = n.left == n.right;
  int pairs = 0, good = 0;
  for (const auto* l : left) {
    for (const auto* r : right) {
      if (same && (l->member_id == r->member_id || l->id >= r->id)) continue;
      ++pairs;
      bool ok = false;
      const int c = cmp_typed(l->value, r->value, n.cmp_as, &ok);
      if (!ok || !apply_cmp(n.cmp_op, c)) continue;
      ++good;
      Binding b;
      b.fields["left"] = l->value;
      b.fields["right"] = r->value;
      b.fields["value"] = l->value;
      b.fields["left_member"] = l->member;
      b.fields["right_member"] = r->member;
      out.push_back({std::move(b), {ev_fact(*l), ev_fact(*r)}});
    }
  }
  if (pairs == 0) return {};
  if (n.match_all && good != pairs) return {};
  if (!n.match_all && good > 0 && good < pairs) {
    notes.push_back("compare " + n.left + " " + to_string(n.cmp_op) + " " + n.right + ": " +
                    std::to_string(good) + " of " + std::to_string(pairs) +
                    " value pairs agree, the other sources disagree");
    for (auto& m : out) m.binding.fields["_uncertain"] = "1";
  }
  return out;
}

std::vector<Evaluator::Match> Evaluator::m_compat(const Node& n, const Env& env,
                                                  std::vector<std::string>& notes) {
  std::vector<Match> out;
  auto t = book_.tables.find(n.table);
  if (t == book_.tables.end()) return out;
  const CompatTable& table = t->second;
  // Values per condition column: the first listed fact that exists on the host.
  struct Col {
    std::string name;
    size_t index = 0;
    std::vector<const FactRow*> facts;
    std::vector<std::string> values;  // normalised, distinct
  };
  std::vector<Col> cols;
  for (const auto& [col, fact_names] : n.columns) {
    Col c;
    c.name = col;
    c.index = static_cast<size_t>(std::find(table.columns.begin(), table.columns.end(), col) -
                                  table.columns.begin());
    if (c.index >= table.columns.size()) return out;
    for (const auto& fn : fact_names) {
      c.facts.clear();
      for (const auto* f : facts_named(subst(fn, env), false)) {
        const std::string v = compat_norm(f->value);
        if (v.empty()) continue;  // names no version (latest)
        c.facts.push_back(f);
        bool dup = false;
        for (const auto& e : c.values)
          if (same_version(e, v)) dup = true;
        if (!dup) c.values.push_back(v);
      }
      if (!c.facts.empty()) break;
    }
    if (c.facts.empty()) return out;
    cols.push_back(std::move(c));
  }
  auto cell_eq = [&](const std::vector<std::string>& row, size_t idx, const std::string& v) {
    return same_version(compat_norm(row[idx]), v);
  };
  // Every combination of values (bounded).
  std::vector<std::vector<std::string>> combos = {{}};
  for (const auto& c : cols) {
    std::vector<std::vector<std::string>> next;
    for (const auto& combo : combos)
      for (const auto& v : c.values) {
        if (next.size() >= kMaxEnvs) break;
        auto x = combo;
        x.push_back(v);
        next.push_back(std::move(x));
      }
    combos = std::move(next);
  }
  bool any_present = false;
  for (const auto& combo : combos) {
    for (const auto& row : table.rows) {
      bool all = true;
      for (size_t i = 0; i < cols.size() && all; ++i) all = cell_eq(row, cols[i].index, combo[i]);
      if (all) any_present = true;
    }
  }
  if (n.expect_absent == any_present) return out;
  const auto& key = cols.front();
  const std::string& kv = combos.front().front();
  Binding b;
  std::set<std::string> known_key;
  for (size_t i = 0; i < cols.size(); ++i) b.fields[cols[i].name] = combos.front()[i];
  // What the table pairs the key value with, for every column of the table.
  for (size_t ci = 0; ci < table.columns.size(); ++ci) {
    std::vector<std::string> expected;
    for (const auto& row : table.rows) {
      if (!cell_eq(row, key.index, kv)) continue;
      const std::string cell = compat_norm(row[ci]);
      if (std::find(expected.begin(), expected.end(), cell) == expected.end())
        expected.push_back(cell);
    }
    std::string joined;
    for (const auto& e : expected) joined += (joined.empty() ? "" : " or ") + e;
    b.fields["expected." + table.columns[ci]] = joined.empty() ? "(not in the table)" : joined;
  }
  b.fields["value"] = kv;
  b.fields["table"] = table.name;
  bool key_known = false;
  for (const auto& row : table.rows)
    if (cell_eq(row, key.index, kv)) key_known = true;
  if (!key_known && n.expect_absent) {
    notes.push_back(key.name + " " + kv + " is not in the " + table.name +
                    " table at all (newer than the table, or a private build)");
    b.fields["_uncertain"] = "1";
  }
  std::vector<size_t> ev;
  for (const auto& c : cols)
    for (const auto* f : c.facts)
      if (ev.size() < kMaxLeafEvidence) ev.push_back(ev_fact(*f));
  out.push_back({std::move(b), std::move(ev)});
  return out;
}

std::vector<Evaluator::Match> Evaluator::m_series(const Node& n, const Env& env,
                                                  std::vector<std::string>& notes) {
  std::map<std::vector<std::string>, std::vector<const HitRow*>> groups;
  for (const auto& sig : n.names) {
    auto it = host_.hits.find(sig);
    if (it == host_.hits.end()) continue;
    for (const auto* h : it->second) {
      if (!pred_ok(n.where, *h, env)) continue;
      std::vector<std::string> k;
      bool complete = true;
      for (const auto& name : n.key) {
        auto c = h->captures.find(name);
        if (c == h->captures.end()) complete = false;
        k.push_back(c == h->captures.end() ? "" : c->second);
      }
      if (complete) groups[k].push_back(h);
    }
  }
  const auto interval = static_cast<int64_t>(n.min_interval_s * 1e9);
  std::vector<Match> out;
  bool untimed = false;
  for (auto& [k, hits] : groups) {
    std::stable_sort(hits.begin(), hits.end(), [](const HitRow* x, const HitRow* y) {
      if (x->time_ns.has_value() != y->time_ns.has_value()) return x->time_ns.has_value();
      if (x->time_ns && *x->time_ns != *y->time_ns) return *x->time_ns < *y->time_ns;
      if (x->member != y->member) return x->member < y->member;
      return x->line < y->line;
    });
    auto same_of = [&](const HitRow* h) {
      std::vector<std::string> s;
      for (const auto& name : n.same) {
        auto c = h->captures.find(name);
        s.push_back(c == h->captures.end() ? "\x01" : c->second);
      }
      return s;
    };
    std::vector<const HitRow*> best, chain;
    std::vector<std::string> chain_same;
    bool chain_untimed = false, best_untimed = false;
    for (const auto* h : hits) {
      const auto s = same_of(h);
      if (chain.empty() || s != chain_same) {
        if (chain.size() > best.size()) {
          best = chain;
          best_untimed = chain_untimed;
        }
        chain = {h};
        chain_same = s;
        chain_untimed = !h->time_ns;
        continue;
      }
      const HitRow* last = chain.back();
      if (h->time_ns && last->time_ns) {
        if (*h->time_ns - *last->time_ns >= interval) chain.push_back(h);
      } else if (h->member != last->member || h->line != last->line) {
        chain.push_back(h);
        chain_untimed = true;
      }
    }
    if (chain.size() > best.size()) {
      best = chain;
      best_untimed = chain_untimed;
    }
    if (static_cast<int>(best.size()) < n.min_count) continue;
    Binding b = bind_hit(*best.front());
    b.fields["count"] = std::to_string(best.size());
    if (best.front()->time_ns && best.back()->time_ns)
      b.fields["span_s"] =
          std::to_string((*best.back()->time_ns - *best.front()->time_ns) / 1'000'000'000);
    if (best_untimed) {
      b.fields["_uncertain"] = "1";
      untimed = true;
    }
    std::vector<size_t> ev;
    for (const auto* h : best)
      if (ev.size() < kMaxLeafEvidence) ev.push_back(ev_hit(*h));
    out.push_back({std::move(b), std::move(ev)});
  }
  if (untimed)
    notes.push_back("series counted without times on some reports (interval not checked)");
  return out;
}

std::vector<Evaluator::Match> Evaluator::m_range(const Node& n, const Env& env) {
  std::vector<Match> out;
  std::vector<std::string> stars;
  const auto rows = facts_named(subst(n.names.front(), env), false, &stars);
  std::shared_ptr<const Regex> excl;
  if (!n.exclude.empty()) excl = regex_cached(n.exclude);
  for (size_t i = 0; i < rows.size(); ++i) {
    const FactRow& f = *rows[i];
    const auto toks = text::split_ws(f.value);
    if (toks.empty()) continue;
    const size_t dash = toks[0].find('-');
    if (dash == std::string_view::npos) continue;
    auto lo = text::to_int<unsigned long long>(toks[0].substr(0, dash), 16);
    auto hi = text::to_int<unsigned long long>(toks[0].substr(dash + 1), 16);
    if (!lo || !hi || *lo >= *hi) continue;
    if (!(*lo<n.range_hi&& * hi> n.range_lo)) continue;
    std::string path;
    for (size_t t = 1; t < toks.size(); ++t) {
      if (path.empty() && toks[t].front() != '/' && toks[t].front() != '[') continue;
      path += (path.empty() ? "" : " ") + std::string(toks[t]);
    }
    if (excl && !path.empty() && excl->search(path)) continue;
    Binding b = bind_fact(f, stars[i]);
    b.fields["start"] = "0x" + std::string(toks[0].substr(0, dash));
    b.fields["end"] = "0x" + std::string(toks[0].substr(dash + 1));
    b.fields["perms"] = toks.size() > 1 ? std::string(toks[1]) : "";
    b.fields["path"] = path.empty() ? "(anonymous)" : path;
    out.push_back({std::move(b), {ev_fact(f)}});
  }
  return out;
}

std::vector<Evaluator::Match> Evaluator::m_path(const Node& n, const Env& env,
                                                std::vector<std::string>& notes) {
  std::vector<Match> out;
  std::vector<std::string> roots, versions;
  std::vector<const FactRow*> installed_facts;
  for (const auto& g : n.in_facts)
    for (const auto* f : facts_named(subst(g, env), false)) {
      roots.push_back(trim_slash(std::string(text::trim(f->value))));
      installed_facts.push_back(f);
    }
  for (const auto& g : n.version_facts)
    for (const auto* f : facts_named(subst(g, env), false)) {
      versions.push_back(std::string(text::trim(f->value)));
      installed_facts.push_back(f);
    }
  std::shared_ptr<const Regex> sel;
  if (!n.select.empty()) sel = regex_cached(subst(n.select, env, true));
  auto fs_state = [&](const std::string& p) -> std::optional<bool> {
    auto it = host_.facts.find("fs." + p);
    if (it == host_.facts.end() || it->second.empty()) return std::nullopt;
    return it->second.front()->value != "missing";
  };
  // A complete listing of the parent directory that does not name the path: absent (docs/facts.md
  // "Complete listings"). Weaker than anything that says it is there (an install root, a version).
  auto listed_absent = [&](const std::string& p) {
    const size_t slash = p.find_last_of('/');
    if (slash == std::string::npos || slash == 0) return false;
    auto d = host_.facts.find("dir.entries." + p.substr(0, slash));
    return d != host_.facts.end() && !d->second.empty();
  };
  std::string installed;
  for (const auto& r : roots) installed += (installed.empty() ? "" : ", ") + r;
  for (const auto& v : versions) installed += (installed.empty() ? "" : ", ") + v;
  bool any_candidate = false, any_known = false;
  std::set<std::string> seen;
  for (const auto& g : n.from) {
    std::vector<std::string> stars;
    const auto rows = facts_named(subst(g, env), false, &stars);
    for (size_t i = 0; i < rows.size(); ++i) {
      const FactRow& f = *rows[i];
      std::vector<std::string> entries;
      if (n.split.empty())
        entries.push_back(f.value);
      else
        for (auto e : text::split(f.value, n.split[0])) entries.emplace_back(text::trim(e));
      for (const auto& entry : entries) {
        if (entry.empty()) continue;
        std::string path = entry, version;
        if (sel) {
          auto gr = sel->groups(entry);
          if (!gr) continue;
          if (gr->count("path") != 0)
            path = (*gr)["path"];
          else
            path = (*gr)[""];
          if (gr->count("version") != 0) version = (*gr)["version"];
        }
        path = trim_slash(path);
        any_candidate = true;
        std::optional<bool> present;
        if (auto s = fs_state(path)) present = *s;
        if (!present) {
          for (std::string a = path; a.size() > 1;) {
            const size_t slash = a.find_last_of('/');
            if (slash == std::string::npos || slash == 0) break;
            a.resize(slash);
            if (auto s = fs_state(a); s && !*s) {
              present = false;
              break;
            }
          }
        }
        if (!present) {
          for (const auto& r : roots)
            if (path == r || path.rfind(r + "/", 0) == 0 || r.rfind(path + "/", 0) == 0)
              present = true;
        }
        if (!present && !version.empty() && !versions.empty()) {
          present = std::any_of(versions.begin(), versions.end(),
                                [&](const std::string& v) { return same_version(v, version); });
        }
        if (!present && listed_absent(path)) present = false;
        if (!present && !roots.empty()) present = false;
        if (!present) continue;  // unknown: nothing says whether it exists
        any_known = true;
        if (*present == n.expect_absent) continue;
        if (!seen.insert(f.name + "\x01" + path).second) continue;
        Binding b = bind_fact(f, stars[i]);
        b.fields["path"] = path;
        b.fields["value"] = path;
        b.fields["version"] = version;
        b.fields["installed"] = installed.empty() ? "(none listed)" : installed;
        std::vector<size_t> ev = {ev_fact(f)};
        for (const auto* inst : installed_facts)
          if (ev.size() < 4) ev.push_back(ev_fact(*inst));
        out.push_back({std::move(b), std::move(ev)});
      }
    }
  }
  if (any_candidate && !any_known)
    notes.push_back(
        "paths found, but the bundle lists neither the installed set nor the file system");
  return out;
}

std::vector<Evaluator::Match> Evaluator::leaf_matches(const Node& n, const Env& env,
                                                      std::vector<std::string>& notes) {
  switch (n.type) {
    case Node::Type::hit:
      return m_hit(n, env);
    case Node::Type::fact:
      return m_fact(n, env);
    case Node::Type::compare:
      return m_compare(n, env, notes);
    case Node::Type::compat:
      return m_compat(n, env, notes);
    case Node::Type::time_order:
      return m_time_order(n, env, notes);
    case Node::Type::series:
      return m_series(n, env, notes);
    case Node::Type::range_overlap:
      return m_range(n, env);
    case Node::Type::path:
      return m_path(n, env, notes);
    default:
      return {};
  }
}

std::string Evaluator::describe(const Node& n) {
  if (!n.label.empty()) return n.label;
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "|") + x;
    return s;
  };
  switch (n.type) {
    case Node::Type::hit:
      return "log line " + join(n.names);
    case Node::Type::fact:
      return "fact " + n.names.front();
    case Node::Type::compare:
      return n.left + " " + to_string(n.cmp_op) + " " + n.right;
    case Node::Type::compat:
      return "combination outside compat table " + n.table;
    case Node::Type::time_order:
      return "time order " + join(n.first.names) + " before " + join(n.then.names);
    case Node::Type::series:
      return "repeated " + join(n.names);
    case Node::Type::range_overlap:
      return "mapping overlapping the reserved range (" + n.names.front() + ")";
    case Node::Type::path:
      return "path from " + join(n.from);
    default:
      return "condition at line " + std::to_string(n.line);
  }
}

// ---------------------------------------------------------------------------------------------
// Composition

Result Evaluator::eval_leaf(const Node& n, const std::vector<Env>& in) {
  Result r;
  r.max = n.weight;
  bool uncertain_all = true;
  for (const auto& env : in) {
    auto ms = leaf_matches(n, env, r.notes);
    const int count = static_cast<int>(ms.size());
    const bool counted = n.type == Node::Type::hit || n.type == Node::Type::fact;
    if (ms.empty() ||
        (counted && (count < n.min_count || (n.max_count >= 0 && count > n.max_count))))
      continue;
    for (const auto& m : ms)
      if (m.binding.fields.count("_uncertain") == 0) uncertain_all = false;
    if (!n.bind.empty()) {
      for (auto& m : ms) {
        if (r.envs.size() >= kMaxEnvs) break;
        Env e = env;
        e.vars[n.bind] = std::move(m.binding);
        e.evidence.insert(e.evidence.end(), m.evidence.begin(), m.evidence.end());
        r.envs.push_back(std::move(e));
      }
    } else {
      if (r.envs.size() >= kMaxEnvs) break;
      // Up to 2 * kMaxLeafEvidence rows, one per member first (the same kernel line copied into
      // dmesg, kern.log and syslog is better shown once from each than eight times from one),
      // kept in data order (time order for hits).
      Env e = env;
      std::vector<size_t> all;
      for (const auto& m : ms) all.insert(all.end(), m.evidence.begin(), m.evidence.end());
      std::vector<bool> taken(all.size(), false);
      std::set<std::string> members;
      size_t added = 0;
      for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < all.size() && added < 2 * kMaxLeafEvidence; ++i) {
          if (taken[i] || (pass == 0 && !members.insert(pool_[all[i]].member).second)) continue;
          taken[i] = true;
          ++added;
        }
      for (size_t i = 0; i < all.size(); ++i)
        if (taken[i]) e.evidence.push_back(all[i]);
      r.envs.push_back(std::move(e));
    }
  }
  r.matched = !r.envs.empty();
  if (r.matched) {
    r.score = uncertain_all ? n.weight * kUncertain : n.weight;
  } else {
    r.missing.push_back(describe(n));
  }
  // Notes matter only when the match counted less for them.
  if (!r.matched || !uncertain_all) r.notes.clear();
  std::sort(r.notes.begin(), r.notes.end());
  r.notes.erase(std::unique(r.notes.begin(), r.notes.end()), r.notes.end());
  return r;
}

Result Evaluator::eval(const Node& n, const std::vector<Env>& in) {
  if (!n.cite) {
    // Evaluate, then drop what this subtree added to the evidence lists.
    Node copy = n;
    copy.cite = true;
    Result r = eval(copy, in);
    for (auto& e : r.envs) {
      // The environments descend from one of `in`; keep that one's evidence.
      size_t keep = 0;
      for (const auto& i : in)
        if (e.evidence.size() >= i.evidence.size() &&
            std::equal(i.evidence.begin(), i.evidence.end(), e.evidence.begin()))
          keep = std::max(keep, i.evidence.size());
      e.evidence.resize(keep);
    }
    return r;
  }
  Result r;
  switch (n.type) {
    case Node::Type::all: {
      r.matched = true;
      std::vector<Env> envs = in;
      for (const auto& c : n.children) {
        Result cr = eval(c, envs);
        r.max += cr.max;
        r.notes.insert(r.notes.end(), cr.notes.begin(), cr.notes.end());
        if (cr.matched) {
          r.score += cr.score;
          envs = std::move(cr.envs);
        } else {
          if (!c.optional) r.matched = false;
          r.missing.insert(r.missing.end(), cr.missing.begin(), cr.missing.end());
        }
      }
      if (r.matched) r.envs = std::move(envs);
      break;
    }
    case Node::Type::any: {
      if (n.any_sum) {
        // Corroboration: children seen in turn, like an `all` whose children are all optional,
        // so that items bound by one child stay visible to the next and to the summary.
        std::vector<Env> envs = in;
        for (const auto& c : n.children) {
          Result cr = eval(c, envs);
          r.max += cr.max;
          if (cr.matched) {
            r.matched = true;
            r.score += cr.score;
            envs = std::move(cr.envs);
            r.notes.insert(r.notes.end(), cr.notes.begin(), cr.notes.end());
          } else {
            r.missing.insert(r.missing.end(), cr.missing.begin(), cr.missing.end());
          }
        }
        if (r.matched) {
          r.envs = std::move(envs);
        } else if (!n.label.empty()) {
          r.missing = {n.label};
        } else {
          std::string s;
          for (const auto& m : r.missing) s += (s.empty() ? "" : " or ") + m;
          r.missing = {s};
        }
        break;
      }
      double best = 0, best_max = 0;
      std::vector<std::string> miss;
      for (const auto& c : n.children) {
        Result cr = eval(c, in);
        best_max = std::max(best_max, cr.max);
        if (cr.matched) {
          r.matched = true;
          best = std::max(best, cr.score);
          r.notes.insert(r.notes.end(), cr.notes.begin(), cr.notes.end());
          for (auto& e : cr.envs)
            if (r.envs.size() < kMaxEnvs) r.envs.push_back(std::move(e));
        } else {
          miss.insert(miss.end(), cr.missing.begin(), cr.missing.end());
        }
      }
      r.score = best;
      r.max = best_max;
      if (!r.matched) {
        if (!n.label.empty()) {
          r.missing.push_back(n.label);
        } else {
          std::string s;
          for (const auto& m : miss) s += (s.empty() ? "" : " or ") + m;
          r.missing.push_back(s);
        }
      }
      break;
    }
    case Node::Type::not_: {
      // Per environment: the items bound so far for which the child does not hold go on (a
      // join: `not: {fact: 'fs.{listed.star}/{rec.file}'}` keeps the RECORD entries whose file
      // the listing lacks, not "none of them, since one file is there").
      std::vector<Env> keep;
      if (in.size() <= 1) {
        r.matched = !eval(n.children.front(), in).matched;
        if (r.matched) keep = in;
      } else {
        for (const auto& e : in)
          if (!eval(n.children.front(), std::vector<Env>{e}).matched) keep.push_back(e);
        r.matched = !keep.empty();
      }
      r.max = n.weight;
      r.score = r.matched ? n.weight : 0;
      if (r.matched)
        r.envs = std::move(keep);
      else
        r.missing.push_back(n.label.empty() ? "absence of: " + describe(n.children.front())
                                            : n.label);
      return r;
    }
    default:
      return eval_leaf(n, in);
  }
  if (n.weight != 1.0) {
    r.score *= n.weight;
    r.max *= n.weight;
  }
  return r;
}

Outcome Evaluator::run(const Diagnosis& d) {
  Outcome o;
  Result root = eval(d.conditions, {Env{}});
  if (!root.matched) {
    // what was looked for and not found: the report names it where nothing explains a symptom
    for (const auto& m : root.missing)
      if (std::find(o.missing.begin(), o.missing.end(), m) == o.missing.end())
        o.missing.push_back(m);
    return o;
  }
  o.fired = true;
  o.score = root.score;
  o.max = root.max;
  o.notes = root.notes;
  std::vector<Env> envs = root.envs;
  for (const auto& s : d.supporting) {
    Result sr = eval(s, envs);
    o.max += sr.max;
    if (sr.matched) {
      o.score += sr.score;
      envs = std::move(sr.envs);
      o.notes.insert(o.notes.end(), sr.notes.begin(), sr.notes.end());
    } else {
      o.missing.insert(o.missing.end(), sr.missing.begin(), sr.missing.end());
    }
  }
  o.missing.insert(o.missing.begin(), root.missing.begin(), root.missing.end());
  // Evidence in the order the conditions cited it (first environment first); a fact stated
  // again with the same value in the same member (npu-smi board blocks of 8 NPUs) once.
  std::set<size_t> seen;
  std::set<std::string> stated;
  for (const auto& e : envs)
    for (size_t idx : e.evidence) {
      if (!seen.insert(idx).second) continue;
      const Evidence& x = pool_[idx];
      if (!x.fact.empty() && x.signature.empty() &&
          !stated.insert(x.fact + '\x01' + x.value + '\x01' + x.member).second)
        continue;
      o.evidence.push_back(idx);
    }
  o.env = envs.empty() ? Env{} : envs.front();
  std::sort(o.notes.begin(), o.notes.end());
  o.notes.erase(std::unique(o.notes.begin(), o.notes.end()), o.notes.end());
  std::vector<std::string> miss;
  for (const auto& m : o.missing)
    if (std::find(miss.begin(), miss.end(), m) == miss.end()) miss.push_back(m);
  o.missing = std::move(miss);
  return o;
}

}  // namespace faultline::correlate::detail
