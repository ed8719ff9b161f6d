// Rule files (rules/ tree) as text. The binary embeds every file of rules/ at build time; `--rules
// DIR` adds files that override embedded ones with the same relative path or the same ids.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace faultline {

struct RuleFile {
  std::string path;  // relative to the rules root, '/'-separated: "signatures/hccl.yaml"
  std::string text;
};

// The rules embedded in the binary (generated at build time from rules/).
const std::vector<RuleFile>& embedded_rules();

// Reads every *.yaml / *.yml file under dir (recursively), paths relative to dir. Throws
// std::runtime_error naming the file when one cannot be read.
std::vector<RuleFile> read_rule_dir(const std::filesystem::path& dir);

// Embedded rules, then the files of each extra dir; a later file with the same relative path
// replaces the earlier one. Result sorted by path.
std::vector<RuleFile> merged_rules(const std::vector<std::filesystem::path>& extra_dirs);

// Files whose path starts with prefix ("signatures/", "diagnoses/", "compat/", "classify/").
std::vector<RuleFile> rules_under(const std::vector<RuleFile>& all, const std::string& prefix);

}  // namespace faultline
