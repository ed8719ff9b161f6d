// `faultline similar`: the fingerprint of an analysis (findings, masked error templates, headline
// versions) and a weighted Jaccard similarity between two (docs/compare.md "Seen before").
#include <algorithm>

#include "faultline/correlate/compare.hpp"
#include "side.hpp"

namespace faultline::correlate {

Fingerprint fingerprint(const DiffInput& in, const CompareRules& rules) {
  const compare::Side s = compare::load_side(in, rules, true);
  Fingerprint f;
  f.label = s.info.label;
  f.name = s.info.name;
  f.sha256 = s.info.sha256;
  for (const auto& [host, h] : s.hosts) {
    for (const auto& [id, kt] : h.findings) {
      const double w = kt.first == "root_cause" ? 3.0 : 1.0;
      auto& x = f.features["finding:" + id];
      x = std::max(x, w);
      if (kt.first == "root_cause") {
        const std::string rc = id + ": " + kt.second;
        if (std::find(f.root_causes.begin(), f.root_causes.end(), rc) == f.root_causes.end())
          f.root_causes.push_back(rc);
      }
    }
    for (const auto& [id, t] : h.faults) f.features["finding:" + id] = 2.0;
    for (const auto& [t, tally] : h.templates) f.features["template:" + t] = 1.0;
    for (const auto& v : rules.verdict)
      if (auto it = h.facts.find(v.fact); it != h.facts.end())
        for (const auto& [val, src] : it->second.values)
          f.features["fact:" + v.fact + "=" + val] = 0.5;
  }
  std::sort(f.root_causes.begin(), f.root_causes.end());
  return f;
}

Similarity similarity(const Fingerprint& a, const Fingerprint& b) {
  Similarity s;
  double inter = 0, uni = 0;
  auto ia = a.features.begin();
  auto ib = b.features.begin();
  while (ia != a.features.end() || ib != b.features.end()) {
    if (ib == b.features.end() || (ia != a.features.end() && ia->first < ib->first)) {
      uni += ia->second;
      ++ia;
    } else if (ia == a.features.end() || ib->first < ia->first) {
      uni += ib->second;
      ++ib;
    } else {
      inter += std::min(ia->second, ib->second);
      uni += std::max(ia->second, ib->second);
      const std::string& k = ia->first;
      if (k.rfind("finding:", 0) == 0)
        s.shared_findings.push_back(k.substr(8));
      else if (k.rfind("fact:", 0) == 0)
        s.shared_facts.push_back(k.substr(5));
      else
        ++s.shared_templates;
      ++ia;
      ++ib;
    }
  }
  s.score = uni > 0 ? inter / uni : 0;
  return s;
}

}  // namespace faultline::correlate
