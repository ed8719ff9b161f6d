// Harness: the diagnosis / compatibility rule loader and the correlator that runs the rules
// (correlate::lint, correlate::list, correlate::run).
// Input: byte 0 picks the file (even: diagnoses/fuzz.yaml, odd: compat/fuzz.yaml; 'D' and 'C' in
// the seeds), the rest is its YAML text. The rules run against a real analysed sample bundle
// (samples/seed-driver-reboot-pending, analysed once into an in-memory database), so conditions
// see real hits, captures and facts. correlate::run documents std::runtime_error for a bad rule;
// any other exception is a finding.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"
#include "faultline/app/app.hpp"
#include "faultline/correlate/correlate.hpp"
#include "faultline/store/store.hpp"

namespace {

using namespace faultline;

struct Fixture {
  std::unique_ptr<store::Db> db;
  int64_t bundle = -1;
  std::vector<std::string> signature_ids;
};

Fixture& fixture() {
  static Fixture f = [] {
    Fixture x;
    x.db = store::Db::open(":memory:");
    const char* env = std::getenv("FAULTLINE_FUZZ_BUNDLE");
    const std::filesystem::path bundle =
        env ? env : std::string(FAULTLINE_SOURCE_DIR) + "/samples/seed-driver-reboot-pending";
    app::Options o;
    const app::Outcome out = app::analyze(*x.db, bundle, o);
    if (out.exit_code != 0) {
      std::fprintf(stderr, "diagnoses harness: cannot analyse %s: %s\n", bundle.c_str(),
                   out.error.c_str());
      std::abort();
    }
    x.bundle = out.bundle_id;
    for (const auto& s : app::load_rules({}).signatures.signatures) x.signature_ids.push_back(s.id);
    return x;
  }();
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 32 * 1024) return 0;
  Fixture& fx = fixture();
  const std::string path = (data[0] & 1) ? "compat/fuzz.yaml" : "diagnoses/fuzz.yaml";
  const std::vector<RuleFile> rules{{path, std::string(fuzz::as_view(data + 1, size - 1))}};
  for (const auto& p : correlate::lint(rules, fx.signature_ids))
    fuzz::g_sink = fuzz::g_sink + fuzz::touch(p);
  for (const auto& d : correlate::list(rules))
    fuzz::g_sink = fuzz::g_sink + fuzz::touch(d.id) + fuzz::touch(d.title);
  try {
    const correlate::Summary s = correlate::run(fx.db->handle(), fx.bundle, rules);
    FUZZ_CHECK(s.root_causes >= 0 && s.symptoms >= 0, "negative finding counts");
  } catch (const std::runtime_error& e) {
    fuzz::g_sink = fuzz::g_sink + fuzz::touch(e.what());
  }
  return 0;
}
