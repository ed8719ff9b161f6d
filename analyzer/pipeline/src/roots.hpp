// What the streaming pass learns per root (a folder or archive of one node's collection) for the
// per-host pass: the best host-name hint and the times that can anchor its clocks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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
  int64_t member_id = 0;  // where it was printed (cited by the facts the clock stage states)
  uint32_t line = 0;
};

struct RootInfo {
  classify::HostHint best;            // strongest name hint
  std::vector<Anchor> anchors;        // bounded
  clock::SameLines same;              // one message in two clocks (bounded)
  int64_t reference_naive = kNoTime;  // newest fully dated host-local/UTC time seen
  // host split (host_split.cpp): a folder-candidate root and the root it falls back to; whether
  // any member of the root is a host-level file (not device logs, not plain text)
  bool candidate = false;
  std::string parent_root;
  bool host_level = false;
};

// A member kind that only a host's own collection holds (syslog, journal, dmesg, plogs,
// training output, install logs, command outputs, ...): not device logs, not unknown text.
bool host_level_kind(std::string_view kind);

// The host split of a bundle (docs/bundles.md "Hosts"): folder-candidate roots are kept as hosts
// when their siblings confirm them (two or more sibling folders of one name shape, each holding
// host-level files; or sibling folders whose files name different hosts); the others are merged
// into their parent root. Returns root -> the root it was merged into (deepest first).
std::map<std::string, std::string> split_hosts(std::map<std::string, RootInfo>& roots);

}  // namespace faultline::pipeline
