// Placeholder until the kind table lands.
#include "faultline/classify/classify.hpp"

namespace faultline::classify {

struct Classifier::Impl {};
Classifier::Classifier(const std::vector<RuleFile>&) : impl_(std::make_unique<Impl>()) {}
Classifier::~Classifier() = default;
Classification Classifier::classify(std::string_view, std::string_view) const {
  return {"text", "fallback"};
}
std::vector<std::pair<std::string, std::string>> Classifier::kinds() const { return {}; }
HostHint host_from_path(std::string_view) { return {}; }
HostHint host_from_content(std::string_view, std::string_view, std::string_view) { return {}; }

}  // namespace faultline::classify
