#include "model.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "faultline/core/time.hpp"
#include "shared.hpp"

namespace faultline::report::detail {
namespace {

std::vector<std::string> json_strings(const std::string& s) {
  std::vector<std::string> out;
  const auto j = nlohmann::json::parse(s, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& e : j)
    if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

}  // namespace

void load_header(sqlite3* db, int64_t bundle_id, Report& r) {
  r.bundle_id = bundle_id;
  {
    Stmt st(db,
            "SELECT path, name, sha256, status, files, bytes, COALESCE(options, '') FROM bundles "
            "WHERE id = ?");
    st.bind(1, bundle_id);
    if (!st.step()) throw std::runtime_error("no bundle with id " + std::to_string(bundle_id));
    r.path = st.str(0);
    r.name = st.str(1);
    r.sha256 = st.str(2);
    r.status = st.str(3);
    r.files = st.i64(4);
    r.bytes = st.i64(5);
    const auto o = nlohmann::json::parse(st.str(6), nullptr, false);
    if (o.is_object() && o.contains("rules_digest") && o["rules_digest"].is_string())
      r.rules_digest = o["rules_digest"].get<std::string>();
    if (o.is_object() && o.contains("kb") && o["kb"].is_object()) {
      const auto& k = o["kb"];
      KbR x;
      x.name = k.value("name", std::string());
      x.file = k.value("file", std::string());
      x.how = k.value("how", std::string());
      x.sha256 = k.value("sha256", std::string());
      x.codes = k.value("codes", int64_t{0});
      x.skipped = k.value("skipped", int64_t{0});
      r.kb = std::move(x);
    }
  }
  {
    std::set<std::string> hosts;
    Stmt st(db,
            "SELECT name FROM hosts WHERE bundle_id = ?1 UNION SELECT host FROM members WHERE "
            "bundle_id = ?1 UNION SELECT host FROM findings WHERE bundle_id = ?1");
    st.bind(1, bundle_id);
    while (st.step())
      if (!st.str(0).empty()) hosts.insert(st.str(0));
    r.hosts.assign(hosts.begin(), hosts.end());
  }
  {
    Stmt st(db,
            "SELECT kind, COUNT(*) FROM members WHERE bundle_id = ? GROUP BY kind ORDER BY kind");
    st.bind(1, bundle_id);
    while (st.step()) {
      const std::string kind = st.str(0);
      if (kind == "text" || kind == "binary")
        r.unrecognised_kinds.emplace_back(kind, st.i64(1));
      else
        r.recognised += st.i64(1);
    }
  }
}

// Hosts whose host-local zone nothing in the bundle states or fits (clocks.method "assumed"):
// their year-inferred host-local times (syslog, journal short) are of unknown zone too.
std::set<std::string> zoneless_hosts(sqlite3* db, int64_t bundle_id) {
  std::set<std::string> out;
  Stmt st(db,
          "SELECT host FROM clocks WHERE bundle_id = ? AND clock = 'host_local' AND method = "
          "'assumed'");
  st.bind(1, bundle_id);
  while (st.step()) out.insert(st.str(0));
  return out;
}

void load_timeline(sqlite3* db, int64_t bundle_id, Report& r) {
  const auto zoneless = zoneless_hosts(db, bundle_id);
  {
    Stmt st(
        db,
        "SELECT t.time_ns, t.time_quality, t.host, COALESCE(t.member, ''), COALESCE(t.line, 0), "
        "t.text, COALESCE(t.signature, ''), COALESCE(t.finding, ''), t.role, t.ord, "
        "COALESCE((SELECT kind FROM members m WHERE m.bundle_id = t.bundle_id AND m.path = "
        "t.member "
        "ORDER BY m.id LIMIT 1), '') FROM timeline t WHERE t.bundle_id = ? ORDER BY t.ord, t.id");
    st.bind(1, bundle_id);
    while (st.step()) {
      TimelineR t;
      t.time_ns = st.opt(0);
      t.quality = st.str(1);
      t.host = st.str(2);
      t.file = st.str(3);
      t.line = st.i64(4);
      t.text = st.str(5);
      t.signature = st.str(6);
      t.finding = st.str(7);
      t.role = st.str(8);
      t.ord = static_cast<int>(st.i64(9));
      t.kind = st.str(10);
      t.nozone = t.quality == "year_inferred" && zoneless.count(t.host) > 0;
      r.timeline.push_back(std::move(t));
    }
  }
}

void load_error_events(sqlite3* db, int64_t bundle_id, Report& r) {
  const auto zoneless = zoneless_hosts(db, bundle_id);
  std::set<std::pair<std::string, int64_t>> in_timeline;
  {
    Stmt lv(db,
            "SELECT e.severity FROM events e JOIN members m ON m.id = e.member_id WHERE "
            "e.bundle_id = ? AND m.path = ? AND e.line = ? ORDER BY e.id LIMIT 1");
    for (auto& t : r.timeline) {
      if (t.file.empty()) continue;
      in_timeline.insert({t.file, t.line});
      lv.bind(1, bundle_id).text(2, t.file).bind(3, t.line);
      if (lv.step()) t.level = lv.str(0);
      lv.reset();
    }
  }
  int ord = 0;
  for (const auto& t : r.timeline) ord = std::max(ord, t.ord);
  Stmt st(db,
          "SELECT e.time_ns, e.time_quality, e.host, m.path, e.line, e.text, COALESCE((SELECT "
          "h.signature FROM hits h WHERE h.event_id = e.id ORDER BY h.id LIMIT 1), ''), "
          "e.severity, m.kind FROM events e JOIN members m ON m.id = e.member_id WHERE "
          "e.bundle_id = ? AND e.sev_rank >= 4 ORDER BY e.time_ns IS NULL, e.time_ns, m.path, "
          "e.line, e.id");
  st.bind(1, bundle_id);
  while (st.step()) {
    TimelineR t;
    t.file = st.str(3);
    t.line = st.i64(4);
    if (in_timeline.count({t.file, t.line})) continue;
    t.time_ns = st.opt(0);
    t.quality = st.str(1);
    t.host = st.str(2);
    t.text = st.str(5);
    t.signature = st.str(6);
    t.level = st.str(7);
    t.kind = st.str(8);
    t.role = "event";
    t.ord = ++ord;
    t.nozone = t.quality == "year_inferred" && zoneless.count(t.host) > 0;
    r.timeline.push_back(std::move(t));
  }
}

// docs/report.md "Completeness": a diagnosis whose premises include a line of a file that was cut
// (at a size limit, or damaged) may have missed what the file logged later: its confidence is
// lowered by a fifth and it says which file was cut where. The database keeps the correlator's
// confidence; every report shows this one.
void lower_cut_premises(Report& r) {
  std::map<std::string, int64_t> cut;  // path -> lines read
  for (const auto& i : r.issues)
    if (i.truncated) cut[i.path] = i.lines;
  if (cut.empty()) return;
  for (auto& f : r.findings) {
    if (f.kind == "fault") continue;  // a fault line seen is seen; diagnoses conclude from lines
    std::set<std::string> files;
    for (const auto& e : f.evidence)
      if (cut.count(e.file)) files.insert(e.file);
    if (files.empty()) continue;
    f.confidence = static_cast<double>(static_cast<int64_t>(f.confidence * 0.8 * 100 + 0.5)) / 100;
    for (const auto& p : files)
      f.missing.push_back("uncertain: a premise comes from " + p + ", cut at line " +
                          std::to_string(cut[p]) +
                          ": what it logged after that line is missing (confidence lowered by a "
                          "fifth)");
  }
}

Report load(sqlite3* db, int64_t bundle_id, bool unknown) {
  Report r;
  load_header(db, bundle_id, r);
  {
    Stmt st(db,
            "SELECT id, finding, kind, severity, confidence, host, title, summary, rank, "
            "COALESCE(explained_by, ''), explains, remediation, missing, fault, first_time_ns "
            "FROM findings WHERE bundle_id = ? ORDER BY rank, host, finding, id");
    st.bind(1, bundle_id);
    // the time quality of an evidence line: that of its event; members looked up once per path
    Stmt qm(db, "SELECT id FROM members WHERE bundle_id = ? AND path = ? ORDER BY id LIMIT 1");
    Stmt qe(db,
            "SELECT time_quality, sev_rank FROM events WHERE member_id = ? AND line = ? LIMIT 1");
    const auto zoneless = zoneless_hosts(db, bundle_id);
    std::map<std::string, int64_t> member_ids;
    // also the line's level (EvidenceR::sev_rank, for --min-severity)
    auto quality_of = [&](EvidenceR& ev) -> std::string {
      auto it = member_ids.find(ev.file);
      if (it == member_ids.end()) {
        qm.bind(1, bundle_id);
        qm.text(2, ev.file);
        it = member_ids.emplace(ev.file, qm.step() ? qm.i64(0) : -1).first;
        qm.reset();
      }
      if (it->second < 0) return {};
      qe.bind(1, it->second).bind(2, ev.line);
      std::string out;
      if (qe.step()) {
        out = qe.str(0);
        ev.sev_rank = static_cast<int>(qe.i64(1));
      }
      qe.reset();
      return out;
    };
    while (st.step()) {
      FindingR f;
      const int64_t fid = st.i64(0);
      f.id = st.str(1);
      f.kind = st.str(2);
      f.severity = st.str(3);
      f.confidence = st.dbl(4);
      f.host = st.str(5);
      f.title = st.str(6);
      f.summary = st.str(7);
      f.rank = static_cast<int>(st.i64(8));
      f.explained_by = st.str(9);
      f.explains = json_strings(st.str(10));
      f.remediation = json_strings(st.str(11));
      f.missing = json_strings(st.str(12));
      f.first_time_ns = st.opt(14);
      if (f.kind == "fault") {
        const auto j = nlohmann::json::parse(st.str(13), nullptr, false);
        FaultR x;
        if (j.is_object()) {
          auto s = [&](const char* k) {
            return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
          };
          auto v = [&](const char* k) {
            std::vector<std::string> out;
            if (j.contains(k) && j[k].is_array())
              for (const auto& e : j[k])
                if (e.is_string()) out.push_back(e.get<std::string>());
            return out;
          };
          x.signature = s("signature");
          x.cls = s("class");
          x.component = s("component");
          x.role = s("role");
          x.code = s("code");
          x.cause = s("cause");
          x.suggestion = s("suggestion");
          x.count =
              j.contains("count") && j["count"].is_number_integer() ? j["count"].get<int64_t>() : 0;
          x.causes = v("causes");
          x.caused_by = v("caused_by");
          x.diagnosed_by = v("diagnosed_by");
          x.pack = s("pack");
          x.table = s("table");
          x.name = s("name");
          x.native = v("native");
          if (j.contains("kb") && j["kb"].is_array())
            for (const auto& k : j["kb"]) {
              if (!k.is_object()) continue;
              KbCodeR c;
              c.pack = k.value("pack", std::string());
              c.code = k.value("code", std::string());
              c.signature = k.value("signature", std::string());
              c.title = k.value("title", std::string());
              c.cause = k.value("cause", std::string());
              c.suggestion = k.value("suggestion", std::string());
              c.count = k.contains("count") && k["count"].is_number_integer()
                            ? k["count"].get<int64_t>()
                            : 0;
              x.kb.push_back(std::move(c));
            }
        }
        f.fault = std::move(x);
      }
      Stmt e(
          db,
          "SELECT COALESCE(member, ''), COALESCE(line, 0), time_ns, text, COALESCE(signature, ''), "
          "COALESCE(fact, '') FROM finding_evidence WHERE finding_id = ? ORDER BY ord, id");
      e.bind(1, fid);
      while (e.step())
        f.evidence.push_back({e.str(0), e.str(3), e.str(4), e.str(5), e.i64(1), e.opt(2), ""});
      // the time quality of each evidence line: that of its event (docs/clock.md)
      for (auto& ev : f.evidence) {
        if (ev.file.empty()) continue;
        std::string q = quality_of(ev);  // also sets the line's level
        if (!ev.time_ns) continue;
        ev.quality = std::move(q);
        ev.nozone = ev.quality == "year_inferred" && zoneless.count(f.host) > 0;
        if (f.first_time_ns && *ev.time_ns == *f.first_time_ns && f.first_quality.empty())
          f.first_quality = ev.shown_quality();
      }
      r.findings.push_back(std::move(f));
    }
  }
  load_timeline(db, bundle_id, r);
  {
    Stmt st(db,
            "SELECT f.host, f.name, f.value, COALESCE(m.path, ''), f.line FROM facts f LEFT JOIN "
            "members m ON m.id = f.member_id WHERE f.bundle_id = ? "
            "ORDER BY f.host, f.name, f.value, m.path, f.line, f.id");
    st.bind(1, bundle_id);
    while (st.step()) r.facts.push_back({st.str(0), st.str(1), st.str(2), st.str(3), st.i64(4)});
  }
  {
    Stmt st(
        db,
        "SELECT member, message FROM warnings WHERE bundle_id = ? ORDER BY member, message, id");
    st.bind(1, bundle_id);
    while (st.step()) r.warnings.push_back({st.str(0), st.str(1)});
  }
  {
    Stmt st(db,
            "SELECT path, kind, truncated, long_lines, malformed_lines, lines FROM members WHERE "
            "bundle_id = ? "
            "AND (truncated != 0 OR long_lines > 0 OR malformed_lines > 0) ORDER BY path, id");
    st.bind(1, bundle_id);
    while (st.step())
      r.issues.push_back({st.str(0), st.str(1), st.i64(2) != 0, st.i64(3), st.i64(4), st.i64(5)});
  }
  {
    // Per signature: hits on error/critical events not cited by any finding of the bundle.
    Stmt st(
        db,
        "WITH cited AS (SELECT DISTINCT fe.member, fe.line FROM finding_evidence fe JOIN findings "
        "f "
        "ON f.id = fe.finding_id WHERE f.bundle_id = ?1), "
        "h AS (SELECT h.signature, e.host, COALESCE(m.path, '') AS path, e.line, e.time_ns, "
        "e.time_quality "
        "FROM hits h JOIN events e ON e.id = h.event_id LEFT JOIN members m ON m.id = e.member_id "
        "WHERE h.bundle_id = ?1 AND e.sev_rank >= 4 AND NOT EXISTS (SELECT 1 FROM cited c WHERE "
        "c.member = m.path AND c.line = e.line)) "
        "SELECT signature, COUNT(*), (SELECT host || char(1) || path || char(1) || line || char(1) "
        "|| "
        "COALESCE(time_ns, '') || char(1) || time_quality FROM h h2 WHERE h2.signature = "
        "h.signature ORDER BY time_ns IS "
        "NULL, "
        "time_ns, host, path, line LIMIT 1) FROM h GROUP BY signature ORDER BY COUNT(*) DESC, "
        "signature");
    st.bind(1, bundle_id);
    while (st.step()) {
      Unclassified u;
      u.signature = st.str(0);
      u.count = st.i64(1);
      const std::string first = st.str(2);
      std::vector<std::string> parts;
      size_t a = 0;
      for (size_t b = first.find('\x01');; b = first.find('\x01', a)) {
        parts.push_back(first.substr(a, b == std::string::npos ? std::string::npos : b - a));
        if (b == std::string::npos) break;
        a = b + 1;
      }
      if (parts.size() == 5) {
        u.quality = parts[4];
        u.host = parts[0];
        u.file = parts[1];
        u.line = std::strtoll(parts[2].c_str(), nullptr, 10);
        if (!parts[3].empty()) u.time_ns = std::strtoll(parts[3].c_str(), nullptr, 10);
      }
      r.unclassified.push_back(std::move(u));
    }
  }
  if (unknown) r.unknown = unrecognised_errors(db, bundle_id);
  lower_cut_premises(r);
  apply_filter(r);  // docs/suppress.md: only when a filter is active
  return r;
}

std::string fmt_time(const std::optional<int64_t>& ns) {
  return ns ? format_utc(*ns) : std::string();
}

std::string fmt_conf(double c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", c);
  return buf;
}

std::string loc(const std::string& file, int64_t line) {
  if (file.empty()) return "(derived)";
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

namespace {
// Warning tags (docs/ingest.md) that mean part of the bundle was not read.
bool load_loss(const std::string& m) {
  static const char* const kTags[] = {"[damaged]",           "[depth]",   "[member-size]",
                                      "[member-unreadable]", "[members]", "[ratio]",
                                      "[total-size]",        "[io]",      "[open-failed]"};
  for (const char* t : kTags)
    if (m.rfind(t, 0) == 0) return true;
  return false;
}
std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
}  // namespace

std::string completeness_note(const Report& r) {
  std::vector<std::string> parts;
  if (r.status != "complete")
    parts.push_back("bundle load " + r.status + ": the database may be incomplete");
  size_t lost = 0;
  std::string first_loss;
  for (const auto& w : r.warnings)
    if (load_loss(w.message)) {
      if (lost++ == 0) {
        first_loss = w.message.substr(w.message.find(']') + 1);
        while (!first_loss.empty() && first_loss.front() == ' ') first_loss.erase(0, 1);
        first_loss = cut_line(first_loss, 220);
      }
    }
  if (lost > 0)
    parts.push_back(plural(lost, "part of the bundle not read", "parts of the bundle not read") +
                    " (" + first_loss + ")");
  size_t cut = 0;
  std::string first_cut;
  for (const auto& i : r.issues)
    if (i.truncated && cut++ == 0)
      first_cut = i.path + " (" + i.kind + ") cut at line " + std::to_string(i.lines) +
                  ": what it logged after that line is missing";
  if (cut > 0)
    parts.push_back(plural(cut, "file cut", "files cut") + ": " + first_cut +
                    (cut > 1 ? "; and " + std::to_string(cut - 1) + " more" : ""));
  if (parts.empty()) return {};
  std::string out = "INCOMPLETE LOAD: ";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out + ". Findings may be missing or less certain than shown.";
}

std::string verdict(const Report& r) {
  std::vector<const FindingR*> causes, unexplained, faults;
  size_t symptoms = 0;
  for (const auto& f : r.findings) {
    if (f.kind == "root_cause") {
      causes.push_back(&f);
    } else if (f.kind == "fault") {
      faults.push_back(&f);  // rank order: fault causes first, then earliest
    } else {
      ++symptoms;
      if (f.explained_by.empty()) unexplained.push_back(&f);
    }
  }
  std::string v;
  if (!causes.empty()) {
    const auto& top = *causes.front();
    v = top.host + ": " + top.title + " (" + top.id + ", confidence " + fmt_conf(top.confidence) +
        ")";
    if (!top.explains.empty())
      v += "; explains " + std::to_string(top.explains.size()) + " observed symptom" +
           (top.explains.size() == 1 ? "" : "s");
    // fault events are counted against it, never named as a second answer (issue 35)
    if (!faults.empty()) {
      // cited by the root cause itself or by a symptom it explains (the seed's SVM and HCCL
      // fault events are cited by svm.map_failed and hccl.comm_init_failed)
      auto explained = [&](const std::string& id) {
        return id == top.id ||
               std::find(top.explains.begin(), top.explains.end(), id) != top.explains.end();
      };
      size_t cited = 0;
      for (const auto* f : faults)
        if (f->fault && f->host == top.host &&
            std::any_of(f->fault->diagnosed_by.begin(), f->fault->diagnosed_by.end(), explained))
          ++cited;
      v += "; " + std::to_string(cited) + " of " +
           plural(faults.size(), "fault event", "fault events") + " explained by it";
    }
    if (causes.size() > 1)
      v += "; " + std::to_string(causes.size() - 1) + " more root cause" +
           (causes.size() == 2 ? "" : "s") + " below";
    if (!unexplained.empty())
      v += "; " + std::to_string(unexplained.size()) + " symptom" +
           (unexplained.size() == 1 ? "" : "s") + " unexplained";
    v += ".";
  } else if (symptoms > 0) {
    v = "No root cause identified; " + std::to_string(unexplained.size()) + " unexplained symptom" +
        (unexplained.size() == 1 ? "" : "s") + ":";
    for (size_t i = 0; i < unexplained.size(); ++i)
      v += (i == 0 ? " " : ", ") + unexplained[i]->id + " on " + unexplained[i]->host;
    v += ".";
    if (!faults.empty()) v += " " + plural(faults.size(), "fault event", "fault events") + ".";
  } else if (!faults.empty()) {
    // nothing diagnosed: the first fault event is the lead
    const FindingR& top = *faults.front();
    v = "No diagnosed root cause; " + plural(faults.size(), "fault event", "fault events") +
        "; first: " + top.host + ": " + top.title + " (" + top.id +
        (top.fault && !top.fault->cls.empty() ? ", " + top.fault->cls : "") +
        (top.first_time_ns ? ", " + fmt_time_q(top.first_time_ns, top.first_quality) : "") +
        "); see Fault events.";
  } else if (!r.unclassified.empty()) {
    int64_t n = 0;
    for (const auto& u : r.unclassified) n += u.count;
    v = "No findings (no root cause, no catalog symptom). " + std::to_string(n) +
        " error-level log line" + (n == 1 ? " matches a signature" : "s match signatures") +
        " that no diagnosis covers (most: " + r.unclassified.front().signature +
        "); see Other error signatures.";
  } else if (r.recognised == 0 && r.files > 0) {
    v = nothing_recognised(r) + ": no Ascend or host log to analyse (this is not a healthy node).";
  } else {
    v = "No findings: no root cause, no symptom and no error-level signature hit in this bundle.";
  }
  const std::string inc = completeness_note(r);
  return inc.empty() ? v : inc + " " + v;
}

std::string nothing_recognised(const Report& r) {
  std::string kinds;
  for (const auto& [k, n] : r.unrecognised_kinds)
    kinds += (kinds.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
  return "nothing recognised: " + std::to_string(r.files) + " file" + (r.files == 1 ? "" : "s") +
         " of kinds " + (kinds.empty() ? "unknown" : kinds);
}

const std::vector<std::string>& version_fact_names() {
  static const std::vector<std::string> names = {"driver.version.loaded",
                                                 "driver.version.installed",
                                                 "firmware.version",
                                                 "firmware.package_version",
                                                 "cann.version.installed",
                                                 "cann.version.loaded",
                                                 "cann.latest_target",
                                                 "torch.version",
                                                 "torch_npu.version",
                                                 "torchvision.version",
                                                 "kernel.release",
                                                 "host.timezone",
                                                 "npu.count"};
  return names;
}

std::vector<EvidenceGroup> group_evidence(const FindingR& f, size_t keep) {
  // key: the signature, or the fact and its value; evidence keeps its stored (ranked) order
  std::vector<std::string> order;
  std::map<std::string, EvidenceGroup> groups;
  std::map<std::string, std::set<std::string>> files;
  for (const auto& e : f.evidence) {
    std::string key = !e.signature.empty() ? "s:" + e.signature
                      : !e.fact.empty()    ? "f:" + e.fact + "=" + e.text
                                           : "t:" + e.text;
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) order.push_back(key);
    if (it->second.shown.size() < keep) {
      it->second.shown.push_back(&e);
    } else {
      ++it->second.more;
      files[key].insert(e.file);
    }
  }
  std::vector<EvidenceGroup> out;
  for (const auto& k : order) {
    auto g = groups[k];
    g.more_files.assign(files[k].begin(), files[k].end());
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace faultline::report::detail
