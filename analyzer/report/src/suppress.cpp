// Analyst controls (docs/suppress.md): a suppression file (`--suppress FILE`) and
// `--min-severity`, applied to a loaded report before it is rendered. The database keeps every
// row; what a rendering drops or demotes is counted and named in the report ("suppressed: N").
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "faultline/core/mask.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "shared.hpp"

namespace faultline::report {

namespace {

constexpr size_t kMaxFileBytes = 1U << 20;  // a suppression file is a hand-written list
constexpr size_t kMaxEntries = 10000;

[[noreturn]] void bad(const std::string& file, const YAML::Node& n, const std::string& what) {
  const int line = n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
  throw std::invalid_argument(file + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                              ": " + what);
}

std::vector<std::string> strings_of(const std::string& file, const YAML::Node& n, const char* key) {
  std::vector<std::string> out;
  if (n.IsScalar()) {
    out.push_back(n.as<std::string>());
  } else if (n.IsSequence()) {
    for (const auto& x : n) {
      if (!x.IsScalar()) bad(file, x, std::string(key) + ": a name or a list of names");
      out.push_back(x.as<std::string>());
    }
  } else {
    bad(file, n, std::string(key) + ": a name or a list of names");
  }
  for (const auto& s : out)
    if (s.empty()) bad(file, n, std::string(key) + ": an empty name matches nothing");
  return out;
}

// "2025-05-08T09:56:18", "2025-05-08 09:56:18.5", "2025-05-08T09:56Z", "...+08:00": ns of the
// time as the report prints it (UTC, or the wall time of a host of unknown zone, which is stored
// as if it were UTC); an offset converts to UTC.
std::optional<int64_t> parse_when(std::string_view s) {
  s = text::trim(s);
  if (s.size() < 16 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':')
    return std::nullopt;
  auto num = [&](size_t at, size_t n) { return text::to_int<int>(s.substr(at, n)); };
  const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2);
  if (!y || !mo || !d || !h || !mi || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 ||
      *mi > 59)
    return std::nullopt;
  size_t at = 16;
  int sec = 0;
  int64_t nanos = 0;
  if (at < s.size() && s[at] == ':') {
    const auto ss = num(at + 1, 2);
    if (!ss || *ss > 60) return std::nullopt;
    sec = *ss;
    at += 3;
    if (at < s.size() && s[at] == '.') {
      ++at;
      int64_t scale = 100'000'000;
      while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
        nanos += (s[at] - '0') * scale;
        scale /= 10;
        ++at;
      }
    }
  }
  int64_t ns = civil_to_ns(*y, *mo, *d, *h, *mi, sec, nanos);
  const std::string_view zone = text::trim(s.substr(at));
  if (!zone.empty()) {
    const auto off = parse_zone(zone);
    if (!off) return std::nullopt;
    ns -= static_cast<int64_t>(*off) * 1'000'000'000;
  }
  return ns;
}

// Shell-style glob: '*' any run, '?' one byte; the rest literal.
bool glob(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool any_glob(const std::vector<std::string>& ps, std::string_view s) {
  return std::any_of(ps.begin(), ps.end(), [&](const std::string& p) { return glob(p, s); });
}

}  // namespace

std::optional<int> severity_rank(std::string_view s) {
  if (s == "debug") return 0;
  if (s == "info") return 1;
  if (s == "notice") return 2;
  if (s == "warning") return 3;
  if (s == "error") return 4;
  if (s == "critical") return 5;
  return std::nullopt;
}

bool Filter::empty() const {
  return entries.empty() && !min_sev_rank;
}

Filter load_suppress_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot be read");
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes)
    throw std::invalid_argument(path + ": larger than 1 MiB; a suppression file is a short list");
  return parse_suppress(text, path);
}

