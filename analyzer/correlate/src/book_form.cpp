// The parsed diagnoses and compat tables in the rule cache's binary form (core/binio.hpp): parsing
// their YAML (~125 KB) cost ~60 M instructions a run, a ninth of a small node's CPU (issue 38).
#include <algorithm>
#include <cstddef>

#include "faultline/core/binio.hpp"
#include "faultline/correlate/correlate.hpp"
#include "model.hpp"

namespace faultline::correlate {

namespace {

using binio::Reader;
using binio::Writer;
using detail::As;
using detail::CompatTable;
using detail::Diagnosis;
using detail::Node;
using detail::Op;
using detail::Predicate;
using detail::TimeRef;

// Bump when the layout below changes. A field added to the model must be written here too, or a
// cached book would silently lose it: the sizes make the build say so on the platform faultline
// is built on.
constexpr uint32_t kBookFormat = 1;
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Predicate) == 72, "Predicate changed: update book_form.cpp and kBookFormat");
static_assert(sizeof(TimeRef) == 64, "TimeRef changed: update book_form.cpp and kBookFormat");
static_assert(sizeof(Node) == 744, "Node changed: update book_form.cpp and kBookFormat");
static_assert(sizeof(Diagnosis) == 1072, "Diagnosis changed: update book_form.cpp and kBookFormat");
static_assert(sizeof(CompatTable) == 216,
              "CompatTable changed: update book_form.cpp and kBookFormat");
#endif
constexpr int kMaxDepth = 200;  // nesting of all/any/not: a damaged file cannot exhaust the stack

template <class E>
E enum_of(Reader& r, E last) {
  const uint32_t v = r.u32();
  if (v > static_cast<uint32_t>(last)) r.fail();
  return r.ok() ? static_cast<E>(v) : E{};
}

void put(Writer& w, const Predicate& p) {
  w.u32(static_cast<uint32_t>(p.subject));
  w.str(p.name);
  w.u32(static_cast<uint32_t>(p.op));
  w.u32(static_cast<uint32_t>(p.as));
  w.strs(p.values);
}

Predicate get_predicate(Reader& r) {
  Predicate p;
  p.subject = enum_of(r, Predicate::Subject::field);
  p.name = r.str();
  p.op = enum_of(r, Op::not_in);
  p.as = enum_of(r, As::number);
  p.values = r.strs();
  return p;
}

void put(Writer& w, const std::vector<Predicate>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (const auto& p : v) put(w, p);
}

std::vector<Predicate> get_predicates(Reader& r) {
  std::vector<Predicate> v(r.count());
  for (auto& p : v) p = get_predicate(r);
  return v;
}

void put(Writer& w, const TimeRef& t) {
  w.u32(static_cast<uint32_t>(t.kind));
  w.strs(t.names);
  put(w, t.where);
  w.flag(t.latest);
}

TimeRef get_time_ref(Reader& r) {
  TimeRef t;
  t.kind = enum_of(r, TimeRef::Kind::bound);
  t.names = r.strs();
  t.where = get_predicates(r);
  t.latest = r.flag();
  return t;
}

void put(Writer& w, const Node& n) {
  w.u32(static_cast<uint32_t>(n.type));
  w.i32(n.line);
  w.f64(n.weight);
  w.flag(n.optional);
  w.str(n.label);
  w.str(n.bind);
  w.flag(n.cite);
  w.u32(static_cast<uint32_t>(n.children.size()));
  for (const auto& c : n.children) put(w, c);
  w.flag(n.any_sum);
  w.strs(n.names);
  w.str(n.name_matches);
  w.flag(n.fold_names);
  put(w, n.where);
  w.i32(n.min_count);
  w.i32(n.max_count);
  w.str(n.left);
  w.str(n.right);
  w.u32(static_cast<uint32_t>(n.cmp_op));
  w.u32(static_cast<uint32_t>(n.cmp_as));
  w.flag(n.match_all);
  w.str(n.table);
  w.u32(static_cast<uint32_t>(n.columns.size()));
  for (const auto& [col, facts] : n.columns) {
    w.str(col);
    w.strs(facts);
  }
  w.flag(n.expect_absent);
  put(w, n.first);
  put(w, n.then);
  w.f64(n.min_gap_s);
  w.strs(n.key);
  w.strs(n.same);
  w.f64(n.min_interval_s);
  w.u64(n.range_lo);
  w.u64(n.range_hi);
  w.str(n.exclude);
  w.strs(n.from);
  w.str(n.split);
  w.str(n.select);
  w.strs(n.in_facts);
  w.strs(n.version_facts);
}

