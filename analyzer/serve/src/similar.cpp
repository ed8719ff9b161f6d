#include "similar.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pages.hpp"
#include "util.hpp"

namespace faultline::serve::detail {

using json = nlohmann::json;

namespace {

json iso_or_null(int64_t t) {
  const auto s = iso_utc(t);
  return s.empty() ? json(nullptr) : json(s);
}

}  // namespace

std::string fingerprint_text(const correlate::Fingerprint& f) {
  std::vector<std::pair<std::string, double>> kept(f.features.begin(), f.features.end());
  if (kept.size() > kMaxFingerprintFeatures) {
    std::stable_sort(kept.begin(), kept.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    kept.resize(kMaxFingerprintFeatures);
  }
  json features = json::object();
  for (const auto& [k, w] : kept) features[k] = w;
  const json j = {{"features", std::move(features)}, {"root_causes", f.root_causes}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

correlate::Fingerprint fingerprint_from_text(const std::string& text) {
  correlate::Fingerprint f;
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return f;
  if (const auto it = j.find("features"); it != j.end() && it->is_object())
    for (const auto& [k, w] : it->items())
      if (w.is_number()) f.features[k] = w.get<double>();
  if (const auto it = j.find("root_causes"); it != j.end() && it->is_array())
    for (const auto& r : *it)
      if (r.is_string()) f.root_causes.push_back(r.get<std::string>());
  return f;
}

std::vector<SimilarEntry> most_similar(const Analysis& self, const std::string& self_fingerprint,
                                       const std::vector<std::pair<Analysis, std::string>>& others,
                                       size_t top, double min_score) {
  std::vector<SimilarEntry> out;
  if (self_fingerprint.empty()) return out;
  const correlate::Fingerprint q = fingerprint_from_text(self_fingerprint);
  if (q.features.empty()) return out;
  for (const auto& [a, text] : others) {
    if (a.id == self.id || text.empty()) continue;
    const correlate::Fingerprint f = fingerprint_from_text(text);
    correlate::Similarity s = correlate::similarity(q, f);
    if (s.score < min_score) continue;
    out.push_back({a, std::move(s), f.root_causes});
  }
  // best first; among equals the newest upload first
  std::stable_sort(out.begin(), out.end(), [](const SimilarEntry& x, const SimilarEntry& y) {
    if (x.similarity.score != y.similarity.score) return x.similarity.score > y.similarity.score;
    return x.analysis.uploaded_at > y.analysis.uploaded_at;
  });
  if (out.size() > top) out.resize(top);
  return out;
}

json similar_json(const std::vector<SimilarEntry>& list) {
  json arr = json::array();
  for (const auto& e : list) {
    const std::string base = "/api/bundles/" + e.analysis.id;
    arr.push_back(
        {{"id", e.analysis.id},
         {"name", e.analysis.name},
         {"uploaded_at", iso_or_null(e.analysis.uploaded_at)},
         {"score", std::round(e.similarity.score * 1000.0) / 1000.0},
         {"verdict", e.analysis.verdict_id.empty() ? json(nullptr)
                                                   : json{{"kind", e.analysis.verdict_kind},
                                                          {"id", e.analysis.verdict_id},
                                                          {"title", e.analysis.verdict_title}}},
         {"root_causes", e.root_causes},
         {"shared_findings", e.similarity.shared_findings},
         {"shared_facts", e.similarity.shared_facts},
         {"shared_templates", e.similarity.shared_templates},
         {"links", {{"self", base}, {"page", "/bundles/" + e.analysis.id}}}});
  }
  return arr;
}

std::string similar_html(const std::vector<SimilarEntry>& list, const std::string& token) {
  if (list.empty()) return "";
  std::string h =
      "<section id=\"faultline-seen-before\" style=\"font:14px/1.45 system-ui,sans-serif;"
      "background:#fff;border:1px solid #d9e2ec;border-radius:6px;padding:8px 14px;"
      "margin:0 0 16px;overflow-wrap:anywhere\"><strong>Seen before</strong> "
      "<span style=\"color:#627d98\">earlier uploads most like this one "
      "(docs/compare.md)</span><ol style=\"margin:6px 0 0;padding-left:22px\">";
  for (const auto& e : list) {
    char score[16];
    std::snprintf(score, sizeof score, "%.2f", e.similarity.score);
    h += "<li><a href=\"" + html_escape("/bundles/" + e.analysis.id + token_query(token)) + "\">" +
         html_escape(e.analysis.name) + "</a> <span style=\"color:#627d98\">score " + score;
    if (const auto when = iso_or_null(e.analysis.uploaded_at); when.is_string())
      h += ", uploaded " + html_escape(when.get<std::string>());
    h += "</span>: ";
    if (!e.root_causes.empty()) {
      std::string rc;
      for (const auto& r : e.root_causes) rc += (rc.empty() ? "" : "; ") + r;
      h += "diagnosed as " + html_escape(rc);
    } else if (!e.analysis.verdict_title.empty()) {
      h += html_escape(e.analysis.verdict_title);
    } else {
      h += "no finding";
    }
    const auto& s = e.similarity;
    std::string shared;
    for (size_t i = 0; i < s.shared_findings.size() && i < 4; ++i)
      shared += (shared.empty() ? "" : ", ") + s.shared_findings[i];
    if (s.shared_findings.size() > 4)
      shared += " and " + std::to_string(s.shared_findings.size() - 4) + " more";
    h += " <span style=\"color:#627d98\">(shares " +
         (shared.empty() ? std::string("no finding") : html_escape(shared)) + "; " +
         std::to_string(s.shared_templates) + " error template(s), " +
         std::to_string(s.shared_facts.size()) + " version fact(s))</span></li>";
  }
  h += "</ol></section>";
  return h;
}

}  // namespace faultline::serve::detail
