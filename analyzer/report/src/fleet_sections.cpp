// The fleet's fault events (docs/fleet.md "Fault events"): what every node's fault findings say,
// one row per fault and code, in the order `analyze` ranks them. A fleet whose nodes show only
// OS, hardware, network or framework faults names them here, not only in its bundles table.
#include "fleet_sections.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "model.hpp"
#include "render.hpp"
#include "shared.hpp"

namespace faultline::report::detail {
namespace {

using J = nlohmann::ordered_json;
constexpr size_t kTopFaults = 50;   // md / html rows; json has every one
constexpr size_t kHostsShown = 12;  // hosts named per row in md / html

std::string host_list(const std::vector<std::string>& hs) {
  std::string s;
  for (size_t i = 0; i < hs.size() && i < kHostsShown; ++i) s += (i ? ", " : "") + hs[i];
  if (hs.size() > kHostsShown) s += ", ... (" + std::to_string(hs.size()) + ")";
  return s;
}

std::string one_line(std::string s, size_t max) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t' || c == '|') c = c == '|' ? '/' : ' ';
  if (s.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "…";
  }
  return s;
}

// The time quality of a fault's first time: that of its first line (fleet.cpp marks a
// year-inferred time of a host of unknown zone "assumed_utc").
std::string first_quality(const correlate::FleetFault& x) {
  return x.first && x.first->time_ns == x.first_ns ? x.first->quality : std::string("exact");
}

size_t host_count(const correlate::FleetResult& f) {
  std::set<std::string> hs;
  for (const auto& x : f.faults) hs.insert(x.hosts.begin(), x.hosts.end());
  return hs.size();
}

}  // namespace

J fleet_faults_json(const correlate::FleetResult& f) {
  J a = J::array();
  for (const auto& x : f.faults) {
    J first = nullptr;
    if (x.first)
      first = J{{"host", x.first->host},
                {"file", x.first->file},
                {"line", x.first->line},
                {"time", x.first->time_ns ? J(iso_time_q(*x.first->time_ns, x.first->quality))
                                          : J(nullptr)},
                {"time_quality", x.first->quality},
                {"text", x.first->text}};
    a.push_back(
        J{{"id", x.id},
          {"code", x.code.empty() ? J(nullptr) : J(x.code)},
          {"title", x.title},
          {"signature", x.signature},
          {"class", x.fault_class.empty() ? J(nullptr) : J(x.fault_class)},
          {"role", x.role.empty() ? J(nullptr) : J(x.role)},
          {"severity", x.severity},
          {"hosts", x.hosts},
          {"first_time", x.first_ns ? J(iso_time_q(*x.first_ns, first_quality(x))) : J(nullptr)},
          {"first_host", x.first_host},
          {"count", x.count},
          {"diagnosed", x.diagnosed},
          {"first", std::move(first)}});
  }
  return a;
}

void fleet_faults_md(std::ostream& o, const correlate::FleetResult& f) {
  if (f.faults.empty()) return;
  o << "## Fault events\n\n"
    << f.faults.size() << " fault event(s) on " << host_count(f)
    << " host(s), ranked as `analyze` ranks them (cited by a diagnosis first, causes before "
       "symptoms, then the earliest).\n\n"
    << "| fault | code | class | hosts | first | count |\n|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < f.faults.size() && i < kTopFaults; ++i) {
    const auto& x = f.faults[i];
    o << "| " << md_code(x.id) << " " << md_text(one_line(x.title, 160)) << " | "
      << (x.code.empty() ? std::string() : md_code(x.code)) << " | "
      << md_text(x.fault_class + (x.role == "symptom" ? " (symptom)" : "")) << " | "
      << md_text(one_line(host_list(x.hosts), 300)) << " | "
      << (x.first_ns ? fmt_time_q(x.first_ns, first_quality(x)) + " (" + md_text(x.first_host) + ")"
                     : std::string("untimed"))
      << " | " << x.count << " |\n";
  }
  if (f.faults.size() > kTopFaults)
    o << "\n" << f.faults.size() - kTopFaults << " more fault events (json: faults).\n";
  o << "\n";
}

