// Evidence folded by message template (shared.hpp): the lines of one finding that are the same
// message with other numbers, ids, addresses or paths are one entry with a count, the files and
// the first and last time. Every line stays in the JSON report and the database.
#include <map>
#include <set>

#include "faultline/report/report.hpp"
#include "shared.hpp"

namespace faultline::report::detail {

std::string cut_line(std::string_view s, size_t max) {
  std::string out(s.substr(0, std::min(s.size(), max + 1)));
  for (auto& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() <= max) return out;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  out.resize(cut);
  return out + "…";
}

std::vector<FoldedEvidence> fold_evidence(const std::vector<EvidenceR>& ev) {
  std::vector<FoldedEvidence> out;
  std::map<std::string, size_t> at;  // key -> index in out
  std::map<size_t, std::set<std::string>> files;
  for (const auto& e : ev) {
    // a fact's statements fold by fact and value; a line by signature and template
    const std::string tmpl = e.fact.empty() ? mask_line(e.text) : e.text;
    const std::string key = (e.fact.empty() ? "s:" + e.signature : "f:" + e.fact) + '\x01' + tmpl;
    auto [it, fresh] = at.try_emplace(key, out.size());
    if (fresh) {
      FoldedEvidence f;
      f.first = &e;
      f.tmpl = tmpl;
      out.push_back(std::move(f));
    }
    FoldedEvidence& f = out[it->second];
    ++f.count;
    files[it->second].insert(e.file);
    if (e.time_ns) {
      if (!f.first_ns || *e.time_ns < *f.first_ns) {
        f.first_ns = e.time_ns;
        f.first_quality = e.shown_quality();
      }
      if (!f.last_ns || *e.time_ns > *f.last_ns) {
        f.last_ns = e.time_ns;
        f.last_quality = e.shown_quality();
      }
    }
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].files.assign(files[i].begin(), files[i].end());
  return out;
}

}  // namespace faultline::report::detail
