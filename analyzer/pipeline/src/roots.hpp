// What the streaming pass learns per root (a folder or archive of one node's collection) for the
// per-host pass: the best host-name hint and the times that can anchor its clocks.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "faultline/classify/classify.hpp"
#include "faultline/core/time.hpp"
#include "faultline/parse/clock.hpp"

namespace faultline::pipeline {

// A time that can anchor a clock: a line with both a wall time and an uptime, or with an epoch
// payload. Year-less ones wait until the host's reference time is known.
struct Anchor {
  RawTime t;
  std::optional<int64_t> epoch_ns;
};

struct RootInfo {
  classify::HostHint best;            // strongest name hint
  std::vector<Anchor> anchors;        // bounded
  clock::SameLines same;              // one message in two clocks (bounded)
  int64_t reference_naive = kNoTime;  // newest fully dated host-local/UTC time seen
};

}  // namespace faultline::pipeline
