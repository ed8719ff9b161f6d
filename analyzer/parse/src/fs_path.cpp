#include "faultline/parse/fs_path.hpp"

#include <vector>

namespace faultline::parse {

std::string host_path_of_member(std::string_view member_path) {
  std::string_view p = member_path;
  if (const size_t bang = p.rfind("!/"); bang != std::string_view::npos) p = p.substr(bang + 2);
  static constexpr std::string_view kRoots[] = {"lib", "lib64", "usr", "etc",  "opt",  "var",
                                                "dev", "proc",  "sys", "boot", "home", "root",
                                                "run", "srv",   "mnt", "data", "tmp"};
  // npu_log_collect's `mod_info/` holds a copy of /lib/modules/$(uname -r)/ (modules.dep,
  // updates/, updates/dkms/ links): a path below it is relative to the module directory, the same
  // as the paths modules.dep names (`updates/dkms/drv_pcie_host.ko`)
  for (size_t at = 0; (at = p.find("mod_info/", at)) != std::string_view::npos; ++at) {
    if (at != 0 && p[at - 1] != '/') continue;
    const std::string_view rest = p.substr(at + 9);
    for (std::string_view top : {"updates/", "extra/", "weak-updates/", "kernel/"})
      if (rest.rfind(top, 0) == 0) return std::string(rest);
  }
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
