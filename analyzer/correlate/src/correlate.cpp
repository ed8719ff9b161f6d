// run(): evaluate every diagnosis on every host of a bundle, rank the root causes, attach each
// symptom to the root cause that explains it, and write findings, evidence and the timeline.
#include "faultline/correlate/correlate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "data.hpp"
#include "eval.hpp"
#include "model.hpp"
#include "restarts.hpp"
#include "sql.hpp"
#include "template.hpp"

namespace faultline::correlate {
namespace {

using detail::Diagnosis;
using detail::Evidence;

// The labels of a diagnosis's key premises the host does not state ("" when all are known). A
// value that names no version (`?`, `unknown`, `-`, `N/A`) is no value.
std::string unknown_premises(const Diagnosis& d, const detail::HostData& host) {
  std::string out;
  for (const auto& p : d.premises) {
    bool known = false;
    std::string names;
    for (const auto& name : p.facts) {
      names += (names.empty() ? "" : ", ") + name;
      auto it = host.facts.find(name);
      if (it == host.facts.end()) continue;
      for (const auto* f : it->second) {
        std::string v = f->value;
        v.erase(std::remove_if(v.begin(), v.end(), [](unsigned char c) { return std::isspace(c); }),
                v.end());
        std::transform(v.begin(), v.end(), v.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (!v.empty() && v != "?" && v != "unknown" && v != "-" && v != "n/a" && v != "na")
          known = true;
      }
    }
    if (!known) out += (out.empty() ? "" : "; ") + p.label + " (" + names + ")";
  }
  return out;
}

struct FaultMeta {
  const FaultDef* def = nullptr;
  std::string code;
  std::string cls, component, role;  // the signature's, or the code table entry's
  std::string table, name;           // code table and symbolic name of the code (lookup)
  int64_t count = 0;
  std::string cause, suggestion;                     // with placeholders filled
  std::vector<std::string> caused_by, diagnosed_by;  // finding ids observed on the host
  nlohmann::json kb = nlohmann::json::array();       // native fault: KB codes on its lines
  std::vector<std::string> native;                   // KB fault: native faults sharing lines
};

struct Draft {
  const Diagnosis* d = nullptr;
  std::string host, summary, explained_by;
  double confidence = 0;
  std::vector<Evidence> evidence;
  std::vector<std::string> missing, explains;
  std::optional<int64_t> earliest;
  int rank = 0;
  std::optional<FaultMeta> fault;  // a fault-event finding (kind "fault")
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
  if (r == "fault") return 3;
  return 4;
}

std::vector<TRow> build_timeline(sqlite3* db, int64_t bundle_id, const std::vector<Draft>& drafts) {
  std::vector<TRow> rows;
  std::set<std::pair<int64_t, int64_t>> cited;  // member_id, line
  for (const auto& f : drafts) {
    const bool cause = f.d->kind == "root_cause";
    const bool fault = f.d->kind == "fault";
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
      r.role = fault   ? "fault"
               : cause ? (e.fact.rfind("host.", 0) == 0 ? "context" : "cause")
                       : "observation";
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
  // a host with no symptom line but fault events (a node whose own errors no diagnosis reads
  // as symptoms: the one that broke first in a job, while the others report its loss) fails
  // first at its earliest fault line
  std::map<std::string, size_t> first_fault;
  std::set<std::pair<int64_t, int64_t>> cause_lines;  // a cause's line keeps its role
  for (const auto& r : rows)
    if (r.role == "cause") cause_lines.insert({r.member_id, r.line});
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].role != "fault" || first.count(rows[i].host) != 0) continue;
    if (cause_lines.count({rows[i].member_id, rows[i].line}) != 0) continue;
    auto it = first_fault.find(rows[i].host);
    if (it == first_fault.end() || earlier(rows[i], rows[it->second]))
      first_fault[rows[i].host] = i;
  }
  first.insert(first_fault.begin(), first_fault.end());
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
  // A host without a first failure (no symptom diagnosis) but with fault events: the context is
  // taken around its earliest timed fault event (its role stays "fault").
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].role != "fault" || !rows[i].t) continue;
    auto it = first.find(rows[i].host);
    if (it == first.end())
      first[rows[i].host] = i;
    else if (rows[it->second].role == "fault" && *rows[i].t < *rows[it->second].t)
      it->second = i;
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

// A fault's suggestion, then those of the knowledge-base codes seen on its lines.
std::vector<std::string> fault_remediation(const FaultMeta& m) {
  std::vector<std::string> out{m.suggestion};
  for (const auto& k : m.kb)
    out.push_back(k.value("pack", std::string("ascend-fd")) + " " + k.value("code", std::string()) +
                  ": " + k.value("suggestion", std::string()));
  return out;
}

bool is_event_id(const std::string& c) {
  return c.size() > 2 && c[0] == '0' && (c[1] == 'x' || c[1] == 'X');
}

