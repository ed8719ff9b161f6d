// Runtime versions of the libraries faultline is linked with (faultline --version): what the
// loader resolved, not the headers it was built against. The regex engine's line is named by the
// library faultline was built with (FAULTLINE_REGEX_ENGINE, from CMake: "hyperscan", or
// "vectorscan" on arm64), since the two share libhs's name, headers and soname.
#include <archive.h>
#include <hs/hs.h>
#include <sqlite3.h>
#include <zstd.h>

#include "faultline/app/app.hpp"

#ifndef FAULTLINE_REGEX_ENGINE
#error "FAULTLINE_REGEX_ENGINE (hyperscan or vectorscan) is set by analyzer/app/CMakeLists.txt"
#endif

namespace faultline::app {

std::vector<std::pair<std::string, std::string>> library_versions() {
  std::string archive = archive_version_details();  // "libarchive 3.6.2 zlib/1.2.13 ..."
  if (archive.rfind("libarchive ", 0) == 0) archive.erase(0, 11);
  // "5.4.0 2021-01-26" (Hyperscan), "5.4.9 " (Debian's Vectorscan: an empty build date)
  std::string hs = hs_version();
  while (!hs.empty() && hs.back() == ' ') hs.pop_back();
  return {{FAULTLINE_REGEX_ENGINE, hs},
          {"libarchive", archive},
          {"sqlite", sqlite3_libversion()},
          {"zstd", ZSTD_versionString()}};
}

}  // namespace faultline::app
