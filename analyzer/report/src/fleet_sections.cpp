// The fleet's fault events (docs/fleet.md "Fault events"): what every node's fault findings say,
// one row per fault and code, in the order `analyze` ranks them. A fleet whose nodes show only
// OS, hardware, network or framework faults names them here, not only in its bundles table.
#include "fleet_sections.hpp"

#include <set>
#include <string>

#include "model.hpp"
#include "render.hpp"

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
                {"time", x.first->time_ns ? J(fmt_time(x.first->time_ns)) : J(nullptr)},
                {"time_quality", x.first->quality},
                {"text", x.first->text}};
    a.push_back(J{{"id", x.id},
                  {"code", x.code.empty() ? J(nullptr) : J(x.code)},
                  {"title", x.title},
                  {"signature", x.signature},
                  {"class", x.fault_class.empty() ? J(nullptr) : J(x.fault_class)},
                  {"role", x.role.empty() ? J(nullptr) : J(x.role)},
                  {"severity", x.severity},
                  {"hosts", x.hosts},
                  {"first_time", x.first_ns ? J(fmt_time(x.first_ns)) : J(nullptr)},
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
      << (x.first_ns ? fmt_time(x.first_ns) + " (" + md_text(x.first_host) + ")"
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
      << (x.first_ns ? html(fmt_time(x.first_ns)) + " (" + html(x.first_host) + ")"
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
