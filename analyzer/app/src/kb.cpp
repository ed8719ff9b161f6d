// The ascend-fd knowledge base at run time: where an installed one is found, and its import
// into a signature pack (docs/faults.md, "The ascend-fd knowledge base as a pack").
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "faultline/app/app.hpp"

namespace faultline::app {

namespace fs = std::filesystem;

namespace {

void split_into(const char* v, std::vector<fs::path>& out) {
  if (v == nullptr) return;
  std::string s(v);
  size_t start = 0;
  while (start <= s.size()) {
    const size_t c = s.find(':', start);
    const std::string part =
        s.substr(start, c == std::string::npos ? std::string::npos : c - start);
    if (!part.empty()) out.emplace_back(part);
    if (c == std::string::npos) break;
    start = c + 1;
  }
}

// dir/lib/python3*/{site,dist}-packages, dir/lib64/...
void python_libs(const fs::path& prefix, std::vector<fs::path>& out) {
  for (const char* lib : {"lib", "lib64"}) {
    std::error_code ec;
    const fs::path l = prefix / lib;
    if (!fs::is_directory(l, ec)) continue;
    std::vector<fs::path> found;
    for (fs::directory_iterator it(l, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string n = it->path().filename().string();
      if (n.rfind("python3", 0) != 0) continue;
      for (const char* sp : {"site-packages", "dist-packages"}) found.push_back(it->path() / sp);
    }
    std::sort(found.begin(), found.end());
    std::reverse(found.begin(), found.end());  // newest Python first
    out.insert(out.end(), found.begin(), found.end());
  }
  out.push_back(prefix / "lib" / "python3" / "dist-packages");  // Debian's python3-* packages
}

}  // namespace

std::vector<fs::path> kb_search_dirs() {
  std::vector<fs::path> out;
  if (const char* p = std::getenv("FAULTLINE_KB_PATH"); p != nullptr) {
    split_into(p, out);
    return out;
  }
  split_into(std::getenv("PYTHONPATH"), out);
  for (const char* env : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* v = std::getenv(env); v && *v) python_libs(v, out);
  std::vector<fs::path> prefixes = {"/usr/local", "/usr"};
  if (const char* h = std::getenv("HOME"); h && *h) {
    prefixes.push_back(fs::path(h) / ".local");
    for (const char* c : {"miniconda3", "anaconda3", ".conda"}) prefixes.push_back(fs::path(h) / c);
    std::error_code ec;
    const fs::path pyenv = fs::path(h) / ".pyenv" / "versions";
    for (fs::directory_iterator it(pyenv, ec), end; !ec && it != end; it.increment(ec))
      prefixes.push_back(it->path());
  }
  for (const char* p : {"/opt/conda", "/opt/miniconda3", "/opt/anaconda3", "/root/miniconda3",
                        "/usr/local/python3"})
    prefixes.emplace_back(p);
  for (const auto& p : prefixes) python_libs(p, out);
  // de-duplicate, keeping the first
  std::vector<fs::path> uniq;
  std::set<std::string> seen;
  for (auto& p : out)
    if (seen.insert(p.lexically_normal().string()).second) uniq.push_back(p);
  return uniq;
}

fs::path find_kb() {
  for (const auto& d : kb_search_dirs()) {
    std::error_code ec;
    const fs::path f = d / "ascend_fd" / "configuration" / "kg-config.json";
    if (fs::is_regular_file(f, ec)) return f;
  }
  return {};
}

fs::path choose_kb(const Options& o, std::string* how) {
  how->clear();
  if (o.no_kb) return {};
  if (!o.kb_file.empty()) {
    *how = "--kb";
    return o.kb_file;
  }
  if (const char* v = std::getenv("FAULTLINE_KB"); v != nullptr) {
    const std::string s(v);
    if (s.empty() || s == "none") return {};
    *how = "FAULTLINE_KB";
    return s;
  }
  fs::path f = find_kb();
  if (!f.empty()) *how = "found";
  return f;
}

std::string import_kb(std::string_view json_text, const std::string& family,
                      tag::ImportStats* stats) {
  tag::ImportOptions o;
  o.family = family;
  for (const auto& f : embedded_rule_views())
    if (f.path == "kb/ascend-fd.yaml") o.aliases = tag::parse_kb_aliases(f.text);
  // the native signatures the aliases name: only their packs are parsed
  std::set<std::string> packs;
  for (const auto& [code, id] : o.aliases)
    packs.insert("signatures/" + id.substr(0, id.find('.')) + ".yaml");
  std::vector<RuleFile> files;
  for (const auto& f : embedded_rule_views())
    if (packs.count(std::string(f.path)))
      files.push_back({std::string(f.path), std::string(f.text)});
  const tag::RuleSet native = tag::load_signatures(files);
  o.native = &native;
  return tag::import_faultdiag(json_text, o, stats);
}

}  // namespace faultline::app
