// run(): evaluate every diagnosis on every host of a bundle, rank the root causes, attach each
// symptom to the root cause that explains it, and write findings, evidence and the timeline.
#include "faultline/correlate/correlate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "data.hpp"
#include "eval.hpp"
#include "model.hpp"
#include "sql.hpp"

namespace faultline::correlate {
namespace {

using detail::Diagnosis;
using detail::Evidence;

struct Draft {
  const Diagnosis* d = nullptr;
  std::string host, summary, explained_by;
  double confidence = 0;
  std::vector<Evidence> evidence;
  std::vector<std::string> missing, explains;
  std::optional<int64_t> earliest;
  int rank = 0;
};

Severity severity_of(const std::string& s) {
  if (s == "critical") return Severity::critical;
  if (s == "error") return Severity::error;
  if (s == "warning") return Severity::warning;
  return Severity::info;
}

double round2(double x) {
  return std::round(x * 100.0) / 100.0;
}

constexpr size_t kMaxEvidence = 30;     // evidence rows per finding
constexpr double kSymptomBonus = 0.05;  // confidence per observed symptom a cause explains
constexpr double kMaxSymptomBonus = 0.15;
constexpr int64_t kContextBefore = 120'000'000'000;  // ns of context before the first failure
constexpr int64_t kContextAfter = 60'000'000'000;
constexpr size_t kContextEach = 6;  // context rows on each side of the first failure

// The order in which findings of one host and bundle are presented (rank 1 = most likely).
bool better_cause(const Draft& a, const Draft& b) {
  if (a.confidence != b.confidence) return a.confidence > b.confidence;
  if (a.earliest.has_value() != b.earliest.has_value()) return a.earliest.has_value();
  if (a.earliest && *a.earliest != *b.earliest) return *a.earliest < *b.earliest;
  const auto sa = severity_of(a.d->severity), sb = severity_of(b.d->severity);
  if (sa != sb) return sa > sb;
  if (a.host != b.host) return a.host < b.host;
  return a.d->id < b.d->id;
}

struct TRow {
  std::optional<int64_t> t;
  std::string quality, host, member, kind, text, signature, finding, role;
  int64_t member_id = 0, line = 0;
};

int role_order(const std::string& r) {
  if (r == "first_failure") return 0;
  if (r == "cause") return 1;
  if (r == "observation") return 2;
  return 3;
}

std::vector<TRow> build_timeline(sqlite3* db, int64_t bundle_id, const std::vector<Draft>& drafts) {
  std::vector<TRow> rows;
  std::set<std::pair<int64_t, int64_t>> cited;  // member_id, line
  for (const auto& f : drafts) {
    const bool cause = f.d->kind == "root_cause";
    for (const auto& e : f.evidence) {
      if (!e.time_ns && e.signature.empty()) continue;  // untimed facts stay in the evidence list
      TRow r;
      r.t = e.time_ns;
      r.quality = e.time_ns ? e.time_quality : "unknown";
      r.host = e.host;
      r.member = e.member;
      r.kind = e.kind;
      r.member_id = e.member_id;
      r.line = e.line;
      r.text = e.text;
      r.signature = e.signature;
      r.finding = f.d->id;
      // Host facts (boot time, zone) are reference points of a cause, not the cause itself.
      r.role = cause ? (e.fact.rfind("host.", 0) == 0 ? "context" : "cause") : "observation";
      rows.push_back(std::move(r));
      cited.insert({e.member_id, e.line});
    }
  }
  // First failure per host: the earliest symptom evidence, preferring device/runtime logs over
  // training stdout (a Python stack is where a failure was observed, not where it happened).
  std::map<std::string, size_t> first;
  auto earlier = [&](const TRow& a, const TRow& b) {
    const bool ta = a.kind == "train_log", tb = b.kind == "train_log";
    if (ta != tb) return !ta;
    if (a.t.has_value() != b.t.has_value()) return a.t.has_value();
    if (a.t && *a.t != *b.t) return *a.t < *b.t;
    if (a.member != b.member) return a.member < b.member;
    return a.line < b.line;
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].role != "observation") continue;
    auto it = first.find(rows[i].host);
    if (it == first.end() || earlier(rows[i], rows[it->second])) first[rows[i].host] = i;
  }
  for (const auto& [host, idx] : first) rows[idx].role = "first_failure";
  // One row per line: when a line is evidence of several findings (an `Unknown symbol` line is
  // both a symptom and proof of its cause), keep first_failure, else cause, else observation.
  {
    std::map<std::pair<int64_t, int64_t>, size_t> keep;
    std::vector<bool> drop(rows.size(), false);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].member_id <= 0 || rows[i].line <= 0) continue;
      const auto key = std::make_pair(rows[i].member_id, rows[i].line);
      auto it = keep.find(key);
      if (it == keep.end()) {
        keep[key] = i;
        continue;
      }
      const size_t j = it->second;
      if (role_order(rows[i].role) < role_order(rows[j].role)) {
        drop[j] = true;
        it->second = i;
      } else {
        drop[i] = true;
      }
    }
    std::map<std::string, size_t> remap;
    std::vector<TRow> kept;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (drop[i]) continue;
      for (auto& [host, idx] : first)
        if (idx == i) remap[host] = kept.size();
      kept.push_back(std::move(rows[i]));
    }
    rows = std::move(kept);
    first = std::move(remap);
  }
  // Context: warnings and errors around each host's first failure.
  for (const auto& [host, idx] : first) {
    if (!rows[idx].t) continue;
    const int64_t t0 = *rows[idx].t;
    detail::Stmt st(db,
                    "SELECT e.time_ns, e.time_quality, COALESCE(m.path, ''), COALESCE(m.kind, ''), "
                    "e.member_id, e.line, e.text, (SELECT MIN(signature) FROM hits h WHERE "
                    "h.event_id = e.id) FROM events e LEFT JOIN members m ON m.id = e.member_id "
                    "WHERE e.bundle_id = ? AND e.host = ? AND e.time_ns BETWEEN ? AND ? AND "
                    "e.sev_rank >= 3 ORDER BY e.time_ns, m.path, e.line LIMIT 400");
    st.bind(1, bundle_id).bind(2, host).bind(3, t0 - kContextBefore).bind(4, t0 + kContextAfter);
    std::vector<TRow> before, after;
    while (st.step()) {
      TRow r;
      r.t = st.i64(0);
      r.quality = st.str(1);
      r.host = host;
      r.member = st.str(2);
      r.kind = st.str(3);
      r.member_id = st.i64(4);
      r.line = st.i64(5);
      r.text = st.str(6);
      if (r.text.size() > 4000) r.text.resize(4000);
      r.signature = st.str(7);
      if (cited.count({r.member_id, r.line}) != 0) continue;
      r.role = (r.kind == "train_log" && *r.t >= t0) ? "observation" : "context";
      (*r.t < t0 ? before : after).push_back(std::move(r));
    }
    // Closest ones on each side.
    if (before.size() > kContextEach) before.erase(before.begin(), before.end() - kContextEach);
    if (after.size() > kContextEach) after.resize(kContextEach);
    for (auto* side : {&before, &after})
      for (auto& r : *side) {
        cited.insert({r.member_id, r.line});
        rows.push_back(std::move(r));
      }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const TRow& a, const TRow& b) {
    if (a.t.has_value() != b.t.has_value()) return a.t.has_value();
    if (a.t && *a.t != *b.t) return *a.t < *b.t;
    if (a.host != b.host) return a.host < b.host;
    if (a.member != b.member) return a.member < b.member;
    if (a.line != b.line) return a.line < b.line;
    if (role_order(a.role) != role_order(b.role)) return role_order(a.role) < role_order(b.role);
    return a.finding < b.finding;
  });
  return rows;
}