bool same_code(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Knowledge-base faults (FaultDef::kb) on the lines of native faults of the same host: the
// native finding names each KB code (fault.kb, its summary and remediation); a KB fault all of
// whose lines are native fault lines is no finding of its own, one with other lines too stays
// and names the native faults (fault.native).
void merge_kb_faults(sqlite3* db, int64_t bundle_id, std::vector<Draft>& fd) {
  std::set<std::string> kb, native;
  for (const auto& f : fd) (f.fault->def->kb.empty() ? native : kb).insert(f.fault->def->signature);
  if (kb.empty() || native.empty()) return;
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> ev;  // host, signature
  detail::Stmt st(db,
                  "SELECT e.host, h.signature, h.event_id FROM hits h JOIN events e ON e.id = "
                  "h.event_id WHERE h.bundle_id = ?");
  st.bind(1, bundle_id);
  while (st.step()) {
    std::string sig = st.str(1);
    if (kb.count(sig) == 0 && native.count(sig) == 0) continue;
    ev[{st.str(0), std::move(sig)}].insert(st.i64(2));
  }
  std::vector<bool> drop(fd.size(), false);
  for (size_t i = 0; i < fd.size(); ++i) {
    const FaultDef& kdef = *fd[i].fault->def;
    if (kdef.kb.empty()) continue;
    const auto& mine = ev[{fd[i].host, kdef.signature}];
    std::set<int64_t> covered;
    for (auto& g : fd) {
      const FaultDef& ndef = *g.fault->def;
      if (!ndef.kb.empty() || g.host != fd[i].host) continue;
      // a device event id (0x...) lands under the native finding of that id only: one line
      // (an npu-smi Error Code row, a DMS burst) holds several ids, each its own finding
      if (is_event_id(g.fault->code) && is_event_id(fd[i].fault->code) &&
          !same_code(g.fault->code, fd[i].fault->code))
        continue;
      const auto& theirs = ev[{g.host, ndef.signature}];
      int64_t shared = 0;
      for (const int64_t e : mine)
        if (theirs.count(e) != 0) {
          ++shared;
          covered.insert(e);
        }
      if (shared == 0) continue;
      g.fault->kb.push_back({{"pack", kdef.kb},
                             {"code", fd[i].fault->code},
                             {"signature", kdef.signature},
                             {"title", kdef.title},
                             {"cause", fd[i].fault->cause},
                             {"suggestion", fd[i].fault->suggestion},
                             {"count", shared}});
      g.summary += " " + kdef.kb + " " + fd[i].fault->code + ": " + kdef.title + ".";
      fd[i].fault->native.push_back("fault." + ndef.signature);
    }
    if (!mine.empty() && covered.size() == mine.size()) drop[i] = true;
  }
  std::vector<Draft> kept;
  for (size_t i = 0; i < fd.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(fd[i]));
  fd = std::move(kept);
}

void write_rows(sqlite3* db, int64_t bundle_id, const std::vector<Draft>& drafts,
                const std::vector<TRow>& timeline, const std::vector<std::string>& skipped) {
  // What the load's bounds left out, and the error lines set aside as history (before a host's
  // last boot), go with the bundle's warnings (the report lists them), as the correlator's own
  // rows: replaced on each run.
  detail::Stmt del_w(db,
                     "DELETE FROM warnings WHERE bundle_id = ? AND member = '' AND "
                     "(message LIKE '[correlate-limit]%' OR message LIKE '[history]%')");
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
                     "title, summary, rank, explained_by, explains, remediation, missing, "
                     "fault_class, fault_role, first_time_ns, fault) VALUES "
                     "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
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
        .bind(12, nlohmann::json(f.fault ? fault_remediation(*f.fault) : f.d->remediation).dump())
        .bind(13, nlohmann::json(f.missing).dump());
    if (f.fault) {
      const FaultDef& def = *f.fault->def;
      ins_f.bind(14, f.fault->cls).bind(15, f.fault->role).bind(16, f.earliest);
      nlohmann::json j = {
          {"signature", def.signature},
          {"class", f.fault->cls},
          {"component", f.fault->component},
          {"role", f.fault->role},
          {"code", f.fault->code.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.fault->code)},
          {"cause", f.fault->cause},
          {"suggestion", f.fault->suggestion},
          {"count", f.fault->count},
          {"causes", f.explains},
          {"caused_by", f.fault->caused_by},
          {"diagnosed_by", f.fault->diagnosed_by}};
      // additions of the knowledge-base pack (docs/faults.md): only when there is one
      if (!def.kb.empty()) j["pack"] = def.kb;
      if (!f.fault->table.empty()) j["table"] = f.fault->table;
      if (!f.fault->name.empty()) j["name"] = f.fault->name;
      if (!f.fault->kb.empty()) j["kb"] = f.fault->kb;
      if (!f.fault->native.empty()) j["native"] = f.fault->native;
      ins_f.bind(17, j.dump());
    } else {
      ins_f.bind_null(14).bind_null(15).bind(16, f.earliest).bind_null(17);
    }
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

constexpr int64_t kFaultEvidence = 5;  // evidence rows (earliest hits) per fault finding

std::string diag_severity(const std::string& s) {
  if (s == "critical" || s == "error" || s == "warning") return s;
  return "info";  // notice, debug: the finding scale has no lower step
}

// `{name}` placeholders of a fault text from the first hit's captures; unknown names print `?`,
// `{{`/`}}` are literal braces, braces around anything else are left alone.
std::string fill_captures(const std::string& t, const nlohmann::json& caps) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 2, "{{") == 0 || t.compare(i, 2, "}}") == 0) {
      out += t[i];
      ++i;
      continue;
    }
    if (t[i] == '{') {
      const size_t e = t.find('}', i);
      if (e != std::string::npos) {
        const std::string name = t.substr(i + 1, e - i - 1);
        const bool word = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
        if (word) {
          if (caps.is_object() && caps.contains(name) && caps[name].is_string())
            out += caps[name].get<std::string>();
          else
            out += '?';
          i = e;
          continue;
        }
      }
    }
    out += t[i];
  }
  return out;
}