Node get_node(Reader& r, int depth) {
  Node n;
  if (depth > kMaxDepth) {
    r.fail();
    return n;
  }
  n.type = enum_of(r, Node::Type::path);
  n.line = r.i32();
  n.weight = r.f64();
  n.optional = r.flag();
  n.label = r.str();
  n.bind = r.str();
  n.cite = r.flag();
  n.children.resize(r.count());
  for (auto& c : n.children) {
    c = get_node(r, depth + 1);
    if (!r.ok()) return n;
  }
  n.any_sum = r.flag();
  n.names = r.strs();
  n.name_matches = r.str();
  n.fold_names = r.flag();
  n.where = get_predicates(r);
  n.min_count = r.i32();
  n.max_count = r.i32();
  n.left = r.str();
  n.right = r.str();
  n.cmp_op = enum_of(r, Op::not_in);
  n.cmp_as = enum_of(r, As::number);
  n.match_all = r.flag();
  n.table = r.str();
  n.columns.resize(r.count());
  for (auto& [col, facts] : n.columns) {
    col = r.str();
    facts = r.strs();
  }
  n.expect_absent = r.flag();
  n.first = get_time_ref(r);
  n.then = get_time_ref(r);
  n.min_gap_s = r.f64();
  n.key = r.strs();
  n.same = r.strs();
  n.min_interval_s = r.f64();
  n.range_lo = r.u64();
  n.range_hi = r.u64();
  n.exclude = r.str();
  n.from = r.strs();
  n.split = r.str();
  n.select = r.str();
  n.in_facts = r.strs();
  n.version_facts = r.strs();
  return n;
}

}  // namespace

std::string Book::serialize() const {
  Writer w;
  w.u32(kBookFormat);
  const detail::RuleBook& b = *impl_;
  w.u32(static_cast<uint32_t>(b.diagnoses.size()));
  for (const auto& d : b.diagnoses) {
    for (const std::string* s : {&d.id, &d.kind, &d.severity, &d.title, &d.summary, &d.file})
      w.str(*s);
    w.strs(d.remediation);
    w.strs(d.explains);
    w.strs(d.references);
    w.f64(d.specificity);
    w.f64(d.min_confidence);
    put(w, d.conditions);
    w.u32(static_cast<uint32_t>(d.supporting.size()));
    for (const auto& s : d.supporting) put(w, s);
    w.u32(static_cast<uint32_t>(d.premises.size()));
    for (const auto& p : d.premises) {
      w.strs(p.facts);
      w.str(p.label);
    }
  }
  w.u32(static_cast<uint32_t>(b.tables.size()));
  for (const auto& [name, t] : b.tables) {
    w.str(name);
    for (const std::string* s : {&t.name, &t.title, &t.source, &t.file}) w.str(*s);
    w.strs(t.columns);
    w.u32(static_cast<uint32_t>(t.rows.size()));
    for (const auto& row : t.rows) w.strs(row);
    w.u32(static_cast<uint32_t>(t.history.size()));
    for (const bool h : t.history) w.flag(h);
  }
  // load_rules puts the code tables' problems first: they are the code tables' to report
  const size_t own = b.codes ? std::min(b.codes->errors.size(), b.errors.size()) : 0;
  w.strs(std::vector<std::string>(b.errors.begin() + static_cast<std::ptrdiff_t>(own),
                                  b.errors.end()));
  return w.take();
}

std::optional<Book> Book::deserialize(std::string_view data,
                                      std::shared_ptr<const CodeBook> codes) {
  if (!codes) return std::nullopt;
  Reader r(data);
  if (r.u32() != kBookFormat) return std::nullopt;
  auto b = std::make_shared<detail::RuleBook>();
  b->diagnoses.resize(r.count());
  for (auto& d : b->diagnoses) {
    for (std::string* s : {&d.id, &d.kind, &d.severity, &d.title, &d.summary, &d.file})
      *s = r.str();
    d.remediation = r.strs();
    d.explains = r.strs();
    d.references = r.strs();
    d.specificity = r.f64();
    d.min_confidence = r.f64();
    d.conditions = get_node(r, 0);
    d.supporting.resize(r.count());
    for (auto& s : d.supporting) s = get_node(r, 0);
    d.premises.resize(r.count());
    for (auto& p : d.premises) {
      p.facts = r.strs();
      p.label = r.str();
    }
    if (!r.ok()) return std::nullopt;
  }
  const uint32_t tables = r.count();
  for (uint32_t i = 0; i < tables && r.ok(); ++i) {
    std::string name = r.str();
    CompatTable t;
    for (std::string* s : {&t.name, &t.title, &t.source, &t.file}) *s = r.str();
    t.columns = r.strs();
    t.rows.resize(r.count());
    for (auto& row : t.rows) row = r.strs();
    t.history.resize(r.count());
    for (size_t k = 0; k < t.history.size(); ++k) t.history[k] = r.flag();
    b->tables.emplace(std::move(name), std::move(t));
  }
  b->errors = r.strs();
  if (!r.ok() || !r.done()) return std::nullopt;
  // the code tables' problems are reported with the book's, as load_rules does
  b->errors.insert(b->errors.begin(), codes->errors.begin(), codes->errors.end());
  b->codes = std::move(codes);
  Book out;
  out.impl_ = std::move(b);
  return out;
}

}  // namespace faultline::correlate
