// Runtime versions of the libraries faultline is linked with (faultline --version): what the
// loader resolved, not the headers it was built against.
#include <archive.h>
#include <hs/hs.h>
#include <sqlite3.h>
#include <zstd.h>

#include "faultline/app/app.hpp"

namespace faultline::app {

std::vector<std::pair<std::string, std::string>> library_versions() {
  std::string archive = archive_version_details();  // "libarchive 3.6.2 zlib/1.2.13 ..."
  if (archive.rfind("libarchive ", 0) == 0) archive.erase(0, 11);
  return {{"hyperscan", hs_version()},  // Vectorscan (arm64) answers with its own version
          {"libarchive", archive},
          {"sqlite", sqlite3_libversion()},
          {"zstd", ZSTD_versionString()}};
}

}  // namespace faultline::app
