// Loader and validator of diagnosis and compat rule files. Every problem becomes one message
// "<file>:<line>: <id>: <problem>" so that `faultline rules lint` can print them all at once.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "model.hpp"
#include "regex.hpp"
#include "template.hpp"

namespace faultline::correlate::detail {
namespace {

struct Ctx {
  std::string file;
  std::string id;
  std::vector<std::string>* errors;
  void err(int line, const std::string& msg) const {
    errors->push_back(file + ":" + std::to_string(line) + ": " + (id.empty() ? "?" : id) + ": " +
                      msg);
  }
};

int line_of(const YAML::Node& n) {
  return n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
}

std::string stem_of(const std::string& path) {
  std::string s = path.substr(path.find_last_of('/') + 1);
  const size_t dot = s.find_last_of('.');
  return dot == std::string::npos ? s : s.substr(0, dot);
}

bool valid_id(const std::string& id) {
  if (id.empty() || id.find('.') == std::string::npos) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

std::string scalar(const YAML::Node& n) {
  if (!n || !n.IsScalar()) return {};
  return n.as<std::string>();
}

// A scalar or a list of scalars.
std::vector<std::string> strings(const Ctx& c, const YAML::Node& n, const std::string& what) {
  std::vector<std::string> out;
  if (!n) return out;
  if (n.IsScalar()) {
    out.push_back(n.as<std::string>());
  } else if (n.IsSequence()) {
    for (const auto& e : n) {
      if (e.IsScalar())
        out.push_back(e.as<std::string>());
      else
        c.err(line_of(e), what + ": expected a string");
    }
  } else {
    c.err(line_of(n), what + ": expected a string or a list of strings");
  }
  return out;
}

void check_keys(const Ctx& c, const YAML::Node& n, const std::set<std::string>& allowed,
                const std::string& where) {
  if (!n.IsMap()) return;
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (allowed.count(k) == 0) c.err(line_of(kv.first), "unknown field '" + k + "' in " + where);
  }
}

std::optional<Op> parse_op(const std::string& s) {
  static const std::map<std::string, Op> m = {
      {"exists", Op::exists},   {"absent", Op::absent},
      {"eq", Op::eq},           {"==", Op::eq},
      {"ne", Op::ne},           {"!=", Op::ne},
      {"lt", Op::lt},           {"<", Op::lt},
      {"le", Op::le},           {"<=", Op::le},
      {"gt", Op::gt},           {">", Op::gt},
      {"ge", Op::ge},           {">=", Op::ge},
      {"matches", Op::matches}, {"not_matches", Op::not_matches},
      {"in", Op::in},           {"not_in", Op::not_in}};
  auto it = m.find(s);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::optional<As> parse_as(const std::string& s) {
  if (s.empty() || s == "string") return As::string;
  if (s == "version") return As::version;
  if (s == "number") return As::number;
  return std::nullopt;
}

void check_regex(const Ctx& c, int line, const std::string& pattern) {
  try {
    (void)Regex(strip_placeholders(pattern));
  } catch (const std::exception& e) {
    c.err(line, e.what());
  }
}

void check_values(const Ctx& c, int line, const Predicate& p) {
  const bool needs_value = p.op != Op::exists && p.op != Op::absent;
  if (needs_value && p.values.empty())
    c.err(line, "operator '" + to_string(p.op) + "' needs a value");
  if ((p.op == Op::in || p.op == Op::not_in) == false && p.values.size() > 1)
    c.err(line, "operator '" + to_string(p.op) + "' takes one value (use in / not_in for lists)");
  if (p.op == Op::matches || p.op == Op::not_matches)
    for (const auto& v : p.values) check_regex(c, line, v);
  if (p.as == As::number)
    for (const auto& v : p.values)
      if (!has_placeholder(v) && !parse_number(v)) c.err(line, "value '" + v + "' is not a number");
}

// op/value/values/as of a mapping into p (subject already set).
void fill_predicate(const Ctx& c, const YAML::Node& n, Predicate& p, Op default_op) {
  p.op = default_op;
  if (n["op"]) {
    auto op = parse_op(scalar(n["op"]));
    if (!op)
      c.err(line_of(n["op"]), "unknown operator '" + scalar(n["op"]) + "'");
    else
      p.op = *op;
  }
  if (n["as"]) {
    auto as = parse_as(scalar(n["as"]));
    if (!as)
      c.err(line_of(n["as"]), "unknown type '" + scalar(n["as"]) + "' (string|version|number)");
    else
      p.as = *as;
  }
  if (n["value"]) p.values = strings(c, n["value"], "value");
  if (n["values"]) {
    auto more = strings(c, n["values"], "values");
    p.values.insert(p.values.end(), more.begin(), more.end());
  }
  if (!n["op"] && !p.values.empty()) p.op = p.values.size() > 1 ? Op::in : Op::eq;
  check_values(c, line_of(n), p);
}

std::vector<Predicate> parse_where(const Ctx& c, const YAML::Node& n, Predicate::Subject subject) {
  std::vector<Predicate> out;
  if (!n) return out;
  if (!n.IsSequence()) {
    c.err(line_of(n), "where: expected a list of predicates");
    return out;
  }
  for (const auto& e : n) {
    if (!e.IsMap()) {
      c.err(line_of(e), "where: expected a mapping");
      continue;
    }
    check_keys(c, e, {"capture", "field", "op", "value", "values", "as"}, "predicate");
    Predicate p;
    if (e["capture"]) {
      p.subject = Predicate::Subject::capture;
      p.name = scalar(e["capture"]);
    } else if (e["field"]) {
      p.subject = Predicate::Subject::field;
      p.name = scalar(e["field"]);
    } else {
      c.err(line_of(e), "predicate needs 'capture' (hits) or 'field' (JSON facts)");
      continue;
    }
    if (p.subject == Predicate::Subject::capture && subject == Predicate::Subject::field)
      c.err(line_of(e), "facts have fields, not captures");
    if (p.subject == Predicate::Subject::field && subject == Predicate::Subject::capture)
      c.err(line_of(e), "hits have captures, not fields");
    fill_predicate(c, e, p, Op::exists);
    out.push_back(std::move(p));
  }
  return out;
}

int parse_int(const Ctx& c, const YAML::Node& n, int def) {
  if (!n) return def;
  try {
    return n.as<int>();
  } catch (const std::exception&) {
    c.err(line_of(n), "expected an integer");
    return def;
  }
}

double parse_double(const Ctx& c, const YAML::Node& n, double def) {
  if (!n) return def;
  try {
    return n.as<double>();
  } catch (const std::exception&) {
    c.err(line_of(n), "expected a number");
    return def;
  }
}

TimeRef parse_timeref(const Ctx& c, const YAML::Node& n, const std::string& what) {
  TimeRef r;
  if (!n || !n.IsMap()) {
    c.err(n ? line_of(n) : 0, what + ": expected a mapping with hit, fact or bound");
    return r;
  }
  check_keys(c, n, {"hit", "fact", "bound", "where", "latest"}, what);
  if (n["latest"]) {
    if (n["latest"].IsScalar() &&
        (n["latest"].Scalar() == "true" || n["latest"].Scalar() == "false"))
      r.latest = n["latest"].Scalar() == "true";
    else
      c.err(line_of(n["latest"]), what + ": latest: expected true or false");
  }
  if (n["hit"]) {
    r.kind = TimeRef::Kind::hit;
    r.names = strings(c, n["hit"], "hit");
    r.where = parse_where(c, n["where"], Predicate::Subject::capture);
  } else if (n["fact"]) {
    r.kind = TimeRef::Kind::fact;
    r.names = strings(c, n["fact"], "fact");
    r.where = parse_where(c, n["where"], Predicate::Subject::field);
  } else if (n["bound"]) {
    r.kind = TimeRef::Kind::bound;
    r.names = strings(c, n["bound"], "bound");
  } else {
    c.err(line_of(n), what + ": needs hit, fact or bound");
  }
  return r;
}

const std::set<std::string> kCommon = {"weight", "optional", "label", "bind", "cite"};
const std::vector<std::string> kTypes = {"all",    "any",           "not",    "hit",
                                         "fact",   "compare",       "compat", "time_order",
                                         "series", "range_overlap", "path"};

std::set<std::string> with_common(std::initializer_list<std::string> extra) {
  std::set<std::string> s = kCommon;
  s.insert(extra.begin(), extra.end());
  return s;
}

Node parse_node(const Ctx& c, const YAML::Node& n);

std::vector<Node> parse_list(const Ctx& c, const YAML::Node& n, const std::string& what) {
  std::vector<Node> out;
  if (!n.IsSequence()) {
    c.err(line_of(n), what + ": expected a list of conditions");
    return out;
  }
  for (const auto& e : n) out.push_back(parse_node(c, e));
  if (out.empty()) c.err(line_of(n), what + ": empty list");
  return out;
}

Node parse_node(const Ctx& c, const YAML::Node& n) {
  Node node;
  node.line = line_of(n);
  if (!n.IsMap()) {
    c.err(node.line, "a condition must be a mapping");
    return node;
  }
  std::string type;
  for (const auto& t : kTypes) {
    if (n[t]) {
      if (!type.empty())
        c.err(node.line, "a condition has one type; found '" + type + "' and '" + t + "'");
      if (type.empty()) type = t;
    }
  }
  if (type.empty()) {
    c.err(node.line,
          "unknown condition (expected one of all, any, not, hit, fact, compare, "
          "compat, time_order, series, range_overlap, path)");
    return node;
  }
  node.weight = parse_double(c, n["weight"], 1.0);
  if (node.weight < 0) c.err(node.line, "weight must be >= 0");
  if (n["optional"]) node.optional = n["optional"].as<bool>(false);
  node.label = scalar(n["label"]);
  if (n["cite"]) node.cite = n["cite"].as<bool>(true);
  node.bind = scalar(n["bind"]);
  if (!node.bind.empty() && (node.bind.find('.') != std::string::npos || node.bind == "host"))
    c.err(node.line, "bind name '" + node.bind + "' must be a plain word other than 'host'");
  const YAML::Node v = n[type];

  if (type == "all" || type == "any") {
    node.type = type == "all" ? Node::Type::all : Node::Type::any;
    check_keys(c, n, type == "any" ? with_common({"any", "score"}) : with_common({"all"}), type);
    node.children = parse_list(c, v, type);
    if (n["score"]) {
      const std::string sc = scalar(n["score"]);
      if (sc != "best" && sc != "sum") c.err(node.line, "any: score must be best or sum");
      node.any_sum = sc == "sum";
    }
  } else if (type == "not") {
    node.type = Node::Type::not_;
    check_keys(c, n, with_common({"not"}), "not");
    node.children.push_back(parse_node(c, v));
  } else if (type == "hit") {
    node.type = Node::Type::hit;
    check_keys(c, n, with_common({"hit", "where", "min_count", "max_count"}), "hit");
    node.names = strings(c, v, "hit");
    if (node.names.empty()) c.err(node.line, "hit: needs a signature id");
    node.where = parse_where(c, n["where"], Predicate::Subject::capture);
    node.min_count = parse_int(c, n["min_count"], 1);
    node.max_count = parse_int(c, n["max_count"], -1);
  } else if (type == "fact") {
    node.type = Node::Type::fact;
    check_keys(c, n,
               with_common({"fact", "op", "value", "values", "as", "where", "name_matches",
                            "fold_names", "min_count", "max_count"}),
               "fact");
    node.names = strings(c, v, "fact");
    if (node.names.size() != 1) c.err(node.line, "fact: needs one fact name (globs allowed)");
    node.name_matches = scalar(n["name_matches"]);
    if (!node.name_matches.empty()) check_regex(c, node.line, node.name_matches);
    node.fold_names = n["fold_names"] ? n["fold_names"].as<bool>(false) : false;
    if (n["op"] || n["value"] || n["values"]) {
      Predicate p;
      p.subject = Predicate::Subject::value;
      fill_predicate(c, n, p, Op::exists);
      node.where.push_back(std::move(p));
    } else if (n["as"]) {
      c.err(node.line, "fact: 'as' without op/value");
    }
    auto more = parse_where(c, n["where"], Predicate::Subject::field);
    node.where.insert(node.where.end(), more.begin(), more.end());
    node.min_count = parse_int(c, n["min_count"], 1);
    node.max_count = parse_int(c, n["max_count"], -1);
    for (const auto& p : node.where)
      if (p.op == Op::absent)
        c.err(node.line, "fact: use `not: {fact: ...}` for absence, not op: absent");
  } else if (type == "compare") {
    node.type = Node::Type::compare;
    check_keys(c, n, with_common({"compare"}), "compare");
    if (!v.IsMap()) {
      c.err(node.line, "compare: expected a mapping {left, op, right, as}");
    } else {
      check_keys(c, v, {"left", "right", "op", "as", "match"}, "compare");
      node.left = scalar(v["left"]);
      node.right = scalar(v["right"]);
      if (node.left.empty() || node.right.empty())
        c.err(node.line, "compare: needs left and right");
      auto op = parse_op(v["op"] ? scalar(v["op"]) : "ne");
      if (!op || *op == Op::exists || *op == Op::absent || *op == Op::in || *op == Op::not_in ||
          *op == Op::matches || *op == Op::not_matches)
        c.err(node.line, "compare: op must be eq, ne, lt, le, gt or ge");
      else
        node.cmp_op = *op;
      auto as = parse_as(scalar(v["as"]));
      if (!as)
        c.err(node.line, "compare: unknown type '" + scalar(v["as"]) + "'");
      else
        node.cmp_as = *as;
      const std::string m = v["match"] ? scalar(v["match"]) : "any";
      if (m != "any" && m != "all") c.err(node.line, "compare: match must be any or all");
      node.match_all = m == "all";
    }
  } else if (type == "compat") {
    node.type = Node::Type::compat;
    check_keys(c, n, with_common({"compat"}), "compat");
    if (!v.IsMap()) {
      c.err(node.line, "compat: expected a mapping {table, columns, expect}");
    } else {
      check_keys(c, v, {"table", "columns", "expect"}, "compat");
      node.table = scalar(v["table"]);
      if (node.table.empty()) c.err(node.line, "compat: needs table");
      const YAML::Node cols = v["columns"];
      if (!cols || !cols.IsMap() || cols.size() < 2) {
        c.err(node.line, "compat: columns must map at least two table columns to fact names");
      } else {
        for (const auto& kv : cols)
          node.columns.emplace_back(kv.first.as<std::string>(), strings(c, kv.second, "columns"));
      }
      const std::string e = v["expect"] ? scalar(v["expect"]) : "absent";
      if (e != "absent" && e != "present")
        c.err(node.line, "compat: expect must be absent or present");
      node.expect_absent = e != "present";
    }
  } else if (type == "time_order") {
    node.type = Node::Type::time_order;
    check_keys(c, n, with_common({"time_order"}), "time_order");
    if (!v.IsMap()) {
      c.err(node.line, "time_order: expected a mapping {first, then}");
    } else {
      check_keys(c, v, {"first", "then", "min_gap_s"}, "time_order");
      node.first = parse_timeref(c, v["first"], "time_order.first");
      node.then = parse_timeref(c, v["then"], "time_order.then");
      node.min_gap_s = parse_double(c, v["min_gap_s"], 0);
    }
  } else if (type == "series") {
    node.type = Node::Type::series;
    check_keys(c, n, with_common({"series"}), "series");
    if (!v.IsMap()) {
      c.err(node.line, "series: expected a mapping {hit, key, same, min_count, min_interval_s}");
    } else {
      check_keys(c, v, {"hit", "key", "same", "min_count", "min_interval_s", "where"}, "series");
      node.names = strings(c, v["hit"], "hit");
      if (node.names.empty()) c.err(node.line, "series: needs hit");
      node.key = strings(c, v["key"], "key");
      node.same = strings(c, v["same"], "same");
      node.where = parse_where(c, v["where"], Predicate::Subject::capture);
      node.min_count = parse_int(c, v["min_count"], 2);
      if (node.min_count < 2) c.err(node.line, "series: min_count must be >= 2");
      node.min_interval_s = parse_double(c, v["min_interval_s"], 0);
    }
  } else if (type == "range_overlap") {
    node.type = Node::Type::range_overlap;
    check_keys(c, n, with_common({"range_overlap"}), "range_overlap");
    if (!v.IsMap()) {
      c.err(node.line, "range_overlap: expected a mapping {fact, start, end, exclude}");
    } else {
      check_keys(c, v, {"fact", "start", "end", "exclude"}, "range_overlap");
      node.names = strings(c, v["fact"], "fact");
      if (node.names.size() != 1) c.err(node.line, "range_overlap: needs one fact name");
      auto lo = parse_number(scalar(v["start"]));
      auto hi = parse_number(scalar(v["end"]));
      if (!lo || !hi || *lo >= *hi)
        c.err(node.line, "range_overlap: start and end must be numbers with start < end");
      else {
        node.range_lo = static_cast<unsigned long long>(*lo);
        node.range_hi = static_cast<unsigned long long>(*hi);
      }
      node.exclude = scalar(v["exclude"]);
      if (!node.exclude.empty()) check_regex(c, node.line, node.exclude);
    }
  } else if (type == "path") {
    node.type = Node::Type::path;
    check_keys(c, n, with_common({"path"}), "path");
    if (!v.IsMap()) {
      c.err(node.line, "path: expected a mapping {from, select, in, versions, expect}");
    } else {
      check_keys(c, v, {"from", "split", "select", "in", "versions", "expect"}, "path");
      node.from = strings(c, v["from"], "from");
      if (node.from.empty()) c.err(node.line, "path: needs from (fact names)");
      node.split = scalar(v["split"]);
      if (node.split.size() > 1) c.err(node.line, "path: split is one character");
      node.select = scalar(v["select"]);
      if (!node.select.empty()) check_regex(c, node.line, node.select);
      node.in_facts = strings(c, v["in"], "in");
      node.version_facts = strings(c, v["versions"], "versions");
      const std::string e = v["expect"] ? scalar(v["expect"]) : "absent";
      if (e != "absent" && e != "present")
        c.err(node.line, "path: expect must be absent or present");
      node.expect_absent = e != "present";
    }
  }
  return node;
}

const std::set<std::string> kSeverities = {"critical", "error", "warning", "info"};

void parse_diagnosis(const RuleFile& f, const YAML::Node& root, RuleBook& book) {
  Ctx c{f.path, scalar(root["id"]), &book.errors};
  Diagnosis d;
  d.file = f.path;
  d.id = c.id;
  check_keys(c, root,
             {"id", "kind", "severity", "title", "summary", "remediation", "explains", "conditions",
              "supporting", "specificity", "min_confidence", "references", "notes", "requires"},
             "diagnosis");
  if (!valid_id(d.id)) c.err(line_of(root), "id must be <family>.<name> in [a-z0-9_.]");
  if (stem_of(f.path) != d.id)
    c.err(line_of(root), "file name must be the id: expected diagnoses/" + d.id + ".yaml");
  d.kind = scalar(root["kind"]);
  if (d.kind != "root_cause" && d.kind != "symptom")
    c.err(line_of(root), "kind must be root_cause or symptom");
  d.severity = scalar(root["severity"]);
  if (kSeverities.count(d.severity) == 0)
    c.err(line_of(root), "severity must be critical, error, warning or info");
  d.title = scalar(root["title"]);
  if (d.title.empty()) c.err(line_of(root), "title is required");
  d.summary = scalar(root["summary"]);
  if (d.summary.empty()) c.err(line_of(root), "summary is required");
  d.remediation = strings(c, root["remediation"], "remediation");
  d.explains = strings(c, root["explains"], "explains");
  d.references = strings(c, root["references"], "references");
  d.specificity = parse_double(c, root["specificity"], 0.8);
  if (d.specificity <= 0 || d.specificity > 1)
    c.err(line_of(root), "specificity must be in (0, 1]");
  d.min_confidence = parse_double(c, root["min_confidence"], 0.0);
  if (d.kind == "symptom" && !d.explains.empty())
    c.err(line_of(root), "a symptom explains nothing (explains is for root causes)");
  if (d.kind == "root_cause" && d.remediation.empty())
    c.err(line_of(root), "a root cause needs remediation steps");
  if (!root["conditions"]) {
    c.err(line_of(root), "conditions are required");
  } else {
    d.conditions = parse_node(c, root["conditions"]);
  }
  if (const YAML::Node rq = root["requires"]; rq) {
    if (!rq.IsSequence()) c.err(line_of(rq), "requires: expected a list of {fact, label}");
    for (const auto& e : rq) {
      if (!e.IsMap() || !e["fact"] || !e["label"]) {
        c.err(line_of(e), "requires: each entry needs fact and label");
        continue;
      }
      check_keys(c, e, {"fact", "label"}, "requires");
      d.premises.push_back({strings(c, e["fact"], "requires.fact"), scalar(e["label"])});
    }
  }
  if (root["supporting"]) {
    d.supporting = parse_list(c, root["supporting"], "supporting");
    for (auto& s : d.supporting) s.optional = true;
  }
  // Templates and bind names.
  std::set<std::string> binds;
  std::vector<const Node*> stack = {&d.conditions};
  for (const auto& s : d.supporting) stack.push_back(&s);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!n->bind.empty()) binds.insert(n->bind);
    for (const auto& ch : n->children) stack.push_back(&ch);
  }
  const auto sigs = referenced_signatures(d);
  for (const auto& p : template_problems(d.summary, binds, sigs))
    c.err(line_of(root["summary"]), "summary: " + p);
  book.diagnoses.push_back(std::move(d));
}

void parse_compat(const RuleFile& f, const YAML::Node& root, RuleBook& book) {
  CompatTable t;
  t.file = f.path;
  t.name = scalar(root["table"]);
  Ctx c{f.path, t.name, &book.errors};
  check_keys(c, root, {"table", "title", "source", "columns", "rows", "history", "notes"},
             "compat table");
  if (t.name.empty()) c.err(line_of(root), "table name is required");
  if (stem_of(f.path) != t.name)
    c.err(line_of(root), "file name must be the table name: expected compat/" + t.name + ".yaml");
  t.title = scalar(root["title"]);
  t.source = scalar(root["source"]);
  t.columns = strings(c, root["columns"], "columns");
  if (t.columns.size() < 2) c.err(line_of(root), "columns: at least two");
  std::set<std::string> seen_cols;
  for (const auto& col : t.columns)
    if (!seen_cols.insert(col).second) c.err(line_of(root), "column '" + col + "' repeated");
  std::set<std::vector<std::string>> seen;
  for (const char* part : {"rows", "history"}) {
    const YAML::Node rows = root[part];
    if (!rows) continue;
    if (!rows.IsSequence()) {
      c.err(line_of(rows), std::string(part) + ": expected a list of rows");
      continue;
    }
    for (const auto& r : rows) {
      if (!r.IsSequence()) {
        c.err(line_of(r), "a row is a list of cells, one per column");
        continue;
      }
      std::vector<std::string> cells;
      for (const auto& cell : r) cells.push_back(cell.IsScalar() ? cell.as<std::string>() : "");
      if (cells.size() != t.columns.size()) {
        c.err(line_of(r), "row has " + std::to_string(cells.size()) + " cells, table has " +
                              std::to_string(t.columns.size()) + " columns");
        continue;
      }
      if (std::any_of(cells.begin(), cells.end(), [](const std::string& s) { return s.empty(); }))
        c.err(line_of(r), "empty cell");
      if (!seen.insert(cells).second) c.err(line_of(r), "duplicate row");
      t.rows.push_back(std::move(cells));
      t.history.push_back(std::string(part) == "history");
    }
  }
  if (t.rows.empty()) c.err(line_of(root), "table has no rows");
  if (book.tables.count(t.name) != 0) c.err(line_of(root), "table defined twice");
  book.tables[t.name] = std::move(t);
}

void collect_sigs(const Node& n, std::set<std::string>& out) {
  if (n.type == Node::Type::hit || n.type == Node::Type::series)
    out.insert(n.names.begin(), n.names.end());
  if (n.type == Node::Type::time_order) {
    if (n.first.kind == TimeRef::Kind::hit) out.insert(n.first.names.begin(), n.first.names.end());
    if (n.then.kind == TimeRef::Kind::hit) out.insert(n.then.names.begin(), n.then.names.end());
  }
  for (const auto& c : n.children) collect_sigs(c, out);
}

}  // namespace

