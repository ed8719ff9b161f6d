// Unrecognised errors (docs/faults.md): error-level lines no signature recognises, mined into
// templates whose variable parts are masked, counted per host and time range, ranked by how
// early and how concentrated they are; `faultline rules suggest` drafts a signature from one.
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "faultline/core/mask.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/report/report.hpp"
#include "model.hpp"

namespace faultline::report {

namespace {

bool is_alpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}

constexpr int64_t kMaxEvents = 200000;  // error-level lines without a hit read per bundle

}  // namespace

std::string mask_line(std::string_view line) {
  return text::mask_line(line);
}

namespace {

// Where a line comes in the templates' order: timed lines by time, then untimed ones; then by
// file and line (the event id settles lines of two members of one path).
struct LineKey {
  bool untimed = true;
  int64_t time = 0;
  std::string path;
  int64_t line = 0;
  int64_t id = 0;
  bool operator<(const LineKey& o) const {
    return std::tie(untimed, time, path, line, id) <
           std::tie(o.untimed, o.time, o.path, o.line, o.id);
  }
};

struct Mined {
  UnknownTemplate u;
  LineKey first;                                             // of the first line: its kind
  std::vector<std::pair<LineKey, UnknownExample>> earliest;  // the first 3 lines, in order
};

// Reads the bundle's error-level lines without a hit into templates. `ordered`: in the
// templates' order with SQL's ORDER BY (needed when there are more than `limit` lines: the
// earliest are kept); otherwise in table order, each template keeping its earliest lines itself
// (SQLite's sorter copied every line's text once more: ~5% of `analyze` on plog-heavy data).
// Returns false when unordered reading found more than `limit` lines.
bool mine(sqlite3* db, int64_t bundle_id, bool ordered, int64_t limit,
          std::map<std::string, Mined>& by) {
  const std::string sql =
      std::string(
          "SELECT e.host, e.time_ns, e.text, COALESCE(m.path, ''), "
          "COALESCE(m.kind, ''), e.line, e.id, e.time_quality FROM events e LEFT JOIN "
          "members m ON m.id = e.member_id WHERE e.bundle_id = ? AND "
          "e.sev_rank >= 4 AND NOT EXISTS (SELECT 1 FROM hits h WHERE "
          "h.event_id = e.id)") +
      (ordered ? " ORDER BY e.time_ns IS NULL, e.time_ns, m.path, e.line, e.id" : "") + " LIMIT ?";
  detail::Stmt st(db, sql.c_str());
  st.bind(1, bundle_id).bind(2, limit + 1);
  int64_t n = 0;
  while (st.step()) {
    if (++n > limit) {
      if (!ordered) return false;
      break;
    }
    std::string text = st.str(2);
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string t = mask_line(text);
    if (t.empty() || std::none_of(t.begin(), t.end(), is_alpha)) continue;
    LineKey key;
    const auto tns = st.opt(1);
    key.untimed = !tns.has_value();
    key.time = tns.value_or(0);
    key.path = st.str(3);
    key.line = st.i64(5);
    key.id = st.i64(6);
    Mined& mi = by[t];
    UnknownTemplate& u = mi.u;
    if (u.count == 0 || key < mi.first) {
      mi.first = key;
      u.kind = st.str(4);
    }
    if (u.count == 0) {
      u.text = t;
      u.id = "u" + sha256_hex(t).substr(0, 10);
    }
    ++u.count;
    const std::string host = st.str(0);
    if (std::find(u.hosts.begin(), u.hosts.end(), host) == u.hosts.end()) u.hosts.push_back(host);
    if (tns) {
      if (!u.first_ns || *tns < *u.first_ns) {
        u.first_ns = tns;
        u.first_quality = st.str(7);
      }
      if (!u.last_ns || *tns > *u.last_ns) {
        u.last_ns = tns;
        u.last_quality = st.str(7);
      }
    }
    auto& ex = mi.earliest;
    if (ex.size() < 3 || key < ex.back().first) {
      if (text.size() > 4000) text.resize(4000);
      UnknownExample e{key.path, key.line, host, std::move(text)};
      const auto at =
          std::upper_bound(ex.begin(), ex.end(), key,
                           [](const LineKey& k, const std::pair<LineKey, UnknownExample>& x) {
                             return k < x.first;
                           });
      ex.insert(at, {std::move(key), std::move(e)});
      if (ex.size() > 3) ex.pop_back();
    }
  }
  return true;
}

}  // namespace

std::vector<UnknownTemplate> unrecognised_errors(sqlite3* db, int64_t bundle_id, size_t max) {
  std::map<std::string, Mined> mined;
  if (!mine(db, bundle_id, false, kMaxEvents, mined)) {
    mined.clear();
    mine(db, bundle_id, true, kMaxEvents, mined);
  }
  std::map<std::string, UnknownTemplate> by;
  for (auto& [t, mi] : mined) {
    for (auto& [k, e] : mi.earliest) mi.u.examples.push_back(std::move(e));
    by.emplace(t, std::move(mi.u));
  }
  std::vector<UnknownTemplate> out;
  for (auto& [t, u] : by) {
    std::sort(u.hosts.begin(), u.hosts.end());
    // concentration: lines per host and per minute of the template's time range
    const double minutes =
        u.first_ns && u.last_ns ? static_cast<double>(*u.last_ns - *u.first_ns) / 60e9 : 0.0;
    u.concentration =
        static_cast<double>(u.count) / static_cast<double>(u.hosts.size()) / std::max(1.0, minutes);
    out.push_back(std::move(u));
  }
  // earliest first (a new failure mode shows up before what it causes), then the most
  // concentrated, then the most frequent
  std::sort(out.begin(), out.end(), [](const UnknownTemplate& a, const UnknownTemplate& b) {
    if (a.first_ns.has_value() != b.first_ns.has_value()) return a.first_ns.has_value();
    if (a.first_ns && *a.first_ns != *b.first_ns) return *a.first_ns < *b.first_ns;
    if (a.concentration != b.concentration) return a.concentration > b.concentration;
    if (a.count != b.count) return a.count > b.count;
    return a.text < b.text;
  });
  if (out.size() > max) out.resize(max);
  return out;
}

