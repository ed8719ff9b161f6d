#include "data.hpp"

#include <zstd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "sql.hpp"

namespace faultline::correlate::detail {
namespace {

constexpr size_t kMaxMemberText = 64u << 20;   // bytes of one member's text we split into lines
constexpr size_t kMaxLine = 4000;              // characters kept of one evidence line
constexpr size_t kMaxHitsPerSignature = 5000;  // hits of one signature on one host the rules see
constexpr size_t kMaxHits = 200000;            // hits the rules see in all
constexpr size_t kMaxFactsPerName = 65536;     // facts of one name on one host the rules see
constexpr size_t kMaxFacts = 200000;           // facts the rules see in all
constexpr size_t kMaxSkipWarnings = 50;        // warnings naming what was skipped, then a total

std::map<std::string, std::string> parse_captures(const std::string& s) {
  std::map<std::string, std::string> out;
  if (s.empty()) return out;
  const auto j = nlohmann::json::parse(s, nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

std::string first_line(std::string s) {
  const size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  if (!s.empty() && s.back() == '\r') s.pop_back();
  if (s.size() > kMaxLine) s.resize(kMaxLine);
  return s;
}

// Rows the bounds left out, per (host, name): `total` counts every row of the bundle, `loaded` the
// ones read. One warning per (host, name) with something skipped, the largest first, at most
// kMaxSkipWarnings, then one with the rest.
void note_skipped(std::vector<std::string>& out,
                  const std::map<std::pair<std::string, std::string>, int64_t>& total,
                  const std::map<std::pair<std::string, std::string>, int64_t>& loaded,
                  const std::string& what, const std::string& bounds) {
  std::vector<std::tuple<int64_t, int64_t, std::string, std::string>>
      rows;  // skipped, total, host, name
  for (const auto& [key, n] : total) {
    const auto it = loaded.find(key);
    const int64_t got = it == loaded.end() ? 0 : it->second;
    if (n > got) rows.emplace_back(n - got, n, key.first, key.second);
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
    return std::tie(std::get<2>(a), std::get<3>(a)) < std::tie(std::get<2>(b), std::get<3>(b));
  });
  int64_t rest = 0, rest_groups = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& [skipped, n, host, name] = rows[i];
    if (i < kMaxSkipWarnings) {
      out.push_back("[correlate-limit] host " + host + ", " + what + " " + name + ": " +
                    std::to_string(skipped) + " of " + std::to_string(n) +
                    " not seen by the diagnoses (" + bounds + ")");
    } else {
      rest += skipped;
      ++rest_groups;
    }
  }
  if (rest > 0)
    out.push_back("[correlate-limit] " + std::to_string(rest) + " more " + what + " rows of " +
                  std::to_string(rest_groups) + " other (host, " + what +
                  ") pairs not seen by the diagnoses (" + bounds + ")");
}

}  // namespace

std::unique_ptr<BundleData> load_bundle(sqlite3* db, int64_t bundle_id,
                                        const std::vector<std::string>& signatures) {
  auto data = std::make_unique<BundleData>();
  data->bundle_id = bundle_id;
  if (!signatures.empty()) {
    // A json_each() list keeps the statement fixed whatever the number of signatures.
    // Bounded in the number of hits: the first kMaxHitsPerSignature of each (host, signature) in
    // time order, at most kMaxHits in all (a flood of one error line must not hold every hit in
    // memory: ~2 KB each).
    Stmt st(
        db,
        "SELECT hid, sig, caps, eid, host, path, kind, mid, line, t, tq, text, sev FROM ("
        "SELECT h.id AS hid, h.signature AS sig, h.captures AS caps, e.id AS eid, e.host AS host, "
        "COALESCE(m.path, '') AS path, COALESCE(m.kind, '') AS kind, e.member_id AS mid, "
        "e.line AS line, e.time_ns AS t, e.time_quality AS tq, e.text AS text, e.sev_rank AS sev, "
        "ROW_NUMBER() OVER (PARTITION BY e.host, h.signature ORDER BY e.time_ns IS NULL, "
        "e.time_ns, m.path, e.line, h.id) AS rn "
        "FROM hits h JOIN events e ON e.id = h.event_id "
        "LEFT JOIN members m ON m.id = e.member_id WHERE h.bundle_id = ? "
        "AND h.signature IN (SELECT value FROM json_each(?))) WHERE rn <= ? "
        "ORDER BY t IS NULL, t, path, line, sig, hid LIMIT ?");
    st.bind(1, bundle_id).bind(2, nlohmann::json(signatures).dump());
    st.bind(3, static_cast<int64_t>(kMaxHitsPerSignature)).bind(4, static_cast<int64_t>(kMaxHits));
    while (st.step()) {
      HitRow h;
      h.hit_id = st.i64(0);
      h.signature = st.str(1);
      h.captures = parse_captures(st.str(2));
      h.event_id = st.i64(3);
      h.host = st.str(4);
      h.member = st.str(5);
      h.kind = st.str(6);
      h.member_id = st.i64(7);
      h.line = st.i64(8);
      h.time_ns = st.opt_i64(9);
      h.time_quality = st.str(10);
      h.text = st.str(11);
      h.sev_rank = static_cast<int>(st.i64(12));
      data->hits.push_back(std::move(h));
    }
    // What the bounds left out, named per (host, signature) in the warnings of the bundle.
    std::map<std::pair<std::string, std::string>, int64_t> total, loaded;
    for (const auto& h : data->hits) ++loaded[{h.host, h.signature}];
    // Nothing can be missing unless a pair reached its bound or the total was reached.
    const bool full = data->hits.size() >= kMaxHits;
    if (full || std::any_of(loaded.begin(), loaded.end(), [](const auto& p) {
          return p.second >= static_cast<int64_t>(kMaxHitsPerSignature);
        })) {
      Stmt cnt(
          db,
          "SELECT e.host, h.signature, count(*) FROM hits h JOIN events e ON e.id = h.event_id "
          "WHERE h.bundle_id = ? AND h.signature IN (SELECT value FROM json_each(?)) "
          "GROUP BY e.host, h.signature HAVING count(*) > ?");
      cnt.bind(1, bundle_id).bind(2, nlohmann::json(signatures).dump());
      // Only the pairs that can have lost hits: above the per-pair bound, or any when the total
      // bound was reached.
      cnt.bind(3, full ? int64_t{0} : static_cast<int64_t>(kMaxHitsPerSignature));
      while (cnt.step()) total[{cnt.str(0), cnt.str(1)}] = cnt.i64(2);
    }
    note_skipped(data->skipped, total, loaded, "signature",
                 "at most " + std::to_string(kMaxHitsPerSignature) +
                     " hits per host and signature, the first in time order, and " +
                     std::to_string(kMaxHits) + " in all");
  }
  {
    // Bounded like the hits (one fact per line of a huge maps file must not all be held): the
    // first kMaxFactsPerName of each (host, name) in file/line order, at most kMaxFacts in all,
    // taken round by round (every pair's first fact before any pair's second), so that a flood of
    // one name never pushes out the few facts of another. The rows come in the order the
    // conditions see (host, name, file, line); the bounds are applied here while they stream: a
    // window function over every fact (ROW_NUMBER per host and name) cost ~4x the plain sorted
    // read on a node bundle's ~900 (host, name) pairs.
    Stmt st(db,
            "SELECT f.id, f.host, f.name, f.value, COALESCE(f.member_id, 0), f.line, "
            "COALESCE(m.path, '') AS path, COALESCE(m.kind, '') FROM facts f "
            "LEFT JOIN members m ON m.id = f.member_id WHERE f.bundle_id = ? "
            "ORDER BY f.host, f.name, path, f.line, f.value, f.id");
    st.bind(1, bundle_id);
    // (round, row): round is the row's place in its (host, name), from 1
    std::vector<std::pair<int64_t, FactRow>> kept;
    // Keeps the kMaxFacts rows of the earliest rounds (ties by host, name: one row each).
    const auto keep_first_rounds = [&kept] {
      const auto by_round = [](const auto& a, const auto& b) {
        return std::tie(a.first, a.second.host, a.second.name) <
               std::tie(b.first, b.second.host, b.second.name);
      };
      std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(kMaxFacts),
                       kept.end(), by_round);
      kept.resize(kMaxFacts);
    };
    bool cut = false;
    int64_t round = 0;
    std::string host, name;
    while (st.step()) {
      FactRow f;
      f.id = st.i64(0);
      f.host = st.str(1);
      f.name = st.str(2);
      if (f.host == host && f.name == name) {
        ++round;
      } else {
        host = f.host;
        name = f.name;
        round = 1;
      }
      if (round > static_cast<int64_t>(kMaxFactsPerName)) continue;
      f.value = st.str(3);
      f.member_id = st.i64(4);
      f.line = st.i64(5);
      f.member = st.str(6);
      f.kind = st.str(7);
      kept.emplace_back(round, std::move(f));
      if (kept.size() >= 2 * kMaxFacts) {  // memory stays within twice the bound
        keep_first_rounds();
        cut = true;
      }
    }
    if (kept.size() > kMaxFacts) {
      keep_first_rounds();
      cut = true;
    }
    data->facts.reserve(kept.size());
    for (auto& [r, f] : kept) data->facts.push_back(std::move(f));
    kept = {};
    // In host, name, file, line order again (what the conditions see) when the total bound
    // reordered them.
    if (cut)
      std::sort(data->facts.begin(), data->facts.end(), [](const FactRow& a, const FactRow& b) {
        return std::tie(a.host, a.name, a.member, a.line, a.value, a.id) <
               std::tie(b.host, b.name, b.member, b.line, b.value, b.id);
      });
    std::map<std::pair<std::string, std::string>, int64_t> total, loaded;
    for (const auto& f : data->facts) ++loaded[{f.host, f.name}];
    const bool full = data->facts.size() >= kMaxFacts;
    if (full || std::any_of(loaded.begin(), loaded.end(), [](const auto& p) {
          return p.second >= static_cast<int64_t>(kMaxFactsPerName);
        })) {
      Stmt cnt(db,
               "SELECT host, name, count(*) FROM facts WHERE bundle_id = ? GROUP BY host, name "
               "HAVING count(*) > ?");
      cnt.bind(1, bundle_id);
      cnt.bind(2, full ? int64_t{0} : static_cast<int64_t>(kMaxFactsPerName));
      while (cnt.step()) total[{cnt.str(0), cnt.str(1)}] = cnt.i64(2);
    }
    note_skipped(data->skipped, total, loaded, "fact",
                 "at most " + std::to_string(kMaxFactsPerName) +
                     " facts per host and name, the first in file and line order, and " +
                     std::to_string(kMaxFacts) + " in all");
  }
  std::set<std::string> names;
  {
    Stmt st(db, "SELECT name FROM hosts WHERE bundle_id = ?");
    st.bind(1, bundle_id);
    while (st.step()) names.insert(st.str(0));
  }
  for (const auto& h : data->hits) names.insert(h.host);
  for (const auto& f : data->facts) names.insert(f.host);
  std::map<std::string, size_t> index;
  for (const auto& n : names) {
    index[n] = data->hosts.size();
    data->hosts.push_back(HostData{});
    data->hosts.back().name = n;
  }
  for (const auto& h : data->hits) data->hosts[index[h.host]].hits[h.signature].push_back(&h);
  for (const auto& f : data->facts) data->hosts[index[f.host]].facts[f.name].push_back(&f);
  {
    Stmt st(
        db,
        "SELECT host, offset_ns, method FROM clocks WHERE bundle_id = ? AND clock = 'host_local' "
        "AND offset_ns IS NOT NULL ORDER BY id");
    st.bind(1, bundle_id);
    while (st.step()) {
      auto it = index.find(st.str(0));
      if (it == index.end()) continue;
      auto& h = data->hosts[it->second];
      if (h.local_offset_ns) continue;
      // an assumed zone (UTC, nothing in the bundle states one) pins nothing: times of the host
      // clock and of UTC sources stay unordered (time_order.cpp says so)
      if (st.str(2) == "assumed") continue;
      h.local_offset_ns = st.i64(1);
      h.offset_source = "clocks:" + st.str(2);
    }
  }
  {
    Stmt st(db,
            "SELECT host, offset_ns, method, detail FROM clocks WHERE bundle_id = ? AND clock = "
            "'host_local_span' ORDER BY id");
    st.bind(1, bundle_id);
    while (st.step()) {
      auto it = index.find(st.str(0));
      if (it == index.end()) continue;
      clock::ZoneSpan sp;
      const std::string d = st.str(3);
      if (d.rfind("from ", 0) == 0 && d.compare(5, 5, "start") != 0) {
        const size_t e = d.find(';');
        if (auto v = text::to_int<int64_t>(d.substr(5, e == std::string::npos ? e : e - 5)))
          sp.from_utc_ns = *v;
      }
      if (!st.null(1)) sp.offset_ns = st.i64(1);
      sp.method = st.str(2);
      auto& z = data->hosts[it->second].zones.zone_spans;
      if (z.size() < 64) z.push_back(std::move(sp));
    }
  }
  for (auto& h : data->hosts) {
    if (h.local_offset_ns) continue;
    auto it = h.facts.find("host.timezone");
    if (it == h.facts.end()) continue;
    for (const auto* f : it->second) {
      if (auto z = parse_zone(f->value)) {
        h.local_offset_ns = -static_cast<int64_t>(*z) * 1'000'000'000;
        h.offset_source = "host.timezone";
        break;
      }
    }
  }
  for (auto& h : data->hosts) {
    h.zones.host_local_offset_ns = h.local_offset_ns.value_or(0);
    h.zones.host_local_method = h.local_offset_ns ? "zone" : "assumed";
  }
  return data;
}