// Events of the fault's hits on `host` that a later hit of a `cleared_by` signature recovered
// (same `clear_key` capture, when one is named): a switch alarm asserted, then de-asserted.
// Later = a later time when both lines are timed, or a later line of the same member.
constexpr int64_t kMaxClearRows = 100000;  // hits read per side; the rest are not cleared

std::set<int64_t> cleared_events(detail::StmtCache& sql, int64_t bundle_id, const FaultDef& def,
                                 const std::string& host) {
  std::set<int64_t> out;
  if (def.cleared_by.empty()) return out;
  struct H {
    int64_t event = 0, member = 0, line = 0;
    std::optional<int64_t> time;
    std::string key;
  };
  auto read = [&](const std::string& sig, std::vector<H>& v) {
    detail::Stmt& st = sql.get(
        "SELECT e.id, e.member_id, e.line, e.time_ns, h.captures FROM hits h JOIN "
        "events e ON e.id = h.event_id WHERE h.bundle_id = ? AND h.signature = ? AND "
        "e.host = ? LIMIT ?");
    st.bind(1, bundle_id).bind(2, sig).bind(3, host).bind(4, kMaxClearRows);
    while (st.step()) {
      H h;
      h.event = st.i64(0);
      h.member = st.i64(1);
      h.line = st.i64(2);
      h.time = st.opt_i64(3);
      if (!def.clear_key.empty()) {
        const auto caps = nlohmann::json::parse(st.str(4), nullptr, false);
        if (caps.is_object() && caps.contains(def.clear_key) && caps[def.clear_key].is_string())
          h.key = caps[def.clear_key].get<std::string>();
        else
          continue;  // a hit without the key neither clears nor can be cleared
      }
      v.push_back(std::move(h));
    }
  };
  std::vector<H> hits, clears;
  read(def.signature, hits);
  for (const auto& c : def.cleared_by) read(c, clears);
  // per key: the latest clearing time; per (key, member): the last clearing line (n log n, not
  // hits x clears: a hostile log may hold 100,000 of each)
  std::map<std::string, int64_t> last_time;
  std::map<std::pair<std::string, int64_t>, int64_t> last_line;
  for (const auto& c : clears) {
    if (c.time) {
      auto [it, fresh] = last_time.emplace(c.key, *c.time);
      if (!fresh && *c.time > it->second) it->second = *c.time;
    }
    auto [it, fresh] = last_line.emplace(std::make_pair(c.key, c.member), c.line);
    if (!fresh && c.line > it->second) it->second = c.line;
  }
  for (const auto& h : hits) {
    bool later = false;
    if (h.time)
      if (auto it = last_time.find(h.key); it != last_time.end()) later = it->second > *h.time;
    if (!later)
      if (auto it = last_line.find({h.key, h.member}); it != last_line.end())
        later = it->second > h.line;
    if (later) out.insert(h.event);
  }
  return out;
}

// One draft per host with hits of the fault's signature: the earliest hits are the evidence.
// One line is one fault event: a native fault yields a line to the native faults of a lower
// level that also hit it (docs/codes.md "Precedence"). Level 0: specific faults; 1: generic
// ones (a catch-all of a code family: `runtime result = N`, the EL/E3 buckets); 2: `generic:
// code` (a code of the code tables found by a generic wording); 3: `generic: last` (a Python
// exception line).
int fault_level(const FaultDef& def) {
  return def.last ? 3 : def.code_matcher ? 2 : def.generic ? 1 : 0;
}

std::string yield_condition(const FaultDef& def) {
  const int level = fault_level(def);
  if (level == 0) return {};
  return " AND NOT EXISTS (SELECT 1 FROM hits h2 JOIN temp.faultline_fault_levels s ON "
         "s.signature = h2.signature WHERE h2.event_id = h.event_id AND h2.bundle_id = "
         "h.bundle_id AND s.level < " +
         std::to_string(level) + ")";
}

// The captures a fault's external code is made of (`code_capture`, `{placeholders}` of `code`):
// hits with different codes are different fault events (npu-smi's `Error Code : A4025021
// 8C03A000`, two Python exception types on one host), one finding each. Only plain capture
// names (they are spliced into the JSON path of the grouping expression).
std::vector<std::string> code_keys(const FaultDef& def) {
  std::vector<std::string> names;
  if (!def.code_capture.empty()) names.push_back(def.code_capture);
  for (auto& n : detail::placeholders(def.code))
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  for (const auto& n : names)
    if (n.empty() || !std::all_of(n.begin(), n.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        }))
      return {};
  return names;
}

