#include "faultline/parse/fs_path.hpp"

#include <vector>

namespace faultline::parse {

std::string host_path_of_member(std::string_view member_path) {
  std::string_view p = member_path;
  if (const size_t bang = p.rfind("!/"); bang != std::string_view::npos) p = p.substr(bang + 2);
  static constexpr std::string_view kRoots[] = {"lib", "lib64", "usr", "etc",  "opt",  "var",
                                                "dev", "proc",  "sys", "boot", "home", "root",
                                                "run", "srv",   "mnt", "data", "tmp"};
  size_t start = 0;
  while (start < p.size()) {
    const size_t slash = p.find('/', start);
    const std::string_view comp =
        p.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (slash == std::string_view::npos) break;  // the file name itself is no root
    for (auto r : kRoots)
      if (comp == r) return "/" + std::string(p.substr(start));
    start = slash + 1;
  }
  return std::string(p);
}

}  // namespace faultline::parse