bool rendered_at_collection(std::string_view kind) {
  return kind == "journal" || kind == "dmesg_t" || kind == "boot_record" || kind == "uptime";
}

clock::LocalZone HostData::zone_at(int64_t local_naive_ns, std::string_view kind) const {
  return clock::zone_at(zones, local_naive_ns, rendered_at_collection(kind));
}

std::string LineSource::line(int64_t member_id, int64_t line) {
  if (member_id <= 0 || line <= 0) return {};
  auto it = members_.find(member_id);
  if (it == members_.end()) {
    std::vector<std::string> lines;
    Stmt st(db_, "SELECT encoding, data FROM member_text WHERE member_id = ?");
    st.bind(1, member_id);
    if (st.step()) {
      const std::string enc = st.str(0);
      std::string data = st.blob(1);
      if (enc == "zstd") {
        const unsigned long long n = ZSTD_getFrameContentSize(data.data(), data.size());
        std::string out;
        if (n != ZSTD_CONTENTSIZE_ERROR && n != ZSTD_CONTENTSIZE_UNKNOWN && n <= kMaxMemberText) {
          out.resize(static_cast<size_t>(n));
          const size_t r = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
          if (ZSTD_isError(r) != 0U)
            out.clear();
          else
            out.resize(r);
        }
        data = std::move(out);
      } else if (data.size() > kMaxMemberText) {
        data.resize(kMaxMemberText);
      }
      size_t start = 0;
      while (start < data.size()) {
        size_t nl = data.find('\n', start);
        if (nl == std::string::npos) nl = data.size();
        std::string l = data.substr(start, std::min(nl - start, kMaxLine));
        if (!l.empty() && l.back() == '\r') l.pop_back();
        lines.push_back(std::move(l));
        start = nl + 1;
      }
    }
    it = members_.emplace(member_id, std::move(lines)).first;
  }
  if (static_cast<size_t>(line) <= it->second.size())
    return it->second[static_cast<size_t>(line - 1)];
  Stmt st(db_, "SELECT text FROM events WHERE member_id = ? AND line = ? ORDER BY id LIMIT 1");
  st.bind(1, member_id).bind(2, line);
  if (st.step()) return first_line(st.str(0));
  return {};
}

std::optional<LineSource::EventTime> LineSource::event_time(int64_t member_id, int64_t line) {
  if (member_id <= 0 || line <= 0) return std::nullopt;
  Stmt st(db_,
          "SELECT time_ns, time_quality FROM events WHERE member_id = ? AND line = ? ORDER BY id "
          "LIMIT 1");
  st.bind(1, member_id).bind(2, line);
  if (!st.step()) return std::nullopt;
  return EventTime{st.opt_i64(0), st.str(1)};
}

}  // namespace faultline::correlate::detail
