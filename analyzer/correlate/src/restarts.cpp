// Restarts: marks of a new run of the job and the lines of the earlier run (restarts.hpp).
#include "restarts.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "faultline/core/time.hpp"
#include "sql.hpp"

namespace faultline::correlate::detail {

namespace {
constexpr int64_t kMaxMarkRows = 100000;  // marking hits read per signature
constexpr size_t kMaxMarks = 1024;        // marks kept per bundle (hosts, then processes)
constexpr const char* kFact = "run.restart";
}  // namespace

std::vector<Restart> find_restarts(sqlite3* db, int64_t bundle_id,
                                   const std::vector<RestartDef>& defs) {
  // per (host, pid): the latest mark; per host: the latest of every process
  std::map<std::pair<std::string, int64_t>, Restart> by_process;
  std::map<std::string, Restart> by_host;
  for (const auto& def : defs) {
    Stmt st(db,
            "SELECT e.host, e.pid, e.time_ns, e.member_id, e.line FROM hits h JOIN events e ON "
            "e.id = h.event_id WHERE h.bundle_id = ? AND h.signature = ? AND e.time_ns IS NOT "
            "NULL ORDER BY e.host, e.pid, e.time_ns, e.id LIMIT ?");
    st.bind(1, bundle_id).bind(2, def.signature).bind(3, kMaxMarkRows);
    std::string host;
    std::optional<int64_t> pid;
    int64_t last_t = 0;
    int n = 0;
    bool first = true;
    while (st.step()) {
      const std::string h = st.str(0);
      const std::optional<int64_t> p = st.opt_i64(1);
      const int64_t t = st.i64(2);
      if (first || h != host || p != pid) {
        n = 0;  // a new process: count its marks afresh
      } else if (t == last_t) {
        continue;  // the same line again (a rotated or copied log file): no new mark
      }
      first = false;
      host = h;
      pid = p;
      last_t = t;
      if (++n < def.from) continue;  // the process's first start is no restart
      Restart r;
      r.host = h;
      if (def.process_scope) r.pid = p;
      r.mark_ns = st.i64(2);
      r.before_ns = r.mark_ns - def.margin_ns;
      r.signature = def.signature;
      r.kinds = def.kinds;
      r.member_id = st.i64(3);
      r.line = st.i64(4);
      if (def.process_scope) {
        if (!p) continue;  // a line without its process marks nothing of a process
        auto [it, fresh] = by_process.try_emplace({h, *p}, r);
        if (!fresh && r.before_ns >= it->second.before_ns) it->second = std::move(r);
      } else {
        auto [it, fresh] = by_host.try_emplace(h, r);
        if (!fresh && r.before_ns >= it->second.before_ns) it->second = std::move(r);
      }
    }
  }
  std::vector<Restart> out;
  std::map<std::string, int64_t> kept;  // host -> the host-wide mark kept
  // a host-wide restart after which nothing failed is no reason to set the earlier failure
  // aside (a process id reused by a later, healthy run looks like a restart too)
  for (auto& [h, r] : by_host) {
    if (out.size() >= kMaxMarks) break;
    std::string in;
    for (size_t i = 0; i < r.kinds.size(); ++i) in += i == 0 ? "?" : ", ?";
    Stmt later(db,
               "SELECT 1 FROM events e JOIN members m ON m.id = e.member_id WHERE e.bundle_id = ? "
               "AND e.host = ? AND e.sev_rank >= 4 AND e.time_ns > ? AND m.kind IN (" +
                   in + ") LIMIT 1");
    later.bind(1, bundle_id).bind(2, h).bind(3, r.mark_ns);
    for (size_t i = 0; i < r.kinds.size(); ++i) later.bind(static_cast<int>(4 + i), r.kinds[i]);
    if (later.step()) {
      kept[h] = r.before_ns;
      out.push_back(std::move(r));
    }
  }
  for (auto& [k, r] : by_process) {
    if (out.size() >= kMaxMarks) break;  // a hostile log naming 100,000 processes
    // a host-wide mark later than the process's makes it redundant
    auto it = kept.find(k.first);
    if (it != kept.end() && it->second >= r.before_ns) continue;
    out.push_back(std::move(r));
  }
  return out;
}

void write_restarts(sqlite3* db, int64_t bundle_id, const std::vector<Restart>& marks) {
  Stmt del(db, "DELETE FROM facts WHERE bundle_id = ? AND name = ?");
  del.bind(1, bundle_id).bind(2, std::string_view(kFact));
  del.step();
  Stmt ins(db,
           "INSERT INTO facts(bundle_id, host, name, value, member_id, line) VALUES (?, ?, ?, ?, "
           "?, ?)");
  for (const auto& r : marks) {
    nlohmann::json v = {{"before", format_utc(r.before_ns)},
                        {"before_ns", r.before_ns},
                        {"mark", format_utc(r.mark_ns)},
                        {"signature", r.signature},
                        {"kinds", r.kinds}};
    v["pid"] = r.pid ? nlohmann::json(*r.pid) : nlohmann::json(nullptr);
    ins.reset();
    ins.bind(1, bundle_id)
        .bind(2, r.host)
        .bind(3, std::string_view(kFact))
        .bind(4, v.dump())
        .bind(5, r.member_id > 0 ? std::optional<int64_t>(r.member_id) : std::nullopt)
        .bind(6, r.line);
    ins.step();
  }
}

std::vector<Restart> read_restarts(sqlite3* db, int64_t bundle_id) {
  std::vector<Restart> out;
  Stmt st(db,
          "SELECT host, value, COALESCE(member_id, 0), line FROM facts WHERE bundle_id = ? AND "
          "name = ? ORDER BY id");
  st.bind(1, bundle_id).bind(2, std::string_view(kFact));
  while (st.step()) {
    const auto v = nlohmann::json::parse(st.str(1), nullptr, false);
    if (!v.is_object() || !v.contains("before_ns") || !v["before_ns"].is_number_integer()) continue;
    Restart r;
    r.host = st.str(0);
    r.before_ns = v["before_ns"].get<int64_t>();
    if (v.contains("pid") && v["pid"].is_number_integer()) r.pid = v["pid"].get<int64_t>();
    if (v.contains("signature") && v["signature"].is_string())
      r.signature = v["signature"].get<std::string>();
    if (v.contains("kinds") && v["kinds"].is_array())
      for (const auto& k : v["kinds"])
        if (k.is_string()) r.kinds.push_back(k.get<std::string>());
    r.member_id = st.i64(2);
    r.line = st.i64(3);
    out.push_back(std::move(r));
  }
  return out;
}

bool before_restart(const std::vector<Restart>& marks, const std::string& host,
                    const std::string& kind, std::optional<int64_t> pid, std::optional<int64_t> t) {
  if (!t) return false;
  for (const auto& r : marks) {
    if (r.host != host || *t > r.before_ns) continue;
    if (r.pid && r.pid != pid) continue;
    if (std::find(r.kinds.begin(), r.kinds.end(), kind) != r.kinds.end()) return true;
  }
  return false;
}

void load_restart_table(sqlite3* db, const std::vector<Restart>& marks) {
  exec(db,
       "CREATE TEMP TABLE IF NOT EXISTS faultline_restarts(host TEXT NOT NULL, pid INTEGER, kind "
       "TEXT NOT NULL, before_ns INTEGER NOT NULL)");
  exec(db, "DELETE FROM temp.faultline_restarts");
  exec(db,
       "CREATE INDEX IF NOT EXISTS temp.faultline_restarts_host ON faultline_restarts(host, "
       "kind)");
  Stmt ins(db, "INSERT INTO temp.faultline_restarts VALUES (?, ?, ?, ?)");
  for (const auto& r : marks)
    for (const auto& k : r.kinds) {
      ins.reset();
      ins.bind(1, r.host).bind(2, r.pid).bind(3, k).bind(4, r.before_ns);
      ins.step();
    }
}

std::string restart_condition(const std::vector<Restart>& marks, bool earlier) {
  if (marks.empty()) return "";
  return std::string(earlier ? " AND EXISTS" : " AND NOT EXISTS") +
         " (SELECT 1 FROM temp.faultline_restarts rs JOIN members rm ON rm.id = "
         "e.member_id AND rm.kind = rs.kind WHERE rs.host = e.host AND (rs.pid IS NULL OR rs.pid "
         "= e.pid) AND e.time_ns <= rs.before_ns)";
}

}  // namespace faultline::correlate::detail
