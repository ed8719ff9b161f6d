#include "limits.hpp"

#include <algorithm>

namespace faultline::ingest::detail {

bool over_ratio(uint64_t out, uint64_t in, const Limits& lim) {
  if (lim.max_ratio == 0) return false;
  return out > lim.ratio_grace_bytes && out / std::max<uint64_t>(in, 1) > lim.max_ratio;
}

uint64_t skip_cost(bool filtered, uint64_t stream, uint64_t raw, uint64_t max_ratio) {
  if (filtered) return stream;
  const uint64_t k = std::max<uint64_t>(max_ratio, 1);
  return raw > UINT64_MAX / k ? UINT64_MAX : raw * k;
}

uint64_t skip_left(uint64_t spent, const Limits& lim) {
  return lim.max_skip_bytes > spent ? lim.max_skip_bytes - spent : 0;
}

bool may_skip(uint64_t left, int64_t remaining, bool seek_skip) {
  if (left == 0) return false;
  if (seek_skip || remaining <= 0) return true;
  return static_cast<uint64_t>(remaining) <= left;
}

}  // namespace faultline::ingest::detail
