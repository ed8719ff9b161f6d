// Rule files (rules/ tree) as text. The binary embeds every file of rules/ at build time; `--rules
// DIR` adds files that override embedded ones with the same relative path or the same ids.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace faultline {

// One rule file. Its text is a view: of the binary's bytes for an embedded file (nothing is
// copied: the ~2.3 MB of built-in rules were copied into strings on every run, ~600 page faults
// of a small run's ~5,200), else of a string the RuleFile and its copies share.
class RuleFile {
 public:
  RuleFile() = default;
  RuleFile(std::string file_path, std::string file_text)
      : path(std::move(file_path)),
        own_(std::make_shared<const std::string>(std::move(file_text))),
        text(*own_) {}
  // An embedded file: `bytes` must outlive every copy (the binary's bytes do).
  static RuleFile embedded(std::string_view file_path, std::string_view bytes) {
    RuleFile f;
    f.path = std::string(file_path);
    f.text = bytes;
    return f;
  }

  std::string path;  // relative to the rules root, '/'-separated: "signatures/hccl.yaml"

 private:
  std::shared_ptr<const std::string> own_;  // declared before `text`: initialised first

 public:
  std::string_view text;
};

// A rule file embedded in the binary: views of its bytes there (generated at build time from
// rules/, sorted by path). Nothing is copied to read them.
struct RuleView {
  std::string_view path;
  std::string_view text;
};
const std::vector<RuleView>& embedded_rule_views();

// The rules embedded in the binary, as RuleFiles (views of the binary's bytes).
const std::vector<RuleFile>& embedded_rules();

// The embedded files whose path starts with prefix only (views, nothing copied).
std::vector<RuleFile> embedded_rules_under(std::string_view prefix);

// The rules digests (app::rules_digest) of the embedded files, computed at build time
// (cmake/EmbedFiles.cmake): a run without --rules DIR and knowledge base hashes no rule text.
struct EmbeddedDigests {
  std::string_view all;         // roots {signatures/, every other file}: the run's rules digest
  std::string_view signatures;  // root {signatures/}: the parsed packs' cache key
  std::string_view codes;       // root {codes/}: the code tables' cache key
};
const EmbeddedDigests& embedded_digests();

// Reads every *.yaml / *.yml file under dir (recursively), paths relative to dir. Throws
// std::runtime_error naming the file when one cannot be read.
std::vector<RuleFile> read_rule_dir(const std::filesystem::path& dir);

// Embedded rules, then the files of each extra dir; a later file with the same relative path
// replaces the earlier one. Result sorted by path.
std::vector<RuleFile> merged_rules(const std::vector<std::filesystem::path>& extra_dirs);

// Files whose path starts with prefix ("signatures/", "diagnoses/", "compat/", "classify/").
std::vector<RuleFile> rules_under(const std::vector<RuleFile>& all, const std::string& prefix);

}  // namespace faultline