namespace {

std::string escape_re(std::string_view s) {
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f || c == ' ') {
      out += "[ \\t]+";  // the template has one space where the lines may have several
    } else if (std::string_view("\\^$.|?*+()[]{}/").find(ch) != std::string_view::npos) {
      out.push_back('\\');
      out.push_back(ch);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::string yaml_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'')
      out += "''";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

}  // namespace

std::string suggest_signature(const UnknownTemplate& u, const std::string& bundle_name,
                              const std::vector<std::string>& no_match_candidates) {
  // the literal parts of the template with a letter in them, in order: the line's own words
  std::vector<std::string> parts;
  std::string cur;
  auto flush = [&]() {
    size_t b = cur.find_first_not_of(' ');
    size_t e = cur.find_last_not_of(' ');
    std::string p = b == std::string::npos ? std::string() : cur.substr(b, e - b + 1);
    if (std::count_if(p.begin(), p.end(), is_alpha) >= 3) parts.push_back(p);
    cur.clear();
  };
  for (size_t i = 0; i < u.text.size(); ++i) {
    if (u.text[i] == '<') {
      const size_t close = u.text.find('>', i);
      const std::string m = close == std::string::npos ? "" : u.text.substr(i, close - i + 1);
      if (m == "<n>" || m == "<hex>" || m == "<ip>" || m == "<path>") {
        flush();
        i = close;
        continue;
      }
    }
    cur += u.text[i];
  }
  flush();
  std::string pattern;
  for (size_t i = 0; i < parts.size(); ++i) pattern += (i ? ".*" : "") + escape_re(parts[i]);
  // the negative example: the first candidate the pattern does not match (the parts in order,
  // whitespace runs as one space, as the pattern reads them)
  auto matches = [&](const std::string& line) {
    std::string sq;
    for (const char ch : line) {
      const bool sp = ch == ' ' || ch == '\t';
      if (sp && !sq.empty() && sq.back() == ' ') continue;
      sq += sp ? ' ' : ch;
    }
    size_t pos = 0;
    for (const auto& p : parts) {
      const size_t f = sq.find(p, pos);
      if (f == std::string::npos) return false;
      pos = f + p.size();
    }
    return true;
  };
  std::string no_match = "faultline: line without the signature text";
  for (const auto& c : no_match_candidates)
    if (!c.empty() && !matches(c)) {
      no_match = c;
      break;
    }
  // the longest literal part names the draft (the message, not its prefix)
  std::string longest;
  for (const auto& p : parts)
    if (p.size() > longest.size()) longest = p;
  std::string name;
  for (const auto& p : std::vector<std::string>{longest}) {
    for (const char c : p) {
      if (name.size() >= 40) break;
      if (std::isalnum(static_cast<unsigned char>(c)))
        name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      else if (!name.empty() && name.back() != '_')
        name += '_';
    }
    if (name.size() >= 40) break;
    if (!name.empty() && name.back() != '_') name += '_';
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  name += (name.empty() ? "" : "_") + u.id;  // unique: templates may share their words
  std::string y;
  y += "# Draft from the unrecognised error template " + u.id + " (" + std::to_string(u.count) +
       " line(s) on " + std::to_string(u.hosts.size()) + " host(s)):\n#   " + u.text + "\n";
  y += "# Review the pattern, title, kinds and the fault: block before adding it to a pack.\n";
  y += "  - id: draft." + name + "\n";
  std::string title = longest.empty() ? u.text : longest;
  while (!title.empty() && !std::isalnum(static_cast<unsigned char>(title.front())))
    title.erase(0, 1);
  y += "    title: " + yaml_quote(title.empty() ? u.text : title) + "\n";
  if (!u.kind.empty() && u.kind != "text" && u.kind != "composite")
    y += "    kinds: [" + u.kind + "]\n";
  y += "    severity: error\n    status: experimental\n";
  y += "    patterns:\n      - " + yaml_quote(pattern.empty() ? escape_re(u.text) : pattern) + "\n";
  y += "    references:\n      - " +
       yaml_quote("drafted by faultline rules suggest from bundle " + bundle_name) + "\n";
  y += "    examples:\n      match:\n";
  for (const auto& e : u.examples)
    y += "        - line: " + yaml_quote(e.text) + "\n          seen: " +
         yaml_quote(bundle_name + ":" + e.file + ":" + std::to_string(e.line)) + "\n";
  y += "      no_match:\n        - " + yaml_quote(no_match) + "\n";
  return y;
}

}  // namespace faultline::report
