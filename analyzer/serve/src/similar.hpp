// "Seen before" in serve (issue 37 item 3, docs/compare.md): the fingerprint of every finished
// analysis is kept in the index (one JSON column), and each report lists the earlier analyses
// most like it, with what they share and how they were diagnosed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faultline/correlate/compare.hpp"
#include "index.hpp"

namespace faultline::serve::detail {

// At most this many features are kept per fingerprint (the heaviest first: findings, then facts
// and templates), so one bundle with thousands of error templates cannot grow the index.
inline constexpr size_t kMaxFingerprintFeatures = 4000;
// Only the newest analyses are compared (bounds the CPU of a report page on a busy server).
inline constexpr size_t kMaxComparedAnalyses = 2000;

std::string fingerprint_text(const correlate::Fingerprint& f);
correlate::Fingerprint fingerprint_from_text(const std::string& text);

struct SimilarEntry {
  Analysis analysis;
  correlate::Similarity similarity;
  std::vector<std::string> root_causes;  // "<id>: <title>" of the earlier analysis
};

// The earlier analyses most like `self` (best first, score >= min_score, at most `top`); none
// when `self` has no fingerprint. `others` are (analysis, fingerprint text) pairs.
std::vector<SimilarEntry> most_similar(const Analysis& self, const std::string& self_fingerprint,
                                       const std::vector<std::pair<Analysis, std::string>>& others,
                                       size_t top, double min_score);

nlohmann::json similar_json(const std::vector<SimilarEntry>& list);
std::string similar_html(const std::vector<SimilarEntry>& list, const std::string& token);

}  // namespace faultline::serve::detail
