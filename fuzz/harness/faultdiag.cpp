// Harness: `rules import-faultdiag` (tag::import_faultdiag) on a FaultDiag knowledge base.
// Input: kg-config.json text. The documented promise is checked: what the import writes loads
// without errors, with as many signatures as it says it imported, and passes run_examples.
#include <stdexcept>
#include <string>

#include "common.hpp"
#include "faultline/tag/tag.hpp"

using namespace faultline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string yaml;
  tag::ImportStats st;
  try {
    yaml = tag::import_faultdiag(fuzz::as_view(data, size), "fd", &st);
  } catch (const std::invalid_argument& e) {
    fuzz::g_sink = fuzz::g_sink + fuzz::touch(e.what());
    return 0;  // documented: malformed JSON or layout
  }
  const tag::RuleSet rs = tag::load_signatures({{"signatures/fd.yaml", yaml}});
  if (!rs.errors.empty())
    std::fprintf(stderr, "%s\n---\n%s\n", rs.errors.front().c_str(), yaml.c_str());
  FUZZ_CHECK(rs.errors.empty(), "the imported pack does not load");
  FUZZ_CHECK(rs.signatures.size() == static_cast<size_t>(st.imported),
             "loaded signatures differ from the imported count");
  if (rs.signatures.empty()) return 0;
  std::string err;
  const auto engine = tag::Engine::build(rs, {}, &err);
  if (!engine) std::fprintf(stderr, "%s\n", err.c_str());
  FUZZ_CHECK(engine != nullptr, "the imported pack does not compile");
  const tag::ExampleReport rep = tag::run_examples(rs, *engine);
  if (rep.failures) std::fprintf(stderr, "%s\n---\n%s\n", rep.text.c_str(), yaml.c_str());
  FUZZ_CHECK(rep.failures == 0, "the imported pack fails its own examples");
  return 0;
}