void fleet_faults_html(std::ostream& o, const correlate::FleetResult& f) {
  if (f.faults.empty()) return;
  o << "<h2 id=\"faults\">Fault events</h2>\n<p>" << f.faults.size() << " fault event(s) on "
    << host_count(f) << " host(s), ranked as <code>analyze</code> ranks them.</p>\n<details"
    << (f.faults.size() <= kTopFaults ? " open" : "") << "><summary>" << f.faults.size()
    << " fault events</summary><table><tr><th>fault</th><th>code</th><th>class</th><th>hosts</"
       "th><th>first</th><th>count</th></tr>\n";
  for (const auto& x : f.faults)
    o << "<tr><td><code>" << html(x.id) << "</code> " << html(x.title) << "</td><td>"
      << (x.code.empty() ? std::string() : "<code>" + html(x.code) + "</code>") << "</td><td>"
      << html(x.fault_class + (x.role == "symptom" ? " (symptom)" : "")) << "</td><td>"
      << html(host_list(x.hosts)) << "</td><td>"
      << (x.first_ns
              ? html(fmt_time_q(x.first_ns, first_quality(x))) + " (" + html(x.first_host) + ")"
              : std::string("untimed"))
      << "</td><td>" << x.count << "</td></tr>\n";
  o << "</table></details>\n";
}

}  // namespace faultline::report::detail

namespace faultline::report::detail {

std::string vendor_words(const correlate::FleetFirstFailure& ff) {
  return ff.vendor_code ? " (ascend-fd decision " + std::to_string(*ff.vendor_code) + ")"
                        : std::string();
}

std::string cycle_words(const correlate::FleetFirstFailure& ff) {
  std::string s;
  for (const auto& u : ff.cycle) {
    std::string one = u.rank ? "rank " + std::to_string(*u.rank) : std::string("a process");
    one += " (" + (u.host.empty() ? u.address : u.host);
    if (u.device) one += ", device " + std::to_string(*u.device);
    one += ")";
    s += (s.empty() ? "" : ", ") + one;
  }
  return s;
}

void add_answer_json(nlohmann::ordered_json& jf, const correlate::FleetFirstFailure& ff) {
  jf["vendor_code"] = ff.vendor_code ? J(*ff.vendor_code) : J(nullptr);
  J cy = J::array();
  for (const auto& u : ff.cycle)
    cy.push_back(J{{"host", u.host.empty() ? J(nullptr) : J(u.host)},
                   {"rank", u.rank ? J(*u.rank) : J(nullptr)},
                   {"device", u.device ? J(*u.device) : J(nullptr)},
                   {"pid", u.pid ? J(*u.pid) : J(nullptr)}});
  jf["cycle"] = std::move(cy);
}

}  // namespace faultline::report::detail

namespace faultline::report::detail {
namespace {

struct Hop {
  std::string host, label;  // host "" for an address outside the set / the own sub-stream
  std::optional<int64_t> rank;
};

// "worker-2 rank 2 device 2" -> host worker-2, rank 2; anything else is an address hop
Hop parse_hop(const std::string& s) {
  Hop h;
  h.label = s;
  const size_t p = s.find(" rank ");
  if (p == std::string::npos || s.find("(not in the collected set)") != std::string::npos) return h;
  h.host = s.substr(0, p);
  size_t i = p + 6, n = 0;
  int64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && n < 12) v = v * 10 + (s[i++] - '0'), ++n;
  if (n > 0) h.rank = v;
  return h;
}

std::string wait_kind(const std::string& rule) {
  if (rule.find("transport") != std::string::npos) return "transport init";
  if (rule.find("link") != std::string::npos) return "link setup";
  if (rule.find("aicpu") != std::string::npos) return "AICPU Notify Wait";
  if (rule.find("notify") != std::string::npos) return "Notify Wait";
  return "wait";
}

std::string hhmmss(int64_t ns) {
  const std::string t = fmt_time(ns);  // 2026-03-14T02:41:17.204000Z: only the clock part
  return t.size() >= 23 ? t.substr(11, 12) : t;
}

}  // namespace

