// Placeholder until the Hyperscan engine lands.
#include "faultline/tag/tag.hpp"

namespace faultline::tag {

RuleSet load_signatures(const std::vector<RuleFile>&) { return {}; }

std::unique_ptr<Engine> Engine::build(const RuleSet&, const std::filesystem::path&,
                                      std::string* error) {
  if (error) *error = "tag engine not implemented yet";
  return nullptr;
}

}  // namespace faultline::tag