Filter parse_suppress(const std::string& text, const std::string& file) {
  Filter f;
  f.file = file;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap() || !root["suppress"])
    throw std::invalid_argument(file +
                                ": expected a map with a `suppress:` list (docs/suppress.md)");
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>();
    if (key != "suppress") bad(file, kv.first, "unknown key `" + key + "` (only `suppress`)");
  }
  const YAML::Node list = root["suppress"];
  if (!list.IsSequence()) bad(file, list, "`suppress:` must be a list of entries");
  if (list.size() > kMaxEntries) bad(file, list, "more than 10000 entries");
  static const std::set<std::string> keys = {"reason", "action",  "signature", "finding",
                                             "host",   "message", "from",      "to"};
  for (const auto& n : list) {
    if (!n.IsMap()) bad(file, n, "an entry is a map (reason:, and what it matches)");
    SuppressEntry e;
    e.line = n.Mark().line + 1;
    for (const auto& kv : n) {
      const auto key = kv.first.as<std::string>();
      if (!keys.count(key))
        bad(file, kv.first,
            "unknown key `" + key +
                "` (reason, action, signature, finding, host, message, from, to)");
    }
    if (!n["reason"] || !n["reason"].IsScalar() || n["reason"].as<std::string>().empty())
      bad(file, n, "every entry needs a `reason:` (why it is suppressed, shown in the report)");
    e.reason = n["reason"].as<std::string>();
    if (n["action"]) {
      const auto a = n["action"].IsScalar() ? n["action"].as<std::string>() : std::string();
      if (a != "drop" && a != "demote") bad(file, n["action"], "action: drop or demote");
      e.demote = a == "demote";
    }
    if (n["signature"]) e.signature = strings_of(file, n["signature"], "signature");
    if (n["finding"]) e.finding = strings_of(file, n["finding"], "finding");
    if (n["host"]) e.host = strings_of(file, n["host"], "host");
    if (n["message"]) {
      if (!n["message"].IsScalar() || n["message"].as<std::string>().empty())
        bad(file, n["message"], "message: one text or template (globs * and ?)");
      e.message = n["message"].as<std::string>();
    }
    for (const char* k : {"from", "to"}) {
      if (!n[k]) continue;
      const auto t = n[k].IsScalar() ? parse_when(n[k].as<std::string>()) : std::nullopt;
      if (!t)
        bad(file, n[k],
            std::string(k) +
                ": a time as the report prints it, e.g. 2025-05-08 09:56:18 or "
                "2025-05-08T01:56:18Z");
      (std::string(k) == "from" ? e.from_ns : e.to_ns) = t;
    }
    if (e.signature.empty() && e.finding.empty() && e.host.empty() && e.message.empty() &&
        !e.from_ns && !e.to_ns)
      bad(file, n,
          "the entry matches everything: give signature, finding, host, message, from or to");
    f.entries.push_back(std::move(e));
  }
  return f;
}