// SQL text of the code of a hit (captures joined by U+001F), "''" for a fixed code.
std::string code_key_sql(const std::vector<std::string>& names) {
  if (names.empty()) return "''";
  std::string sql;
  for (const auto& n : names) {
    if (!sql.empty()) sql += " || char(31) || ";
    sql += "COALESCE(json_extract(h.captures, '$.\"" + n + "\"'), '')";
  }
  return sql;
}

constexpr int64_t kMaxCodesPerHost = 32;  // distinct codes of one fault on one host (findings)

// restart_cond: restart_condition() of the bundle's marks (lines of an earlier run are no evidence)
// codes: the code tables of the rule set; diags: where a finding of a code table entry keeps its
// own title and severity (the signature's `d` otherwise)
// Draft b joins draft a (one fault event of one host): counts, evidence in time order (capped),
// the earliest time.
void merge_draft(Draft& a, Draft& b) {
  a.fault->count += b.fault->count;
  if (a.fault->table.empty()) {  // the table that named the code, from whichever draft had it
    a.fault->table = b.fault->table;
    a.fault->name = b.fault->name;
  }
  for (auto& e : b.evidence) a.evidence.push_back(std::move(e));
  std::stable_sort(a.evidence.begin(), a.evidence.end(), [](const Evidence& x, const Evidence& y) {
    if (x.time_ns.has_value() != y.time_ns.has_value()) return x.time_ns.has_value();
    if (x.time_ns && *x.time_ns != *y.time_ns) return *x.time_ns < *y.time_ns;
    return x.event_id < y.event_id;
  });
  if (static_cast<int64_t>(a.evidence.size()) > kFaultEvidence)
    a.evidence.resize(static_cast<size_t>(kFaultEvidence));
  if (b.earliest && (!a.earliest || *b.earliest < *a.earliest)) a.earliest = b.earliest;
  const int64_t n = a.fault->count;
  a.summary = a.fault->cause + " Seen " + std::to_string(n) + " time" + (n == 1 ? "" : "s") +
              " on " + a.host + ".";
}

