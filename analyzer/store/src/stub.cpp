// Placeholder until the store lands.
#include "faultline/store/store.hpp"

namespace faultline::store {
int schema_version() { return 1; }
}  // namespace faultline::store