void write_rows(sqlite3* db, int64_t bundle_id, const std::vector<Draft>& drafts,
                const std::vector<TRow>& timeline, const std::vector<std::string>& skipped) {
  // What the load's bounds left out goes with the bundle's warnings (the report lists them), as
  // the correlator's own rows: replaced on each run.
  detail::Stmt del_w(db,
                     "DELETE FROM warnings WHERE bundle_id = ? AND member = '' AND "
                     "message LIKE '[correlate-limit]%'");
  del_w.bind(1, bundle_id);
  del_w.step();
  detail::Stmt ins_w(db, "INSERT INTO warnings (bundle_id, member, message) VALUES (?, '', ?)");
  for (const auto& w : skipped) {
    ins_w.reset();
    ins_w.bind(1, bundle_id).bind(2, w);
    ins_w.step();
  }
  detail::Stmt del_ev(db,
                      "DELETE FROM finding_evidence WHERE finding_id IN (SELECT id FROM findings "
                      "WHERE bundle_id = ?)");
  del_ev.bind(1, bundle_id);
  del_ev.step();
  detail::Stmt del_f(db, "DELETE FROM findings WHERE bundle_id = ?");
  del_f.bind(1, bundle_id);
  del_f.step();
  detail::Stmt del_t(db, "DELETE FROM timeline WHERE bundle_id = ?");
  del_t.bind(1, bundle_id);
  del_t.step();

  detail::Stmt ins_f(db,
                     "INSERT INTO findings (bundle_id, finding, kind, severity, confidence, host, "
                     "title, summary, rank, explained_by, explains, remediation, missing) VALUES "
                     "(?,?,?,?,?,?,?,?,?,?,?,?,?)");
  detail::Stmt ins_e(db,
                     "INSERT INTO finding_evidence (finding_id, ord, member, line, time_ns, text, "
                     "signature, fact) VALUES (?,?,?,?,?,?,?,?)");
  for (const auto& f : drafts) {
    ins_f.reset();
    ins_f.bind(1, bundle_id)
        .bind(2, f.d->id)
        .bind(3, f.d->kind)
        .bind(4, f.d->severity)
        .bind(5, f.confidence)
        .bind(6, f.host)
        .bind(7, f.d->title)
        .bind(8, f.summary)
        .bind(9, static_cast<int64_t>(f.rank));
    if (f.explained_by.empty())
      ins_f.bind_null(10);
    else
      ins_f.bind(10, f.explained_by);
    ins_f.bind(11, nlohmann::json(f.explains).dump())
        .bind(12, nlohmann::json(f.d->remediation).dump())
        .bind(13, nlohmann::json(f.missing).dump());
    ins_f.step();
    const int64_t fid = sqlite3_last_insert_rowid(db);
    int ord = 0;
    for (const auto& e : f.evidence) {
      ins_e.reset();
      ins_e.bind(1, fid).bind(2, static_cast<int64_t>(++ord)).bind(3, e.member).bind(4, e.line);
      ins_e.bind(5, e.time_ns).bind(6, e.text);
      if (e.signature.empty())
        ins_e.bind_null(7);
      else
        ins_e.bind(7, e.signature);
      if (e.fact.empty())
        ins_e.bind_null(8);
      else
        ins_e.bind(8, e.fact);
      ins_e.step();
    }
  }
  detail::Stmt ins_t(db,
                     "INSERT INTO timeline (bundle_id, ord, time_ns, time_quality, host, member, "
                     "line, text, signature, finding, role) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  int ord = 0;
  for (const auto& r : timeline) {
    ins_t.reset();
    ins_t.bind(1, bundle_id).bind(2, static_cast<int64_t>(++ord)).bind(3, r.t).bind(4, r.quality);
    ins_t.bind(5, r.host).bind(6, r.member).bind(7, r.line).bind(8, r.text);
    if (r.signature.empty())
      ins_t.bind_null(9);
    else
      ins_t.bind(9, r.signature);
    if (r.finding.empty())
      ins_t.bind_null(10);
    else
      ins_t.bind(10, r.finding);
    ins_t.bind(11, r.role);
    ins_t.step();
  }
}

struct SigRef {
  std::string id;
  int line;
};

void collect_sig_refs(const detail::Node& n, std::vector<SigRef>& out) {
  using T = detail::Node::Type;
  if (n.type == T::hit || n.type == T::series)
    for (const auto& s : n.names) out.push_back({s, n.line});
  if (n.type == T::time_order) {
    if (n.first.kind == detail::TimeRef::Kind::hit)
      for (const auto& s : n.first.names) out.push_back({s, n.line});
    if (n.then.kind == detail::TimeRef::Kind::hit)
      for (const auto& s : n.then.names) out.push_back({s, n.line});
  }
  for (const auto& c : n.children) collect_sig_refs(c, out);
}

}  // namespace