// by_sig: the active fault signatures by id (a code table entry may name the code's own one)
void fault_drafts(detail::StmtCache& sql, int64_t bundle_id, const FaultDef& def,
                  const Diagnosis* d, const std::string& restart_cond, const CodeBook& codes,
                  const std::map<std::string, const FaultDef*>& by_sig,
                  std::deque<Diagnosis>& diags, std::vector<Draft>& out) {
  const std::string only = yield_condition(def) + restart_cond;
  const size_t first = out.size();
  const std::string key = code_key_sql(code_keys(def));
  detail::Stmt& cnt = sql.get("SELECT e.host, " + key +
                              " AS k, COUNT(*), MIN(e.id) FROM hits h JOIN events e ON e.id = "
                              "h.event_id WHERE h.bundle_id = ? AND h.signature = ?" +
                              only + " GROUP BY e.host, k ORDER BY e.host, MIN(e.id)");
  cnt.bind(1, bundle_id).bind(2, def.signature);
  struct Group {
    std::string host, key;
    int64_t n = 0;
    bool with_uncoded = false;  // also the host's hits whose line did not state the code
  };
  std::vector<Group> groups;
  std::map<std::string, int64_t> per_host;
  std::map<std::string, int64_t> uncoded;  // per host: hits without the code captures
  while (cnt.step()) {
    Group g{cnt.str(0), cnt.str(1), cnt.i64(2)};
    if (g.key.find_first_not_of('\x1f') == std::string::npos) {  // no code capture
      uncoded[g.host] = g.n;
      g.key.clear();
    }
    if (++per_host[g.host] > kMaxCodesPerHost) continue;
    groups.push_back(std::move(g));
  }
  // A line that does not state the code (`TsdOpen failed` beside `...(E39005)`) is no fault of
  // its own when the host has coded ones: it joins the host's first coded event.
  for (auto& g : groups) {
    auto it = uncoded.find(g.host);
    if (g.key.empty() || it == uncoded.end() || it->second < 0) continue;
    g.with_uncoded = true;
    g.n += it->second;
    it->second = -1;  // absorbed
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(),
                              [&](const Group& g) {
                                return g.key.empty() && uncoded.count(g.host) != 0 &&
                                       uncoded[g.host] < 0;
                              }),
               groups.end());
  std::map<std::string, std::set<int64_t>> cleared_of;
  for (auto& g : groups) {
    const std::string& host = g.host;
    const std::string& code = g.key;
    int64_t& n = g.n;
    // the event's hits: ?1 bundle, ?2 signature, ?3 host, ?4 code, ?5 limit
    std::string none = "REPLACE(";
    none.append(key).append(", char(31), '') = ''");
    std::string where = " WHERE h.bundle_id = ?1 AND h.signature = ?2 AND e.host = ?3 AND ";
    if (code.empty())
      where += none;
    else if (g.with_uncoded)
      where.append("(").append(key).append(" = ?4 OR ").append(none).append(")");
    else
      where.append(key).append(" = ?4");
    where += only;
    const auto bind = [&](detail::Stmt& q, int64_t limit) {
      q.bind(1, bundle_id).bind(2, def.signature).bind(3, host).bind(4, code).bind(5, limit);
    };
    auto cit = cleared_of.find(host);
    if (cit == cleared_of.end())
      cit = cleared_of.emplace(host, cleared_events(sql, bundle_id, def, host)).first;
    const std::set<int64_t>& cleared = cit->second;
    if (!cleared.empty()) {
      detail::Stmt& ids = sql.get("SELECT e.id FROM hits h JOIN events e ON e.id = h.event_id" +
                                  where + " LIMIT ?5");
      bind(ids, kMaxClearRows);
      while (ids.step())
        if (cleared.count(ids.i64(0)) != 0) --n;
    }
    if (n <= 0) continue;
    detail::Stmt& st = sql.get(
        "SELECT COALESCE(m.path, ''), COALESCE(m.kind, ''), e.member_id, e.line, "
        "e.time_ns, e.time_quality, e.text, h.captures, e.id, e.device FROM hits h "
        "JOIN events e ON e.id = h.event_id LEFT JOIN members m ON m.id = "
        "e.member_id" +
        where + " ORDER BY e.time_ns IS NULL, e.time_ns, m.path, e.line, e.id LIMIT ?5");
    bind(st, kFaultEvidence + static_cast<int64_t>(cleared.size()));
    Draft f;
    f.d = d;
    f.host = host;
    f.confidence = 1.0;
    FaultMeta m;
    m.def = &def;
    m.count = n;
    nlohmann::json caps;
    while (st.step()) {
      Evidence e;
      e.host = host;
      e.member = st.str(0);
      e.kind = st.str(1);
      e.member_id = st.i64(2);
      e.line = st.i64(3);
      e.time_ns = st.opt_i64(4);
      e.time_quality = st.str(5);
      e.text = st.str(6);
      if (e.text.size() > 4000) e.text.resize(4000);
      e.signature = def.signature;
      e.event_id = st.i64(8);
      if (cleared.count(e.event_id) != 0) continue;
      if (static_cast<int64_t>(f.evidence.size()) >= kFaultEvidence) break;
      if (f.evidence.empty()) {
        caps = nlohmann::json::parse(st.str(7), nullptr, false);
        // `{device}` / `{npu}` a line does not state: the device its parser attributed it to
        // (npu-smi's `Health Status : Alarm` under `npu-smi info -i 0 -c 0 -t health`)
        if (const auto dev = st.opt_i64(9); dev && *dev >= 0) {
          if (!caps.is_object()) caps = nlohmann::json::object();
          for (const char* k : {"device", "npu"})
            if (!caps.contains(k)) caps[k] = std::to_string(*dev);
        }
      }
      if (e.time_ns && (!f.earliest || *e.time_ns < *f.earliest)) f.earliest = e.time_ns;
      f.evidence.push_back(std::move(e));
    }
    if (f.evidence.empty()) continue;
    // a fixed code may hold `{capture}` placeholders (`0x{code}`,
    // `AISW_MindIE_ERRCODE_Common_{code}`)
    m.code = def.code.find('{') == std::string::npos ? def.code : fill_captures(def.code, caps);
    if (!def.code_capture.empty() && caps.is_object() && caps.contains(def.code_capture) &&
        caps[def.code_capture].is_string())
      m.code = caps[def.code_capture].get<std::string>();
    m.cause = fill_captures(def.cause, caps);
    m.suggestion = fill_captures(def.suggestion, caps);
    m.cls = def.cls;
    m.component = def.component;
    m.role = def.role;
    if (!def.lookup.empty()) {
      // the code tables name the code (docs/codes.md): for a `generic: code` matcher a code
      // neither in a table nor in a family's range is no fault; a specific or generic family
      // signature keeps its own texts then
      auto entry = codes.lookup(def.lookup, m.code);
      // a fixed code made of a capture (`AISW_MindIE_ERRCODE_Common_{code}`): the tables know
      // the capture, the code as the line printed it
      for (size_t at = def.code.find('{'); !entry && at != std::string::npos;
           at = def.code.find('{', at + 1)) {
        const size_t e = def.code.find('}', at);
        if (e == std::string::npos) break;
        const std::string name = def.code.substr(at + 1, e - at - 1);
        if (caps.is_object() && caps.contains(name) && caps[name].is_string())
          entry = codes.lookup(def.lookup, caps[name].get<std::string>());
      }
      if (!entry && def.code_matcher) continue;
      // one code, one finding (docs/codes.md): a code matcher or a family catch-all that finds
      // a code whose table entry names the code's own signature (507015 -> acl.error_507015) in
      // a wording that signature does not read reports it under that signature's finding
      const auto own_sig = entry && !entry->signature.empty() && (def.code_matcher || def.generic)
                               ? by_sig.find(entry->signature)
                               : by_sig.end();
      if (own_sig != by_sig.end() && own_sig->second != &def) {
        const FaultDef& sp = *own_sig->second;
        m.def = &sp;
        m.code = entry->code;
        m.cls = sp.cls;
        m.component = sp.component;
        m.role = sp.role;
        m.table = entry->family;
        m.name = entry->name;
        m.cause = fill_captures(sp.cause, caps);
        m.suggestion = fill_captures(sp.suggestion, caps);
        Diagnosis promoted;
        promoted.id = "fault." + sp.signature;
        promoted.kind = "fault";
        promoted.severity = diag_severity(sp.severity);
        promoted.title = sp.title;
        promoted.remediation = {m.suggestion};
        diags.push_back(std::move(promoted));
        f.d = &diags.back();
      } else if (entry) {
        // a family signature keeps the code as the line printed it (0x80cb8002); the code
        // matcher's findings carry the table's canonical code
        if (def.code_matcher) m.code = entry->code;
        m.cls = entry->cls;
        m.component = entry->component;
        m.role = entry->role;
        m.table = entry->family;
        m.name = entry->name;
        Diagnosis own = *d;
        own.title = entry->title;
        if (def.code_matcher) {  // the matcher has no texts of its own: the table's
          m.cause = entry->cause;
          if (!entry->name.empty() && entry->cause.find(entry->name) == std::string::npos)
            m.cause = entry->name + ": " + m.cause;
          m.suggestion = entry->suggestion;
          own.severity = diag_severity(entry->severity);
        } else if (entry->known) {  // a family signature: its line facts, then the table's
          m.cause += " " + entry->cause;
        }
        own.remediation = {m.suggestion};
        diags.push_back(std::move(own));
        f.d = &diags.back();
      }
    }
    f.summary = m.cause + " Seen " + std::to_string(n) + " time" + (n == 1 ? "" : "s") + " on " +
                host + ".";
    f.fault = std::move(m);
    out.push_back(std::move(f));
  }
  if (def.lookup.empty()) return;
  // a code printed by its name on one line and by its number on another is one fault event
  for (size_t i = first; i < out.size(); ++i)
    for (size_t j = i + 1; j < out.size();) {
      if (out[j].host != out[i].host || out[j].fault->code != out[i].fault->code) {
        ++j;
        continue;
      }
      merge_draft(out[i], out[j]);
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(j));
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

