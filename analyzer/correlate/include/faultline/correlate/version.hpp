// Version strings as Ascend components print them (driver 24.1.rc3 / 24.1.RC3 / 24.1.0.3, CANN
// 8.0.RC3 / 8.5.0, torch_npu 2.8.0.post4, torch 2.1.0+cpu), normalised and ordered.
//
// Rules (docs/diagnoses.md "Versions"):
// - case is ignored and a leading 'v' is dropped: 24.1.rc3 == 24.1.RC3, v2.1.0 == 2.1.0;
// - '.', '-', '_' separate parts and a part splits where letters meet digits (rc3 -> rc, 3);
// - at one position a pre-release word (rc, alpha, beta, dev, a, b, t, ...) sorts below any number
//   and below "nothing", "post" sorts below any number and above "nothing": 24.1.rc3 < 24.1 <=
//   24.1.0 < 24.1.0.3, and 2.8.0 < 2.8.0.post2 < 2.8.0.post4 < 2.8.1;
// - a missing numeric part counts as 0 (24.1 == 24.1.0); numbers compare by value, any length.
// So 24.1.0.3 and 24.1.rc3 differ (the seed 000 pair), 24.1.rc3 and 24.1.RC3 do not.
#pragma once

#include <string>
#include <string_view>

namespace faultline::correlate {

// Lower case, trimmed, leading 'v' dropped, a "+local" suffix kept.
std::string normalize_version(std::string_view v);

// <0, 0, >0. Text after '+' (a local build tag such as +cpu) is compared last, as text.
int compare_versions(std::string_view a, std::string_view b);

inline bool same_version(std::string_view a, std::string_view b) {
  return compare_versions(a, b) == 0;
}

}  // namespace faultline::correlate