void fleet_pictures_html(std::ostream& o, const correlate::FleetResult& f,
                         std::string_view fleet_quality) {
  if (!f.first_failure) return;
  const auto& ff = *f.first_failure;
  std::set<std::string> culprit_hosts;
  for (const auto& u : ff.culprits) culprit_hosts.insert(u.host);
  std::set<std::pair<std::string, int64_t>> culprit_ranks, cycle_ranks;
  for (const auto& u : ff.culprits)
    if (u.rank) culprit_ranks.insert({u.host, *u.rank});
  for (const auto& u : ff.cycle)
    if (u.rank) cycle_ranks.insert({u.host, *u.rank});
  std::set<std::string> chain_hosts;
  // ---- the wait chain / cycle
  if (ff.chain.size() >= 2 && ff.chain.size() <= 64) {
    std::vector<Hop> hops;
    for (const auto& c : ff.chain) hops.push_back(parse_hop(c));
    std::vector<std::string> boxes;  // hosts (and outside ends) in order of appearance
    std::map<std::string, std::vector<std::string>> nodes;  // box -> node labels
    auto box_of = [](const Hop& h) { return h.host.empty() ? h.label : h.host; };
    for (const auto& h : hops) {
      const std::string b = box_of(h);
      if (std::find(boxes.begin(), boxes.end(), b) == boxes.end()) boxes.push_back(b);
      auto& v = nodes[b];
      if (std::find(v.begin(), v.end(), h.label) == v.end()) v.push_back(h.label);
      if (!h.host.empty()) chain_hosts.insert(h.host);
    }
    constexpr int kBoxW = 190, kGap = 70, kNodeH = 46, kTop = 34;
    std::map<std::string, std::pair<int, int>> pos;  // node label -> centre
    size_t rows = 1;
    for (size_t b = 0; b < boxes.size(); ++b) {
      const auto& v = nodes[boxes[b]];
      rows = std::max(rows, v.size());
      for (size_t i = 0; i < v.size(); ++i)
        pos[v[i]] = {20 + static_cast<int>(b) * (kBoxW + kGap) + kBoxW / 2,
                     kTop + 30 + static_cast<int>(i) * kNodeH};
    }
    const int w = 40 + static_cast<int>(boxes.size()) * (kBoxW + kGap) - kGap;
    const int h = kTop + 30 + static_cast<int>(rows) * kNodeH + 40;
    // the time of each hop: the chain evidence lines in order
    std::vector<std::optional<int64_t>> times;
    for (const auto& l : ff.evidence)
      if (l.role == "chain") times.push_back(l.time_ns);
    o << "<h3>Wait " << (ff.cycle.empty() ? "chain" : "cycle") << "</h3>\n"
      << "<svg width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << " " << h
      << "\" role=\"img\" aria-label=\"wait chain\" style=\"font:12px system-ui,sans-serif\">\n"
      << "<defs><marker id=\"fl-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
         "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 "
         "L10,5 L0,10 z\" fill=\"#44506a\"/></marker></defs>\n";
    for (size_t b = 0; b < boxes.size(); ++b) {
      const int x = 20 + static_cast<int>(b) * (kBoxW + kGap);
      const int bh = 20 + static_cast<int>(nodes[boxes[b]].size()) * kNodeH;
      const bool outside = nodes[boxes[b]].size() == 1 && parse_hop(boxes[b]).host.empty() &&
                           boxes[b] == nodes[boxes[b]].front();
      o << "<rect x=\"" << x << "\" y=\"" << kTop << "\" width=\"" << kBoxW << "\" height=\"" << bh
        << "\" rx=\"6\" fill=\"" << (outside ? "#f4f4f4" : "#f7f9fc") << "\" stroke=\"#9aa5b8\""
        << (outside ? " stroke-dasharray=\"4 3\"" : "") << "/>\n"
        << "<text x=\"" << x + 8 << "\" y=\"" << kTop - 6 << "\" font-weight=\"600\">"
        << html(one_line(boxes[b], 28)) << "</text>\n";
    }
    for (size_t i = 0; i + 1 < hops.size(); ++i) {
      const auto a = pos[hops[i].label], b = pos[hops[i + 1].label];
      const bool back = i + 2 == hops.size() && !ff.cycle.empty();
      const std::string label =
          wait_kind(ff.rule) + (i < times.size() && times[i] ? " " + hhmmss(*times[i]) : "");
      if (a.first == b.first) {  // same box: a curve on the right
        const int cx = a.first + kBoxW / 2 + (back ? 40 : 20);
        o << "<path d=\"M" << a.first + 40 << "," << a.second << " C" << cx << "," << a.second
          << " " << cx << "," << b.second << " " << b.first + 40 << "," << b.second
          << "\" fill=\"none\" stroke=\"#44506a\" marker-end=\"url(#fl-arrow)\"/>\n"
          << "<text x=\"" << cx - 10 << "\" y=\"" << (a.second + b.second) / 2 + 4
          << "\" font-size=\"10\" fill=\"#44506a\">" << html(label) << "</text>\n";
      } else {
        const int x1 = a.first + (b.first > a.first ? 40 : -40);
        const int x2 = b.first + (b.first > a.first ? -40 : 40);
        const int bend = back ? 24 : 0;
        o << "<path d=\"M" << x1 << "," << a.second << " Q" << (x1 + x2) / 2 << ","
          << std::min(a.second, b.second) - 18 - bend << " " << x2 << "," << b.second
          << "\" fill=\"none\" stroke=\"#44506a\" marker-end=\"url(#fl-arrow)\"/>\n"
          << "<text x=\"" << (x1 + x2) / 2 - 40 << "\" y=\""
          << std::min(a.second, b.second) - 14 - bend << "\" font-size=\"10\" fill=\"#44506a\">"
          << html(label) << "</text>\n";
      }
    }
    for (const auto& [label, p] : pos) {
      const Hop hp = parse_hop(label);
      const bool root = hp.rank && culprit_ranks.count({hp.host, *hp.rank});
      const bool cyc = hp.rank && cycle_ranks.count({hp.host, *hp.rank});
      const char* fill = root              ? "#b3261e"
                         : cyc             ? "#8e44ad"
                         : hp.host.empty() ? "#9aa5b8"
                                           : "#e8a33d";
      o << "<rect x=\"" << p.first - 40 << "\" y=\"" << p.second - 14
        << "\" width=\"80\" height=\"28\" rx=\"14\" fill=\"" << fill << "\"/>\n"
        << "<text x=\"" << p.first << "\" y=\"" << p.second + 4
        << "\" text-anchor=\"middle\" fill=\"#fff\" font-weight=\"600\">"
        << html(hp.rank ? "rank " + std::to_string(*hp.rank) : one_line(label, 12)) << "</text>\n";
    }
    o << "</svg>\n<p class=\"muted\">Red: the root; orange: ranks that waited on it; purple: "
         "members of a closed cycle (deadlock); grey: an end outside the collected set.</p>\n";
  }
  // ---- host x time strip of the first errors
  std::vector<const correlate::FleetHost*> timed;
  for (const auto& h : f.hosts)
    if (h.first_fleet_ns) timed.push_back(&h);
  if (timed.size() < 2) return;
  std::sort(timed.begin(), timed.end(), [](const auto* a, const auto* b) {
    return *a->first_fleet_ns != *b->first_fleet_ns ? *a->first_fleet_ns < *b->first_fleet_ns
                                                    : a->host < b->host;
  });
  constexpr size_t kMaxRows = 256;
  if (timed.size() > kMaxRows) timed.resize(kMaxRows);
  const int64_t t0 = *timed.front()->first_fleet_ns, t1 = *timed.back()->first_fleet_ns;
  const double span = std::max<double>(1.0, static_cast<double>(t1 - t0));
  const int row = timed.size() > 64 ? 8 : 18, left = 130, plot = 640;
  const int h = 30 + static_cast<int>(timed.size()) * row + 24;
  o << "<h3>First error per host over time</h3>\n<svg "
       "width=\""
    << left + plot + 30 << "\" height=\"" << h
    << "\" role=\"img\" aria-label=\"first errors over time\" style=\"font:11px "
       "system-ui,sans-serif\">\n"
    << "<line x1=\"" << left << "\" y1=\"" << h - 22 << "\" x2=\"" << left + plot << "\" y2=\""
    << h - 22 << "\" stroke=\"#9aa5b8\"/>\n<text x=\"" << left << "\" y=\"" << h - 6 << "\">"
    << html(fmt_time_q(t0, fleet_quality)) << "</text>\n<text x=\"" << left + plot << "\" y=\""
    << h - 6 << "\" text-anchor=\"end\">+" << html(std::to_string((t1 - t0) / 1'000'000'000))
    << " s</text>\n";
  for (size_t i = 0; i < timed.size(); ++i) {
    const auto* hh = timed[i];
    const int y = 24 + static_cast<int>(i) * row;
    const int x =
        left + static_cast<int>(static_cast<double>(*hh->first_fleet_ns - t0) / span * plot);
    const bool root = culprit_hosts.count(hh->host) != 0;
    const bool chain = chain_hosts.count(hh->host) != 0;
    const char* fill = root ? "#b3261e" : chain ? "#e8a33d" : "#7d8799";
    if (row >= 12)
      o << "<text x=\"" << left - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">"
        << html(one_line(hh->host, 20)) << "</text>\n";
    o << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"" << (row >= 12 ? 5 : 3) << "\" fill=\""
      << fill << "\"><title>"
      << html(hh->host + " " + fmt_time_q(hh->first_fleet_ns, fleet_quality))
      << "</title></circle>\n";
  }
  o << "</svg>\n<p class=\"muted\">Each host's first error of the incident in the reference clock; "
       "red: the root's host, orange: hosts on the wait chain, grey: the others.</p>\n";
}

}  // namespace faultline::report::detail