namespace {
// The parsed diagnoses and compatibility tables of the last rule set run() saw: a fleet runs
// the diagnoses once per bundle with the same rules, and parsing their YAML was ~10% of a
// fleet's CPU. Kept by the files' exact text (the only input of load_rules), shared by workers.
std::shared_ptr<const detail::RuleBook> rule_book(const std::vector<RuleFile>& rules,
                                                  std::shared_ptr<const CodeBook> codes) {
  static std::mutex mu;
  static std::vector<RuleFile> key;
  static std::shared_ptr<const detail::RuleBook> book;
  const auto same = [&] {
    if (key.size() != rules.size()) return false;
    for (size_t i = 0; i < rules.size(); ++i)
      if (key[i].path != rules[i].path || key[i].text != rules[i].text) return false;
    return true;
  };
  {
    const std::lock_guard<std::mutex> lock(mu);
    if (book && same()) return book;
  }
  auto fresh =
      std::make_shared<const detail::RuleBook>(detail::load_rules(rules, std::move(codes)));
  const std::lock_guard<std::mutex> lock(mu);
  key = rules;
  book = fresh;
  return fresh;
}

Summary run_book(sqlite3* db, int64_t bundle_id, const detail::RuleBook& book,
                 const std::vector<FaultDef>& faults, const std::vector<RestartDef>& restarts) {
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
  std::vector<std::string> not_concluded;  // key premise unknown: a warning, not a finding
  // host -> root cause that did not fire -> the premises looked for and not found (issue 33
  // item 3: an unexplained symptom names the causes that could explain it and what to collect)
  std::map<std::string, std::map<std::string, std::vector<std::string>>> unread;
  for (const auto& host : data->hosts) {
    detail::Evaluator ev(book, host, lines);
    std::set<std::string> observed;
    for (const char* pass : {"symptom", "root_cause"}) {
      for (const auto& d : book.diagnoses) {
        if (d.kind != pass) continue;
        const detail::Outcome o = ev.run(d);
        if (!o.fired && d.kind == "root_cause" && !o.missing.empty())
          unread[host.name][d.id] = o.missing;
        if (!o.fired) continue;
        if (const std::string gap = unknown_premises(d, host); !gap.empty()) {
          not_concluded.push_back(host.name + ": " + d.id + " (" + d.title +
                                  ") not concluded: its conditions hold, but " + gap +
                                  " was looked for and not found");
          continue;
        }
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
  {
    // "looked for, not found": with the bundle's warnings, as the correlator's own rows (replaced
    // on each run)
    detail::Stmt del(db,
                     "DELETE FROM warnings WHERE bundle_id = ? AND member = '' AND message LIKE "
                     "'[not concluded]%'");
    del.bind(1, bundle_id);
    del.step();
    detail::Stmt w(db, "INSERT INTO warnings(bundle_id, member, message) VALUES(?, '', ?)");
    for (const auto& m : not_concluded) {
      w.reset();
      w.bind(1, bundle_id).bind(2, std::string_view("[not concluded] " + m));
      w.step();
    }
  }
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
  for (auto& s : symptoms) {
    if (!s.explained_by.empty()) continue;
    const auto h = unread.find(s.host);
    if (h == unread.end()) continue;
    for (const auto& d : book.diagnoses) {
      if (d.kind != "root_cause" ||
          std::find(d.explains.begin(), d.explains.end(), s.d->id) == d.explains.end())
        continue;
      const auto u = h->second.find(d.id);
      if (u == h->second.end()) continue;
      std::string m = "cause " + d.id + " not established, looked for and not found: ";
      for (size_t i = 0; i < u->second.size() && i < 4; ++i) m += (i ? "; " : "") + u->second[i];
      s.missing.push_back(std::move(m));
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

  // Fault events: one finding per host and fault signature, after the diagnoses (they are the
  // breadth; diagnoses reason across facts). Causes first, then symptoms; a fault caused by
  // another observed on the same host is explained by it.
  std::deque<Diagnosis> fault_rules;
  std::vector<Draft> fdrafts;
  detail::exec(db,
               "CREATE TEMP TABLE IF NOT EXISTS faultline_fault_levels(signature TEXT PRIMARY "
               "KEY, level INTEGER NOT NULL)");
  detail::exec(db, "DELETE FROM temp.faultline_fault_levels");
  {
    detail::Stmt ins(db, "INSERT OR IGNORE INTO temp.faultline_fault_levels VALUES (?, ?)");
    for (const auto& def : faults) {
      if (!def.kb.empty()) continue;  // KB codes take no line from a native fault
      ins.bind(1, def.signature).bind(2, static_cast<int64_t>(fault_level(def)));
      ins.step();
      ins.reset();
    }
  }
  // restarts: the lines of an earlier run of the job are no fault events of this one
  std::vector<detail::Restart> marks = detail::find_restarts(db, bundle_id, restarts);
  // and the lines before a host's last boot are history, not this incident (issue 32 item 5)
  for (auto& m : detail::find_boot_marks(db, bundle_id)) marks.push_back(std::move(m));
  for (auto& n : detail::history_notes(db, bundle_id, marks)) data->skipped.push_back(std::move(n));
  detail::write_restarts(db, bundle_id, marks);
  detail::load_restart_table(db, marks);
  const std::string restart_cond = detail::restart_condition(marks);
  std::set<std::string> hit_sigs;  // a knowledge base adds a thousand fault signatures
  {
    detail::Stmt st(db, "SELECT DISTINCT signature FROM hits WHERE bundle_id = ?");
    st.bind(1, bundle_id);
    while (st.step()) hit_sigs.insert(st.str(0));
  }
  {
    // its statements are finalised at the end of this block: none stays open on the tables
    // written or dropped below
    detail::StmtCache fault_sql(db);
    std::map<std::string, const FaultDef*> by_sig;
    for (const auto& def : faults)
      if (def.kb.empty()) by_sig.emplace(def.signature, &def);
    for (const auto& def : faults) {
      if (hit_sigs.count(def.signature) == 0) continue;
      Diagnosis d;
      d.id = "fault." + def.signature;
      d.kind = "fault";
      d.severity = diag_severity(def.severity);
      d.title = def.title;
      d.remediation = {def.suggestion};
      fault_rules.push_back(std::move(d));
      const Diagnosis* base = &fault_rules.back();
      fault_drafts(fault_sql, bundle_id, def, base, restart_cond, *book.codes, by_sig, fault_rules,
                   fdrafts);
    }
    // a code reported under its own signature's finding by a code matcher or a family catch-all
    // and by that signature itself is one fault event of the host
    for (size_t i = 0; i < fdrafts.size(); ++i)
      for (size_t j = i + 1; j < fdrafts.size();) {
        if (fdrafts[j].host != fdrafts[i].host || fdrafts[j].d->id != fdrafts[i].d->id ||
            fdrafts[j].fault->code != fdrafts[i].fault->code) {
          ++j;
          continue;
        }
        merge_draft(fdrafts[i], fdrafts[j]);
        fdrafts.erase(fdrafts.begin() + static_cast<std::ptrdiff_t>(j));
      }
  }
  merge_kb_faults(db, bundle_id, fdrafts);
  {
    std::map<std::string, std::set<std::string>> on_host;  // host -> signatures with a fault
    for (const auto& f : fdrafts) on_host[f.host].insert(f.fault->def->signature);
    // diagnoses citing a hit of the fault's signature, or one of the fault's own lines
    std::map<std::pair<std::string, std::string>, std::set<std::string>> diag_cites;
    std::map<std::pair<int64_t, int64_t>, std::set<std::string>> diag_lines;
    for (const auto& r : ranked)
      for (const auto& e : r.evidence) {
        if (!e.signature.empty()) diag_cites[{r.host, e.signature}].insert(r.d->id);
        if (e.member_id > 0 && e.line > 0) diag_lines[{e.member_id, e.line}].insert(r.d->id);
      }
    for (auto& f : fdrafts) {
      const FaultDef& def = *f.fault->def;
      const auto& here = on_host[f.host];
      for (const auto& c : def.causes)
        if (here.count(c) != 0) f.explains.push_back("fault." + c);
      std::set<std::string> by;
      for (const auto& c : def.caused_by)
        if (here.count(c) != 0) by.insert("fault." + c);
      for (const auto& g : fdrafts)  // edges declared on the other side
        if (g.host == f.host && std::find(g.fault->def->causes.begin(), g.fault->def->causes.end(),
                                          def.signature) != g.fault->def->causes.end())
          by.insert(g.d->id);
      f.fault->caused_by.assign(by.begin(), by.end());
      std::sort(f.explains.begin(), f.explains.end());
      f.explains.erase(std::unique(f.explains.begin(), f.explains.end()), f.explains.end());
      std::set<std::string> diag;
      if (auto it = diag_cites.find({f.host, def.signature}); it != diag_cites.end())
        diag.insert(it->second.begin(), it->second.end());
      for (const auto& e : f.evidence)
        if (auto it = diag_lines.find({e.member_id, e.line}); it != diag_lines.end())
          diag.insert(it->second.begin(), it->second.end());
      f.fault->diagnosed_by.assign(diag.begin(), diag.end());
    }
    // caused_by edges also make the cause explain this fault
    for (auto& f : fdrafts)
      for (const auto& c : f.fault->caused_by)
        for (auto& g : fdrafts)
          if (g.host == f.host && g.d->id == c &&
              std::find(g.explains.begin(), g.explains.end(), f.d->id) == g.explains.end()) {
            g.explains.push_back(f.d->id);
            std::sort(g.explains.begin(), g.explains.end());
          }
    // a fault that a diagnosed root cause cites is that diagnosis' evidence: it leads
    std::set<std::string> root_ids;
    for (const auto& r : ranked)
      if (r.d->kind == "root_cause") root_ids.insert(r.d->id);
    auto cited_by_root = [&](const Draft& f) {
      return std::any_of(f.fault->diagnosed_by.begin(), f.fault->diagnosed_by.end(),
                         [&](const std::string& id) { return root_ids.count(id) != 0; });
    };
    auto key = [&](const Draft& f) {
      return std::make_tuple(!cited_by_root(f), f.fault->role != "cause",
                             f.earliest.has_value() ? 0 : 1, f.earliest.value_or(0));
    };
    std::stable_sort(fdrafts.begin(), fdrafts.end(), [&](const Draft& a, const Draft& b) {
      if (key(a) != key(b)) return key(a) < key(b);
      const auto sa = severity_of(a.d->severity), sb = severity_of(b.d->severity);
      if (sa != sb) return sa > sb;
      if (a.host != b.host) return a.host < b.host;
      return a.d->id < b.d->id;
    });
    // explained_by: the best-ranked observed fault that causes it (causes come first)
    for (auto& f : fdrafts)
      for (const auto& g : fdrafts)
        if (&g != &f && g.host == f.host &&
            std::find(f.fault->caused_by.begin(), f.fault->caused_by.end(), g.d->id) !=
                f.fault->caused_by.end()) {
          f.explained_by = g.d->id;
          break;
        }
    for (auto& f : fdrafts) {
      f.rank = static_cast<int>(ranked.size() + 1);
      ranked.push_back(std::move(f));
    }
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
    else if (f.d->kind == "fault")
      ++sum.faults;
    else {
      ++sum.symptoms;
      if (f.explained_by.empty()) ++sum.unexplained;
    }
    const Severity s = severity_of(f.d->severity);
    if (static_cast<int>(s) > static_cast<int>(sum.max_severity)) sum.max_severity = s;
  }
  return sum;
}

}  // namespace

Book Book::parse(const std::vector<RuleFile>& rules, std::shared_ptr<const CodeBook> codes) {
  Book b;
  b.impl_ = std::make_shared<const detail::RuleBook>(detail::load_rules(rules, std::move(codes)));
  return b;
}

const std::vector<std::string>& Book::errors() const {
  return impl_->errors;
}

Summary run(sqlite3* db, int64_t bundle_id, const std::vector<RuleFile>& rules,
            const std::vector<FaultDef>& faults, const std::vector<RestartDef>& restarts,
            std::shared_ptr<const CodeBook> codes) {
  return run_book(db, bundle_id, *rule_book(rules, std::move(codes)), faults, restarts);
}

Summary run(sqlite3* db, int64_t bundle_id, const Book& book, const std::vector<FaultDef>& faults,
            const std::vector<RestartDef>& restarts) {
  return run_book(db, bundle_id, *book.impl(), faults, restarts);
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
  // a code table entry's own signature (docs/codes.md "One code, one finding") must exist
  for (const auto& f : book.codes->families)
    for (const auto& e : f.codes)
      if (!e.signature.empty() && known.count(e.signature) == 0)
        out.push_back(f.file + ": " + f.name + ": code " + e.code + ": unknown signature id '" +
                      e.signature + "'");
  return out;
}

std::vector<DiagnosisInfo> list(const std::vector<RuleFile>& rules) {
  const detail::RuleBook book = detail::load_rules(rules);
  std::vector<DiagnosisInfo> out;
  for (const auto& d : book.diagnoses) out.push_back({d.id, d.kind, d.severity, d.title, d.file});
  return out;
}

}  // namespace faultline::correlate