std::string to_string(Op op) {
  switch (op) {
    case Op::exists:
      return "exists";
    case Op::absent:
      return "absent";
    case Op::eq:
      return "eq";
    case Op::ne:
      return "ne";
    case Op::lt:
      return "lt";
    case Op::le:
      return "le";
    case Op::gt:
      return "gt";
    case Op::ge:
      return "ge";
    case Op::matches:
      return "matches";
    case Op::not_matches:
      return "not_matches";
    case Op::in:
      return "in";
    case Op::not_in:
      return "not_in";
  }
  return "?";
}

std::vector<std::string> referenced_signatures(const Diagnosis& d) {
  std::set<std::string> s;
  collect_sigs(d.conditions, s);
  for (const auto& n : d.supporting) collect_sigs(n, s);
  return {s.begin(), s.end()};
}

RuleBook load_rules(const std::vector<RuleFile>& files, std::shared_ptr<const CodeBook> codes) {
  RuleBook book;
  book.codes =
      codes != nullptr ? std::move(codes) : std::make_shared<const CodeBook>(load_codes(files));
  book.errors = book.codes->errors;
  for (const auto& f : files) {
    const bool diag = f.path.rfind("diagnoses/", 0) == 0;
    const bool compat = f.path.rfind("compat/", 0) == 0;
    if (!diag && !compat) continue;
    YAML::Node root;
    try {
      root = YAML::Load(std::string(f.text));
    } catch (const YAML::Exception& e) {
      book.errors.push_back(f.path + ":" + std::to_string(e.mark.line + 1) + ": ?: YAML: " + e.msg);
      continue;
    }
    if (!root.IsMap()) {
      book.errors.push_back(f.path + ":1: ?: expected a mapping at the top level");
      continue;
    }
    try {
      if (diag)
        parse_diagnosis(f, root, book);
      else
        parse_compat(f, root, book);
    } catch (const YAML::Exception& e) {
      book.errors.push_back(f.path + ":" + std::to_string(e.mark.line + 1) + ": ?: " + e.msg);
    }
  }
  std::sort(book.diagnoses.begin(), book.diagnoses.end(),
            [](const Diagnosis& a, const Diagnosis& b) { return a.id < b.id; });
  // Cross-file checks: unique ids, explains -> symptoms, compat tables and columns.
  std::map<std::string, const Diagnosis*> by_id;
  for (const auto& d : book.diagnoses) {
    if (!by_id.emplace(d.id, &d).second)
      book.errors.push_back(d.file + ":1: " + d.id + ": id defined twice");
  }
  for (const auto& d : book.diagnoses) {
    for (const auto& e : d.explains) {
      auto it = by_id.find(e);
      if (it == by_id.end())
        book.errors.push_back(d.file + ":1: " + d.id + ": explains unknown diagnosis '" + e + "'");
      else if (it->second->kind != "symptom")
        book.errors.push_back(d.file + ":1: " + d.id + ": explains '" + e +
                              "', which is not a symptom");
    }
    std::vector<const Node*> stack = {&d.conditions};
    for (const auto& s : d.supporting) stack.push_back(&s);
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      for (const auto& ch : n->children) stack.push_back(&ch);
      if (n->type != Node::Type::compat) continue;
      auto t = book.tables.find(n->table);
      if (t == book.tables.end()) {
        book.errors.push_back(d.file + ":" + std::to_string(n->line) + ": " + d.id +
                              ": unknown compat table '" + n->table + "'");
        continue;
      }
      for (const auto& [col, facts] : n->columns) {
        if (std::find(t->second.columns.begin(), t->second.columns.end(), col) ==
            t->second.columns.end())
          book.errors.push_back(d.file + ":" + std::to_string(n->line) + ": " + d.id + ": table '" +
                                n->table + "' has no column '" + col + "'");
        if (facts.empty())
          book.errors.push_back(d.file + ":" + std::to_string(n->line) + ": " + d.id +
                                ": column '" + col + "' names no fact");
      }
    }
  }
  return book;
}

}  // namespace faultline::correlate::detail