Summary run(sqlite3* db, int64_t bundle_id, const std::vector<RuleFile>& rules) {
  const detail::RuleBook book = detail::load_rules(rules);
  if (!book.errors.empty()) {
    std::string msg = "bad diagnosis rules:";
    for (const auto& e : book.errors) msg += "\n  " + e;
    throw std::runtime_error(msg);
  }
  std::set<std::string> sigs;
  for (const auto& d : book.diagnoses)
    for (const auto& s : detail::referenced_signatures(d)) sigs.insert(s);
  auto data = detail::load_bundle(db, bundle_id, {sigs.begin(), sigs.end()});
  detail::LineSource lines(db);

  std::vector<Draft> drafts;
  for (const auto& host : data->hosts) {
    detail::Evaluator ev(book, host, lines);
    std::set<std::string> observed;
    for (const char* pass : {"symptom", "root_cause"}) {
      for (const auto& d : book.diagnoses) {
        if (d.kind != pass) continue;
        const detail::Outcome o = ev.run(d);
        if (!o.fired) continue;
        Draft f;
        f.d = &d;
        f.host = host.name;
        for (const auto& e : d.explains)
          if (observed.count(e) != 0) f.explains.push_back(e);
        std::sort(f.explains.begin(), f.explains.end());
        const double share = o.max > 0 ? o.score / o.max : 1.0;
        const double bonus =
            std::min(kMaxSymptomBonus, kSymptomBonus * static_cast<double>(f.explains.size()));
        f.confidence = round2(std::min(0.99, d.specificity * (0.5 + 0.5 * share) + bonus));
        if (f.confidence < d.min_confidence) continue;
        f.summary = ev.fill(d.summary, o.env);
        f.missing = o.missing;
        for (const auto& n : o.notes) f.missing.push_back("uncertain: " + n);
        // One row per cited line: a fact and a hit on the same line become one row with both.
        std::map<std::pair<int64_t, int64_t>, size_t> seen;
        for (size_t idx : o.evidence) {
          const Evidence& e = ev.pool()[idx];
          const auto key = std::make_pair(e.member_id, e.line);
          if (e.member_id > 0 && e.line > 0) {
            auto it = seen.find(key);
            if (it != seen.end()) {
              Evidence& prev = f.evidence[it->second];
              if (prev.signature.empty()) prev.signature = e.signature;
              if (prev.fact.empty()) prev.fact = e.fact;
              if (!e.signature.empty() && e.time_ns) {  // a hit's own time beats a derived one
                prev.time_ns = e.time_ns;
                prev.time_quality = e.time_quality;
              }
              continue;
            }
          }
          if (f.evidence.size() >= kMaxEvidence) break;
          seen[key] = f.evidence.size();
          f.evidence.push_back(e);
          if (e.time_ns && (!f.earliest || *e.time_ns < *f.earliest)) f.earliest = e.time_ns;
        }
        if (d.kind == "symptom") observed.insert(d.id);
        drafts.push_back(std::move(f));
      }
    }
  }

  // Rank root causes, then attach symptoms.
  std::vector<Draft> causes, symptoms;
  for (auto& f : drafts) (f.d->kind == "root_cause" ? causes : symptoms).push_back(std::move(f));
  std::stable_sort(causes.begin(), causes.end(), better_cause);
  for (size_t i = 0; i < causes.size(); ++i) causes[i].rank = static_cast<int>(i + 1);
  std::map<std::string, int> cause_rank;  // explained_by id@host -> rank
  for (auto& s : symptoms) {
    for (const auto& c : causes) {
      if (c.host != s.host) continue;
      if (std::find(c.explains.begin(), c.explains.end(), s.d->id) == c.explains.end()) continue;
      s.explained_by = c.d->id;
      cause_rank[s.d->id + "@" + s.host] = c.rank;
      break;  // causes are in rank order
    }
  }
  std::stable_sort(symptoms.begin(), symptoms.end(), [&](const Draft& a, const Draft& b) {
    const bool ea = !a.explained_by.empty(), eb = !b.explained_by.empty();
    if (ea != eb) return !ea;  // unexplained symptoms first: nothing accounts for them
    if (ea) {
      const int ra = cause_rank[a.d->id + "@" + a.host], rb = cause_rank[b.d->id + "@" + b.host];
      if (ra != rb) return ra < rb;
    }
    if (a.earliest.has_value() != b.earliest.has_value()) return a.earliest.has_value();
    if (a.earliest && *a.earliest != *b.earliest) return *a.earliest < *b.earliest;
    if (a.host != b.host) return a.host < b.host;
    return a.d->id < b.d->id;
  });
  std::vector<Draft> ranked = std::move(causes);
  for (auto& s : symptoms) {
    s.rank = static_cast<int>(ranked.size() + 1);
    ranked.push_back(std::move(s));
  }

  const auto timeline = build_timeline(db, bundle_id, ranked);
  detail::exec(db, "SAVEPOINT faultline_correlate");
  try {
    write_rows(db, bundle_id, ranked, timeline, data->skipped);
  } catch (...) {
    detail::exec(db, "ROLLBACK TO faultline_correlate");
    detail::exec(db, "RELEASE faultline_correlate");
    throw;
  }
  detail::exec(db, "RELEASE faultline_correlate");

  Summary sum;
  for (const auto& f : ranked) {
    sum.any = true;
    if (f.d->kind == "root_cause")
      ++sum.root_causes;
    else {
      ++sum.symptoms;
      if (f.explained_by.empty()) ++sum.unexplained;
    }
    const Severity s = severity_of(f.d->severity);
    if (static_cast<int>(s) > static_cast<int>(sum.max_severity)) sum.max_severity = s;
  }
  return sum;
}

std::vector<std::string> lint(const std::vector<RuleFile>& rules,
                              const std::vector<std::string>& signature_ids) {
  const detail::RuleBook book = detail::load_rules(rules);
  std::vector<std::string> out = book.errors;
  const std::set<std::string> known(signature_ids.begin(), signature_ids.end());
  for (const auto& d : book.diagnoses) {
    std::vector<SigRef> refs;
    collect_sig_refs(d.conditions, refs);
    for (const auto& s : d.supporting) collect_sig_refs(s, refs);
    std::set<std::string> reported;
    for (const auto& r : refs)
      if (known.count(r.id) == 0 && reported.insert(r.id).second)
        out.push_back(d.file + ":" + std::to_string(r.line) + ": " + d.id +
                      ": unknown signature id '" + r.id + "'");
  }
  return out;
}

std::vector<DiagnosisInfo> list(const std::vector<RuleFile>& rules) {
  const detail::RuleBook book = detail::load_rules(rules);
  std::vector<DiagnosisInfo> out;
  for (const auto& d : book.diagnoses) out.push_back({d.id, d.kind, d.severity, d.title, d.file});
  return out;
}

}  // namespace faultline::correlate
