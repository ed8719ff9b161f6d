// classify: decides each member's kind from its path AND its first lines, using the data table
// rules/classify/kinds.yaml, and the host each member belongs to.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "faultline/core/rules.hpp"

namespace faultline::classify {

struct Classification {
  std::string kind;    // a kind id of rules/classify/kinds.yaml ("text" / "binary" as fallbacks)
  std::string reason;  // "path", "content", "path+content", "fallback"
};

// One kind of the table as classify/*.yaml writes it, its patterns not compiled yet.
struct KindRule {
  std::string id, description;
  std::string where;  // "<file>: kind <id>", named by a pattern error
  std::vector<std::string> paths;
  std::vector<std::pair<std::string, bool>> content;  // pattern, `need: most` (else any)
  bool path_only = false;
  bool path_wins = false;  // a path match decides, whatever the content
};

// Reads the classify/*.yaml rule files into the table, in file order (a later file replaces a
// kind of the same id). Throws std::runtime_error naming the file and rule on a bad table.
std::vector<KindRule> read_kind_table(const std::vector<RuleFile>& classify_rules);

// The table in the rule cache's binary form (core/binio.hpp) and back: the app keeps it in the
// rule cache (issue 38: parsing the YAML cost about as much as compiling the patterns). nullopt
// on any input serialize_kind_table did not write.
std::string serialize_kind_table(const std::vector<KindRule>& table);
std::optional<std::vector<KindRule>> deserialize_kind_table(std::string_view form);

class Classifier {
 public:
  // Builds the classifier from the classify/*.yaml rule files. Throws std::runtime_error naming
  // the file and rule on a bad table.
  explicit Classifier(const std::vector<RuleFile>& classify_rules);
  // The same from a table already read (read_kind_table, or the rule cache's copy of it).
  explicit Classifier(const std::vector<KindRule>& table);
  // A copy shares the compiled patterns and has match state of its own: the copy for another
  // thread (a Classifier is used by one thread at a time), without compiling the table again.
  Classifier(const Classifier& other);
  ~Classifier();
  Classifier& operator=(const Classifier&) = delete;

  // path: member path inside the bundle; head: its first bytes (up to 64 KiB).
  [[nodiscard]] Classification classify(std::string_view path, std::string_view head) const;

  // All kind ids with their descriptions, in table order.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> kinds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Host attribution. A bundle may hold several nodes; each member belongs to a "host root" (the
// path prefix of one node's files: a nested per-node archive, a per-node folder, a collector's
// output folder). The host NAME of a root comes from the strongest hint seen for it.
struct HostHint {
  std::string root;    // path prefix identifying the node's subtree ("" = the whole bundle)
  std::string host;    // host name candidate ("" when the path names none)
  int strength = 0;    // higher wins
  std::string source;  // manifest, uname, hostname, syslog, collector-dir, archive, folder,
                       // folder-candidate
  // source "folder-candidate": a folder whose name may name a node (`cl4-a2-n07`, `a2-n01`,
  // `n12`) but matches no node prefix. It is a host only when its siblings confirm it (the
  // pipeline's host split, docs/bundles.md "Hosts"); else its members belong to parent_root.
  std::string parent_root;
};

// The shape of a node-like name: every run of digits replaced by '#' (`cl4-a2-n07` ->
// `cl#-a#-n#`). Sibling folders of one shape are one layout's per-node folders.
std::string name_shape(std::string_view name);

// A folder name that may name a node but matches no node prefix: a valid host name with a letter
// and a digit, not a collector-internal folder (device-N, dev-os-N, a version like 8.0.RC3, an
// architecture or library folder).
bool maybe_node_folder(std::string_view name);

// The host root of a member path and the host name the path itself suggests, e.g.
//   "fleet/node07.tar.gz!/var/log/syslog"          -> root "fleet/node07.tar.gz", host "node07"
//   "node03/asys_output_2025.../dfx/log/..."       -> root "node03", host "node03"
//   "faultline_gpu-a12_20250508095626/cmd/uname.txt" -> root "faultline_gpu-a12_...", host
//   "gpu-a12" "asys_output_20250508095626087/dfx/..."        -> root "", host "" (single-node
//   bundle)
HostHint host_from_path(std::string_view path);

// A host name stated by the content of a member (syslog hostnames, `hostname` / uname -a output,
// manifest.json "host"). root is filled from host_from_path(path). Empty host when none.
HostHint host_from_content(std::string_view kind, std::string_view path, std::string_view head);

}  // namespace faultline::classify
