#include "faultline/app/app.hpp"

namespace faultline::app {

Outcome analyze(store::Db&, const std::filesystem::path& bundle, const Options&) {
  Outcome o;
  o.exit_code = 3;
  o.error = bundle.string() + ": pipeline not wired yet";
  return o;
}

std::filesystem::path default_cache_dir() { return {}; }

}  // namespace faultline::app