namespace detail {
namespace {

thread_local const Filter* tl_filter = nullptr;

bool in_range(const SuppressEntry& e, const std::optional<int64_t>& ns) {
  if (!e.from_ns && !e.to_ns) return true;
  if (!ns) return false;
  return (!e.from_ns || *ns >= *e.from_ns) && (!e.to_ns || *ns <= *e.to_ns);
}

bool message_matches(const SuppressEntry& e, std::string_view text) {
  if (e.message.empty()) return true;
  return glob(e.message, text) || glob(e.message, mask_line(text));
}

// A finding as a whole: by its id, the fault signature of a fault event, its host and its first
// time. An entry naming a message is about lines, not findings.
bool matches_finding(const SuppressEntry& e, const FindingR& f) {
  if (!e.message.empty()) return false;
  if (!e.finding.empty() && !any_glob(e.finding, f.id)) return false;
  if (!e.signature.empty() && !(f.fault && any_glob(e.signature, f.fault->signature))) return false;
  if (!e.host.empty() && !any_glob(e.host, f.host)) return false;
  return in_range(e, f.first_time_ns);
}

// A line: its signature, the finding citing it, its host, time and text.
bool matches_line(const SuppressEntry& e, std::string_view signature, std::string_view finding,
                  std::string_view host, const std::optional<int64_t>& ns, std::string_view text) {
  if (!e.signature.empty() && !any_glob(e.signature, signature)) return false;
  if (!e.finding.empty() && !any_glob(e.finding, finding)) return false;
  if (!e.host.empty() && !any_glob(e.host, host)) return false;
  if (!in_range(e, ns)) return false;
  return message_matches(e, text);
}

struct Counter {
  Report& r;
  const Filter& f;
  std::vector<std::set<std::pair<std::string, int64_t>>> lines;  // per entry: (file, line)
  explicit Counter(Report& rep, const Filter& fil) : r(rep), f(fil), lines(fil.entries.size()) {}
  // the first entry matching, or -1
  template <class Pred>
  int first(Pred p) const {
    for (size_t i = 0; i < f.entries.size(); ++i)
      if (p(f.entries[i])) return static_cast<int>(i);
    return -1;
  }
};

}  // namespace

ScopedFilter::ScopedFilter(const Filter* f) : prev_(tl_filter) {
  tl_filter = f != nullptr && !f->empty() ? f : nullptr;
}
ScopedFilter::~ScopedFilter() {
  tl_filter = prev_;
}
const Filter* active_filter() {
  return tl_filter;
}

void apply_filter(Report& r) {
  const Filter* fp = active_filter();
  if (fp == nullptr) return;
  const Filter& f = *fp;
  r.suppress_file = f.file;
  r.min_severity_rank = f.min_sev_rank;
  r.suppressed.clear();
  for (const auto& e : f.entries) r.suppressed.push_back({e.reason, e.demote, e.line, 0, 0, {}});
  Counter c(r, f);
  std::set<std::string> gone;  // ids of findings dropped or demoted (host + '\x01' + id)
  auto key = [](const FindingR& x) { return x.host + '\x01' + x.id; };
  // 1. findings as a whole
  std::vector<FindingR> kept;
  for (auto& x : r.findings) {
    const int i = c.first([&](const SuppressEntry& e) { return matches_finding(e, x); });
    if (i < 0) {
      kept.push_back(std::move(x));
      continue;
    }
    auto& s = r.suppressed[static_cast<size_t>(i)];
    ++s.findings;
    gone.insert(key(x));
    if (s.demote) s.demoted.push_back(x.host + ": " + x.title + " (" + x.id + ")");
  }
  r.findings = std::move(kept);
  // 2. evidence lines, and fault events below --min-severity
  kept.clear();
  for (auto& x : r.findings) {
    if (f.min_sev_rank && x.kind == "fault") {
      const auto sr = severity_rank(x.severity);
      if (sr && *sr < *f.min_sev_rank) {
        ++r.below_min_faults;
        continue;
      }
    }
    size_t lines_before = 0, lines_suppressed = 0;
    int by = -1;  // the entry that suppressed its first line
    std::vector<EvidenceR> ev;
    for (auto& e : x.evidence) {
      if (!e.file.empty()) ++lines_before;
      const int i = e.file.empty() ? -1 : c.first([&](const SuppressEntry& s) {
        return matches_line(s, e.signature, x.id, x.host, e.time_ns, e.text);
      });
      if (i >= 0) {
        c.lines[static_cast<size_t>(i)].insert({e.file, e.line});
        ++lines_suppressed;
        if (by < 0) by = i;
        continue;
      }
      if (f.min_sev_rank && e.sev_rank >= 0 && e.sev_rank < *f.min_sev_rank) {
        ++r.below_min_lines;
        continue;
      }
      ev.push_back(std::move(e));
    }
    x.evidence = std::move(ev);
    // a finding whose every cited line was suppressed (not merely below the severity) goes too
    if (lines_before > 0 && lines_suppressed == lines_before) {
      auto& s = r.suppressed[static_cast<size_t>(by)];
      ++s.findings;
      if (s.demote) s.demoted.push_back(x.host + ": " + x.title + " (" + x.id + ")");
      gone.insert(key(x));
      continue;
    }
    kept.push_back(std::move(x));
  }
  r.findings = std::move(kept);
  // explanations pointing at a finding that is gone no longer explain anything shown
  for (auto& x : r.findings) {
    if (!x.explained_by.empty() && gone.count(x.host + '\x01' + x.explained_by))
      x.explained_by.clear();
    x.explains.erase(
        std::remove_if(x.explains.begin(), x.explains.end(),
                       [&](const std::string& id) { return gone.count(x.host + '\x01' + id) > 0; }),
        x.explains.end());
  }
  // 3. timeline rows: matched, or citing a finding that is gone
  std::vector<TimelineR> tl;
  for (auto& t : r.timeline) {
    const int i = c.first([&](const SuppressEntry& e) {
      return matches_line(e, t.signature, t.finding, t.host, t.time_ns, t.text);
    });
    if (i >= 0) {
      if (!t.file.empty()) c.lines[static_cast<size_t>(i)].insert({t.file, t.line});
      continue;
    }
    if (!t.finding.empty() && gone.count(t.host + '\x01' + t.finding)) continue;
    tl.push_back(std::move(t));
  }
  r.timeline = std::move(tl);
  // 4. other error signatures and unrecognised errors (counted by their lines)
  std::vector<Unclassified> un;
  for (auto& u : r.unclassified) {
    const int i = c.first([&](const SuppressEntry& e) {
      if (!e.finding.empty() || !e.message.empty()) return false;
      // grouped by signature (with the first line's host and time): only a signature entry
      if (e.signature.empty()) return false;
      return (e.signature.empty() || any_glob(e.signature, u.signature)) &&
             (e.host.empty() || any_glob(e.host, u.host)) && in_range(e, u.time_ns);
    });
    if (i >= 0) {
      r.suppressed[static_cast<size_t>(i)].lines += u.count;
      continue;
    }
    un.push_back(std::move(u));
  }
  r.unclassified = std::move(un);
  std::vector<UnknownTemplate> uk;
  for (auto& u : r.unknown) {
    const int i = c.first([&](const SuppressEntry& e) {
      if (!e.signature.empty() || !e.finding.empty()) return false;
      if (!e.host.empty() && (u.hosts.empty() || !std::all_of(u.hosts.begin(), u.hosts.end(),
                                                              [&](const std::string& h) {
                                                                return any_glob(e.host, h);
                                                              })))
        return false;
      if (!in_range(e, u.first_ns)) return false;
      if (e.message.empty()) return !e.host.empty() || e.from_ns || e.to_ns;
      return glob(e.message, u.text) ||
             (!u.examples.empty() && glob(e.message, u.examples.front().text));
    });
    if (i >= 0) {
      r.suppressed[static_cast<size_t>(i)].lines += u.count;
      continue;
    }
    uk.push_back(std::move(u));
  }
  r.unknown = std::move(uk);
  for (size_t i = 0; i < c.lines.size(); ++i)
    r.suppressed[i].lines += static_cast<int64_t>(c.lines[i].size());
}

int64_t suppressed_total(const Report& r) {
  int64_t n = 0;
  for (const auto& s : r.suppressed) n += s.findings + s.lines;
  return n;
}

std::string suppressed_text(const Report& r) {
  if (r.suppress_file.empty() && !r.min_severity_rank) return {};
  std::string out;
  if (!r.suppress_file.empty()) {
    int64_t f = 0, l = 0;
    for (const auto& s : r.suppressed) f += s.findings, l += s.lines;
    out = "suppressed: " + std::to_string(f + l) + " (" + std::to_string(f) + " finding" +
          (f == 1 ? "" : "s") + ", " + std::to_string(l) + " line" + (l == 1 ? "" : "s") + ") by " +
          r.suppress_file;
  }
  if (r.min_severity_rank) {
    static const char* names[] = {"debug", "info", "notice", "warning", "error", "critical"};
    const int k = std::clamp(*r.min_severity_rank, 0, 5);
    out += std::string(out.empty() ? "" : "; ") + "below --min-severity " + names[k] + ": " +
           std::to_string(r.below_min_lines) + " evidence line" +
           (r.below_min_lines == 1 ? "" : "s") + ", " + std::to_string(r.below_min_faults) +
           " fault event" + (r.below_min_faults == 1 ? "" : "s") + " left out";
  }
  return out;
}

}  // namespace detail
}  // namespace faultline::report
