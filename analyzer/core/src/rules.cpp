#include "faultline/core/rules.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace faultline {

std::vector<RuleFile> read_rule_dir(const std::filesystem::path& dir) {
  std::vector<RuleFile> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw std::runtime_error(dir.string() + ": not a directory");
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw std::runtime_error(dir.string() + ": " + ec.message());
    if (!it->is_regular_file()) continue;
    const auto ext = it->path().extension().string();
    if (ext != ".yaml" && ext != ".yml") continue;
    std::ifstream in(it->path(), std::ios::binary);
    if (!in) throw std::runtime_error(it->path().string() + ": cannot be read");
    std::ostringstream ss;
    ss << in.rdbuf();
    out.push_back({std::filesystem::relative(it->path(), dir).generic_string(), ss.str()});
  }
  std::sort(out.begin(), out.end(),
            [](const RuleFile& a, const RuleFile& b) { return a.path < b.path; });
  return out;
}

const std::vector<RuleFile>& embedded_rules() {
  static const std::vector<RuleFile> files = [] {
    std::vector<RuleFile> out;
    out.reserve(embedded_rule_views().size());
    for (const auto& v : embedded_rule_views()) out.push_back(RuleFile::embedded(v.path, v.text));
    return out;
  }();
  return files;
}

std::vector<RuleFile> embedded_rules_under(std::string_view prefix) {
  std::vector<RuleFile> out;
  for (const auto& v : embedded_rule_views())
    if (v.path.starts_with(prefix)) out.push_back(RuleFile::embedded(v.path, v.text));
  return out;
}

std::vector<RuleFile> merged_rules(const std::vector<std::filesystem::path>& extra_dirs) {
  if (extra_dirs.empty()) return embedded_rules();  // sorted by path already
  std::map<std::string, RuleFile> m;
  for (const auto& v : embedded_rule_views())
    m[std::string(v.path)] = RuleFile::embedded(v.path, v.text);
  for (const auto& d : extra_dirs)
    for (auto& f : read_rule_dir(d)) m[f.path] = std::move(f);
  std::vector<RuleFile> out;
  out.reserve(m.size());
  for (auto& [p, f] : m) out.push_back(std::move(f));
  return out;
}

std::vector<RuleFile> rules_under(const std::vector<RuleFile>& all, const std::string& prefix) {
  std::vector<RuleFile> out;
  for (const auto& f : all)
    if (f.path.rfind(prefix, 0) == 0) out.push_back(f);
  return out;
}

}  // namespace faultline
