// classify: decides each member's kind from its path AND its first lines, using the data table
// rules/classify/kinds.yaml, and the host each member belongs to.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/core/rules.hpp"

namespace faultline::classify {

struct Classification {
  std::string kind;    // a kind id of rules/classify/kinds.yaml ("text" / "binary" as fallbacks)
  std::string reason;  // "path", "content", "path+content", "fallback"
};

class Classifier {
 public:
  // Builds the classifier from the classify/*.yaml rule files. Throws std::runtime_error naming
  // the file and rule on a bad table.
  explicit Classifier(const std::vector<RuleFile>& classify_rules);
  ~Classifier();
  Classifier(const Classifier&) = delete;
  Classifier& operator=(const Classifier&) = delete;

  // path: member path inside the bundle; head: its first bytes (up to 64 KiB).
  [[nodiscard]] Classification classify(std::string_view path, std::string_view head) const;

  // All kind ids with their descriptions, in table order.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> kinds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Host attribution. Candidates come from several places; the strongest wins per member.
struct HostHint {
  std::string host;
  int strength = 0;     // higher wins
  std::string source;   // manifest, archive, path, hostname-file, syslog, default
};

// A host named by the member's path: a per-node folder or a nested archive named after a node
// ("node07/...", "fleet/node07.tar.gz!/...", "ascend_log_node07_2025.../"). Empty when none.
HostHint host_from_path(std::string_view path);

// A host named by the content of the member (syslog hostnames, `hostname` output, uname -a,
// manifest.json "host"). Empty when none.
HostHint host_from_content(std::string_view kind, std::string_view path, std::string_view head);

}  // namespace faultline::classify
