// The host split of a bundle: which folder-candidate roots are hosts (docs/bundles.md "Hosts").
#include <algorithm>
#include <array>
#include <set>
#include <utility>

#include "roots.hpp"

namespace faultline::pipeline {

bool host_level_kind(std::string_view kind) {
  // device-side logs (a per-device folder is not a node), unknown text and binaries say nothing
  // about whether a folder is one node's collection
  static constexpr std::array<std::string_view, 11> kNot = {"device_app_log",
                                                            "device_os_log",
                                                            "device_fw_log",
                                                            "device_event_log",
                                                            "device_syslog",
                                                            "slogd_log",
                                                            "bbox_history",
                                                            "text",
                                                            "binary",
                                                            "symlink",
                                                            ""};
  return std::find(kNot.begin(), kNot.end(), kind) == kNot.end();
}

namespace {

// A name a member's content stated (hostname file, uname, syslog host field, manifest, prompt),
// not one taken from a path.
bool content_named(const classify::HostHint& h) {
  return !h.host.empty() && h.source != "folder" && h.source != "folder-candidate" &&
         h.source != "archive" && h.source != "collector-dir";
}

void merge_into(RootInfo& dst, RootInfo&& src) {
  if (content_named(src.best) && src.best.strength > dst.best.strength) dst.best = src.best;
  for (auto& a : src.anchors) dst.anchors.push_back(std::move(a));
  dst.same.merge(src.same);
  if (src.reference_naive != kNoTime &&
      (dst.reference_naive == kNoTime || src.reference_naive > dst.reference_naive))
    dst.reference_naive = src.reference_naive;
  dst.host_level = dst.host_level || src.host_level;
}

}  // namespace

std::map<std::string, std::string> split_hosts(std::map<std::string, RootInfo>& roots) {
  std::map<std::string, std::string> merged;
  // the folder holding a root, and the root's own name without an archive extension
  auto folder_of = [](const std::string& root) {
    const size_t p = root.find_last_of('/');
    return p == std::string::npos ? std::string() : root.substr(0, p);
  };
  auto leaf = [](const std::string& root) {
    const size_t p = root.find_last_of('/');
    std::string l = p == std::string::npos ? root : root.substr(p + 1);
    for (const char* ext : {".tar.gz", ".tar.zst", ".tar.xz", ".tar.bz2", ".tgz", ".tar", ".zip"}) {
      const std::string e(ext);
      if (l.size() > e.size() && l.compare(l.size() - e.size(), e.size(), e) == 0) {
        l.resize(l.size() - e.size());
        break;
      }
    }
    return l;
  };
  for (;;) {
    // the deepest folder that still holds unsettled candidates (a child's folder path is longer
    // than its parent's, so children settle first and pass what they hold upwards)
    std::string folder;
    bool found = false;
    for (const auto& [root, info] : roots) {
      if (!info.candidate) continue;
      const std::string f = folder_of(root);
      if (!found || f.size() > folder.size()) folder = f;
      found = true;
    }
    if (!found) break;
    // confirmation: two or more roots in this folder of one name shape holding host-level files
    // (candidates, and node folders or per-node archives beside them: a mixed job folder), or
    // candidates whose own files name two or more different hosts
    std::vector<std::string> group;
    std::map<std::string, int> shapes;
    std::set<std::string> named;
    for (const auto& [root, info] : roots) {
      if (folder_of(root) != folder || root.empty()) continue;
      if (info.candidate) group.push_back(root);
      if (!info.host_level) continue;
      ++shapes[classify::name_shape(leaf(root))];
      if (info.candidate && content_named(info.best)) named.insert(info.best.host);
    }
    for (const auto& r : group) {
      RootInfo& ri = roots[r];
      const bool confirmed = ri.host_level && (shapes[classify::name_shape(leaf(r))] >= 2 ||
                                               (named.size() >= 2 && content_named(ri.best)));
      if (confirmed) {
        ri.candidate = false;  // a host of its own
        continue;
      }
      const std::string parent = ri.parent_root;
      RootInfo src = std::move(ri);
      roots.erase(r);
      const bool fresh = roots.find(parent) == roots.end();
      RootInfo& dst = roots[parent];
      if (fresh && !parent.empty()) {
        // the parent may itself be a candidate folder (`t4711/` above `n01/`): ask the path rule
        const classify::HostHint ph = classify::host_from_path(parent + "/_");
        if (ph.root == parent && ph.source == "folder-candidate") {
          dst.candidate = true;
          dst.parent_root = ph.parent_root;
          dst.best = ph;
        }
      }
      merge_into(dst, std::move(src));
      merged[r] = parent;
    }
  }
  // chains (n01 -> t4711 -> ""): every merged root names the root that survived
  for (auto& [root, to] : merged) {
    for (int guard = 0; guard < 8; ++guard) {
      const auto it = merged.find(to);
      if (it == merged.end()) break;
      to = it->second;
    }
  }
  return merged;
}

}  // namespace faultline::pipeline
