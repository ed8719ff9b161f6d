// Harness: classify::Classifier::classify (path + first bytes of a member) and the host hints.
// Input: the member path up to the first '\n' (at most 4 KiB), then the member's head.
#include "faultline/classify/classify.hpp"

#include <algorithm>
#include <memory>
#include <set>

#include "common.hpp"
#include "faultline/core/rules.hpp"

namespace {

using namespace faultline;

const classify::Classifier& classifier() {
  static const auto c =
      std::make_unique<classify::Classifier>(rules_under(embedded_rules(), "classify/"));
  return *c;
}

const std::set<std::string>& kind_ids() {
  static const std::set<std::string> ids = [] {
    std::set<std::string> s{"text", "binary"};
    for (const auto& [id, title] : classifier().kinds()) s.insert(id);
    return s;
  }();
  return ids;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in = fuzz::as_view(data, size);
  size_t nl = in.find('\n');
  if (nl == std::string_view::npos) nl = in.size();
  const std::string_view path = in.substr(0, std::min<size_t>(nl, 4096));
  const std::string_view head = nl < in.size() ? in.substr(nl + 1) : std::string_view{};
  const auto c = classifier().classify(path, head);
  FUZZ_CHECK(kind_ids().count(c.kind) == 1, "classify returned a kind that is not declared");
  FUZZ_CHECK(!c.reason.empty(), "classification without a reason");
  const auto hp = classify::host_from_path(path);
  const auto hc = classify::host_from_content(c.kind, path, head);
  fuzz::g_sink = fuzz::g_sink + fuzz::touch(hp.host) + fuzz::touch(hp.root) + fuzz::touch(hc.host) +
                 fuzz::touch(hc.source);
  return 0;
}
